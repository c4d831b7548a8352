/**
 * The next-token distribution at one position and how the sampling temperature reshapes it —
 * pure math for the group inspector's token view (the Worker and the page both use it).
 *
 * The policy samples token v with probability p_τ(v) = softmax(z / τ)_v, z the logits. A
 * forward pass at τ = 1 gives ℓ(v) = log softmax(z)_v = z_v − logsumexp(z), and since ℓ differs
 * from z by a constant, softmax(ℓ / τ) = softmax(z / τ): one forward at τ = 1 serves every τ.
 * τ < 1 sharpens the distribution (τ → 0: greedy), τ > 1 flattens it (τ → ∞: uniform).
 *
 *   logp1 = forward at τ = 1 of every candidate token  →  softmaxAtTemperature(logp1, τ)  →  topAlternatives(…)
 *
 * Computed in float64 with the max subtracted first, so no exp overflows and a token with
 * log-prob −Infinity (never sampled) gets probability exactly 0.
 */

/** p_τ(v) = exp(ℓ_v/τ − m) / Σ_u exp(ℓ_u/τ − m), m = max_u ℓ_u/τ. Throws on τ ≤ 0 or a NaN input. */
export function softmaxAtTemperature(logp1: ArrayLike<number>, temperature: number): Float64Array {
  if (!(temperature > 0) || !Number.isFinite(temperature)) throw new RangeError(`temperature must be a positive finite number, got ${temperature}`);
  const n = logp1.length;
  const out = new Float64Array(n);
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = logp1[i];
    if (Number.isNaN(v)) throw new RangeError(`log-prob ${i} is NaN`);
    max = Math.max(max, v / temperature);
  }
  if (max === -Infinity) throw new RangeError('every log-prob is −Infinity: not a distribution');
  let sum = 0;
  for (let i = 0; i < n; i++) {
    out[i] = Math.exp(logp1[i] / temperature - max);
    sum += out[i];
  }
  for (let i = 0; i < n; i++) out[i] /= sum;
  return out;
}

/** Entropy −Σ p log p of a distribution, in nats (0 · log 0 = 0). */
export function entropyOf(p: ArrayLike<number>): number {
  let h = 0;
  for (let i = 0; i < p.length; i++) if (p[i] > 0) h -= p[i] * Math.log(p[i]);
  return h;
}

export interface Alternative {
  /** Token id. */
  id: number;
  p: number;
}

/** The k most probable token ids, most probable first (ties: lower id first). */
export function topAlternatives(p: ArrayLike<number>, k: number): Alternative[] {
  const ids = Array.from({ length: p.length }, (_, i) => i);
  ids.sort((a, b) => p[b] - p[a] || a - b);
  return ids.slice(0, Math.max(0, k)).map((id) => ({ id, p: p[id] }));
}

/** One temperature's view of a position: its top alternatives, the distribution's entropy, and the sampled token's probability. */
export interface TemperatureView {
  temperature: number;
  top: Alternative[];
  /** Entropy of the whole distribution at this τ (nats). */
  entropy: number;
  /** Probability of `sampled` at this τ (NaN when no sampled token was given). */
  sampledP: number;
}

/** The position seen at each temperature, from one τ = 1 forward's log-probs. */
export function temperatureViews(logp1: ArrayLike<number>, temperatures: readonly number[], k: number, sampled = -1): TemperatureView[] {
  return temperatures.map((temperature) => {
    const p = softmaxAtTemperature(logp1, temperature);
    return { temperature, top: topAlternatives(p, k), entropy: entropyOf(p), sampledP: sampled >= 0 && sampled < p.length ? p[sampled] : NaN };
  });
}
