/**
 * The Worker's side of "draw, then step": after a step's messages it asks the page to answer
 * once they are on screen (`sync` → `drawn`) and holds the next GPU step until the answer, or
 * until `maxWaitMs` (a hidden tab draws late; training must not stall on it). Used when the GPU
 * is emulated on the CPU: there the GPU work and the page's chart redraws compete for the same
 * cores, and a redraw that shares them runs past the page's 50 ms long-task budget.
 */
export class DrawGate {
  private nextId = 1;
  private awaited: number | null = null;
  private wake: (() => void) | null = null;

  /** Starts waiting for a new answer; returns the id to send in the `sync` message. */
  request(): number {
    this.awaited = this.nextId++;
    return this.awaited;
  }

  /** The page's `drawn` answer. Answers to older requests are ignored. */
  answer(id: number): void {
    if (id !== this.awaited) return;
    this.awaited = null;
    this.wake?.();
  }

  /** Whether a request is still unanswered. */
  get waiting(): boolean {
    return this.awaited !== null;
  }

  /** Resolves when the current request is answered (at once if none) or after maxWaitMs. */
  async wait(maxWaitMs: number): Promise<'drawn' | 'timeout'> {
    if (this.awaited === null) return 'drawn';
    const outcome = await new Promise<'drawn' | 'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), maxWaitMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve('drawn');
      };
    });
    this.wake = null;
    this.awaited = null;
    return outcome;
  }

  /** Forgets the request (a stopped run, a pause): the next step does not wait. */
  cancel(): void {
    this.awaited = null;
    this.wake?.();
  }
}
