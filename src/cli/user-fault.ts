/**
 * Failures the user causes or must fix, recognised at the CLI's top level when no command turned
 * them into a message of its own: a file-system error (read-only mount, full disk, a file where a
 * directory belongs, a directory where a file belongs, no permission, a closed output pipe) and
 * an engine out of memory. Each becomes one line (exit 2) instead of a stack trace.
 */
import { explainFsCode } from '../run/write-file';

const FS_REASONS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'the disk quota is used up',
  EPIPE: 'the output was closed (a pipe whose reader exited)',
  EIO: 'an I/O error',
  ENOENT: 'no such file or folder',
};

const OUT_OF_MEMORY = /out of memory|Array buffer allocation failed|could not allocate memory|WebAssembly\.Memory\(\): (could not|Maximum memory)/i;
/** V8's limit on one string (~512 MiB): a file read whole that is larger. */
const TOO_LONG = /^Invalid string length$|^Cannot create a string longer than/;

/** One line for a user-caused failure, or null for an internal error (a bug: exit 1 with its trace). */
export function userFault(e: unknown): string | null {
  if (typeof e !== 'object' || e === null) return null;
  const err = e as NodeJS.ErrnoException;
  // ENOENT only with the path it names (one the user gave); on a read-only mount it is EROFS (explainFsCode).
  const code = typeof err.code === 'string' && (err.code !== 'ENOENT' || typeof err.path === 'string') ? explainFsCode(err) : undefined;
  if (code !== undefined && code in FS_REASONS) {
    const dest = (err as { dest?: string }).dest;
    const path = err.path ? `${err.path}${dest ? ` → ${dest}` : ''}: ` : '';
    const op = err.syscall ? ` (${err.syscall}, ${code})` : ` (${code})`;
    return `${path}${FS_REASONS[code]}${op}`;
  }
  if (e instanceof Error && TOO_LONG.test(e.message)) return `the input is too large: a text over V8's string limit (~512 MiB) would be needed (${e.message}); split it or give a smaller one`;
  if (e instanceof Error && OUT_OF_MEMORY.test(e.message)) {
    return `out of memory: ${e.message.split('\n')[0]} — use a smaller model, batch or --problems, or a machine with more memory`;
  }
  return null;
}
