/**
 * What the controller remembers about storing runs: throttled IndexedDB writes (at most one per
 * run per PERSIST_MS), a checkpoint the user asked for (its answer is a notice), the files whose
 * upload is loading, and the last deleted run (the notice's Undo brings it back).
 */
import type { StoredCheckpoint } from '../lib/db';
import type { RunData } from '../../io/runfile';
import type { RunState } from '../../worker/protocol';

export const PERSIST_MS = 1000;

/** Writes a run at most once per `ms` (its latest state), or at once when asked. */
export class RunPersister {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly write: (runId: string) => Promise<void> | void,
    private readonly ms = PERSIST_MS,
  ) {}

  persist(runId: string, now = false): void {
    const write = () => {
      this.timers.delete(runId);
      void this.write(runId);
    };
    if (now) {
      const t = this.timers.get(runId);
      if (t) clearTimeout(t);
      write();
    } else if (!this.timers.has(runId)) this.timers.set(runId, setTimeout(write, this.ms));
  }

  /** The run's pending write, made now (resolves when it is done); nothing when none is pending. */
  async flush(runId: string): Promise<void> {
    const t = this.timers.get(runId);
    if (!t) return;
    clearTimeout(t);
    this.timers.delete(runId);
    await this.write(runId);
  }
}

/**
 * The run-record writer of a tab: `put` runs only while `holding` says this tab holds the run's lock
 * (controller/run-lock.ts); otherwise it stops there and writes nothing, so a tab that let go of a
 * run (Reset, another run, a claim by another tab after that) never lands its older copy over the
 * copy of the tab that trains it now.
 */
export function lockedWriter(holding: (runId: string) => Promise<boolean>, put: (runId: string) => Promise<void> | void): (runId: string) => Promise<void> {
  return async (runId) => {
    if (await holding(runId)) await put(runId);
  };
}

/** Whether the user asked for the next checkpoint (Save): its arrival is then a notice. */
export class SaveRequest {
  private asked = false;

  ask(): void {
    this.asked = true;
  }

  /** A checkpoint arrived: whether it answers a request (which is then answered). */
  answered(): boolean {
    const asked = this.asked;
    this.asked = false;
    return asked;
  }

  forget(): void {
    this.asked = false;
  }
}

/** Runs started from an uploaded file, by run id → file name, until their checkpoint has loaded. */
export class UploadedRuns {
  private readonly byRun = new Map<string, string>();
  /** The file whose upload just failed: names it in the Worker's error message that follows. */
  private failed: string | null = null;

  started(runId: string, fileName: string): void {
    this.byRun.set(runId, fileName);
  }

  /** The Worker's state for `runId`: whether it is an uploaded run that failed to load (its file is then named by takeFailed). */
  failedToLoad(runId: string | null, state: RunState): boolean {
    const upload = runId ? this.byRun.get(runId) : undefined;
    if (!runId || upload === undefined || state === 'starting') return false;
    this.byRun.delete(runId);
    if (state !== 'error') return false;
    this.failed = upload;
    return true;
  }

  /** The file whose upload just failed, once. */
  takeFailed(): string | null {
    const f = this.failed;
    if (f) this.failed = null;
    return f;
  }
}

/** The last deleted run and its checkpoint, kept in memory so the notice's Undo can bring both back. */
export class LastDeleted {
  private kept: { run: RunData; checkpoint?: StoredCheckpoint } | null = null;

  keep(run: RunData, checkpoint?: StoredCheckpoint): void {
    this.kept = { run, checkpoint };
  }

  /** The last deleted run, once. */
  take(): { run: RunData; checkpoint?: StoredCheckpoint } | null {
    const d = this.kept;
    this.kept = null;
    return d;
  }
}
