/**
 * Float64 twin of the vocabulary-chunked log-prob / entropy head (shaders/vocab.wgsl): hidden states
 * [N, d] against a head [V, d] (logits z = hidden·headᵀ), visited `chunk` head rows at a time, so a
 * [N, V] logits tensor never exists. Per row an online state (max m, Σ e^(z−m), Σ e^(z−m)·(z−m)) is
 * folded over the chunks; then lse = m + log Σ, logp = z_target − lse, H = lse − Σ p·z.
 *
 * The gradient of L = Σ_t c_t·logp_t + Σ_t e_t·H_t wrt the logits of one chunk is
 * ∂L/∂z_v = c_t·(1[v = target_t] − p_v) − e_t·p_v·(log p_v + H_t), recomputed chunk by chunk from the saved
 * lse and H; dhidden = Σ_chunks dz·head_chunk and dhead_chunk = dzᵀ·hidden.
 */

/** No target at a position (its logp is NaN). */
export const NO_TARGET = 0xffffffff;

export interface VocabHeadStats {
  logp: Float64Array;
  entropy: Float64Array;
  lse: Float64Array;
}

function logits(hidden: ArrayLike<number>, head: ArrayLike<number>, t: number, v: number, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += hidden[t * d + i] * head[v * d + i];
  return s;
}

export function vocabHeadForward(hidden: ArrayLike<number>, head: ArrayLike<number>, targets: ArrayLike<number>, N: number, d: number, V: number, chunk: number): VocabHeadStats {
  if (!Number.isInteger(chunk) || chunk < 1) throw new RangeError(`vocabHeadForward: chunk must be a positive integer, got ${chunk}`);
  const logp = new Float64Array(N), entropy = new Float64Array(N), lse = new Float64Array(N);
  for (let t = 0; t < N; t++) {
    let m = -Infinity, sum = 0, sumZ = 0, target = NaN;
    for (let c0 = 0; c0 < V; c0 += chunk) {
      const n = Math.min(chunk, V - c0);
      const z = Array.from({ length: n }, (_, r) => logits(hidden, head, t, c0 + r, d));
      const m2 = Math.max(m, ...z);
      const rescale = m === -Infinity ? 0 : Math.exp(m - m2);
      sum *= rescale;
      sumZ *= rescale;
      for (let r = 0; r < n; r++) {
        const e = Math.exp(z[r] - m2);
        sum += e;
        sumZ += e * z[r];
        if (c0 + r === targets[t]) target = z[r];
      }
      m = m2;
    }
    lse[t] = m + Math.log(sum);
    logp[t] = target - lse[t];
    entropy[t] = lse[t] - sumZ / sum;
  }
  return { logp, entropy, lse };
}

/** ∂L/∂z for head rows c0 … c0+n−1, [N, n], from the forward's lse and entropy. */
export function vocabChunkGrad(
  hidden: ArrayLike<number>,
  head: ArrayLike<number>,
  targets: ArrayLike<number>,
  lse: ArrayLike<number>,
  entropy: ArrayLike<number>,
  coef: ArrayLike<number>,
  entCoef: ArrayLike<number>,
  N: number,
  d: number,
  c0: number,
  n: number,
): Float64Array {
  const dz = new Float64Array(N * n);
  for (let t = 0; t < N; t++)
    for (let r = 0; r < n; r++) {
      const lp = logits(hidden, head, t, c0 + r, d) - lse[t], p = Math.exp(lp);
      dz[t * n + r] = coef[t] * ((c0 + r === targets[t] ? 1 : 0) - p) - entCoef[t] * p * (lp + entropy[t]);
    }
  return dz;
}

/** dhidden [N, d] and dhead [V, d] of L, visiting the vocabulary in chunks. */
export function vocabHeadBackward(
  hidden: ArrayLike<number>,
  head: ArrayLike<number>,
  targets: ArrayLike<number>,
  stats: { lse: ArrayLike<number>; entropy: ArrayLike<number> },
  coef: ArrayLike<number>,
  entCoef: ArrayLike<number>,
  N: number,
  d: number,
  V: number,
  chunk: number,
): { dhidden: Float64Array; dhead: Float64Array } {
  const dhidden = new Float64Array(N * d), dhead = new Float64Array(V * d);
  for (let c0 = 0; c0 < V; c0 += chunk) {
    const n = Math.min(chunk, V - c0);
    const dz = vocabChunkGrad(hidden, head, targets, stats.lse, stats.entropy, coef, entCoef, N, d, c0, n);
    for (let t = 0; t < N; t++)
      for (let r = 0; r < n; r++) {
        const g = dz[t * n + r];
        for (let i = 0; i < d; i++) {
          dhidden[t * d + i] += g * head[(c0 + r) * d + i];
          dhead[(c0 + r) * d + i] += g * hidden[t * d + i];
        }
      }
  }
  return { dhidden, dhead };
}

/** The embedding's gradient: dtable[tokens[t]] += dout[t] (returns the sum, [V, d]). */
export function embedRowsBackward(tokens: ArrayLike<number>, dout: ArrayLike<number>, V: number, d: number): Float64Array {
  const dtable = new Float64Array(V * d);
  for (let t = 0; t < tokens.length; t++) for (let i = 0; i < d; i++) dtable[tokens[t] * d + i] += dout[t * d + i];
  return dtable;
}
