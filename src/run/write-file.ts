/**
 * Every write of the CLI goes through here. `writeSync` may write fewer bytes than it was given (a
 * nearly full disk takes what fits and returns the count): writeAll loops until every byte is
 * written and turns a write that makes no progress into ENOSPC, so a cut file is never taken for a
 * whole one. A file the CLI replaces is written to a temp file of this process beside it and
 * renamed over it only once complete; a target that is not a regular file (a device such as
 * /dev/null, a FIFO, a directory) is refused before anything is written — a rename would replace
 * the device node itself.
 */
import { accessSync, closeSync, constants as fsConstants, existsSync, fsyncSync, lstatSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { kindOf } from './read-file';

/** A target the CLI will not write: the user's to fix (exit 2, one line). */
export class OutputPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputPathError';
  }
}

/** An errno-style error as Node's fs throws it, for a write the disk did not take. */
export function noSpaceError(file: string | undefined, wrote: number, wanted: number): NodeJS.ErrnoException {
  const where = file === undefined ? '' : ` '${file}'`;
  return Object.assign(new Error(`ENOSPC: no space left on device, write${where} (${wrote} of ${wanted} bytes written)`), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
    ...(file === undefined ? {} : { path: file }),
  });
}

/** Writes all of `data` at the file position of `fd`; a write that takes nothing throws ENOSPC. */
export function writeAll(fd: number, data: string | Uint8Array, file?: string): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let at = 0;
  while (at < bytes.length) {
    const n = writeSync(fd, bytes, at, bytes.length - at);
    if (!(n > 0)) throw noSpaceError(file, at, bytes.length);
    at += n;
  }
}

/** Appends `data` to `file` (created if absent), every byte or an error. */
export function appendAll(file: string, data: string | Uint8Array): void {
  const fd = openSync(file, 'a');
  try {
    writeAll(fd, data, file);
  } finally {
    closeSync(fd);
  }
}

/**
 * The path a replacement is renamed to: `file` itself, or the file a symlink points to (the link
 * stays a link). Throws OutputPathError when it exists and is not a regular file.
 */
export function replaceTarget(file: string, flag?: string): string {
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch {
    return file; // absent: created by the rename
  }
  let target = file;
  if (st.isSymbolicLink()) {
    try {
      target = realpathSync(file);
      st = statSync(target);
    } catch {
      return file; // a dangling link: replaced by the new file
    }
  }
  if (!st.isFile()) throw new OutputPathError(`${flag ? `${flag}: ` : ''}${file} is ${kindOf(st)}, not a regular file; give a file path to write`);
  return target;
}

/** A file being written beside its target: `commit` renames it into place, `abort` removes it. */
export interface Replacement {
  readonly path: string;
  write(data: string | Uint8Array): void;
  commit(): void;
  abort(): void;
}

/**
 * Opens a replacement of `file` (see replaceTarget): its temp file is created at the first write
 * (`beforeCreate` runs first, e.g. making the folder), written in full, flushed and renamed over
 * the target by commit(). Any failure leaves the target as it was and no temp file.
 */
export function openReplacement(file: string, opts: { flag?: string; beforeCreate?: () => void } = {}): Replacement {
  const target = replaceTarget(file, opts.flag);
  const tmp = tempPathFor(target);
  let fd: number | null = null;
  let done = false;
  const abort = () => {
    if (done) return;
    done = true;
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // already closed or the device is gone: the temp file is removed below either way
      }
      fd = null;
    }
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was created (e.g. the folder is read-only)
    }
  };
  const open = () => {
    if (fd === null) {
      opts.beforeCreate?.();
      fd = openSync(tmp, 'w');
    }
    return fd;
  };
  return {
    path: target,
    write(data) {
      if (done) throw new Error(`replacement of ${file} is already closed`);
      try {
        writeAll(open(), data, file);
      } catch (e) {
        abort();
        throw e;
      }
    },
    commit() {
      if (done) throw new Error(`replacement of ${file} is already closed`);
      try {
        const f = open();
        fsyncSync(f); // the data is on the disk before the name points at it (a crash after the rename keeps it)
        closeSync(f);
        fd = null;
        renameSync(tmp, target);
        done = true;
      } catch (e) {
        abort();
        throw e;
      }
    },
    abort,
  };
}

/** Replaces `file` whole with `data` (temp file beside it, then rename): a failed write leaves the old contents. */
export function replaceFileWhole(file: string, data: string | Uint8Array, opts: { flag?: string; beforeCreate?: () => void } = {}): void {
  const r = openReplacement(file, opts);
  r.write(data);
  r.commit();
}

/** A temp file beside `file`, unique to this process (its name still ends in `<name>.tmp`). */
export function tempPathFor(file: string): string {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return `${file.slice(0, slash + 1)}.${process.pid}.${file.slice(slash + 1)}.tmp`;
}

/**
 * The errno code that explains a failed file-system call on `path`: Node's recursive mkdir
 * reports ENOENT on a read-only mount (and under a parent it may not enter), so an ENOENT is
 * checked against the nearest folder that exists — EROFS or EACCES when that folder cannot be
 * written, else ENOENT (a part of the path vanished).
 */
export function explainFsCode(e: NodeJS.ErrnoException): string | undefined {
  if (e.code !== 'ENOENT' || typeof e.path !== 'string') return e.code;
  let probe = resolve(e.path);
  for (;;) {
    const up = dirname(probe);
    if (up === probe) return e.code;
    probe = up;
    if (existsSync(probe)) break;
  }
  try {
    accessSync(probe, fsConstants.W_OK);
  } catch (w) {
    return (w as NodeJS.ErrnoException).code ?? e.code;
  }
  return e.code;
}
