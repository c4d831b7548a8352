/**
 * Scalar reference of the per-token loss terms (clipped surrogate, KL penalties), matching
 * verl's compute_policy_loss / kl_penalty. The GPU kernels are tested against these; the
 * batch loss is Σ_tokens w · (pg + β·kl − α·H) with w from aggregation.ts.
 */

export type KlType = 'k1' | 'k3' | 'low_var_kl';

export interface PpoTokenResult {
  /** −min(ρA, clip(ρ, 1−ε_low, 1+ε_high)A), with the dual clip when enabled. */
  loss: number;
  /** d loss / d logp (logp = log π_θ of the sampled token). */
  dLogp: number;
  /** The clipped branch was taken (counts toward actor/pg_clipfrac). */
  clipped: boolean;
  /** The dual-clip bound was taken (A < 0; counts toward actor/pg_clipfrac_lower). */
  clippedLower: boolean;
  /** ρ = exp(logp − oldLogp). */
  ratio: number;
}

/**
 * Clipped surrogate for one token. `dualClip` (verl clip_ratio_c, > 1) bounds the loss of
 * negative-advantage tokens by −A·c; null disables it (the released MAGIC setting).
 */
export function ppoTokenLoss(
  logp: number,
  oldLogp: number,
  adv: number,
  epsLow: number,
  epsHigh: number,
  dualClip: number | null = null,
): PpoTokenResult {
  const ratio = Math.exp(logp - oldLogp);
  const l1 = -adv * ratio;
  const clippedRatio = Math.min(Math.max(ratio, 1 - epsLow), 1 + epsHigh);
  const l2 = -adv * clippedRatio;
  const clipped = l2 > l1;
  let loss = clipped ? l2 : l1;
  // Only the unclipped branch depends on θ (clip(ρ) is constant once ρ is outside the band).
  let dLogp = clipped ? 0 : -adv * ratio;
  let clippedLower = false;
  if (dualClip !== null && adv < 0) {
    const l3 = -adv * dualClip;
    if (loss > l3) {
      loss = l3;
      dLogp = 0;
      clippedLower = true;
    }
  }
  return { loss, dLogp, clipped, clippedLower, ratio };
}

/**
 * Token-level KL(π_θ ‖ π_ref) estimate and its derivative in logp.
 * k1 = logp − refLogp; k3 = e^{ref−logp} − (ref−logp) − 1 (Schulman's unbiased, ≥ 0);
 * low_var_kl = k3 clamped to [−10, 10] as in verl (gradient 0 where clamped).
 */
export function klPenalty(logp: number, refLogp: number, type: KlType): { value: number; dLogp: number } {
  if (type === 'k1') return { value: logp - refLogp, dLogp: 1 };
  const d = refLogp - logp;
  const e = Math.exp(d);
  const value = e - d - 1;
  const dLogp = 1 - e;
  if (type === 'low_var_kl' && (value > 10 || value < -10)) return { value: Math.min(10, Math.max(-10, value)), dLogp: 0 };
  return { value, dLogp };
}
