/**
 * Recovery from a lost GPU device, shared by `magic-lab train` and the page's Worker: the run
 * pauses, a new device is requested a bounded number of times with growing pauses between
 * attempts, and the run resumes from its last checkpoint (losing at most the steps since it,
 * which replay identically on the same backend). Host-neutral: the caller supplies how to open
 * a backend and where its checkpoint is; this file only decides when to give up and what to say.
 */
import { describeLoss, DeviceLostError, GpuUncapturedError, isDeviceFault } from '../model/engine';

export { isDeviceFault } from '../model/engine';

export interface RecoveryPolicy {
  /** Attempts to open a new device after one loss (the first one immediately after `backoffMs[0]`). */
  attempts: number;
  /** Pause before each attempt, ms (the last value repeats). */
  backoffMs: readonly number[];
  /** Losses in a row without a new checkpoint between them before the run gives up (a device that fails at the same step every time). */
  maxLossesWithoutProgress: number;
}

export const DEVICE_RECOVERY: RecoveryPolicy = { attempts: 4, backoffMs: [250, 1000, 3000, 8000], maxLossesWithoutProgress: 3 };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** No new device after every attempt; `lastError` is the last attempt's failure. */
export class RecoveryFailed extends Error {
  constructor(
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    super(`no new GPU device after ${attempts} attempt${attempts === 1 ? '' : 's'} (${errText(lastError)})`);
    this.name = 'RecoveryFailed';
  }
}

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Calls `open` until it succeeds, at most `policy.attempts` times, waiting `backoffMs[i]` before
 * attempt i (and asking `cancelled` after each wait: a run stopped meanwhile stops trying).
 * Throws RecoveryFailed after the last failure.
 */
export async function reopenWithBackoff<T>(
  open: () => Promise<T>,
  opts: { policy?: RecoveryPolicy; wait?: (ms: number) => Promise<void>; onAttempt?: (attempt: number, of: number) => void; onFailure?: (attempt: number, error: unknown) => void; cancelled?: () => boolean } = {},
): Promise<T | null> {
  const policy = opts.policy ?? DEVICE_RECOVERY;
  const wait = opts.wait ?? sleep;
  let last: unknown = new Error('no attempt was made');
  for (let i = 0; i < policy.attempts; i++) {
    await wait(policy.backoffMs[Math.min(i, policy.backoffMs.length - 1)] ?? 0);
    if (opts.cancelled?.()) return null;
    opts.onAttempt?.(i + 1, policy.attempts);
    try {
      return await open();
    } catch (e) {
      last = e;
      opts.onFailure?.(i + 1, e);
    }
  }
  throw new RecoveryFailed(policy.attempts, last);
}

/** What went wrong with the device, in a few words: "the GPU device was lost (unknown: …)" or "the GPU ran out of memory (…)". */
export function faultText(fault: unknown): string {
  if (fault instanceof DeviceLostError) return `the GPU device was lost (reason ${describeLoss(fault.info)})`;
  if (fault instanceof GpuUncapturedError) {
    const what = fault.kind === 'out-of-memory' ? 'ran out of memory' : `reported an ${fault.kind} error`;
    return `the GPU ${what} (${fault.messages[0] ?? ''})`;
  }
  return errText(fault);
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "steps 5–7 are re-run" / "step 5 is re-run" / "no steps are lost". */
export function rerunText(resumedStep: number, lostAtStep: number): string {
  if (lostAtStep <= resumedStep) return 'no steps are lost';
  if (lostAtStep === resumedStep + 1) return `step ${lostAtStep} is re-run`;
  return `steps ${resumedStep + 1}–${lostAtStep} are re-run`;
}

/** "The GPU device was lost (reason …) after step 7" (without a step when no run was going): how a notice about `fault` begins. */
export function lossHeadline(fault: unknown, lostAtStep?: number): string {
  return `${capital(faultText(fault))}${lostAtStep === undefined ? '' : ` after step ${lostAtStep}`}`;
}

/**
 * The one line a user reads after a recovery. `lostAtStep`: steps done when the device failed;
 * `resumedStep`: the checkpoint's step, or null when the run restarted from its start (no checkpoint yet).
 */
export function recoveredNotice(fault: unknown, lostAtStep: number, resumedStep: number | null, where = 'the checkpoint'): string {
  const from = resumedStep === null ? 'restarted the run from its start (no checkpoint yet)' : `resumed from ${where} at step ${resumedStep}`;
  return `${lossHeadline(fault, lostAtStep)}; ${from} — ${rerunText(resumedStep ?? 0, lostAtStep)}.`;
}

/**
 * Whether to recover from `fault`: a device fault, and `lossesWithoutProgress` (the losses since
 * the last checkpoint written after a recovery, this one included; the caller resets it when a
 * new checkpoint is written) within the policy's bound.
 */
export function mayRecover(fault: unknown, lossesWithoutProgress: number, policy: RecoveryPolicy = DEVICE_RECOVERY): boolean {
  return isDeviceFault(fault) && lossesWithoutProgress <= policy.maxLossesWithoutProgress;
}
