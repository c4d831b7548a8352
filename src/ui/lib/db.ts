/**
 * IndexedDB persistence: every run (config + metrics) in `runs`, the last checkpoint of each
 * run in `checkpoints` (kept apart: runs load at start, checkpoints only when used).
 *
 * Storage can fail: a private window gives no IndexedDB (or one that refuses to open), and a
 * full quota makes writes abort with QuotaExceededError. Neither may cost the user a run: a
 * failed write keeps the run (the store holds it) and its last checkpoint (`memoryCheckpoints`)
 * in this tab, reports the reason once through `onStorageProblem`, and export still works. A
 * write that fails never touches what was saved before (each put is its own transaction).
 */
import type { RunData } from '../../io/runfile';

const DB_NAME = 'magic-lab';
const DB_VERSION = 1;

export interface StoredCheckpoint {
  runId: string;
  step: number;
  bytes: ArrayBuffer;
  savedAt: number;
}

/** Why the browser does not keep runs: `unavailable` (no storage at all) or `write-failed` (quota, I/O). */
export interface StorageProblem {
  kind: 'unavailable' | 'write-failed';
  /** One sentence for the page: what failed and why. */
  reason: string;
}

let dbPromise: Promise<IDBDatabase | null> | null = null;
/** The open connection (a closed one is forgotten, so the next request opens a new one). */
let openDb: IDBDatabase | null = null;
let problemListener: ((p: StorageProblem) => void) | null = null;
/** The first problem seen (later identical ones are not re-reported). */
let reported: StorageProblem | null = null;
/** Checkpoints that could not be written: kept here so this tab can still resume and download them. */
const memoryCheckpoints = new Map<string, StoredCheckpoint>();

/**
 * Receives the storage problem (once per kind) — the page shows it as a warning. Returns the
 * unsubscribe, which leaves a later listener in place (StrictMode starts the page twice).
 */
export function onStorageProblem(f: (p: StorageProblem) => void): () => void {
  problemListener = f;
  if (reported) f(reported);
  return () => {
    if (problemListener === f) problemListener = null;
  };
}

function report(p: StorageProblem) {
  if (reported?.kind === p.kind) return;
  reported = p;
  problemListener?.(p);
}

const MB = 1024 * 1024;
const fmtMB = (b: number) => (b >= 100 * MB ? `${Math.round(b / MB)} MB` : `${(b / MB).toFixed(1)} MB`);

/**
 * The reason behind a failed IndexedDB write, in words (pure; `estimate` from navigator.storage.estimate()).
 * A QuotaExceededError names the quota and usage when the browser tells them.
 */
export function describeStorageError(e: unknown, estimate?: { usage?: number; quota?: number } | null): string {
  const name = e && typeof e === 'object' && 'name' in e ? String((e as { name: unknown }).name) : '';
  const message = e && typeof e === 'object' && 'message' in e ? String((e as { message: unknown }).message) : e == null ? '' : String(e);
  if (name === 'QuotaExceededError' || /quota/i.test(message)) {
    const used = estimate && typeof estimate.usage === 'number' && typeof estimate.quota === 'number' && estimate.quota > 0 ? ` (${fmtMB(estimate.usage)} of ${fmtMB(estimate.quota)} used)` : '';
    return `this site's storage quota is full${used}; delete old runs or free disk space`;
  }
  if (name === 'InvalidStateError' || name === 'SecurityError') return `the browser does not allow storage here (${name}${message ? `: ${message}` : ''}); a private window does this`;
  const what = [name, message].filter((x) => x && x !== 'Error').join(': ');
  return what ? `the browser refused the write (${what})` : 'the browser refused the write (no reason given)';
}

async function estimate(): Promise<{ usage?: number; quota?: number } | null> {
  try {
    return (await navigator.storage?.estimate?.()) ?? null;
  } catch {
    return null;
  }
}

function open(): Promise<IDBDatabase | null> {
  if (typeof indexedDB === 'undefined' || indexedDB === null) {
    report({ kind: 'unavailable', reason: 'this browser gives the page no storage (IndexedDB is unavailable, as in some private windows)' });
    return Promise.resolve(null);
  }
  dbPromise ??= new Promise((resolve) => {
    let req: IDBOpenDBRequest;
    try {
      req = indexedDB.open(DB_NAME, DB_VERSION);
    } catch (e) {
      report({ kind: 'unavailable', reason: describeStorageError(e) });
      return resolve(null);
    }
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('runs')) db.createObjectStore('runs', { keyPath: 'id' });
      if (!db.objectStoreNames.contains('checkpoints')) db.createObjectStore('checkpoints', { keyPath: 'runId' });
    };
    req.onsuccess = () => {
      const db = req.result;
      // Another tab deleting the database, or the browser clearing the site's storage, closes this
      // connection: the next request opens (and re-creates) it instead of failing on a dead one.
      const forget = () => {
        if (openDb !== db) return;
        openDb = null;
        dbPromise = null;
      };
      db.onversionchange = () => {
        db.close();
        forget();
      };
      db.onclose = forget;
      openDb = db;
      resolve(db);
    };
    req.onerror = () => {
      const e = req.error;
      report({ kind: 'unavailable', reason: `the browser would not open the page's storage (${[e?.name, e?.message].filter(Boolean).join(': ') || 'no reason given'})` });
      resolve(null);
    };
  });
  return dbPromise;
}

