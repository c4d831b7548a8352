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
    readonly quantity: 'loss' | 'grad norm' | 'log-prob' | 'entropy',
    readonly value: number,
    readonly consecutive: number,
    message?: string,
  ) {
    super(message ?? `the run diverged at step ${step}: ${consecutive} optimizer step${consecutive === 1 ? '' : 's'} in a row rejected as non-finite (last: ${quantity} ${value})`);
    this.name = 'DivergenceError';
  }
}

/** A non-finite value out of a forward pass (the weights may be finite: large ones overflow f32 in the activations). */
export class NonFiniteForwardError extends Error {
  constructor(
    readonly quantity: 'log-prob' | 'entropy',
    readonly value: number,
  ) {
    super(`a response token's ${quantity} is ${value}: the policy's forward pass overflowed`);
    this.name = 'NonFiniteForwardError';
  }
}

/** Throws a NonFiniteForwardError at the first non-finite log-prob or entropy of sampled responses. */
export function checkFiniteSamples(responses: readonly { logp: readonly number[]; entropy: readonly number[] }[]): void {
  for (const r of responses) {
    for (let i = 0; i < r.logp.length; i++) {
      if (!Number.isFinite(r.logp[i])) throw new NonFiniteForwardError('log-prob', r.logp[i]);
      if (!Number.isFinite(r.entropy[i])) throw new NonFiniteForwardError('entropy', r.entropy[i]);
    }
  }
}

/** The run stopped because a forward pass (rollout or evaluation) produced non-finite values at `step`. */
export function forwardDivergence(step: number, where: 'rollout' | 'evaluation', e: NonFiniteForwardError): DivergenceError {
  return new DivergenceError(step, e.quantity, e.value, 0, `the run diverged at step ${step}: ${e.message} in ${where === 'rollout' ? "the step's rollouts" : 'the evaluation'}`);
}

/**
 * Runs a forward pass (a step's rollouts, an evaluation): non-finite log-probs or entropies out of
 * it become a DivergenceError, handed to `diverged` (the trainer keeps it: nothing more runs or
 * saves) and thrown — where they arise, not later as a failed entropy check with a trace.
 */
export async function guardForward<T>(step: number, where: 'rollout' | 'evaluation', diverged: (e: DivergenceError) => void, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof NonFiniteForwardError)) throw e;
    const d = forwardDivergence(step, where, e);
    diverged(d);
    throw d;
  }
}
