import { describe, expect, it } from 'vitest';
import { embedRows, embedRowsBackward, readRowSplit, rowAlign, uploadRowSplit, vocabChunkRows, vocabHeadBackward, vocabHeadForward, vocabHeadSample } from '../../src/gpu/kernels/vocab';
import { sampleToken, uniformAt } from '../../src/model/reference/sampling';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload, uploadU32 } from './harness';

const TOL = 1e-4;
// [N, d, V, requested chunk, max bytes per part (undefined: the device's limit)]
const CASES: [number, number, number, number, number | undefined][] = [
  [1, 4, 3, 1, undefined],
  [5, 32, 320, 64, undefined], // the tiny models' shape: 5 chunks
  [7, 32, 333, 7, undefined], // chunk rounds up to 8; odd V leaves a last chunk of 5 rows
  [13, 12, 517, 100, 12 * 4 * 96], // head split into parts of 96 rows: chunks never cross a part
  [3, 20, 97, 1000, undefined], // one chunk holding the whole vocabulary
];

/** Hidden states and a head whose logits span several nats; every other row's target, one row without. */
function problem(rng: Rng, N: number, d: number, V: number) {
  const hidden = randn(rng, N * d).map(Math.fround);
  const head = randn(rng, V * d, 3 / Math.sqrt(d)).map(Math.fround);
  const targets = Array.from({ length: N }, (_, t) => (t === N - 1 && N > 1 ? ref.NO_TARGET : Math.floor(rng.next() * V)));
  return { hidden, head, targets };
}

