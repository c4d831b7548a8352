/**
 * The CPU engine's real-model kernels (src/model/hf-cpu/ops.ts) against their float64 twins
 * (src/model/hf/reference-forward.ts, reference-backward.ts) on fresh random inputs of odd sizes, outputs
 * poisoned with NaN before the run (gradient outputs start from random values: the kernels add into them).
 * Attention, SwiGLU and the head's backward are checked through the whole model (policy.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { attentionF, headStatsF, linearB, linearF, rmsNormB, rmsNormF, ropeApply, ropeTable } from '../../../src/model/hf-cpu/ops';
import * as ref from '../../../src/model/hf/reference-backward';
import { applyRope, chunkedVocabStats } from '../../../src/model/hf/reference-forward';
import { Rng } from '../../../src/util/rng';

const rng = new Rng(Date.now() >>> 0);
const rand = (n: number, sd = 1) => Float32Array.from({ length: n }, () => sd * rng.normal());
const poisoned = (n: number) => new Float32Array(n).fill(NaN);
const f64 = (a: ArrayLike<number>) => Float64Array.from(a);
function close(got: ArrayLike<number>, want: ArrayLike<number>, tol = 1e-5) {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) expect(Math.abs(got[i] - want[i]), `at ${i}`).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i])));
}

describe('hf-cpu kernels against the float64 twins', () => {
  it('linear forward (with and without bias) and backward', () => {
    for (const [T, n, m] of [[1, 1, 1], [3, 7, 5], [9, 33, 17]]) {
      const x = rand(T * n), W = rand(m * n), b = rand(m), dy = rand(T * m);
      for (const bias of [b, null]) {
        const y = poisoned(T * m);
        linearF(x, T, n, W, m, bias, y);
        close(y, ref.linearF(f64(x), T, n, W, m, bias));
      }
      const dW0 = rand(m * n), db0 = rand(m), dx0 = rand(T * n);
      const [dW, db, dx] = [Float32Array.from(dW0), Float32Array.from(db0), Float32Array.from(dx0)];
      linearB(x, T, n, W, m, dy, dW, db, dx);
      const [rW, rb, rx] = [f64(dW0), f64(db0), f64(dx0)];
      ref.linearB(f64(x), T, n, W, m, f64(dy), rW, rb, rx);
      close(dW, rW);
      close(db, rb);
      close(dx, rx);
    }
  });

  it('RMSNorm forward and backward', () => {
    for (const [T, d] of [[1, 3], [5, 13], [4, 64]]) {
      const x = rand(T * d, 2), w = rand(d), dy = rand(T * d), eps = 1e-5;
      const y = poisoned(T * d), r = poisoned(T);
      rmsNormF(x, T, d, w, eps, y, r);
      const want = ref.rmsNormF(f64(x), T, d, w, eps);
      close(y, want.y);
      close(r, want.r);
      const dw = rand(d), dx = rand(T * d);
      const [rdw, rdx0] = [f64(dw), f64(dx)];
      rmsNormB(x, r, T, d, w, dy, dw, dx);
      const rdx = ref.rmsNormB(f64(x), want.r, T, d, w, f64(dy), rdw);
      close(dw, rdw);
      close(dx, rdx.map((v, i) => v + rdx0[i]));
    }
  });

  it('RoPE (rotate_half) at an offset, and its inverse', () => {
    const [T, heads, hd, theta, p0] = [7, 3, 10, 1e4, 5];
    const x = rand(T * heads * hd), table = ropeTable(p0 + T, hd, theta);
    const got = Float32Array.from(x);
    ropeApply(got, T, heads, hd, p0, table);
    // The twin rotates positions 0…; rotate p0 + T rows and compare the last T.
    const padded = new Float64Array((p0 + T) * heads * hd);
    padded.set(x, p0 * heads * hd);
    applyRope(padded, p0 + T, heads, hd, theta);
    close(got, padded.subarray(p0 * heads * hd));
    ropeApply(got, T, heads, hd, p0, table, -1);
    close(got, x);
  });

  it('attention over a KV cache equals the rows of the full causal attention', () => {
    const [S, p0, H, Hkv, hd] = [9, 6, 6, 2, 5];
    const q = rand(S * H * hd), k = rand(S * Hkv * hd), v = rand(S * Hkv * hd);
    const full = poisoned(S * H * hd), P = poisoned(H * S * S);
    attentionF(q, k, v, S, 0, H, Hkv, hd, full, P);
    const tail = poisoned((S - p0) * H * hd);
    attentionF(q.subarray(p0 * H * hd), k, v, S - p0, p0, H, Hkv, hd, tail, null);
    close(tail, full.subarray(p0 * H * hd), 1e-6);
    // Each probability row sums to 1 over the past and is 0 in the future.
    for (let h = 0; h < H; h++)
      for (let t = 0; t < S; t++) {
        const row = P.subarray((h * S + t) * S, (h * S + t + 1) * S);
        expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
        for (let s = t + 1; s < S; s++) expect(row[s]).toBe(0);
      }
  });

  it('vocabulary-chunked log-prob and entropy at τ, every chunk size', () => {
    const [T, d, V, tau] = [5, 11, 53, 0.7];
    const hidden = rand(T * d), head = rand(V * d, 0.5);
    const targets = Array.from({ length: T }, (_, t) => (t === T - 1 ? -1 : rng.int(0, V - 1)));
    // logits/τ = (hidden/τ)·headᵀ: the twin at τ = 1 on scaled hidden states.
    const want = chunkedVocabStats(f64(hidden).map((x) => x / tau), T, d, head, V, targets, V);
    for (const chunk of [1, 7, V - 1, V, 2 * V]) {
      const got = headStatsF(hidden, T, d, head, V, targets, tau, chunk);
      close(got.entropy, want.entropy, 1e-9);
      close(got.lse, want.logSumExp, 1e-9);
      close(got.logp.subarray(0, T - 1), want.logprob.subarray(0, T - 1), 1e-9);
      expect(got.logp[T - 1]).toBeNaN();
    }
  });
});
