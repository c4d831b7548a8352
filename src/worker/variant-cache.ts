/**
 * The page's cache of the WebGPU matmul variant chosen per adapter (src/model/matmul-choice.ts), in
 * IndexedDB. The choice is made in the Worker, where the device is and where the first policy is
 * built; a Worker has no localStorage, and IndexedDB (which it has) keeps the choice there without
 * a round trip through the page and the protocol. No IndexedDB (a private window that refuses it):
 * null, and each session times again.
 */
import type { VariantCache } from '../model/matmul-choice';

// Its own database: the page's 'magic-lab' (src/ui/lib/db.ts) is versioned by the page, which would never create this store.
const DB = 'magic-lab-engine';
const STORE = 'matmul-variants';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function request<T>(db: IDBDatabase, mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = f(db.transaction(STORE, mode).objectStore(STORE));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export function indexedDbVariantCache(): VariantCache | null {
  if (typeof indexedDB === 'undefined') return null;
  let db: Promise<IDBDatabase> | null = null;
  const conn = () => (db ??= open());
  return {
    // Read failures are misses (matmul-choice catches them); a value that is not a variant name is ignored there.
    get: async (key) => {
      const v: unknown = await request(await conn(), 'readonly', (s) => s.get(key));
      return typeof v === 'string' ? v : undefined;
    },
    put: async (key, variant) => {
      await request(await conn(), 'readwrite', (s) => s.put(variant, key));
    },
  };
}
