import { describe, expect, it } from 'vitest';
import { advancePosition, prngDebug, samplerThreads, sampleTokens, type SamplerOptions } from '../../src/gpu/kernels/sampling';
import type { Dispatch, GpuRuntime } from '../../src/gpu/runtime';
import { sampleStep, sampleToken, SEQ_ENDED, SEQ_RUNNING, SEQ_TRUNCATED, uniformAt } from '../../src/model/reference/sampling';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, uploadU32 } from './harness';

const PAD = 0;
const EOS = 1;
/** Token-buffer poison: never a valid id, so an unwritten or wrongly written slot shows. */
const UNSET = 0xffffffff;
/** exp(−1e4) is exactly 0 in f32 and f64: a token with this logit has probability 0. */
const NEVER = -1e4;

/** GPU buffers and their float64-twin copies for one batched decode run. */
class Decode {
  readonly tokens: Uint32Array;
  readonly seqs: Uint32Array;
  readonly logp: Float64Array;
  readonly entropy: Float64Array;
  pos: number;
  private bufs!: { logits: GPUBuffer; tokens: GPUBuffer; state: GPUBuffer; seqs: GPUBuffer; logp: GPUBuffer; entropy: GPUBuffer };
  private step!: Dispatch[];

  constructor(
    readonly rt: GpuRuntime,
    readonly B: number,
    readonly V: number,
    readonly contextLength: number,
    readonly tokenStride: number,
    readonly opts: SamplerOptions,
    prompts: number[][],
    startPos: number,
  ) {
    this.tokens = new Uint32Array(B * tokenStride).fill(UNSET);
    this.seqs = new Uint32Array(B * 4);
    prompts.forEach((pr, b) => {
      this.tokens.set(pr, b * tokenStride);
      this.seqs[b * 4] = pr.length;
      this.seqs[b * 4 + 3] = B - 1 - b; // row ids keying the draws, reversed against the slots
    });
    this.logp = new Float64Array(B * tokenStride).fill(NaN);
    this.entropy = new Float64Array(B * tokenStride).fill(NaN);
    this.pos = startPos;
  }

  async init(): Promise<this> {
    const { rt, B, V, tokenStride, contextLength } = this;
    this.bufs = {
      logits: poisoned(rt, 'logits', B * V),
      tokens: uploadU32(rt, 'tokens', this.tokens),
      state: uploadU32(rt, 'state', [this.pos]),
      seqs: uploadU32(rt, 'seqs', this.seqs),
      logp: poisoned(rt, 'logp', B * tokenStride),
      entropy: poisoned(rt, 'entropy', B * tokenStride),
    };
    const { logits, tokens, state, seqs, logp, entropy } = this.bufs;
    const s = await sampleTokens(rt, { logits, tokens, state, seqs, sampleLogp: logp, sampleEntropy: entropy, B, V, tokenStride, contextLength, opts: this.opts });
    this.step = [s.dispatch, await advancePosition(rt, { state })];
    return this;
  }

  /** `steps` decode steps with the same logits, replayed in one submission, and on the twin. */
  run(logits: Float64Array, steps = 1): void {
    this.rt.write(this.bufs.logits, Float32Array.from(logits));
    const lf = Float32Array.from(logits);
    const list: Dispatch[] = [];
    for (let i = 0; i < steps; i++) {
      list.push(...this.step);
      sampleStep({ logits: lf, tokens: this.tokens, pos: this.pos++, seqs: this.seqs, sampleLogp: this.logp, sampleEntropy: this.entropy, B: this.B, V: this.V, tokenStride: this.tokenStride, contextLength: this.contextLength, opts: this.opts });
    }
    this.rt.run(list);
  }

  readTokens(): Promise<Uint32Array> {
    return this.rt.readU32(this.bufs.tokens, 0, this.tokens.length);
  }

  /** Reads everything back and asserts it equals the twin (tokens/seqs/pos exact, floats < 1e-4 rel). */
  async expectMatchesTwin(msg: string): Promise<{ tokens: Uint32Array; seqs: Uint32Array; logp: Float32Array }> {
    const { rt } = this;
    const tokens = await rt.readU32(this.bufs.tokens, 0, this.tokens.length);
    const seqs = await rt.readU32(this.bufs.seqs, 0, this.seqs.length);
    const state = await rt.readU32(this.bufs.state, 0, 1);
    const logp = await rt.readF32(this.bufs.logp, 0, this.logp.length);
    const entropy = await rt.readF32(this.bufs.entropy, 0, this.entropy.length);
    expect(Array.from(tokens), `tokens, ${msg}`).toEqual(Array.from(this.tokens));
    expect(Array.from(seqs), `seqs, ${msg}`).toEqual(Array.from(this.seqs));
    expect(state[0], `pos, ${msg}`).toBe(this.pos);
    expectClose(logp, this.logp, `logp, ${msg}`);
    expectClose(entropy, this.entropy, `entropy, ${msg}`);
    return { tokens, seqs, logp };
  }
}

