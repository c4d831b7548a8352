/**
 * One writer per run directory: an advisory lock file holding the writer's pid, host and start
 * time. It is created with O_EXCL, so of two processes started together exactly one gets it. A
 * lock left by a dead process on this host is reclaimed (with a message); a live holder, or one on
 * another host (its pid cannot be checked from here), is refused with one line naming it.
 * Pure Node fs: the CLI's train and sft and the sweep runner can all take it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

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

/** The holder a lock file names, or null when it cannot be read as one. */
export function readLockHolder(file: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.startedAt === 'string') return v as LockHolder;
  } catch {
    // unreadable or not JSON: reported below
  }
  return null;
}

/**
 * Takes the lock `file` for this process; returns the function that releases it. `what` names the
 * thing locked in messages (e.g. "run directory runs/a"); `log` gets the reclaim notice.
 */
export function acquireLock(file: string, what: string, log: (s: string) => void = () => {}): () => void {
  const me: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(me) + '\n', { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
    }
    const holder = readLockHolder(file);
    if (holder === null) throw new RunLockError(`${what} is locked by ${file}, which cannot be read; remove it if no other magic-lab process uses it`);
    const sameHost = holder.host === me.host;
    if (!sameHost || holder.pid === process.pid || processAlive(holder.pid)) {
      const where = sameHost ? '' : ` on host ${holder.host}`;
      throw new RunLockError(`${what} is in use by process ${holder.pid}${where} (since ${holder.startedAt}); wait for it to finish, or remove ${file} if that process is gone`);
    }
    log(`warning: reclaimed the lock of ${what} from process ${holder.pid} (started ${holder.startedAt}), which is no longer running`);
    rmSync(file, { force: true });
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    // Only our own lock: a holder that reclaimed it after us must keep theirs.
    if (readLockHolder(file)?.pid === me.pid) rmSync(file, { force: true });
  };
}

/** The lock of a run directory (which must exist). */
export function lockRunDir(dir: string, log?: (s: string) => void): () => void {
  return acquireLock(join(dir, RUN_LOCK_FILE), `run directory ${dir}`, log);
}

/** A temp file beside `file`, unique to this process (its name still ends in `<name>.tmp`). */
export function tempPathFor(file: string): string {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return `${file.slice(0, slash + 1)}.${process.pid}.${file.slice(slash + 1)}.tmp`;
}
