/**
 * The float64 reference forward of Llama / Qwen2: vocabulary-chunked log-probs and entropies equal
 * the unchunked computation, RoPE follows rotate_half (halves, not interleaved pairs), grouped-query
 * attention equals full multi-head attention with each kv head repeated, the outputs are a proper
 * distribution, and the forward is causal.
 */
import { describe, expect, it } from 'vitest';
import { applyRope, chunkedVocabStats, hfHiddenStates, hfTokenLogprobs } from '../../../src/model/hf/reference-forward';
import { tinyHfConfig, tinyHfWeights } from '../../../src/model/hf/tiny';
import type { HfWeights } from '../../../src/model/hf/weights';
import { Rng } from '../../../src/util/rng';

const rng = new Rng(44);

describe('vocabulary-chunked log-probs and entropy', () => {
  it('equal the whole-vocabulary log-softmax for chunks of 1, 7, 64, V−1, V and 2V (odd sizes too)', () => {
    for (const [T, d, V] of [[5, 8, 37], [3, 13, 101], [1, 4, 2]]) {
      const hidden = Float64Array.from({ length: T * d }, () => rng.normal() * 2);
      const head = Float32Array.from({ length: V * d }, () => rng.normal());
      const targets = Array.from({ length: T }, (_, t) => (t === T - 1 ? -1 : rng.int(0, V - 1)));
      // Unchunked, written out: full logits, log-softmax, −Σ p log p.
      const want = Array.from({ length: T }, (_, t) => {
        const logits = Array.from({ length: V }, (_, v) => { let s = 0; for (let i = 0; i < d; i++) s += hidden[t * d + i] * head[v * d + i]; return s; });
        const m = Math.max(...logits);
        const lse = m + Math.log(logits.reduce((a, l) => a + Math.exp(l - m), 0));
        const logp = logits.map((l) => l - lse);
        return { lp: targets[t] >= 0 ? logp[targets[t]] : NaN, ent: -logp.reduce((a, l) => a + Math.exp(l) * l, 0) };
      });
      for (const chunk of [1, 7, 64, V - 1 || 1, V, 2 * V]) {
        const got = chunkedVocabStats(hidden, T, d, head, V, targets, chunk);
        for (let t = 0; t < T; t++) {
          if (targets[t] >= 0) expect(Math.abs(got.logprob[t] - want[t].lp)).toBeLessThan(1e-12);
          else expect(got.logprob[t]).toBeNaN();
          expect(Math.abs(got.entropy[t] - want[t].ent)).toBeLessThan(1e-12);
        }
      }
    }
  });

  it('hfTokenLogprobs is the same for every chunk size and gives a distribution that sums to 1', () => {
    const w = tinyHfWeights(tinyHfConfig('qwen2'), 5);
    const tokens = [3, 290, 17, 17, 200, 0, 319];
    const base = hfTokenLogprobs(w, tokens, 320);
    for (const chunk of [1, 13, 100, 4096]) {
      const got = hfTokenLogprobs(w, tokens, chunk);
      got.logprobs.forEach((x, i) => expect(Math.abs(x - base.logprobs[i])).toBeLessThan(1e-12));
      got.entropies.forEach((x, i) => expect(Math.abs(x - base.entropies[i])).toBeLessThan(1e-12));
    }
    // Σ_v p(v | prefix) = 1 at a position, each p from its own target.
    const hidden = hfHiddenStates(w, tokens.slice(0, 3));
    let total = 0;
    for (let v = 0; v < 320; v++) total += Math.exp(chunkedVocabStats(hidden.subarray(2 * 32, 3 * 32), 1, 32, w.lmHead!, 320, [v], 50).logprob[0]);
    expect(Math.abs(total - 1)).toBeLessThan(1e-12);
    expect(base.logprobs).toHaveLength(tokens.length - 1);
    expect(Math.max(...base.entropies)).toBeLessThanOrEqual(Math.log(320));
  });
});

describe('the decoder', () => {
  it('RoPE rotates the halves (x_j, x_{j+d/2}) by p·θ^(−2j/d): rotate_half, not interleaved pairs', () => {
    const hd = 6, theta = 100;
    const x = Float64Array.from({ length: 3 * hd }, () => rng.normal());
    const y = Float64Array.from(x);
    applyRope(y, 3, 1, hd, theta);
    for (let p = 0; p < 3; p++)
      for (let j = 0; j < 3; j++) {
        const a = p * theta ** (-(2 * j) / hd);
        const x1 = x[p * hd + j], x2 = x[p * hd + j + 3];
        expect(y[p * hd + j]).toBeCloseTo(x1 * Math.cos(a) - x2 * Math.sin(a), 14);
        expect(y[p * hd + j + 3]).toBeCloseTo(x2 * Math.cos(a) + x1 * Math.sin(a), 14);
      }
    // Position 0 is unrotated; the norm of each pair is kept.
    for (let j = 0; j < hd; j++) expect(y[j]).toBe(x[j]);
  });

  it('grouped-query attention equals multi-head attention with each kv head repeated for its group', () => {
    const gqa = tinyHfWeights(tinyHfConfig('qwen2'), 9); // 4 query heads over 2 kv heads
    const c = gqa.config, hd = c.headDim, d = c.hiddenSize;
    const repeat = (w: Float32Array, rows: number) => {
      const out = new Float32Array(c.numHeads * hd * rows);
      for (let h = 0; h < c.numHeads; h++) out.set(w.subarray(Math.floor(h / 2) * hd * rows, (Math.floor(h / 2) + 1) * hd * rows), h * hd * rows);
      return out;
    };
    const mha: HfWeights = {
      ...gqa,
      config: { ...c, numKvHeads: c.numHeads },
      layers: gqa.layers.map((L) => ({ ...L, k: repeat(L.k, d), v: repeat(L.v, d), kBias: repeat(L.kBias!, 1), vBias: repeat(L.vBias!, 1) })),
    };
    const tokens = [1, 50, 99, 300, 7];
    const a = hfTokenLogprobs(gqa, tokens), b = hfTokenLogprobs(mha, tokens);
    a.logprobs.forEach((x, i) => expect(Math.abs(x - b.logprobs[i])).toBeLessThan(1e-12));
  });

  it('is causal: a later token never changes an earlier position, and every layer matters', () => {
    const w = tinyHfWeights(tinyHfConfig('llama'), 2);
    const a = hfHiddenStates(w, [5, 6, 7, 8]), b = hfHiddenStates(w, [5, 6, 7, 300]);
    expect(Array.from(a.subarray(0, 3 * 32))).toEqual(Array.from(b.subarray(0, 3 * 32)));
    expect(a[3 * 32]).not.toBe(b[3 * 32]);
    const oneLayer = { ...w, layers: w.layers.slice(0, 1), config: { ...w.config, numLayers: 1 } };
    expect(hfHiddenStates(oneLayer, [5, 6])[40]).not.toBe(hfHiddenStates(w, [5, 6])[40]);
  });

  it('refuses token ids outside the vocabulary', () => {
    const w = tinyHfWeights(tinyHfConfig('llama'), 2);
    expect(() => hfHiddenStates(w, [1, 320])).toThrow(/token 320 is outside the vocabulary \[0, 320\)/);
    expect(() => hfHiddenStates(w, [])).toThrow(/no tokens/);
  });
});
