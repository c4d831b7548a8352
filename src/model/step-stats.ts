/**
 * Combining the statistics of a gradient accumulation's calls (UpdateOptions.accumulate), apart
 * from step.ts so that the layers above import no GPU kernel with it.
 */
import type { StepStats } from './step';

/**
 * The statistics of one mini-batch from those of its micro-batches (UpdateOptions.accumulate, in
 * call order): the weighted sums add (each token's weight carries the mini-batch's normalisation),
 * the per-token fractions are re-weighted by token count; the grad norm and `applied` are the
 * last call's (the one that took the norm and the AdamW step).
 */
export function combineStepStats(parts: readonly StepStats[]): StepStats {
  if (parts.length === 0) throw new Error('combineStepStats: no micro-batch statistics');
  if (parts.length === 1) return parts[0];
  const sum = (f: (p: StepStats) => number) => parts.reduce((a, p) => a + f(p), 0);
  const maskCount = sum((p) => p.maskCount);
  const n = Math.max(1, maskCount);
  const perToken = (f: (p: StepStats) => number) => sum((p) => f(p) * Math.max(1, p.maskCount)) / n;
  const last = parts[parts.length - 1];
  return {
    loss: sum((p) => p.loss),
    pgLoss: sum((p) => p.pgLoss),
    klSum: sum((p) => p.klSum),
    entSum: sum((p) => p.entSum),
    clipfrac: perToken((p) => p.clipfrac),
    clipfracLower: perToken((p) => p.clipfracLower),
    ppoKl: perToken((p) => p.ppoKl),
    maskCount,
    gradNorm: last.gradNorm,
    applied: last.applied,
  };
}
