/**
 * The Worker's live run as commands see it: which run, its state line, whether it should keep
 * stepping, what waits for the next step boundary, and a generation that every start and stop
 * advances (a superseded training loop or set-up compares its own and stops touching the new run).
 */
import type { StageConfig } from '../rl/config';
import type { FromWorker, RunState } from './protocol';

/** What the session reads of its trainer (MagicTrainer has it). */
export interface SessionTrainer {
  readonly step: number;
  readonly stage: number;
  destroy(): void;
}

export class RunSession<T extends SessionTrainer = SessionTrainer> {
  runId: string | null = null;
  state: RunState = 'idle';
  /** The line the state message carries when no other is given (how the run started or resumed). */
  note: string | undefined;
  trainer: T | null = null;
  /** Keep stepping until paused. */
  running = false;
  /** Single steps requested (each runs one step, then the run pauses). */
  pendingSteps = 0;
  /** The training loop is in a pass. */
  looping = false;
  /** A stage edit waiting for the next step boundary. */
  pendingStages: StageConfig[] | null = null;
  /** A checkpoint request waiting for the next step boundary. */
  pendingSave = false;
  /** Incremented by every start/stop so a superseded loop stops touching the new run. */
  generation = 0;

  /** Whether the loop has steps to run (running, or single steps asked for). */
  get wantsSteps(): boolean {
    return this.running || this.pendingSteps > 0;
  }

  /** A new run `runId` is being set up. */
  begin(runId: string, paused: boolean): void {
    this.runId = runId;
    this.state = 'starting';
    this.note = undefined;
    this.running = !paused;
  }

  /** No run any more (stopped, or the engine was switched). */
  end(): void {
    this.runId = null;
    this.state = 'idle';
    this.note = undefined;
  }

  /** Every run and loop before this call is superseded; nothing waits for a step any more. */
  supersede(): void {
    this.generation++;
    this.halt();
    this.pendingStages = null;
    this.pendingSave = false;
  }

  /** Stops stepping after the current step (pause; an error). */
  halt(): void {
    this.running = false;
    this.pendingSteps = 0;
  }

  /** One more single step, then pause. */
  stepOnce(): void {
    this.running = false;
    this.pendingSteps++;
  }

  /** A step finished: one single step fewer to run. */
  stepped(): void {
    if (this.pendingSteps > 0) this.pendingSteps--;
  }

  /** The stage edit waiting for the step boundary, taken (null when none). */
  takeStages(): StageConfig[] | null {
    const s = this.pendingStages;
    this.pendingStages = null;
    return s;
  }

  /** Whether a checkpoint was asked for since the last step boundary (the request is taken). */
  takeSave(): boolean {
    const save = this.pendingSave;
    this.pendingSave = false;
    return save;
  }

  /** Drops the trainer (its buffers freed). */
  dropTrainer(): void {
    this.trainer?.destroy();
    this.trainer = null;
  }

  /** The `state` message for the page. */
  stateMessage(message?: string): Extract<FromWorker, { type: 'state' }> {
    return { type: 'state', runId: this.runId, state: this.state, step: this.trainer?.step ?? 0, stage: this.trainer?.stage ?? 0, message: message ?? this.note };
  }
}
