/**
 * The Llama / Qwen2 decoder in plain float64 TypeScript: the reference every faster forward of a
 * real model (WGSL, the CPU engine) will be checked against, and the forward `magic-lab logprobs`
 * runs today. It follows transformers' modeling_llama / modeling_qwen2 in eager mode:
 *
 *   h₀ = embed[tokens]
 *   per layer: a = RMSNorm(h)·w₁;  q,k,v = a·Wᵀ (+ b, Qwen2);  RoPE (rotate_half, θ) on q and k;
 *              causal softmax(q·kᵀ/√d_head)·v with query head h reading kv head ⌊h / (H / H_kv)⌋;
 *              h += o_proj(·);  h += down(silu(gate(RMSNorm(h)·w₂)) ⊙ up(RMSNorm(h)·w₂))
 *   logits = RMSNorm(h)·w_f · headᵀ (head = lm_head, or the embedding when tied)
 *
 * RMSNorm(x) = x / √(mean(x²) + ε). transformers computes RoPE's angles in float32; here they are
 * float64, a difference of ~1e-7 relative in the angle that never shows at the tolerances used.
 *
 * Log-probabilities and entropies are computed over the vocabulary in chunks (an online
 * log-sum-exp), so a [T, V] logits tensor never exists: at Qwen2.5's 152k vocabulary and 16k tokens
 * it would be 9.3 GiB in f32. Memory is O(T·(d + chunk)).
 */
import { ropeApply } from '../reference/ops/rope';
import type { HfWeights } from './weights';

/** Vocabulary rows per chunk when the caller does not choose. */
export const DEFAULT_VOCAB_CHUNK = 4096;

/** y[t, o] = Σ_i x[t, i] W[o, i] + b[o]: PyTorch's Linear with W stored [out, in]. */
function linear(x: Float64Array, T: number, inDim: number, W: Float32Array, outDim: number, b: Float32Array | null): Float64Array {
  const y = new Float64Array(T * outDim);
  for (let t = 0; t < T; t++) {
    const xo = t * inDim;
    for (let o = 0; o < outDim; o++) {
      const wo = o * inDim;
      let s = b ? b[o] : 0;
      for (let i = 0; i < inDim; i++) s += x[xo + i] * W[wo + i];
      y[t * outDim + o] = s;
    }
  }
  return y;
}

function rmsNorm(x: Float64Array, T: number, d: number, w: Float32Array, eps: number): Float64Array {
  const y = new Float64Array(T * d);
  for (let t = 0; t < T; t++) {
    let ss = 0;
    for (let i = 0; i < d; i++) ss += x[t * d + i] ** 2;
    const r = 1 / Math.sqrt(ss / d + eps);
    for (let i = 0; i < d; i++) y[t * d + i] = x[t * d + i] * r * w[i];
  }
  return y;
}

/**
 * RoPE in place, rotate_half convention: x·cos + [−x₂, x₁]·sin with angles p·θ^(−2j/d_head), halves (not
 * interleaved pairs). `direction` −1 rotates by the opposite angles: the inverse, which is also RoPE's backward.
 */
export function applyRope(x: Float64Array, T: number, heads: number, headDim: number, theta: number, direction: 1 | -1 = 1): void {
  x.set(ropeApply(x, T, T, heads, headDim, theta, 0, direction));
}

/** The final hidden states RMSNorm(h_L)·w_f, [T, d], of a token sequence. */
export function hfHiddenStates(w: HfWeights, tokens: readonly number[]): Float64Array {
  const c = w.config;
  const T = tokens.length, d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, m = c.intermediateSize;
  if (T < 1) throw new RangeError('hfHiddenStates: no tokens');
  for (const id of tokens) if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new RangeError(`hfHiddenStates: token ${id} is outside the vocabulary [0, ${c.vocabSize})`);
  const h = new Float64Array(T * d);
  for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) h[t * d + i] = w.embed[tokens[t] * d + i];
  const group = H / Hkv;
  const scale = 1 / Math.sqrt(hd);
  const scores = new Float64Array(T);
  for (const L of w.layers) {
    const a = rmsNorm(h, T, d, L.inputNorm, c.rmsNormEps);
    const q = linear(a, T, d, L.q, H * hd, L.qBias);
    const k = linear(a, T, d, L.k, Hkv * hd, L.kBias);
    const v = linear(a, T, d, L.v, Hkv * hd, L.vBias);
    applyRope(q, T, H, hd, c.ropeTheta);
    applyRope(k, T, Hkv, hd, c.ropeTheta);
    const att = new Float64Array(T * H * hd);
    for (let head = 0; head < H; head++) {
      const kvh = Math.floor(head / group);
      for (let t = 0; t < T; t++) {
        const qo = (t * H + head) * hd;
        let mx = -Infinity;
        for (let s = 0; s <= t; s++) {
          const ko = (s * Hkv + kvh) * hd;
          let dot = 0;
          for (let j = 0; j < hd; j++) dot += q[qo + j] * k[ko + j];
          scores[s] = dot * scale;
          if (scores[s] > mx) mx = scores[s];
        }
        let z = 0;
        for (let s = 0; s <= t; s++) z += (scores[s] = Math.exp(scores[s] - mx));
        for (let s = 0; s <= t; s++) {
          const p = scores[s] / z, vo = (s * Hkv + kvh) * hd;
          for (let j = 0; j < hd; j++) att[qo + j] += p * v[vo + j];
        }
      }
    }
    const o = linear(att, T, H * hd, L.o, d, null);
    for (let i = 0; i < h.length; i++) h[i] += o[i];
    const b = rmsNorm(h, T, d, L.postNorm, c.rmsNormEps);
    const g = linear(b, T, d, L.gate, m, null);
    const u = linear(b, T, d, L.up, m, null);
    for (let i = 0; i < g.length; i++) g[i] = (g[i] / (1 + Math.exp(-g[i]))) * u[i];
    const down = linear(g, T, m, L.down, d, null);
    for (let i = 0; i < h.length; i++) h[i] += down[i];
  }
  return rmsNorm(h, T, d, w.norm, c.rmsNormEps);
}

