/**
 * The whole policy on the CPU engine (CpuPolicy: every kernel composed by the recorded programs)
 * against the float64 reference — logits, per-token log-prob and entropy, GRPO and CE loss stats,
 * every parameter's gradient, three clipped AdamW steps, sampling against full-prefix reference
 * forwards — and its determinism: replay, thread count, and the single-threaded build.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { layoutParams, validateModelConfig, type ModelConfig } from '../../src/model/config';
import { CpuPolicy, wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import type { UpdateBatch } from '../../src/model/engine';
import { initParams } from '../../src/model/init';
import { nextTokenTargets, referenceCrossEntropy, referenceForward, referencePolicyLoss, referenceTrainStep, type PolicyLossInputs } from '../../src/model/reference/model';
import { logSoftmaxEntropyForward, type GrpoLossOptions } from '../../src/model/reference/ops';
import { sampleToken, uniformAt } from '../../src/model/reference/sampling';
import { Rng } from '../../src/util/rng';
import { freshSeed, relErr } from './harness';

const CASES: { name: string; cfg: ModelConfig }[] = [
  { name: 'rmsnorm, tied', cfg: validateModelConfig({ vocabSize: 11, contextLength: 9, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true }) },
  { name: 'layernorm, untied', cfg: validateModelConfig({ vocabSize: 13, contextLength: 8, nLayers: 2, dModel: 8, nHeads: 2, mlpRatio: 3, norm: 'layernorm', tiedEmbeddings: false }) },
];
const B = 3;
const T = 7;
const TEMP = 0.8;
const LOSS: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.05, klCoef: 0.1, klType: 'k3' };
// eps 1e-6 (as in the GPU test): Adam divides by |g|, so f32 round-off on a gradient that is exactly
// zero in float64 (the attention key bias is softmax-invariant) would otherwise become a full step.
const ADAMW = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 1 };

const backends = new Map<string, Promise<WasmBackend>>();
function backend(threads: number, build?: 'single'): Promise<WasmBackend> {
  const key = `${threads}${build ?? ''}`;
  let b = backends.get(key);
  if (!b) {
    b = wasmBackend({ threads, build });
    backends.set(key, b);
  }
  return b;
}
afterAll(async () => {
  for (const b of backends.values()) (await b).destroy();
  backends.clear();
});

function randomSetup(cfg: ModelConfig, seed: number) {
  const rng = new Rng(seed);
  const layout = layoutParams(cfg);
  const p32 = initParams(cfg, seed);
  for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.2 * rng.normal();
  const tokens = Int32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = nextTokenTargets(tokens, B, T);
  const params = Float64Array.from(p32);
  const { logits } = referenceForward(cfg, params, tokens, B, T);
  const { logp } = logSoftmaxEntropyForward(logits, targets, B * T, cfg.vocabSize, TEMP);
  const mask = new Float64Array(B * T);
  const advantages = new Float64Array(B * T);
  for (let b = 0; b < B; b++) {
    const a = rng.normal();
    for (let t = 2; t < T - 1; t++) {
      mask[b * T + t] = 1;
      advantages[b * T + t] = a;
    }
  }
  const count = mask.reduce((s, x) => s + x, 0);
  const inputs: PolicyLossInputs = {
    oldLogp: Float64Array.from(Float32Array.from(logp.map((x) => x + 0.3 * rng.normal()))),
    refLogp: Float64Array.from(Float32Array.from(logp.map((x) => x + 0.3 * rng.normal()))),
    advantages: Float64Array.from(Float32Array.from(advantages)),
    weights: Float64Array.from(Float32Array.from(mask.map((m) => m / count))),
    mask,
  };
  const batch: UpdateBatch = {
    rows: B,
    T,
    temperature: TEMP,
    tokens: Uint32Array.from(tokens),
    targets: Uint32Array.from(targets),
    mask: Float32Array.from(mask),
    weights: Float32Array.from(inputs.weights),
    advantages: Float32Array.from(inputs.advantages),
    oldLogp: Float32Array.from(inputs.oldLogp),
    refLogp: Float32Array.from(inputs.refLogp!),
  };
  return { p32, params, tokens, targets, inputs, batch };
}

async function policy(cfg: ModelConfig, p32: Float32Array, threads = 2, build?: 'single'): Promise<CpuPolicy> {
  const pol = (await (await backend(threads, build)).createPolicy(cfg, 'test')) as CpuPolicy;
  pol.setParams(p32);
  pol.resetAdamState();
  return pol;
}

describe('CPU policy vs float64 reference', () => {
  for (const { name, cfg } of CASES) {
    it(`forward, GRPO loss and every gradient match (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const pol = await policy(cfg, s.p32);
      const stats = await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW, update: false });
      const ref = referencePolicyLoss(cfg, s.params, s.tokens, B, T, TEMP, s.inputs, LOSS);
      const msg = `seed ${seed}`;
      expect(relErr(pol.lastLogits(B, T), referenceForward(cfg, s.params, s.tokens, B, T).logits), msg).toBeLessThan(1e-4);
      const fwd = await pol.forward(s.batch.tokens, s.batch.targets, B, T, TEMP);
      expect(relErr(fwd.logp, ref.logp), msg).toBeLessThan(1e-4);
      expect(relErr(fwd.entropy, ref.entropy), msg).toBeLessThan(1e-4);
      expect(relErr([stats.loss, stats.pgLoss, stats.klSum, stats.entSum], [ref.loss, ref.pgLoss, ref.klSum, ref.entSum]), msg).toBeLessThan(1e-4);
      expect(stats.clipfrac).toBeCloseTo(ref.clipfrac, 6);
      expect(stats.clipfracLower).toBeCloseTo(ref.clipfracLower, 6);
      expect(stats.ppoKl).toBeCloseTo(ref.ppoKl, 5);
      expect(stats.maskCount).toBe(s.inputs.mask.reduce((a, x) => a + x, 0));
      const grads = pol.getGrads();
      for (const t of pol.layout.tensors) {
        expect(relErr(grads.subarray(t.offset, t.offset + t.size), ref.grads.subarray(t.offset, t.offset + t.size)), `${msg} grad ${t.name}`).toBeLessThan(1e-3);
      }
      let norm = 0;
      for (const x of ref.grads) norm += x * x;
      expect(stats.gradNorm).toBeCloseTo(Math.sqrt(norm), 4);
      // update: false leaves the weights alone.
      expect(Array.from(await pol.getParams())).toEqual(Array.from(s.p32));
      pol.destroy();
    });

    it(`three clipped AdamW steps give the same weights (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const pol = await policy(cfg, s.p32);
      const params = s.params.slice();
      const m = new Float64Array(params.length);
      const v = new Float64Array(params.length);
      for (let k = 1; k <= 3; k++) {
        await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: k, adamw: ADAMW });
        referenceTrainStep(cfg, params, m, v, s.tokens, B, T, TEMP, s.inputs, LOSS, { ...ADAMW, step: k });
      }
      const got = await pol.getParams();
      const diffs = Array.from(params, (x, i) => Math.abs(got[i] - x) / ADAMW.lr).sort((a, b) => a - b);
      expect(diffs[diffs.length - 1], `seed ${seed}`).toBeLessThan(0.05);
      expect(diffs[Math.floor(diffs.length * 0.99)], `seed ${seed}`).toBeLessThan(1e-3);
      expect(params.some((x, i) => Math.abs(x - s.params[i]) > ADAMW.lr * 0.5)).toBe(true);
      const adam = await pol.getAdamState();
      expect(relErr(adam.m, m), `seed ${seed}`).toBeLessThan(1e-3);
      pol.destroy();
    });

    it(`on-policy GRPO (oldLogp := this forward's logp) and SFT cross-entropy (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const pol = await policy(cfg, s.p32);
      const onPolicy = { ...s.batch, oldLogp: undefined, refLogp: undefined };
      const st = await pol.update(onPolicy, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW, update: false });
      const fwd = await pol.forward(s.batch.tokens, s.batch.targets, B, T, TEMP);
      const ref = referencePolicyLoss(cfg, s.params, s.tokens, B, T, TEMP, { ...s.inputs, oldLogp: Float64Array.from(fwd.logp), refLogp: null }, LOSS);
      expect(st.ppoKl).toBe(0);
      expect(st.clipfrac).toBe(0);
      expect(st.klSum).toBe(0);
      expect(relErr([st.loss, st.pgLoss, st.entSum], [ref.loss, ref.pgLoss, ref.entSum]), `seed ${seed}`).toBeLessThan(1e-4);
      expect(relErr(pol.getGrads(), ref.grads), `seed ${seed}`).toBeLessThan(1e-3);

      const ce = await pol.update({ ...s.batch, advantages: undefined, oldLogp: undefined, refLogp: undefined, temperature: 1 }, { kind: 'ce' }, { step: 1, adamw: ADAMW, update: false });
      const refCe = referenceCrossEntropy(cfg, s.params, s.tokens, B, T, s.inputs.weights);
      expect(relErr([ce.loss], [refCe.loss]), `seed ${seed}`).toBeLessThan(1e-4);
      expect(relErr(pol.getGrads(), refCe.grads), `seed ${seed}`).toBeLessThan(1e-3);
      pol.destroy();
    });
  }

  it('rejects malformed batches and tokens, naming the field', async () => {
    const { cfg } = CASES[0];
    const s = randomSetup(cfg, 5);
    const pol = await policy(cfg, s.p32);
    await expect(pol.update({ ...s.batch, mask: new Float32Array(3) }, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW })).rejects.toThrow(/mask has 3 entries/);
    const bad = s.batch.tokens.slice();
    bad[4] = 99;
    await expect(pol.update({ ...s.batch, tokens: bad }, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW })).rejects.toThrow(/tokens\[4\] = 99/);
    await expect(pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: 0, adamw: ADAMW })).rejects.toThrow(/step/);
    pol.destroy();
  });
});

describe('CPU batched decoding with the KV cache vs the float64 reference', () => {
  for (const { name, cfg } of CASES) {
    it(`samples the same tokens as full-prefix reference forwards with the same PRNG draws (${name})`, async () => {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const p32 = initParams(cfg, seed);
      const layout = layoutParams(cfg);
      for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.3 * rng.normal();
      const pol = await policy(cfg, p32);
      const prompts = [[1, 4, 5], [1], [1, 7, 3, 2, 9], [1, 6], [1, 3, 3, 3, 3, 3, 3]];
      for (const [temperature, topP] of [[0.9, 0.95], [1.2, 1]]) {
        const req = { prompts, maxResponseLength: 4, temperature, topP, seed: rng.nextU32(), eosId: 2, padId: 0 };
        const got = await pol.generate(req);
        const params = Float64Array.from(p32);
        prompts.forEach((prompt, b) => {
          const seq = [...prompt];
          const resp: number[] = [];
          let finish: 'eos' | 'truncated' = 'truncated';
          while (resp.length < req.maxResponseLength && seq.length < cfg.contextLength) {
            const { logits } = referenceForward(cfg, params, seq, 1, seq.length);
            const last = logits.subarray((seq.length - 1) * cfg.vocabSize, seq.length * cfg.vocabSize);
            const r = sampleToken(last, req.temperature, req.topP, uniformAt(req.seed, b, seq.length - 1));
            seq.push(r.token);
            resp.push(r.token);
            expect(got.logp[b][resp.length - 1], `seed ${seed} seq ${b}`).toBeCloseTo(r.logp, 4);
            expect(got.entropy[b][resp.length - 1], `seed ${seed} seq ${b}`).toBeCloseTo(r.entropy, 4);
            if (r.token === req.eosId) {
              finish = 'eos';
              break;
            }
          }
          expect(got.responses[b], `seed ${seed} seq ${b}`).toEqual(resp);
          expect(got.finish[b]).toBe(finish);
        });
      }
      pol.destroy();
    });
  }

  it('a sampled token’s logp is bit-identical to the training forward’s logp of the same sequence', async () => {
    const { cfg } = CASES[0];
    const seed = freshSeed();
    const pol = await policy(cfg, initParams(cfg, seed));
    const req = { prompts: [[1, 4], [1, 5, 6], [1]], maxResponseLength: 5, temperature: 0.9, topP: 1, seed, eosId: 2, padId: 0 };
    const got = await pol.generate(req);
    for (let b = 0; b < 3; b++) {
      const seq = [...req.prompts[b], ...got.responses[b]];
      const n = seq.length;
      const tokens = Uint32Array.from(seq);
      const targets = Uint32Array.from(seq.slice(1).concat([0]));
      const f = await pol.forward(tokens, targets, 1, n, req.temperature);
      const P = req.prompts[b].length;
      expect(Array.from(f.logp.subarray(P - 1, n - 1)), `seed ${seed} seq ${b}`).toEqual(got.logp[b]);
    }
    pol.destroy();
  });

  it('rejects prompts it cannot hold, naming the prompt', async () => {
    const { cfg } = CASES[0];
    const pol = await policy(cfg, initParams(cfg, 1));
    const base = { maxResponseLength: 3, temperature: 1, topP: 1, seed: 1, eosId: 2, padId: 0 };
    await expect(pol.generate({ ...base, prompts: [[1], new Array(cfg.contextLength).fill(1)] })).rejects.toThrow(/prompts\[1\]: length 9/);
    await expect(pol.generate({ ...base, prompts: [[1, 99]] })).rejects.toThrow(/prompts\[0\]: token ids/);
    await expect(pol.generate({ ...base, prompts: [[1]], topP: 0 })).rejects.toThrow(/topP/);
    pol.destroy();
  });
});

describe('determinism', () => {
  /** Three updates (off-policy with KL, on-policy, CE) then a generation; returns everything produced. */
  async function run(cfg: ModelConfig, seed: number, threads: number, build?: 'single') {
    const s = randomSetup(cfg, seed);
    const pol = await policy(cfg, s.p32, threads, build);
    const stats = [
      await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW }),
      await pol.update({ ...s.batch, oldLogp: undefined }, { kind: 'grpo', opts: { ...LOSS, klType: 'low_var_kl' } }, { step: 2, adamw: ADAMW }),
      await pol.update({ ...s.batch, advantages: undefined }, { kind: 'ce' }, { step: 3, adamw: ADAMW }),
    ];
    const gen = await pol.generate({ prompts: [[1, 4, 5], [1], [1, 7, 3], [1, 6], [1, 2]], maxResponseLength: 6, temperature: 1, topP: 0.9, seed, eosId: 2, padId: 0 });
    const params = await pol.getParams();
    const adam = await pol.getAdamState();
    pol.destroy();
    return { stats, gen, params: Array.from(params), m: Array.from(adam.m), v: Array.from(adam.v) };
  }

  it('replay: the same update sequence gives bit-identical parameters, moments, stats and samples', async () => {
    const seed = freshSeed();
    for (const { cfg } of CASES) expect(await run(cfg, seed, 2), `seed ${seed}`).toEqual(await run(cfg, seed, 2));
  });

  it('1, 2 and 3 threads and the single-threaded build give bit-identical results', async () => {
    const seed = freshSeed();
    // A wider model so every split (matmul rows, heads, column groups, norm chunks) has work on each thread.
    const wide = validateModelConfig({ vocabSize: 37, contextLength: 16, nLayers: 2, dModel: 24, nHeads: 3, mlpRatio: 4, norm: 'layernorm', tiedEmbeddings: false });
    for (const cfg of [CASES[0].cfg, wide]) {
      const one = await run(cfg, seed, 1);
      expect(await run(cfg, seed, 2), `seed ${seed}`).toEqual(one);
      expect(await run(cfg, seed, 3), `seed ${seed}`).toEqual(one);
      expect(await run(cfg, seed, 1, 'single'), `seed ${seed}`).toEqual(one);
    }
  });

  it('steady state: memory stops growing once a shape has been seen', async () => {
    const { cfg } = CASES[0];
    const s = randomSetup(cfg, 3);
    const be = await backend(2);
    const pol = await policy(cfg, s.p32);
    const once = async (k: number) => {
      await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: k, adamw: ADAMW });
      await pol.generate({ prompts: [[1, 4], [1, 5, 6]], maxResponseLength: 4, temperature: 1, topP: 1, seed: 3, eosId: 2, padId: 0 });
    };
    await once(1);
    const bytes = be.rt.memory.buffer.byteLength;
    await once(2);
    await once(3);
    expect(be.rt.memory.buffer.byteLength).toBe(bytes);
    pol.destroy();
  });
});

describe('backend', () => {
  it('describes itself and measures matmul GFLOP/s', async () => {
    const be = await backend(2);
    expect(be.description).toBe('CPU engine (WebAssembly SIMD, 2 threads)');
    expect(be.threads).toBe(2);
    const g = await be.matmulGflops!({ M: 64, N: 48, K: 32, transA: false, transB: true }, 3);
    expect(g).toBeGreaterThan(0);
    expect((await backend(1, 'single')).description).toBe('CPU engine (WebAssembly SIMD, 1 thread)');
  });
});
