/**
 * Deleting a run is one IndexedDB transaction over both stores (src/ui/lib/db.ts, dbDeleteRun): a
 * tab that closes mid-delete leaves the run and its checkpoint, or neither — never an orphan
 * checkpoint. Node has no IndexedDB and a real tab cannot be closed between two transactions at a
 * chosen point, so this one fault is simulated: a minimal in-memory IndexedDB whose page "dies"
 * (nothing more of its JavaScript runs) right after its first read-write transaction commits. The
 * e2e test (e2e/tabs.spec.ts) checks the same delete in Chromium's IndexedDB, read directly.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Store = Map<string, unknown>;

/** An IndexedDB with just what db.ts uses; dieAfter(n) stops the page after n more read-write commits. */
function fakeIndexedDb() {
  const stores = new Map<string, Store>();
  const transactions: string[][] = [];
  let writesLeft = Infinity;
  let dead = false;
  const later = (f: () => void) => setTimeout(() => !dead && f(), 0);
  const db = {
    objectStoreNames: { contains: (n: string) => stores.has(n) },
    createObjectStore: (n: string) => void stores.set(n, new Map()),
    onversionchange: null,
    onclose: null,
    transaction(names: string | string[], mode: string) {
      const list = typeof names === 'string' ? [names] : [...names];
      transactions.push(list);
      const ops: (() => void)[] = [];
      const tx: Record<string, unknown> & { oncomplete?: () => void } = {
        error: null,
        objectStore(n: string) {
          if (!list.includes(n)) throw new Error(`store ${n} is not in this transaction`);
          const s = stores.get(n)!;
          const req = (f: () => unknown) => {
            const r: { result?: unknown } = {};
            ops.push(() => (r.result = f()));
            return r;
          };
          return {
            put: (v: { id?: string; runId?: string }) => req(() => void s.set((v.id ?? v.runId)!, v)),
            get: (k: string) => req(() => s.get(k)),
            delete: (k: string) => req(() => void s.delete(k)),
            getAll: () => req(() => [...s.values()]),
          };
        },
      };
      // Commits as one: every request of the transaction, then oncomplete (unless the page died first).
      later(() => {
        for (const op of ops) op();
        if (mode === 'readwrite' && --writesLeft <= 0) return void (dead = true); // committed; the page never hears it
        tx.oncomplete?.();
      });
      return tx;
    },
  };
  const indexedDB = {
    open() {
      const req: Record<string, unknown> & { onupgradeneeded?: () => void; onsuccess?: () => void } = { result: db };
      later(() => {
        req.onupgradeneeded?.();
        req.onsuccess?.();
      });
      return req;
    },
  };
  return { indexedDB, stores, transactions, dieAfter: (n: number) => void (writesLeft = n) };
}

describe('deleting a run: one transaction', () => {
  beforeEach(() => vi.resetModules());
  afterEach(() => void vi.unstubAllGlobals());

  it('a tab that dies right after the first write of a delete leaves no orphan checkpoint', async () => {
    const fake = fakeIndexedDb();
    vi.stubGlobal('indexedDB', fake.indexedDB);
    const db = await import('../../src/ui/lib/db');
    const run = { id: 'r1', name: 'x', preset: 'magic', createdAt: 0, config: {} as never, steps: [], evals: [] };
    expect(await db.dbPutCheckpoint({ runId: 'r1', step: 4, bytes: new ArrayBuffer(8), savedAt: 0 }, run)).toBe('stored');
    expect([...fake.stores.get('runs')!.keys()]).toEqual(['r1']);
    expect([...fake.stores.get('checkpoints')!.keys()]).toEqual(['r1']);

    // The page dies once the delete's first read-write transaction commits: what is stored then is what a closed tab leaves.
    const before = fake.transactions.length;
    fake.dieAfter(1);
    void db.dbDeleteRun('r1');
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.stores.get('runs')!.has('r1')).toBe(false);
    expect(fake.stores.get('checkpoints')!.has('r1')).toBe(false); // the old two-transaction delete left it here
    expect(fake.transactions.slice(before)).toEqual([['runs', 'checkpoints']]);
  });
});
