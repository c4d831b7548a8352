/**
 * What the Worker has not yet sent the page: the step records since the last batch and the
 * rollout samples of the last SAMPLE_STEPS_KEPT steps (the page's inspector keeps a history).
 * The training loop sends one batch per `flushMs`, not one message per step.
 */
import type { SampleRecord, StepRecord } from '../rl/trainer-types';

/** Steps whose samples a batch carries at most. */
export const SAMPLE_STEPS_KEPT = 32;

export interface Batch {
  steps: StepRecord[];
  samples: { step: number; samples: SampleRecord[] } | null;
}

export class StepOutbox {
  private steps: StepRecord[] = [];
  private samples: Batch['samples'] = null;
  private lastFlush = 0;

  constructor(
    private readonly flushMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A finished step's record and its rollout samples (if any). */
  add(record: StepRecord, samples: SampleRecord[]): void {
    this.steps.push(record);
    if (samples.length) this.samples = { step: record.step, samples: [...(this.samples?.samples ?? []).filter((s) => s.step > record.step - SAMPLE_STEPS_KEPT), ...samples] };
  }

  /** Whether flushMs has passed since the last batch. */
  get due(): boolean {
    return this.now() - this.lastFlush >= this.flushMs;
  }

  /** Everything not yet sent, which is then forgotten; the batch clock restarts. */
  take(): Batch {
    const batch = { steps: this.steps, samples: this.samples };
    this.clear();
    this.lastFlush = this.now();
    return batch;
  }

  /** Drops what was not sent (a new run; a lost device: the steps since the checkpoint are sent again). */
  clear(): void {
    this.steps = [];
    this.samples = null;
  }
}