export interface VocabStats {
  /** log p(target_t) at each position (NaN where no target was given). */
  logprob: Float64Array;
  /** H_t = −Σ_v p_v log p_v at each position. */
  entropy: Float64Array;
  /** log Σ_v exp(logit_v) at each position. */
  logSumExp: Float64Array;
}

/**
 * Log-probabilities of `targets` (−1: none) and entropies at each of T positions, from hidden states
 * [T, d] and a head [V, d], visiting the vocabulary `chunk` rows at a time: per position a running
 * max m, Σ e^(l−m) and Σ e^(l−m)·l, rescaled when m grows. Only a [T, chunk] block of logits exists.
 */
export function chunkedVocabStats(hidden: Float64Array, T: number, d: number, head: Float32Array, V: number, targets: readonly number[], chunk = DEFAULT_VOCAB_CHUNK): VocabStats {
  if (!(chunk >= 1) || !Number.isInteger(chunk)) throw new RangeError(`chunkedVocabStats: chunk must be a positive integer, got ${chunk}`);
  const mx = new Float64Array(T).fill(-Infinity);
  const sum = new Float64Array(T);
  const sumL = new Float64Array(T);
  const target = new Float64Array(T).fill(NaN);
  const block = new Float64Array(T * Math.min(chunk, V));
  for (let c0 = 0; c0 < V; c0 += chunk) {
    const n = Math.min(chunk, V - c0);
    for (let t = 0; t < T; t++) {
      const ho = t * d;
      let cm = -Infinity;
      for (let r = 0; r < n; r++) {
        const wo = (c0 + r) * d;
        let s = 0;
        for (let i = 0; i < d; i++) s += hidden[ho + i] * head[wo + i];
        block[t * n + r] = s;
        if (s > cm) cm = s;
      }
      const tg = targets[t];
      if (tg >= c0 && tg < c0 + n) target[t] = block[t * n + tg - c0];
      const m = Math.max(mx[t], cm);
      const rescale = mx[t] === -Infinity ? 0 : Math.exp(mx[t] - m);
      let s = sum[t] * rescale, sl = sumL[t] * rescale;
      for (let r = 0; r < n; r++) {
        const l = block[t * n + r], e = Math.exp(l - m);
        s += e;
        sl += e * l;
      }
      mx[t] = m, sum[t] = s, sumL[t] = sl;
    }
  }
  const logprob = new Float64Array(T), entropy = new Float64Array(T), logSumExp = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const lse = mx[t] + Math.log(sum[t]);
    logSumExp[t] = lse;
    logprob[t] = target[t] - lse;
    entropy[t] = lse - sumL[t] / sum[t];
  }
  return { logprob, entropy, logSumExp };
}

export interface TokenLogprobs {
  /** log p(tokens[t+1] | tokens[0..t]) for t = 0 … T−2. */
  logprobs: number[];
  /** The policy's entropy at the same T−1 positions (nats). */
  entropies: number[];
}

/** Per-token log-probs (each token after the first, given its prefix) and entropies, vocabulary-chunked. */
export function hfTokenLogprobs(w: HfWeights, tokens: readonly number[], chunk = DEFAULT_VOCAB_CHUNK): TokenLogprobs {
  const c = w.config;
  const hidden = hfHiddenStates(w, tokens);
  const T = tokens.length;
  const targets = tokens.map((_, t) => (t + 1 < T ? tokens[t + 1] : -1));
  const stats = chunkedVocabStats(hidden, T, c.hiddenSize, w.lmHead ?? w.embed, c.vocabSize, targets, chunk);
  return { logprobs: Array.from(stats.logprob.subarray(0, T - 1)), entropies: Array.from(stats.entropy.subarray(0, T - 1)) };
}
