/** Reference runs (public/reference/): the index at start-up, files on demand, one overlaid on the charts. */
import { fetchReferenceFile, fetchReferenceIndex, type ReferenceFile, type ReferenceIndexEntry } from '../lib/reference';
import type { Lab } from './lab-store';

export interface ReferenceFetchers {
  fetchReferenceIndex: typeof fetchReferenceIndex;
  fetchReferenceFile: (entry: ReferenceIndexEntry) => Promise<ReferenceFile>;
}

export function referenceRuns(store: Lab, fetchers: ReferenceFetchers = { fetchReferenceIndex, fetchReferenceFile }) {
  const get = () => store.getState();

  async function loadReferenceIndex(): Promise<void> {
    const s = get();
    s.setReferenceIndex({ status: 'loading' });
    try {
      s.setReferenceIndex({ status: 'ready', index: await fetchers.fetchReferenceIndex() });
    } catch (e) {
      s.setReferenceIndex({ status: 'error', message: (e as Error).message });
    }
  }

  /** The reference file `name` (fetched once; a file that failed stays failed, with its message). */
  async function loadReference(name: string): Promise<ReferenceFile | null> {
    const s = get();
    const have = s.referenceFiles[name];
    if (have?.status === 'ready') return have.file;
    if (have) return null; // loading, or failed
    const idx = s.referenceIndex;
    const entry = idx.status === 'ready' ? idx.index.entries.find((e) => e.name === name) : undefined;
    if (!entry) return null;
    s.setReferenceFile(name, { status: 'loading' });
    try {
      const file = await fetchers.fetchReferenceFile(entry);
      get().setReferenceFile(name, { status: 'ready', file });
      return file;
    } catch (e) {
      get().setReferenceFile(name, { status: 'error', message: (e as Error).message });
      return null;
    }
  }

  /** Overlays the reference `name` on the training charts (null: none). */
  function overlayReference(name: string | null): void {
    get().setOverlayReference(name);
    if (name) void loadReference(name);
  }

  return { loadReferenceIndex, loadReference, overlayReference };
}
