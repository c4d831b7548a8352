/** Float64 twin of the gradient norm and AdamW with its finite-step gate (shaders/optimizer.wgsl, src/cpu/assembly/optimizer.ts). */

import type { AdamWOptions as EngineAdamW } from '../../../util/engine-options';

// ---------------------------------------------------------------------------------------------
// Optimiser
// ---------------------------------------------------------------------------------------------

/** PyTorch clip_grad_norm_: norm = ‖g‖₂, scale = min(1, maxNorm/(norm + 1e-6)). Grads untouched. */
export function clipGradNorm(grads: Float64Array, maxNorm: number): { norm: number; scale: number } {
  let ss = 0;
  for (let i = 0; i < grads.length; i++) ss += grads[i] * grads[i];
  const norm = Math.sqrt(ss);
  return { norm, scale: Math.min(1, maxNorm / (norm + 1e-6)) };
}

/** The engines' AdamW hyperparameters (the clip is applied by the caller through gradScale), plus the step's own. */
export interface AdamWOptions extends Omit<EngineAdamW, 'maxGradNorm'> {
  /** 1-based step count, for bias correction. */
  step: number;
  /** Multiplier on the gradients (clipGradNorm's scale). */
  gradScale: number;
  /** Elements [0, decayEnd) get weight decay; the rest do not. */
  decayEnd: number;
  /** The step's loss and global gradient norm (before clipping): a non-finite one rejects the step (stepIsFinite). Absent: always applied. */
  gate?: { loss: number; gradNorm: number };
}

/**
 * Whether an update may apply (both engines' rule, checked before AdamW): the loss and the
 * global gradient norm are both finite. A rejected step leaves params, m and v as they were.
 */
export function stepIsFinite(loss: number, gradNorm: number): boolean {
  return Number.isFinite(loss) && Number.isFinite(gradNorm);
}

/**
 * One AdamW step, in place on params, m and v. Weight decay is decoupled (AdamW) and uses the
 * parameter value from before this update. Returns false, touching nothing, when `gate` says the
 * step is not finite.
 */
export function adamwStep(
  params: Float64Array,
  grads: Float64Array,
  m: Float64Array,
  v: Float64Array,
  opts: AdamWOptions,
): boolean {
  const { lr, beta1, beta2, eps, weightDecay, step, gradScale, decayEnd, gate } = opts;
  if (gate && !stepIsFinite(gate.loss, gate.gradNorm)) return false;
  const bc1 = 1 - beta1 ** step;
  const bc2 = 1 - beta2 ** step;
  for (let i = 0; i < params.length; i++) {
    const g = grads[i] * gradScale;
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    const mhat = m[i] / bc1;
    const vhat = v[i] / bc2;
    const wd = i < decayEnd ? weightDecay : 0;
    params[i] -= lr * (mhat / (Math.sqrt(vhat) + eps) + wd * params[i]);
  }
  return true;
}