/** NaN exactly where the twin has NaN (never written), else relative error < 1e-4 (floor 1e-2). */
function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, msg: string): void {
  for (let i = 0; i < want.length; i++) {
    const ok = Number.isNaN(want[i]) ? Number.isNaN(got[i]) : Math.abs(got[i] - want[i]) / Math.max(Math.abs(want[i]), 1e-2) < 1e-4;
    // One assertion at the first mismatch (thousands of passing expect() calls are slow).
    if (!ok) expect(got[i], `${msg}: [${i}]`).toBe(want[i]);
  }
}

function randomPrompts(rng: Rng, B: number, V: number, lens: number[]): number[][] {
  return Array.from({ length: B }, (_, b) => Array.from({ length: lens[b % lens.length] }, () => rng.int(Math.min(2, V - 1), V - 1)));
}

describe('sampler PRNG', () => {
  it('GPU draws are bit-identical to uniformAt and look uniform', async () => {
    const rt = await gpu();
    const B = 37;
    const positions = 301;
    const out = poisoned(rt, 'u', B * positions);
    for (const seed of [0, 1, 0xffffffff, freshSeed()]) {
      rt.run([await prngDebug(rt, { out, B, positions, seed })]);
      const got = await rt.readF32(out, 0, B * positions);
      let sum = 0;
      let below = 0;
      for (let b = 0; b < B; b++) {
        for (let pos = 0; pos < positions; pos++) {
          const want = uniformAt(seed, b, pos);
          const g = got[b * positions + pos];
          if (g !== want) expect(g, `seed ${seed} b ${b} pos ${pos}`).toBe(want);
          sum += want;
          if (want < 0.25) below++;
        }
      }
      const n = B * positions;
      expect(got.every((u) => u >= 0 && u < 1)).toBe(true);
      expect(Math.abs(sum / n - 0.5), `mean, seed ${seed}`).toBeLessThan(5 * Math.sqrt(1 / 12 / n));
      expect(Math.abs(below / n - 0.25), `P(u<1/4), seed ${seed}`).toBeLessThan(5 * Math.sqrt(0.25 * 0.75 / n));
      expect(new Set(got).size, `distinct draws, seed ${seed}`).toBeGreaterThan(n * 0.99);
    }
  });
});

