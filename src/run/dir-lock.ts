/**
 * One writer per run directory: an advisory lock file holding the writer's pid, host and start
 * time. It is created with O_EXCL, so of two processes started together exactly one gets it. A
 * lock left by a dead process on this host is reclaimed (with a message); a live holder, or one on
 * another host (its pid cannot be checked from here), is refused with one line naming it.
 * Pure Node fs: the CLI's train and sft and the sweep runner can all take it.
 */
import { closeSync, fstatSync, linkSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tempPathFor, writeAll } from './write-file';

/** The lock file in a run directory. */
export const RUN_LOCK_FILE = '.magic-lab.lock';

/** Another writer holds the directory (or its lock file cannot be read): the user's to resolve, exit 2. */
export class RunLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunLockError';
  }
}

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder a lock's text names (a plain pid, as sweeps wrote before: a holder on this host), or null. */
function parseHolder(text: string): LockHolder | null {
  const t = text.trim();
  if (/^[1-9]\d{0,9}$/.test(t)) return { pid: Number(t), host: hostname(), startedAt: 'unknown' };
  try {
    const v = JSON.parse(t) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.startedAt === 'string') return v as LockHolder;
  } catch {
    // not JSON: null below
  }
  return null;
}

/** The holder a lock file names, or null when it cannot be read as one. */
export function readLockHolder(file: string): LockHolder | null {
  try {
    return parseHolder(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** One instance of a lock file as seen: its inode and text (null: it vanished while read). */
interface LockSeen {
  ino: number;
  mtimeMs: number;
  text: string;
  holder: LockHolder | null;
}

function inspectLock(file: string): LockSeen | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    const buf = Buffer.alloc(Math.min(st.size, 4096));
    const n = st.size > 0 ? readSync(fd, buf, 0, buf.length, 0) : 0;
    const text = buf.subarray(0, n).toString('utf8');
    return { ino: st.ino, mtimeMs: st.mtimeMs, text, holder: parseHolder(text) };
  } finally {
    closeSync(fd);
  }
}

/**
 * An empty or unreadable lock younger than this may be a writer of an older version between its
 * create and its write (microseconds apart): it is waited for, and reclaimed once older.
 */
const UNREADABLE_GRACE_MS = 1000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Creates `file` holding exactly the bytes of `from`, or fails with EEXIST: a hard link, atomic. */
function linkExclusive(from: string, file: string, text: string): void {
  try {
    linkSync(from, file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A file system without hard links: O_EXCL create and write (a crash between them leaves an empty lock, reclaimed after the grace).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      const fd = openSync(file, 'wx');
      try {
        writeAll(fd, text, file);
      } finally {
        closeSync(fd);
      }
      return;
    }
    throw e;
  }
}

const hashText = (t: string) => createHash('sha256').update(t).digest('hex').slice(0, 16);

/**
 * Takes the lock `file` for this process; returns the function that releases it. `what` names the
 * thing locked in messages (e.g. "run directory runs/a"); `log` gets the reclaim notice.
 *
 * The lock's text is written whole to a file of this process first and hard-linked into place, so
 * the lock is created and filled in one atomic step (of two processes exactly one link succeeds,
 * and no reader ever sees an empty lock). A stale lock (its holder dead on this host, or empty and
 * older than the grace) is reclaimed by whoever first creates the claim marker named after that
 * lock file's inode and text, again by hard link: the claimer checks the lock is still that
 * instance, removes it and links its own; every other process sees the marker (or the claimer's
 * new lock) and is refused with one line. A claimer killed mid-way leaves a marker of a dead
 * holder: the next generation's marker is claimed instead.
 */
export function acquireLock(file: string, what: string, log: (s: string) => void = () => {}): () => void {
  const me: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const text = JSON.stringify(me) + '\n';
  const mine = tempPathFor(file);
  const fd = openSync(mine, 'w');
  try {
    writeAll(fd, text, mine);
  } catch (e) {
    closeSync(fd);
    rmSync(mine, { force: true });
    throw e;
  }
  closeSync(fd);
  const inUse = (h: LockHolder) => {
    const where = h.host === me.host ? '' : ` on host ${h.host}`;
    return new RunLockError(`${what} is in use by process ${h.pid}${where} (since ${h.startedAt}); wait for it to finish, or remove ${file} if that process is gone`);
  };
  try {
    const deadline = Date.now() + 5 * UNREADABLE_GRACE_MS;
    for (;;) {
      try {
        linkExclusive(mine, file, text);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const seen = inspectLock(file);
      if (seen === null) continue; // released or reclaimed meanwhile: try again
      if (seen.holder !== null) {
        const h = seen.holder;
        if (h.host !== me.host || h.pid === process.pid || processAlive(h.pid)) throw inUse(h);
      } else if (Date.now() - seen.mtimeMs < UNREADABLE_GRACE_MS) {
        if (Date.now() > deadline) throw new RunLockError(`${what} is locked by ${file}, which cannot be read; remove it if no other magic-lab process uses it`);
        sleepSync(20);
        continue;
      }
      // Stale: reclaimed by the one process that creates this instance's claim marker first.
      const claim = claimStale(file, seen, mine);
      if (claim !== null) throw inUse(claim);
      log(
        seen.holder
          ? `warning: reclaimed the lock of ${what} from process ${seen.holder.pid} (started ${seen.holder.startedAt}), which is no longer running`
          : `warning: reclaimed the lock of ${what}: ${file} was ${seen.text.trim() === '' ? 'empty' : 'unreadable'} (a process killed, or a disk full, while it was written)`,
      );
    }
  } finally {
    rmSync(mine, { force: true });
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    // Only our own lock: a holder that reclaimed it after us must keep theirs.
    const h = readLockHolder(file);
    if (h?.pid === me.pid && h.startedAt === me.startedAt) rmSync(file, { force: true });
  };
}

/**
 * Removes the stale lock instance `seen` if this process is the first to claim it; returns null
 * when the lock file is free to be taken again, or the live process that claimed it first.
 */
function claimStale(file: string, seen: LockSeen, mine: string): LockHolder | null {
  const stem = `${file}.reclaim-${seen.ino}-${hashText(seen.text)}`;
  const markers: string[] = [];
  try {
    for (let gen = 0; ; gen++) {
      const marker = `${stem}-${gen}`;
      try {
        linkExclusive(mine, marker, readFileSync(mine, 'utf8'));
        markers.push(marker);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const other = inspectLock(marker);
      if (other === null) {
        gen--; // removed meanwhile: that generation again
        continue;
      }
      if (other.holder && processAlive(other.holder.pid) && other.holder.pid !== process.pid) return other.holder;
      if (!other.holder && Date.now() - other.mtimeMs < UNREADABLE_GRACE_MS) {
        sleepSync(20); // a claimer between its create and its write (no hard links here): wait for it
        gen--;
        continue;
      }
      markers.push(marker); // a claimer that died: removed with ours
    }
    // Ours alone: the lock must still be the instance judged stale (another claimer may have finished already).
    const now = inspectLock(file);
    if (now !== null && now.ino === seen.ino && now.text === seen.text) rmSync(file, { force: true });
    return null;
  } finally {
    for (const m of markers) rmSync(m, { force: true });
  }
}

/** The lock of a run directory (which must exist). */
export function lockRunDir(dir: string, log?: (s: string) => void): () => void {
  return acquireLock(join(dir, RUN_LOCK_FILE), `run directory ${dir}`, log);
}

/** A temp file beside `file`, unique to this process (src/run/write-file.ts). */
export { tempPathFor };

/**
 * Removes the temp files (`.<pid>.<name>.tmp`, see tempPathFor) and lock claim markers that
 * processes no longer running left in `dir` (a kill -9 mid-write: a checkpoint's temp file is
 * full-size). Called by the lock's holder, so no live writer of `dir` can own one. Returns the
 * names removed.
 */
export function removeDeadTempFiles(dir: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    let pid: number | null = null;
    const temp = /^\.([1-9]\d{0,9})\..+\.tmp$/.exec(name);
    if (temp) pid = Number(temp[1]);
    else if (name.startsWith(`${RUN_LOCK_FILE}.reclaim-`)) pid = readLockHolder(join(dir, name))?.pid ?? null;
    if (pid === null || pid === process.pid || processAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // a file we cannot remove is left as it was (it is never read)
    }
  }
  return removed;
}
