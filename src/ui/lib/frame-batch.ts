/**
 * The Worker's messages, delivered in order but in batches: one batch per animation frame. A
 * training step's flush arrives as several messages (metrics, samples, state, sync), each its own
 * task; handled one by one, every one was its own store update and its own React render. Handled
 * together they make one render (React batches store updates made in one task), so each step costs
 * the page one render of what changed instead of three or four.
 */

/** Runs `cb` once, soon (an animation frame, or a timer where frames do not come). */
export type Schedule = (cb: () => void) => void;

export class FrameBatch<T> {
  private queue: T[] = [];
  private scheduled = false;

  /**
   * `deliver` gets every item in arrival order; `schedule` says when a batch is delivered; `now`
   * delivers at once when true (a hidden page draws nothing); an item for which `endsBatch` is true
   * is the last of its batch (the rest wait for the next): every run state the Worker reports is
   * drawn, even when the next one follows within the same frame.
   */
  constructor(
    private readonly deliver: (item: T) => void,
    private readonly schedule: Schedule,
    private readonly now: () => boolean = () => false,
    private readonly endsBatch: (item: T) => boolean = () => false,
  ) {}

  push(item: T): void {
    if (this.now() && !this.scheduled) return this.deliver(item);
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.drain(false));
  }

  /** Delivers everything waiting now (before anything that must see every earlier message). */
  flush(): void {
    this.drain(true);
  }

  private drain(all: boolean): void {
    this.scheduled = false;
    // Items pushed while delivering join this batch. A handler that throws does not lose the rest:
    // its error is reported as an uncaught one, as it was when each message was its own task.
    while (this.queue.length) {
      const item = this.queue.shift() as T;
      try {
        this.deliver(item);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
      if (!all && this.endsBatch(item) && this.queue.length && !this.scheduled) {
        this.scheduled = true;
        this.schedule(() => this.drain(false));
        return;
      }
    }
  }

  get pending(): number {
    return this.queue.length;
  }
}

/**
 * The page's schedule: the next animation frame, or 100 ms where frames stop (a background tab
 * runs no frames; its timers still run).
 */
export const frameSchedule: Schedule = (cb) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    cb();
  };
  const timer = setTimeout(once, 100);
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(once);
};

/** A hidden page draws nothing: its messages need not wait for a frame. */
export const pageHidden = (): boolean => typeof document !== 'undefined' && document.visibilityState === 'hidden';
