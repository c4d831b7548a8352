import { describe, expect, it } from 'vitest';
import { lockedWriter, RunPersister } from '../../../src/ui/controller/storage';
import { lockedSentence, readOnlySentence, RunLocks, runLockName, type LockManagerLike } from '../../../src/ui/controller/run-lock';
import { interruptedSentence, SavedRunsMarker, startSentence, unfinished, type KeyValueStorage } from '../../../src/ui/controller/visits';
import { fakeRun } from '../helpers';

/** One origin's Web Locks, shared by the "tabs" (LockManagers) it hands out, with ifAvailable semantics. */
function origin() {
  const held = new Set<string>();
  const tab = (): LockManagerLike & { close(): void } => {
    const mine = new Set<string>();
    return {
      async request(name, _opts, callback) {
        if (held.has(name)) return callback(null);
        held.add(name);
        mine.add(name);
        try {
          return await callback({ name });
        } finally {
          held.delete(name);
          mine.delete(name);
        }
      },
      // The browser releases a closed tab's locks.
      close() {
        for (const n of mine) held.delete(n);
      },
    };
  };
  return { held, tab };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('RunLocks (one writer per run across tabs)', () => {
  it('a second tab cannot take the run the first holds, until the first lets go', async () => {
    const o = origin();
    const a = new RunLocks(o.tab());
    const b = new RunLocks(o.tab());
    expect(await a.acquire('r1')).toBe('held');
    expect(o.held.has(runLockName('r1'))).toBe(true);
    expect(a.holds('r1')).toBe(true);
    expect(await a.acquire('r1')).toBe('held'); // already held here: no second request
    expect(await b.acquire('r1')).toBe('busy');
    expect(b.holds('r1')).toBe(false);
    expect(await b.acquire('r2')).toBe('held'); // other runs are free
    a.release('r1');
    await tick();
    expect(o.held.has(runLockName('r1'))).toBe(false);
    expect(await b.acquire('r1')).toBe('held');
    expect(await a.acquire('r1')).toBe('busy');
  });

  it('a tab that closes leaves no stale lock', async () => {
    const o = origin();
    const tabA = o.tab();
    await new RunLocks(tabA).acquire('r1');
    const b = new RunLocks(o.tab());
    expect(await b.acquire('r1')).toBe('busy');
    tabA.close();
    expect(await b.acquire('r1')).toBe('held');
  });

  it('withLock writes under the lock and lets go after; refused (write not run) when another tab holds it', async () => {
    const o = origin();
    const a = new RunLocks(o.tab());
    const b = new RunLocks(o.tab());
    const writes: string[] = [];
    expect(await b.withLock('r1', () => writes.push('b'))).toBe('held');
    expect(b.holds('r1')).toBe(false); // taken for the write only
    await a.acquire('r1');
    expect(await b.withLock('r1', () => writes.push('b again'))).toBe('busy');
    expect(await a.withLock('r1', () => writes.push('a'))).toBe('held');
    expect(a.holds('r1')).toBe(true); // it held it before: still holds it
    expect(writes).toEqual(['b', 'a']);
    expect(await b.free('r1')).toBe(false);
    a.release('r1');
    await tick();
    expect(await b.free('r1')).toBe(true);
    expect(o.held.size).toBe(0);
  });

  it('a release while the request is pending lets go as soon as it is granted', async () => {
    const o = origin();
    const a = new RunLocks(o.tab());
    const p = a.acquire('r1');
    a.release('r1');
    expect(await p).toBe('held');
    await tick();
    expect(a.holds('r1')).toBe(false);
    expect(o.held.size).toBe(0);
  });

  it('without the Web Locks API (or when the browser refuses it) every request is granted', async () => {
    const none = new RunLocks(null);
    expect(await none.acquire('r1')).toBe('held');
    expect(none.holds('r1')).toBe(true);
    expect(await none.free('r1')).toBe(true);
    const refusing = new RunLocks({ request: () => Promise.reject(new DOMException('no', 'SecurityError')) });
    expect(await refusing.acquire('r1')).toBe('held');
  });

  it('says in one sentence what another tab stopped, and what read-only means', () => {
    expect(lockedSentence('magic-tiny #1', 'train')).toBe('magic-tiny #1 is open for training in another tab of this browser, so this tab cannot resume or save it; you can open it here read-only.');
    expect(lockedSentence('x', 'rename')).toContain('cannot rename it');
    expect(readOnlySentence('x')).toMatch(/^x is shown read-only: another tab is training it/);
  });
});

describe('visits (what the page says about the runs it finds at start)', () => {
  const memory = (): KeyValueStorage & { m: Map<string, string> } => {
    const m = new Map<string, string>();
    return { m, getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
  };

  it('the marker remembers saved runs; a storage that throws is only a lost hint', () => {
    const s = memory();
    const marker = new SavedRunsMarker(s);
    expect(marker.hadRuns()).toBe(false);
    marker.saved();
    expect(new SavedRunsMarker(s).hadRuns()).toBe(true);
    marker.forget();
    expect(marker.hadRuns()).toBe(false);
    const throwing = new SavedRunsMarker({
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
      removeItem: () => undefined,
    });
    expect(() => throwing.saved()).not.toThrow();
    expect(throwing.hadRuns()).toBe(false);
    expect(new SavedRunsMarker(null).hadRuns()).toBe(false);
  });

  it('storage cleared since the last visit, a linked run that is not here, runs a closed tab left', () => {
    expect(startSentence({ runs: [], hadRuns: false, wanted: null, interrupted: [] })).toBeNull(); // a first visit
    expect(startSentence({ runs: [], hadRuns: true, wanted: null, interrupted: [] })).toBe(
      "The runs saved in this browser are gone: the site's storage was cleared or evicted since the last visit; new runs train and save as before.",
    );
    expect(startSentence({ runs: [], hadRuns: true, wanted: 'run-x', interrupted: [] })).toContain('gone, run run-x from this link among them:');
    expect(startSentence({ runs: [fakeRun('a')], hadRuns: true, wanted: 'run-x', interrupted: [] })).toBe(
      "Run run-x from this link is not in this browser's storage: it was saved in another browser, deleted, or the storage was cleared since.",
    );
    expect(startSentence({ runs: [fakeRun('a')], hadRuns: true, wanted: 'a', interrupted: [] })).toBeNull();
    const left = { ...fakeRun('a', 6), checkpointStep: 4 };
    expect(unfinished(left)).toBe(true);
    expect(unfinished({ ...left, done: true })).toBe(false);
    expect(unfinished(fakeRun('b', 0))).toBe(false);
    expect(startSentence({ runs: [left], hadRuns: true, wanted: null, interrupted: [left] })).toBe(
      'run a did not finish (it stopped at step 6, in a tab now closed); resume @4 continues it from its last saved checkpoint.',
    );
    expect(interruptedSentence([fakeRun('b', 2)])).toContain('has no checkpoint; its records are kept.');
    expect(interruptedSentence(['1', '2', '3', '4', '5'].map((id) => fakeRun(id)))).toMatch(/; and 2 more\.$/);
  });
});

describe('the periodic run-record writer holds the run\'s lock or stops', () => {
  it('a tab that let go of a run writes nothing more of it, even a write it had pending, once another tab trains it', async () => {
    const o = origin();
    const a = new RunLocks(o.tab());
    const b = new RunLocks(o.tab());
    const stored: string[] = [];
    const writerA = new RunPersister(lockedWriter((id) => a.holding(id), (id) => void stored.push(`A:${id}`)), 20);
    void a.acquire('r1'); // the run starts in tab A: its first write waits for this request
    writerA.persist('r1', true);
    await tick();
    await tick();
    expect(stored).toEqual(['A:r1']);
    writerA.persist('r1'); // a throttled write is pending…
    a.release('r1'); // …when tab A lets go (Reset, another run)
    await tick();
    expect(await b.acquire('r1')).toBe('held'); // tab B resumes and trains it
    await new Promise((r) => setTimeout(r, 40));
    expect(stored).toEqual(['A:r1']); // A's stale copy never landed over B's
    expect(await a.holding('r1')).toBe(false);
    expect(await b.holding('r1')).toBe(true);
  });

  it('a run another tab holds is never written, and a pending write is flushed before the tab lets go', async () => {
    const o = origin();
    const a = new RunLocks(o.tab());
    const b = new RunLocks(o.tab());
    expect(await a.acquire('r1')).toBe('held');
    const stored: string[] = [];
    const writerB = new RunPersister(lockedWriter((id) => b.holding(id), (id) => void stored.push(`B:${id}`)), 20);
    writerB.persist('r1', true);
    await tick();
    expect(stored).toEqual([]);
    const writerA = new RunPersister(lockedWriter((id) => a.holding(id), (id) => void stored.push(`A:${id}`)), 1000);
    writerA.persist('r1');
    await writerA.flush('r1'); // what watchLiveRun does before it lets go
    a.release('r1');
    expect(stored).toEqual(['A:r1']);
  });
});