function request<T>(store: 'runs' | 'checkpoints', mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest): Promise<T | undefined> {
  return open().then(
    (db) =>
      new Promise<T | undefined>((resolve, reject) => {
        if (!db) return resolve(undefined);
        let req: IDBRequest;
        try {
          const tx = db.transaction(store, mode);
          req = f(tx.objectStore(store));
          tx.oncomplete = () => resolve(req.result as T);
          tx.onerror = () => reject(tx.error ?? req.error);
          tx.onabort = () => reject(tx.error ?? req.error);
        } catch (e) {
          reject(e);
        }
      }),
  );
}

/** A write that failed: reported (with the quota when known) and rethrown as an Error carrying the reason. */
async function writeFailed(e: unknown): Promise<never> {
  const reason = describeStorageError(e, await estimate());
  report({ kind: 'write-failed', reason });
  throw new Error(reason);
}

/**
 * Saves a run; resolves to whether it reached IndexedDB (false: the browser gives no storage). On
 * failure the run stays in the page (the caller's store) and the reason is reported and thrown.
 */
export const dbPutRun = (run: RunData): Promise<boolean> =>
  open()
    .then((db) => request<void>('runs', 'readwrite', (s) => s.put(run)).then(() => db !== null))
    .catch(writeFailed);
/** A run as stored now (another tab may have written it since this one read it). */
export const dbGetRun = (id: string) => request<RunData>('runs', 'readonly', (s) => s.get(id));
/**
 * Deletes a run and its checkpoint in one transaction: a tab closed (or crashed) mid-delete leaves
 * both or neither, never a checkpoint whose run is gone.
 */
export const dbDeleteRun = async (id: string): Promise<void> => {
  memoryCheckpoints.delete(id);
  const db = await open();
  if (!db) return;
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction(['runs', 'checkpoints'], 'readwrite');
    tx.objectStore('runs').delete(id);
    tx.objectStore('checkpoints').delete(id);
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
};
export const dbAllRuns = async (): Promise<RunData[]> => ((await request<RunData[]>('runs', 'readonly', (s) => s.getAll())) ?? []).sort((a, b) => a.createdAt - b.createdAt);

/**
 * Keeps a run's last checkpoint (with `run`, its record, in the same transaction): in IndexedDB, else
 * (no storage, quota full) in this tab's memory so it can still be resumed and downloaded here.
 * Resolves to where it went.
 */
export async function dbPutCheckpoint(c: StoredCheckpoint, run?: RunData): Promise<'stored' | 'memory'> {
  const db = await open();
  if (!db) {
    memoryCheckpoints.set(c.runId, c);
    return 'memory';
  }
  try {
    if (run) await putBoth(db, c, run);
    else await request<void>('checkpoints', 'readwrite', (s) => s.put(c));
    memoryCheckpoints.delete(c.runId);
    return 'stored';
  } catch (e) {
    memoryCheckpoints.set(c.runId, c);
    report({ kind: 'write-failed', reason: describeStorageError(e, await estimate()) });
    return 'memory';
  }
}

/**
 * The checkpoint and its run record (steps up to it) in one transaction: a tab closed mid-save
 * leaves both or neither, never a checkpoint whose earlier steps are missing from the record.
 */
function putBoth(db: IDBDatabase, c: StoredCheckpoint, run: RunData): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(['runs', 'checkpoints'], 'readwrite');
    tx.objectStore('checkpoints').put(c);
    tx.objectStore('runs').put(run);
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
}

/** The newest checkpoint of a run: this tab's unsaved one when it is newer than the stored one. */
export async function dbGetCheckpoint(runId: string): Promise<StoredCheckpoint | undefined> {
  const mem = memoryCheckpoints.get(runId);
  let stored: StoredCheckpoint | undefined;
  try {
    stored = await request<StoredCheckpoint>('checkpoints', 'readonly', (s) => s.get(runId));
  } catch {
    stored = undefined;
  }
  if (mem && (!stored || mem.step >= stored.step)) return mem;
  return stored;
}

/**
 * Asks the browser to keep this site's storage under pressure (navigator.storage.persist());
 * resolves to whether it is persistent (false where unsupported or refused).
 */
export async function requestPersistentStorage(): Promise<boolean> {
  try {
    const s = navigator.storage;
    if (!s?.persist) return false;
    if (s.persisted && (await s.persisted())) return true;
    return await s.persist();
  } catch {
    return false;
  }
}