describe('vocabulary-chunked log-prob / entropy kernels vs float64 reference', () => {
  for (const [N, d, V, chunk, maxBytes] of CASES) {
    it(`forward + backward N=${N} d=${d} V=${V} chunk=${chunk}${maxBytes ? ` parts of ${maxBytes / (4 * d)} rows` : ''}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const P = problem(rng, N, d, V);
      const coef = randn(rng, N), entCoef = randn(rng, N);
      const head = uploadRowSplit(rt, 'head', Float32Array.from(P.head), V, d, maxBytes);
      if (maxBytes) expect(head.parts.length).toBeGreaterThan(2);
      const dhead0 = randn(rng, V * d).map(Math.fround);
      const dhead = uploadRowSplit(rt, 'dhead', Float32Array.from(dhead0), V, d, maxBytes);
      const hidden = upload(rt, 'hidden', P.hidden), targets = uploadU32(rt, 'targets', P.targets);
      const logp = poisoned(rt, 'logp', N), entropy = poisoned(rt, 'entropy', N), lse = poisoned(rt, 'lse', N);
      const dhidden = poisoned(rt, 'dhidden', N * d);
      const fwd = await vocabHeadForward(rt, { hidden, head, targets, N, chunk, logp, entropy, lse });
      const bwd = await vocabHeadBackward(rt, { hidden, head, dhead, targets, lse, entropy, coef: upload(rt, 'c', coef), entCoef: upload(rt, 'e', entCoef), dhidden, N, chunk, accumulate: false });
      rt.run([...fwd, ...bwd]);
      // The twin visits the vocabulary in the requested chunk; every chunk gives the same answer.
      const want = ref.vocabHeadForward(P.hidden, P.head, P.targets, N, d, V, chunk);
      const gotLogp = await rt.readF32(logp, 0, N);
      const withTarget = (a: ArrayLike<number>) => Array.from(a).filter((_, t) => P.targets[t] !== ref.NO_TARGET);
      expect(relErr(withTarget(gotLogp), withTarget(want.logp)), `logp, seed ${seed}`).toBeLessThan(TOL);
      if (N > 1) expect(gotLogp[N - 1], 'no target: NaN').toBeNaN();
      expect(relErr(await rt.readF32(entropy, 0, N), want.entropy), `entropy, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(lse, 0, N), want.lse), `lse, seed ${seed}`).toBeLessThan(TOL);
      const g = ref.vocabHeadBackward(P.hidden, P.head, P.targets, want, coef, entCoef, N, d, V, chunk);
      expect(relErr(await rt.readF32(dhidden, 0, N * d), g.dhidden), `dhidden, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await readRowSplit(rt, dhead), Float64Array.from(g.dhead, (x, i) => x + dhead0[i])), `dhead, seed ${seed}`).toBeLessThan(TOL);
    });
  }

  for (const [tau, pos] of [[1, 0], [0.7, 5]] as const) {
    it(`sampling over chunks (τ ${tau}, pos ${pos}) picks the tokens of the float64 sampler for the same draws`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const [N, d, V, chunk] = [97, 16, 389, 50];
      const hidden = randn(rng, N * d).map(Math.fround);
      const head = randn(rng, V * d, 2 / Math.sqrt(d)).map(Math.fround);
      const h = uploadRowSplit(rt, 'shead', Float32Array.from(head), V, d, 4 * d * 128);
      expect(h.parts.length).toBe(4);
      const sampled = uploadU32(rt, 'sampled', new Array(N).fill(12345));
      const logp = poisoned(rt, 'slogp', N), entropy = poisoned(rt, 'sent', N), lse = poisoned(rt, 'slse', N);
      const ds = await vocabHeadSample(rt, { hidden: upload(rt, 'sh', hidden), head: h, N, chunk, temperature: tau, seed, state: uploadU32(rt, 'spos', [pos]), sampled, logp, entropy, lse });
      rt.run(ds);
      const got = { token: await rt.readU32(sampled, 0, N), logp: await rt.readF32(logp, 0, N), entropy: await rt.readF32(entropy, 0, N) };
      let compared = 0;
      for (let t = 0; t < N; t++) {
        const z = Array.from({ length: V }, (_, v) => hidden.slice(t * d, t * d + d).reduce((acc, x, i) => acc + x * head[v * d + i], 0));
        const u = uniformAt(seed, t, pos);
        const want = sampleToken(z, tau, 1, u);
        expect(got.entropy[t], `entropy row ${t}, seed ${seed}`).toBeCloseTo(want.entropy, 4);
        // f32 running sums may cross u one id earlier or later only when u is within round-off of a boundary.
        const lse = Math.log(z.reduce((acc, x) => acc + Math.exp(x / tau), 0));
        let before = 0;
        for (let v = 0; v < want.token; v++) before += Math.exp(z[v] / tau - lse);
        const at = before + Math.exp(z[want.token] / tau - lse);
        if (Math.abs(before - u) < 1e-5 || Math.abs(at - u) < 1e-5) continue;
        compared++;
        expect(got.token[t], `row ${t}, seed ${seed}`).toBe(want.token);
        expect(got.logp[t], `row ${t}, seed ${seed}`).toBeCloseTo(want.logp, 4);
      }
      expect(compared).toBeGreaterThan(N - 5);
      // The draws spread over the vocabulary (not one token, not only the first chunk).
      expect(new Set(got.token).size).toBeGreaterThan(20);
      expect(Math.max(...got.token)).toBeGreaterThan(2 * chunk);
    });
  }

  it('the twin: every chunk size gives the whole-vocabulary softmax, and its gradient matches central differences', () => {
    const rng = new Rng(freshSeed());
    const [N, d, V] = [4, 6, 23];
    const P = problem(rng, N, d, V);
    const coef = randn(rng, N), entCoef = randn(rng, N);
    const whole = ref.vocabHeadForward(P.hidden, P.head, P.targets, N, d, V, V);
    for (const chunk of [1, 5, 22, 46]) {
      const s = ref.vocabHeadForward(P.hidden, P.head, P.targets, N, d, V, chunk);
      for (let t = 0; t < N; t++) {
        expect(s.lse[t]).toBeCloseTo(whole.lse[t], 12);
        expect(s.entropy[t]).toBeCloseTo(whole.entropy[t], 12);
      }
    }
    // Written out: p = softmax(z), H = −Σ p log p.
    for (let t = 0; t < N; t++) {
      const z = Array.from({ length: V }, (_, v) => P.hidden.slice(t * d, t * d + d).reduce((s, x, i) => s + x * P.head[v * d + i], 0));
      const lse = Math.log(z.reduce((s, x) => s + Math.exp(x), 0));
      expect(whole.entropy[t]).toBeCloseTo(-z.reduce((s, x) => s + Math.exp(x - lse) * (x - lse), 0), 12);
    }
    const L = (hidden: Float64Array) => {
      const s = ref.vocabHeadForward(hidden, P.head, P.targets, N, d, V, 5);
      let sum = 0;
      for (let t = 0; t < N; t++) sum += (P.targets[t] === ref.NO_TARGET ? 0 : coef[t] * s.logp[t]) + entCoef[t] * s.entropy[t];
      return sum;
    };
    const c = coef.map((x, t) => (P.targets[t] === ref.NO_TARGET ? 0 : x));
    const g = ref.vocabHeadBackward(P.hidden, P.head, P.targets, whole, c, entCoef, N, d, V, 5);
    for (let i = 0; i < N * d; i++) {
      const hp = Float64Array.from(P.hidden), hm = Float64Array.from(P.hidden);
      hp[i] += 1e-6, hm[i] -= 1e-6;
      expect(g.dhidden[i]).toBeCloseTo((L(hp) - L(hm)) / 2e-6, 6);
    }
  });

  it('embedding rows come from the part that holds them', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [V, d, N] = [301, 12, 41];
    const table = randn(rng, V * d).map(Math.fround);
    const split = uploadRowSplit(rt, 'emb', Float32Array.from(table), V, d, 4 * d * 48);
    expect(split.parts.length).toBe(7);
    expect(split.parts.every((p) => p.row0 % rowAlign(d) === 0)).toBe(true);
    const tokens = Array.from({ length: N }, (_, i) => (i === 0 ? V - 1 : Math.floor(rng.next() * V)));
    const out = poisoned(rt, 'embout', N * d);
    rt.run(await embedRows(rt, { tokens: uploadU32(rt, 'tok', tokens), table: split, out, N }));
    const want = Float64Array.from({ length: N * d }, (_, i) => table[tokens[Math.floor(i / d)] * d + (i % d)]);
    expect(relErr(await rt.readF32(out, 0, N * d), want), `seed ${seed}`).toBe(0);
  });

  it('the embedding gradient adds each token\'s rows into the part that holds them', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [V, d, N] = [157, 20, 53];
    // Repeats (a few ids many times) and the table's first and last rows.
    const tokens = Array.from({ length: N }, (_, i) => (i === 0 ? 0 : i === 1 ? V - 1 : Math.floor(rng.next() * (i % 3 ? 9 : V))));
    const dout = randn(rng, N * d).map(Math.fround);
    const d0 = randn(rng, V * d).map(Math.fround);
    const dtable = uploadRowSplit(rt, 'demb', Float32Array.from(d0), V, d, 4 * d * 32);
    expect(dtable.parts.length).toBe(5);
    rt.run(await embedRowsBackward(rt, { tokens, dout: upload(rt, 'dout', dout), dtable }));
    const want = ref.embedRowsBackward(tokens, dout, V, d).map((x, i) => x + d0[i]);
    expect(relErr(await readRowSplit(rt, dtable), want), `seed ${seed}`).toBeLessThan(1e-6);
    await expect(embedRowsBackward(rt, { tokens: [V], dout: upload(rt, 'dout', dout), dtable })).rejects.toThrow(/token 157 is outside/);
  });

  it('chunks round up to 256-byte-aligned rows and narrow to fit the binding limit; a table too wide for the limit is refused', async () => {
    expect(vocabChunkRows(7, 32)).toBe(8);
    expect(vocabChunkRows(64, 896)).toBe(64);
    expect(vocabChunkRows(1, 13)).toBe(64);
    expect(() => vocabChunkRows(0, 8)).toThrow(/positive integer/);
    // 16,384 tokens × 4,096 rows of logits would be 256 MiB: narrowed to fit WebGPU's default 128 MiB binding.
    expect(vocabChunkRows(4096, 896, 16384, 128 * 2 ** 20)).toBe(2048);
    expect(vocabChunkRows(4096, 12, 1000, 4 * 1000 * 100)).toBe(96);
    expect(() => vocabChunkRows(64, 13, 1000, 4 * 1000 * 63)).toThrow(/exceed the 252000-byte storage binding limit/);
    const rt = await gpu();
    expect(() => uploadRowSplit(rt, 'wide', null, 10, 64, 128)).toThrow(/exceed the 128-byte buffer limit/);
  });
});
