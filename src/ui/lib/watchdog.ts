/**
 * Whether the Worker answered a `stop` (src/ui/lab.ts, Reset): a Worker wedged in set-up work or a
 * step that does not end (a synchronous loop never reads its messages) cannot be stopped by a
 * message, only terminated. `arm(runId)` when a stop is sent; every `state` message from the
 * Worker goes to `state(runId)` — one for another run than the stopped one (the Worker's `idle`
 * after the stop, or the next run's) is the answer; without one within `ms`, `onStuck` runs once.
 */
export class StopWatch {
  private pending: { runId: string | null; timer: ReturnType<typeof setTimeout> } | null = null;
  constructor(
    private readonly ms: number,
    private readonly onStuck: () => void,
  ) {}

  get armed(): boolean {
    return this.pending !== null;
  }

  /** A stop for `runId` was sent (a later arm for the same wait keeps the first deadline). */
  arm(runId: string | null): void {
    if (this.pending) return;
    const timer = setTimeout(() => {
      this.pending = null;
      this.onStuck();
    }, this.ms);
    this.pending = { runId, timer };
  }

  /** The Worker sent a state for `runId`. */
  state(runId: string | null): void {
    if (this.pending && runId !== this.pending.runId) this.clear();
  }

  clear(): void {
    if (this.pending) clearTimeout(this.pending.timer);
    this.pending = null;
  }
}