describe('sampleTokens vs float64 twin', () => {
  for (const V of [2, 32, 97]) {
    for (const temperature of [1, 0.6]) {
      for (const topP of [1, 0.9, 0.3]) {
        it(`B=7 V=${V} τ=${temperature} topP=${topP}, 6 steps of fresh random logits`, async () => {
          const rt = await gpu();
          const seed = freshSeed();
          const rng = new Rng(seed);
          const B = 7;
          const opts: SamplerOptions = { temperature, topP, seed, maxResponseLength: 4, eosId: EOS, padId: PAD };
          const d = await new Decode(rt, B, V, 9, 11, opts, randomPrompts(rng, B, V, [1, 2, 3, 5, 1, 4, 2]), 0).init();
          for (let step = 0; step < 6; step++) d.run(randn(rng, B * V, 2));
          await d.expectMatchesTwin(`seed ${seed}`);
        });
      }
    }
  }

  for (const topP of [1, 0.95]) {
    it(`B=3 V=1031 (${samplerThreads(1031)} threads per sequence) topP=${topP}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const B = 3;
      const V = 1031;
      expect(samplerThreads(V)).toBe(64);
      const opts: SamplerOptions = { temperature: 1, topP, seed, maxResponseLength: 4, eosId: EOS, padId: PAD };
      const d = await new Decode(rt, B, V, 5, 5, opts, randomPrompts(rng, B, V, [1, 2, 1]), 0).init();
      for (let step = 0; step < 3; step++) d.run(randn(rng, B * V, 3));
      await d.expectMatchesTwin(`seed ${seed}`);
    });
  }

  it('breaks exact logit ties by lower index under top-p', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const B = 9;
    const V = 32;
    for (const topP of [0.5, 0.13]) {
      const opts: SamplerOptions = { temperature: 0.8, topP, seed, maxResponseLength: 8, eosId: V - 1, padId: PAD };
      const d = await new Decode(rt, B, V, 10, 10, opts, randomPrompts(rng, B, V, [1]), 0).init();
      for (let step = 0; step < 5; step++) {
        // Only three distinct logit values: most tokens tie with many others.
        d.run(Float64Array.from({ length: B * V }, () => rng.int(0, 2) * 0.5));
      }
      await d.expectMatchesTwin(`seed ${seed} topP ${topP}`);
    }
  });

  it('the twin keeps a tie group by index: the lower-index tied token is kept first', () => {
    // p ≈ [0.25, 0.25, 0.25, 0.25]; topP 0.3 keeps the first two ranked (indices 0 and 1) only.
    for (let k = 0; k < 50; k++) {
      const r = sampleToken([1, 1, 1, 1], 1, 0.3, k / 50);
      expect(r.token).toBe(k / 50 < 0.5 ? 0 : 1);
      expect(r.logp).toBeCloseTo(Math.log(0.25), 12);
      expect(r.entropy).toBeCloseTo(Math.log(4), 12);
    }
  });
});

describe('decode state machine', () => {
  it('prompt phase, EOS stop, truncation at maxResponseLength and at contextLength, PAD after stop', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const B = 5;
    const V = 6;
    const contextLength = 10;
    const tokenStride = 12;
    const maxResponseLength = 4;
    const opts: SamplerOptions = { temperature: 1, topP: 1, seed, maxResponseLength, eosId: EOS, padId: PAD };
    const certain = (tok: number) => Array.from({ length: V }, (_, j) => (j === tok ? 0 : NEVER));
    const rows = [
      certain(EOS), // 0: ends at its first response token
      certain(3), // 1: never EOS → truncated at maxResponseLength
      certain(4), // 2: long prompt → truncated at the context end
      Array.from({ length: V }, (_, j) => (j === EOS ? NEVER : rng.normal())), // 3: random, never EOS
      Array.from({ length: V }, () => rng.normal()), // 4: random, may stop anywhere
    ];
    const promptLens = [2, 3, 8, 1, 2];
    const prompts = promptLens.map((n) => Array.from({ length: n }, () => rng.int(2, V - 1)));
    const d = await new Decode(rt, B, V, contextLength, tokenStride, opts, prompts, 0).init();
    // Positions 0 .. contextLength−2: the last step writes position contextLength−1.
    d.run(Float64Array.from(rows.flat()), contextLength - 1);
    const { tokens, seqs, logp } = await d.expectMatchesTwin(`seed ${seed}`);

    const row = (b: number) => Array.from(tokens.subarray(b * tokenStride, (b + 1) * tokenStride));
    const tail = [UNSET, UNSET]; // positions ≥ contextLength are never written
    const pads = (n: number) => new Array(n).fill(PAD);
    expect(row(0)).toEqual([...prompts[0], EOS, ...pads(7), ...tail]);
    expect(Array.from(seqs.subarray(0, 3))).toEqual([2, 1, SEQ_ENDED]);
    expect(row(1)).toEqual([...prompts[1], 3, 3, 3, 3, ...pads(3), ...tail]);
    expect(Array.from(seqs.subarray(4, 7))).toEqual([3, maxResponseLength, SEQ_TRUNCATED]);
    expect(row(2)).toEqual([...prompts[2], 4, 4, ...tail]);
    expect(Array.from(seqs.subarray(8, 11))).toEqual([8, 2, SEQ_TRUNCATED]);
    expect(row(3).slice(5, 10)).toEqual(pads(5));
    expect(row(3).slice(1, 5).every((t) => t !== EOS && t < V)).toBe(true);
    expect(Array.from(seqs.subarray(12, 15))).toEqual([1, maxResponseLength, SEQ_TRUNCATED]);
    expect(seqs[18]).not.toBe(SEQ_RUNNING);
    // Certain tokens have log-prob 0; prompt slots are never written (still NaN); PAD slots are 0.
    expect(logp[0 * tokenStride + 2]).toBeCloseTo(0, 6);
    expect(Number.isNaN(logp[2 * tokenStride + 7])).toBe(true);
    expect(logp[2 * tokenStride + 8]).toBeCloseTo(0, 6);
    expect(logp[1 * tokenStride + 9]).toBe(0);
  });

  it('update() changes the seed and options of a recorded dispatch', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const B = 16;
    const V = 8;
    const opts: SamplerOptions = { temperature: 1, topP: 1, seed, maxResponseLength: 3, eosId: EOS, padId: PAD };
    const logits = randn(rng, B * V, 0.5);
    const d = await new Decode(rt, B, V, 4, 4, opts, randomPrompts(rng, B, V, [1]), 0).init();
    const s = await sampleTokens(rt, {
      logits: rt.buffer('logits', 0),
      tokens: rt.buffer('tokens', 0),
      state: rt.buffer('state', 0),
      seqs: rt.buffer('seqs', 0),
      sampleLogp: rt.buffer('logp', 0),
      sampleEntropy: rt.buffer('entropy', 0),
      B,
      V,
      tokenStride: 4,
      contextLength: 4,
      opts,
    });
    const changed: SamplerOptions = { ...opts, seed: (seed + 1) >>> 0, temperature: 0.5, topP: 0.7 };
    s.update(rt, changed);
    // Run the updated dispatch by hand at pos 0, and the twin with the changed options.
    rt.write(rt.buffer('logits', 0), Float32Array.from(logits));
    rt.run([s.dispatch]);
    sampleStep({ logits: Float32Array.from(logits), tokens: d.tokens, pos: 0, seqs: d.seqs, sampleLogp: d.logp, sampleEntropy: d.entropy, B, V, tokenStride: 4, contextLength: 4, opts: changed });
    await d.expectMatchesTwin(`seed ${seed}`);
  });

  it('rejects invalid options', async () => {
    const rt = await gpu();
    const b = (n: string) => rt.buffer(n, 64);
    const base = { logits: b('l'), tokens: b('t'), state: b('s'), seqs: b('q'), sampleLogp: b('lp'), sampleEntropy: b('e'), B: 1, V: 4, tokenStride: 4, contextLength: 4 };
    const opts: SamplerOptions = { temperature: 1, topP: 1, seed: 0, maxResponseLength: 2, eosId: 1, padId: 0 };
    await expect(sampleTokens(rt, { ...base, opts: { ...opts, temperature: 0 } })).rejects.toThrow(/temperature/);
    await expect(sampleTokens(rt, { ...base, opts: { ...opts, topP: 0 } })).rejects.toThrow(/topP/);
    await expect(sampleTokens(rt, { ...base, opts: { ...opts, eosId: 4 } })).rejects.toThrow(/eosId/);
    await expect(sampleTokens(rt, { ...base, contextLength: 5, opts })).rejects.toThrow(/tokenStride/);
  });
});

describe('sampling statistics', () => {
  for (const { temperature, topP } of [
    { temperature: 0.7, topP: 1 },
    { temperature: 1.3, topP: 0.8 },
  ]) {
    it(`token frequencies match the (top-p renormalised) softmax, τ=${temperature} topP=${topP}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const B = 3000;
      const V = 5;
      const row = [0.3, -1, 1.2, 0.0, 0.7];
      const opts: SamplerOptions = { temperature, topP, seed, maxResponseLength: 4, eosId: V - 1, padId: PAD };
      const d = await new Decode(rt, B, V, 4, 4, opts, new Array(B).fill([2]), 0).init();
      d.run(Float64Array.from({ length: B * V }, (_, i) => row[i % V]));
      // Counts only: thousands of exact twin comparisons would make the f32-vs-f64 boundary
      // case (u within ~1e-7 of a cumulative sum) a real source of flakes.
      const tokens = await d.readTokens();
      // Expected: softmax(row/τ), keeping tokens whose higher-ranked mass is < topP, renormalised.
      const e = row.map((l) => Math.exp(l / temperature));
      const z = e.reduce((a, x) => a + x, 0);
      const probs = e.map((x) => x / z);
      const order = [...probs.keys()].sort((a, b) => probs[b] - probs[a]);
      const kept = new Array(V).fill(false);
      let before = 0;
      for (const j of order) {
        kept[j] = before < topP;
        before += probs[j];
      }
      const keptMass = probs.reduce((a, p, j) => a + (kept[j] ? p : 0), 0);
      const counts = new Array(V).fill(0);
      for (let b = 0; b < B; b++) counts[tokens[b * 4 + 1]]++;
      for (let j = 0; j < V; j++) {
        const p = kept[j] ? probs[j] / keptMass : 0;
        const sigma = Math.sqrt(B * p * (1 - p));
        expect(Math.abs(counts[j] - B * p), `token ${j}: ${counts[j]} vs ${B * p}, seed ${seed}`).toBeLessThanOrEqual(5 * sigma + 1e-9);
      }
      if (topP < 1) expect(kept.some((k) => !k)).toBe(true);
    });
  }
});
