import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { referenceRuns } from '../../../src/ui/controller/reference-runs';
import { validateReferenceFile, validateReferenceIndex, type ReferenceIndexEntry } from '../../../src/ui/lib/reference';
import { createLabStore } from '../../../src/ui/store';

const dir = 'e2e/fixtures/reference';
const index = validateReferenceIndex(JSON.parse(readFileSync(`${dir}/index.json`, 'utf8')));
const fileOf = (e: ReferenceIndexEntry) => validateReferenceFile(JSON.parse(readFileSync(`${dir}/${e.file}`, 'utf8')), `reference/${e.file}`, e);

describe('reference runs (the index at start-up, files on demand)', () => {
  it('loads the index, then each file once; a file not in the index is none', async () => {
    const store = createLabStore();
    const fetchReferenceFile = vi.fn(async (e: ReferenceIndexEntry) => fileOf(e));
    const refs = referenceRuns(store, { fetchReferenceIndex: async () => index, fetchReferenceFile });
    expect(await refs.loadReference('tiny-demo')).toBeNull(); // no index yet
    await refs.loadReferenceIndex();
    expect(store.getState().referenceIndex).toEqual({ status: 'ready', index });
    const file = await refs.loadReference('tiny-demo');
    expect(file?.name).toBe('tiny-demo');
    expect(await refs.loadReference('tiny-demo')).toBe(file);
    expect(fetchReferenceFile).toHaveBeenCalledTimes(1);
    expect(await refs.loadReference('no-such-reference')).toBeNull();
  });

  it('a failed index or file stays failed with its message', async () => {
    const store = createLabStore();
    const failing = referenceRuns(store, { fetchReferenceIndex: () => Promise.reject(new Error('offline')), fetchReferenceFile: () => Promise.reject(new Error('404')) });
    await failing.loadReferenceIndex();
    expect(store.getState().referenceIndex).toEqual({ status: 'error', message: 'offline' });
    const refs = referenceRuns(store, { fetchReferenceIndex: async () => index, fetchReferenceFile: () => Promise.reject(new Error('404')) });
    await refs.loadReferenceIndex();
    expect(await refs.loadReference('tiny-demo')).toBeNull();
    expect(store.getState().referenceFiles['tiny-demo']).toEqual({ status: 'error', message: '404' });
    expect(await refs.loadReference('tiny-demo')).toBeNull();
  });

  it('overlaying a reference selects it and loads its file', async () => {
    const store = createLabStore();
    const refs = referenceRuns(store, { fetchReferenceIndex: async () => index, fetchReferenceFile: async (e) => fileOf(e) });
    await refs.loadReferenceIndex();
    refs.overlayReference('tiny-demo');
    expect(store.getState().overlayReference).toBe('tiny-demo');
    await vi.waitFor(() => expect(store.getState().referenceFiles['tiny-demo']?.status).toBe('ready'));
    refs.overlayReference(null);
    expect(store.getState().overlayReference).toBeNull();
  });
});
