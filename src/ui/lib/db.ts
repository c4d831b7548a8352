/**
 * IndexedDB persistence: every run (config + metrics) in `runs`, the last checkpoint of each
 * run in `checkpoints` (kept apart: runs load at start, checkpoints only when used).
 * Every function degrades to a no-op when IndexedDB is unavailable (private windows).
 */
import type { RunData } from './runfile';

const DB_NAME = 'magic-lab';
const DB_VERSION = 1;

export interface StoredCheckpoint {
  runId: string;
  step: number;
  bytes: ArrayBuffer;
  savedAt: number;
}

let dbPromise: Promise<IDBDatabase | null> | null = null;

function open(): Promise<IDBDatabase | null> {
  if (typeof indexedDB === 'undefined') return Promise.resolve(null);
  dbPromise ??= new Promise((resolve) => {
    const req = indexedDB.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('runs')) db.createObjectStore('runs', { keyPath: 'id' });
      if (!db.objectStoreNames.contains('checkpoints')) db.createObjectStore('checkpoints', { keyPath: 'runId' });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
  });
  return dbPromise;
}

function request<T>(store: 'runs' | 'checkpoints', mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest): Promise<T | undefined> {
  return open().then(
    (db) =>
      new Promise<T | undefined>((resolve, reject) => {
        if (!db) return resolve(undefined);
        const tx = db.transaction(store, mode);
        const req = f(tx.objectStore(store));
        tx.oncomplete = () => resolve(req.result as T);
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      }),
  );
}

export const dbPutRun = (run: RunData) => request<void>('runs', 'readwrite', (s) => s.put(run));
export const dbDeleteRun = async (id: string) => {
  await request<void>('runs', 'readwrite', (s) => s.delete(id));
  await request<void>('checkpoints', 'readwrite', (s) => s.delete(id));
};
export const dbAllRuns = async (): Promise<RunData[]> => ((await request<RunData[]>('runs', 'readonly', (s) => s.getAll())) ?? []).sort((a, b) => a.createdAt - b.createdAt);
export const dbPutCheckpoint = (c: StoredCheckpoint) => request<void>('checkpoints', 'readwrite', (s) => s.put(c));
export const dbGetCheckpoint = (runId: string) => request<StoredCheckpoint>('checkpoints', 'readonly', (s) => s.get(runId));
