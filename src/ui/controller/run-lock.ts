/**
 * One writer per run across this origin's tabs: a tab trains, saves, renames or
 * deletes a run only while it holds that run's Web Lock (`navigator.locks`, name
 * `magic-lab-run:<id>`). The lock lives as long as the tab holds it or the tab lives: the
 * browser releases it when the tab closes or crashes, so a lock is never left stale.
 * `locks` is injectable (tests give a fake; a browser without the API gives null: one tab
 * cannot then see another, and every request is granted).
 */

/** The part of `navigator.locks` this uses. */
export interface LockManagerLike {
  request(name: string, options: { ifAvailable: true }, callback: (lock: unknown) => unknown): Promise<unknown>;
}

/** `held`: this tab holds the run's lock; `busy`: another tab holds it. */
export type LockResult = 'held' | 'busy';

export const runLockName = (runId: string) => `magic-lab-run:${runId}`;

export class RunLocks {
  /** Held locks by run id → the function that releases the lock. */
  private readonly held = new Map<string, () => void>();
  private readonly pending = new Map<string, Promise<LockResult>>();
  /** Released while the request was still pending: let go as soon as it is granted. */
  private readonly dropped = new Set<string>();

  constructor(private readonly locks: LockManagerLike | null) {}

  holds(runId: string): boolean {
    return this.locks === null || this.held.has(runId);
  }

  /** Whether this tab holds the run's lock, once its own request in flight (if any) is answered; never takes it. */
  async holding(runId: string): Promise<boolean> {
    if (this.holds(runId)) return true;
    const waiting = this.pending.get(runId);
    return waiting !== undefined && (await waiting) === 'held' && this.holds(runId);
  }

  /** Takes the run's lock if no tab holds it (never waits): 'held' when this tab now holds it. */
  acquire(runId: string): Promise<LockResult> {
    if (this.holds(runId)) return Promise.resolve('held');
    const waiting = this.pending.get(runId);
    if (waiting) return waiting;
    this.dropped.delete(runId);
    const locks = this.locks as LockManagerLike;
    const attempt = new Promise<LockResult>((resolve) => {
      locks
        .request(runLockName(runId), { ifAvailable: true }, (lock) => {
          if (!lock) return resolve('busy');
          // The lock is held until this promise settles (release()).
          return new Promise<void>((release) => {
            this.held.set(runId, release);
            resolve('held');
            if (this.dropped.delete(runId)) this.release(runId);
          });
        })
        // A browser that refuses the request (an opaque origin) cannot coordinate tabs at all.
        .catch(() => resolve('held'));
    }).finally(() => this.pending.delete(runId));
    this.pending.set(runId, attempt);
    return attempt;
  }

  release(runId: string): void {
    const release = this.held.get(runId);
    if (release) {
      this.held.delete(runId);
      release();
    } else if (this.pending.has(runId)) this.dropped.add(runId);
  }

  /**
   * Runs `write` under the run's lock: at once when this tab holds it, else after taking it
   * (released again when `write` settles). 'busy' (and `write` not run) when another tab holds it.
   */
  async withLock(runId: string, write: () => Promise<unknown> | unknown): Promise<LockResult> {
    const hadIt = this.holds(runId);
    if (!hadIt && (await this.acquire(runId)) === 'busy') return 'busy';
    try {
      await write();
    } finally {
      if (!hadIt) this.release(runId);
    }
    return 'held';
  }

  /** Whether no tab holds the run's lock now (asked by taking it and letting go at once). */
  async free(runId: string): Promise<boolean> {
    if (this.locks === null || this.held.has(runId)) return this.locks === null;
    return (await this.withLock(runId, () => undefined)) === 'held';
  }
}

/** What another tab's lock stopped. */
export type LockedAction = 'train' | 'rename' | 'delete';

/** The page's one sentence when another tab holds the run (the banner offers to open it read-only). */
export function lockedSentence(name: string, action: LockedAction): string {
  const what = action === 'train' ? 'resume or save it' : `${action} it`;
  return `${name} is open for training in another tab of this browser, so this tab cannot ${what}; you can open it here read-only.`;
}

/** The page's sentence while it shows another tab's run read-only. */
export function readOnlySentence(name: string): string {
  return `${name} is shown read-only: another tab is training it, so this tab shows its saved steps and changes nothing.`;
}
