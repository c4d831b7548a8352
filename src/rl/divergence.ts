/**
 * Divergence, caught before it reaches the weights. Both engines check every update's loss and
 * global gradient norm before AdamW applies it (the AdamW kernel reads them on the device, so no
 * readback is added): a non-finite step is rejected — weights and AdamW moments keep their bits —
 * and reported as StepStats.applied = false. The trainer counts rejected steps
 * (`actor/nonfinite_steps`) and stops the run with a DivergenceError after
 * `update.maxNonfiniteSteps` rejections in a row; no checkpoint is written from the failed step,
 * so the run's last checkpoint is its last good state.
 */
import type { StepStats } from '../model/engine';

/** The quantity that made a step non-finite: the loss when it is, else the gradient norm. */
export function nonfiniteQuantity(s: Pick<StepStats, 'loss' | 'gradNorm'>): { quantity: 'loss' | 'grad norm'; value: number } {
  return Number.isFinite(s.loss) ? { quantity: 'grad norm', value: s.gradNorm } : { quantity: 'loss', value: s.loss };
}

/**
 * The run stopped: `consecutive` optimizer steps in a row were rejected as non-finite. Names the RL
 * step, the quantity and its value in the last rejected step; the caller adds where the last good
 * checkpoint is (the trainer does not know the file).
 */
export class DivergenceError extends Error {
  constructor(
    /** RL step (1-based) during which the run stopped. */
    readonly step: number,
    readonly quantity: 'loss' | 'grad norm',
    readonly value: number,
    readonly consecutive: number,
  ) {
    super(`the run diverged at step ${step}: ${consecutive} optimizer step${consecutive === 1 ? '' : 's'} in a row rejected as non-finite (last: ${quantity} ${value})`);
    this.name = 'DivergenceError';
  }
}
