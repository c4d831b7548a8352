/**
 * Which tab may write which run, and what the page says about it: the live run's Web
 * Lock (run-lock.ts) is taken when it starts or resumes here and let go when another run becomes
 * live; resume, rename and delete of a run another tab holds are refused with one sentence and an
 * offer to open the run read-only (this tab then re-reads it from IndexedDB every few seconds and
 * writes nothing). At start, the runs found are checked against what was saved (visits.ts).
 */
import { create } from 'zustand';
import type { RunData } from '../../io/runfile';
import { dbGetRun } from '../lib/db';
import type { Lab } from './lab-store';
import { lockedSentence, readOnlySentence, RunLocks, type LockedAction, type LockManagerLike } from './run-lock';
import { SavedRunsMarker, startSentence, unfinished, type KeyValueStorage } from './visits';

/** What the run-access banner shows: one sentence, and the read-only offer when another tab holds the run. */
export interface RunAccessState {
  kind: 'locked' | 'read-only' | 'visit' | null;
  sentence: string | null;
  runId: string | null;
}

export const useRunAccess = create<RunAccessState>(() => ({ kind: null, sentence: null, runId: null }));

/** How often a run shown read-only is re-read from IndexedDB (the other tab writes at most once a second). */
export const READ_ONLY_REFRESH_MS = 2000;

const lastStep = (r: RunData | undefined) => (r?.steps.length ? r.steps[r.steps.length - 1].step : 0);

export function runAccess(lab: Lab, env: { locks: LockManagerLike | null; storage: KeyValueStorage | null }) {
  const get = () => lab.getState();
  const locks = new RunLocks(env.locks);
  const marker = new SavedRunsMarker(env.storage);
  let refresh: ReturnType<typeof setInterval> | null = null;

  const say = (s: RunAccessState) => {
    if (s.kind !== 'read-only' && refresh) {
      clearInterval(refresh);
      refresh = null;
    }
    useRunAccess.setState(s);
  };

  /** Puts the stored copy of a run in the store when it is further on than this tab's (another tab wrote it). */
  async function adoptStored(runId: string): Promise<void> {
    const stored = await dbGetRun(runId).catch(() => undefined);
    const mine = get().runs[runId];
    if (stored && (!mine || lastStep(stored) > lastStep(mine) || (stored.checkpointStep ?? -1) > (mine.checkpointStep ?? -1) || (stored.done && !mine.done))) get().addRun(stored);
  }

  function refused(runId: string, action: LockedAction): void {
    say({ kind: 'locked', runId, sentence: lockedSentence(get().runs[runId]?.name ?? runId, action) });
  }

  return {
    /**
     * Lets go of a run's lock when another run (or none) becomes this tab's live run, after
     * `beforeRelease` (the run's pending record write) is done; kept when the run is live here
     * again by then. Returns the unsubscribe.
     */
    watchLiveRun(beforeRelease: (runId: string) => Promise<void> = async () => {}): () => void {
      return lab.subscribe((cur, prev) => {
        const id = prev.liveRunId;
        if (!id || cur.liveRunId === id) return;
        void beforeRelease(id)
          .catch(() => undefined)
          .then(() => {
            if (get().liveRunId !== id) locks.release(id);
          });
      });
    },

    /** Whether this tab holds the run's lock (its own request in flight answered first): the run-record writer's check. */
    holding(runId: string): Promise<boolean> {
      return locks.holding(runId);
    },

    /** A one-off write of a run this tab does not train (an import, an Undo), under the run's lock taken for it; false when another tab holds it. */
    async putOnce(runId: string, put: () => Promise<unknown> | unknown): Promise<boolean> {
      return (await locks.withLock(runId, put)) === 'held';
    },

    /** A run just created here (no other tab can know its id). */
    started(runId: string): void {
      void locks.acquire(runId);
    },

    /**
     * Takes the run's lock to train it here; false (the page says why) when another tab holds it.
     * The stored copy replaces this tab's when further on, so resuming never drops another tab's steps.
     */
    async claimForTraining(runId: string): Promise<boolean> {
      if ((await locks.acquire(runId)) === 'busy') {
        refused(runId, 'train');
        return false;
      }
      await adoptStored(runId);
      if (useRunAccess.getState().runId === runId) say({ kind: null, sentence: null, runId: null });
      return true;
    },

    /** A claim that led to no run here (no checkpoint): the lock goes back. */
    unclaim(runId: string): void {
      if (get().liveRunId !== runId) locks.release(runId);
    },

    /** Runs `write` (a rename, a delete) under the run's lock, on the stored copy; refused when another tab holds it. */
    async write(runId: string, action: LockedAction, write: () => Promise<unknown> | unknown): Promise<boolean> {
      const r = await locks.withLock(runId, async () => {
        if (get().liveRunId !== runId) await adoptStored(runId);
        await write();
      });
      if (r === 'busy') refused(runId, action);
      return r === 'held';
    },

    /** The offer taken: shows the run (as stored) and follows the other tab's saves, writing nothing. */
    async openReadOnly(runId: string): Promise<void> {
      await adoptStored(runId);
      get().setActiveRun(runId);
      say({ kind: 'read-only', runId, sentence: readOnlySentence(get().runs[runId]?.name ?? runId) });
      refresh ??= setInterval(() => {
        const shown = useRunAccess.getState();
        if (shown.kind === 'read-only' && shown.runId) void adoptStored(shown.runId);
      }, READ_ONLY_REFRESH_MS);
    },

    dismiss(): void {
      say({ kind: null, sentence: null, runId: null });
    },

    /** A run record reached IndexedDB: this browser has saved runs. */
    saved(): void {
      marker.saved();
    },

    /** The user deleted the last run: an empty store next time is no surprise. */
    deletedAll(): void {
      marker.forget();
    },

    /** At start: says what happened to the runs since the last visit (storage cleared, a missing linked run, runs a closed tab left). */
    async checkStart(runs: RunData[], wanted: string | null): Promise<void> {
      const hadRuns = marker.hadRuns();
      if (runs.length) marker.saved();
      else marker.forget(); // said once
      const interrupted: RunData[] = [];
      for (const r of runs) if (unfinished(r) && (await locks.free(r.id))) interrupted.push(r);
      const sentence = startSentence({ runs, hadRuns, wanted, interrupted });
      if (sentence && !useRunAccess.getState().sentence) say({ kind: 'visit', runId: null, sentence });
    },
  };
}

/** The browser's lock manager and localStorage, or null where missing or refused. */
export function browserEnv(): { locks: LockManagerLike | null; storage: KeyValueStorage | null } {
  let storage: KeyValueStorage | null = null;
  try {
    storage = typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    storage = null; // a sandboxed frame throws on access
  }
  const locks = typeof navigator !== 'undefined' && navigator.locks ? (navigator.locks as unknown as LockManagerLike) : null;
  return { locks, storage };
}
