import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LastDeleted, RunPersister, SaveRequest, UploadedRuns } from '../../../src/ui/controller/storage';
import { fakeRun } from '../helpers';

describe('RunPersister (at most one IndexedDB write per run per interval)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('batches the writes of one run, keeps runs apart, and writes at once when asked', () => {
    const writes: string[] = [];
    const p = new RunPersister((id) => void writes.push(id), 1000);
    p.persist('a');
    p.persist('a');
    p.persist('b');
    vi.advanceTimersByTime(999);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['a', 'b']);
    p.persist('a');
    p.persist('a', true); // at once, and the pending write is dropped
    expect(writes).toEqual(['a', 'b', 'a']);
    vi.advanceTimersByTime(5000);
    expect(writes).toEqual(['a', 'b', 'a']);
    p.persist('a'); // the throttle starts again
    vi.advanceTimersByTime(1000);
    expect(writes).toEqual(['a', 'b', 'a', 'a']);
  });
});

describe('SaveRequest, UploadedRuns, LastDeleted', () => {
  it('a requested checkpoint is answered once; a restart forgets the request', () => {
    const s = new SaveRequest();
    expect(s.answered()).toBe(false);
    s.ask();
    expect(s.answered()).toBe(true);
    expect(s.answered()).toBe(false);
    s.ask();
    s.forget();
    expect(s.answered()).toBe(false);
  });

  it('an uploaded run that fails to load names its file once; one that loads is forgotten', () => {
    const u = new UploadedRuns();
    u.started('run-a', 'a.mlck');
    u.started('run-b', 'b.mlck');
    expect(u.failedToLoad('run-a', 'starting')).toBe(false);
    expect(u.failedToLoad('run-a', 'paused')).toBe(false);
    expect(u.failedToLoad('run-a', 'error')).toBe(false); // loaded already: not an upload failure
    expect(u.failedToLoad(null, 'error')).toBe(false);
    expect(u.takeFailed()).toBeNull();
    expect(u.failedToLoad('run-b', 'error')).toBe(true);
    expect(u.takeFailed()).toBe('b.mlck');
    expect(u.takeFailed()).toBeNull();
  });

  it('keeps the last deleted run for one undo', () => {
    const d = new LastDeleted();
    expect(d.take()).toBeNull();
    d.keep(fakeRun('x'));
    d.keep(fakeRun('y'), { runId: 'y', step: 2, bytes: new ArrayBuffer(1), savedAt: 0 });
    expect(d.take()?.run.id).toBe('y');
    expect(d.take()).toBeNull();
  });
});
