/**
 * What a lost GPU device resumes the live run from: the last checkpoint this run
 * posted, or before it what the run was started from; how many devices were lost since progress
 * was last made (bounded by DEVICE_RECOVERY); and whether the fresh run's start evaluation (the
 * "before" point of the held-out curves) is still to be done.
 */
import type { RunConfig } from '../rl/config';

/** What the live run was started from: its config and checkpoint (or base weights). */
export interface RunStart {
  config: RunConfig;
  checkpoint?: Uint8Array;
  /** Not resumed from a run checkpoint (it gets a start evaluation). */
  fresh: boolean;
}

export class ResumePoint {
  /** What the live run was started from: a lost device before the first checkpoint restarts it from here. */
  start: RunStart | null = null;
  /** The last checkpoint this run posted (kept: a lost GPU device resumes the run from it). */
  checkpoint: Uint8Array | null = null;
  /** The step of the last checkpoint posted (or resumed from); -1 before any. */
  checkpointStep = -1;
  /** Device losses since the last checkpoint written after a recovery (bounded by DEVICE_RECOVERY). */
  losses = 0;
  /** The step the last recovery resumed at (-1: none). */
  resumedAt = -1;
  /** A fresh run evaluates its start weights before the first step, as `magic-lab train` does. */
  startEvalPending = false;
  /** The start evaluation was sent to the page (a recovery to step 0 does not send it twice). */
  startEvalPosted = false;

  /** The run was set up from `start`: no loss counted, nothing resumed, no start evaluation sent. */
  began(start: RunStart): void {
    this.start = start;
    this.losses = 0;
    this.resumedAt = -1;
    this.startEvalPosted = false;
  }

  /** The run's checkpoint at `step` was posted. */
  saved(step: number, bytes: Uint8Array): void {
    this.checkpoint = bytes;
    this.checkpointStep = step;
  }

  /** The run was stopped: nothing to resume from. */
  forget(): void {
    this.start = null;
    this.checkpoint = null;
  }

  /** Counts a device loss; a checkpoint since the last recovery is progress and restarts the count. Returns the count. */
  countLoss(): number {
    if (this.checkpointStep > this.resumedAt) this.losses = 0;
    this.losses++;
    return this.losses;
  }

  /** The run (`fresh`: see RunStart) was reopened at `step`; returns the checkpoint step it resumed from (null: from its start). */
  resumed(step: number, fresh: boolean): number | null {
    this.resumedAt = step;
    this.startEvalPending = fresh && step === 0 && !this.startEvalPosted;
    return this.checkpoint || step > 0 ? step : null;
  }

  /** Whether the start evaluation is due now (at step 0); it is then no longer pending. */
  takeStartEval(step: number): boolean {
    if (!this.startEvalPending || step !== 0) return false;
    this.startEvalPending = false;
    return true;
  }

  /** What the page keeps when the run stops for good (one clause of the message). */
  keptLine(): string {
    return this.checkpointStep >= 0
      ? `its checkpoint at step ${this.checkpointStep} is kept in this browser: Load it (Checkpoints) or resume it from the Runs panel once the GPU works again — reload the page if it does not, or choose the CPU engine`
      : 'no checkpoint was saved before it: start the run again';
  }

  /** The checkpoint a diverged run leaves (one clause of the message). */
  lastGoodLine(): string {
    return this.checkpointStep >= 0 ? `the last good checkpoint is this run's checkpoint at step ${this.checkpointStep}` : 'no checkpoint was saved before it';
  }
}
