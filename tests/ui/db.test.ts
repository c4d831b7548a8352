import { describe, expect, it } from 'vitest';
import { dbGetCheckpoint, dbPutCheckpoint, dbPutRun, describeStorageError, onStorageProblem, type StorageProblem } from '../../src/ui/lib/db';

describe('describeStorageError', () => {
  it('names a full quota, with usage and quota when the browser gives them', () => {
    const e = { name: 'QuotaExceededError', message: 'The quota has been exceeded.' };
    expect(describeStorageError(e, { usage: 52_428_800, quota: 52_428_800 })).toBe("this site's storage quota is full (50.0 MB of 50.0 MB used); delete old runs or free disk space");
    expect(describeStorageError(e, null)).toBe("this site's storage quota is full; delete old runs or free disk space");
    expect(describeStorageError(e, { usage: 1, quota: 0 })).not.toContain('used');
  });
  it('names storage that is not allowed, and any other failure with its name and message', () => {
    expect(describeStorageError({ name: 'InvalidStateError', message: 'A mutation operation was attempted on a database that did not allow mutations.' })).toContain('a private window does this');
    expect(describeStorageError({ name: 'UnknownError', message: 'disk I/O' })).toBe('the browser refused the write (UnknownError: disk I/O)');
    expect(describeStorageError(new Error('boom'))).toBe('the browser refused the write (boom)');
    expect(describeStorageError(undefined)).toBe('the browser refused the write (no reason given)');
  });
});

describe('without IndexedDB (Node, or a private window)', () => {
  it('keeps checkpoints in memory, reports the problem once, and saving a run is a no-op', async () => {
    const seen: StorageProblem[] = [];
    const off = onStorageProblem((p) => seen.push(p));
    const bytes = new Uint8Array([1, 2, 3]).buffer;
    expect(await dbPutCheckpoint({ runId: 'r1', step: 4, bytes, savedAt: 0 })).toBe('memory');
    expect((await dbGetCheckpoint('r1'))?.step).toBe(4);
    expect(await dbPutCheckpoint({ runId: 'r1', step: 6, bytes, savedAt: 1 })).toBe('memory');
    expect((await dbGetCheckpoint('r1'))?.step).toBe(6);
    expect(await dbGetCheckpoint('other')).toBeUndefined();
    expect(await dbPutRun({ id: 'r1', name: 'x', preset: 'magic', createdAt: 0, config: {} as never, steps: [], evals: [] })).toBe(false); // not stored
    expect(seen).toHaveLength(1);
    expect(seen[0].kind).toBe('unavailable');
    expect(seen[0].reason).toContain('IndexedDB is unavailable');
    // A later listener hears the problem at once; the earlier one's unsubscribe leaves it in place.
    const late: StorageProblem[] = [];
    const offLate = onStorageProblem((p) => late.push(p));
    off();
    await dbPutCheckpoint({ runId: 'r2', step: 1, bytes, savedAt: 0 });
    expect(late).toHaveLength(1);
    offLate();
  });
});
