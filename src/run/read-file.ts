/**
 * Bounded reads of the files a user names: the file is stat'ed first, so a directory, a device
 * (/dev/zero), a FIFO or a file too large for its format is one message naming it before a byte
 * is read into memory. Errors are FileReadError (the CLI maps them to exit 2, one line).
 */
import { closeSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { CHECKPOINT_MAGIC, checkpointPrefixBytes, checkpointSizeBound } from '../model/checkpoint';

export class FileReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileReadError';
  }
}

const GIB = 1024 ** 3;
/** A checkpoint of 2 GiB or more cannot be read back (src/rl/resources.ts refuses a run that would write one). */
export const MAX_CHECKPOINT_BYTES = 2 * GIB - 1;
/** A checkpoint header (model, tensor table, run state) far beyond any run's. */
export const MAX_CHECKPOINT_HEADER_BYTES = 256 * 1024 ** 2;

/** What a non-regular file is, for the one-line refusal (read-file and write-file share it). */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Stats `file` and checks it is a regular file of at most `maxBytes`; returns its size. */
export function checkRegularFile(file: string, flag: string, maxBytes: number): number {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new FileReadError(`${flag}: ${file} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (e as Error).message})`}`);
  }
  if (!st.isFile()) throw new FileReadError(`${flag}: ${file} is ${kindOf(st)}, not a file`);
  if (st.size > maxBytes) throw new FileReadError(`${flag}: ${file} is ${st.size} bytes, more than this format allows (${maxBytes})`);
  return st.size;
}

/** The whole of a regular file of at most `maxBytes` (see checkRegularFile). */
export function readBoundedFile(file: string, flag: string, maxBytes: number): Uint8Array {
  const size = checkRegularFile(file, flag, maxBytes);
  const fd = openSync(file, 'r');
  try {
    const out = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, out, at, size - at, null);
      if (n === 0) break;
      at += n;
    }
    // A file that shrank while read is cut short: the checksum check names it truncated.
    return at === size ? out : out.subarray(0, at);
  } catch (e) {
    throw new FileReadError(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

/**
 * A checkpoint file: a regular file under 2 GiB whose prefix's header length is within the
 * header limit and whose size is within what its model needs (checkpointSizeBound, from the
 * header, read first), read whole only then (its checksum and contents are checked by decodeCheckpoint).
 */
export function readCheckpointFile(file: string, flag: string): Uint8Array {
  const size = checkRegularFile(file, flag, MAX_CHECKPOINT_BYTES);
  const fd = openSync(file, 'r');
  try {
    const head = new Uint8Array(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n === 16) {
      const dv = new DataView(head.buffer);
      const version = dv.getUint32(8, true);
      const hlen = dv.getUint32(12, true);
      if (hlen > MAX_CHECKPOINT_HEADER_BYTES) throw new FileReadError(`${flag}: checkpoint ${file}: header length ${hlen} is over the limit (${MAX_CHECKPOINT_HEADER_BYTES} bytes): not a checkpoint this lab wrote`);
      const magic = new TextDecoder().decode(head.subarray(0, 8)) === CHECKPOINT_MAGIC;
      const prefix = magic ? checkpointPrefixBytes(version) : undefined;
      if (prefix !== undefined && prefix + hlen <= size) {
        const header = new Uint8Array(hlen);
        if (readSync(fd, header, 0, hlen, prefix) === hlen) {
          const bound = checkpointSizeBound(version, header);
          if (bound && size > bound.bytes) throw new FileReadError(`${flag}: checkpoint ${file} is ${size} bytes, more than its model (${bound.model}) needs with optimizer state (at most ${bound.bytes}): not a checkpoint this lab wrote`);
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return readBoundedFile(file, flag, MAX_CHECKPOINT_BYTES);
}

/** A line longer than this is not a log line (a file with no line breaks would otherwise become one string). */
export const MAX_LINE_CHARS = 64 * 1024 ** 2;

/**
 * The lines of a regular file as `readFileSync(file, 'utf8').split('\n')` gives them (a BOM kept,
 * "\r" left on), read in 1 MiB pieces: memory holds one piece and the line being read, never the file.
 * Errors are FileReadError, `flag: …` (no prefix when flag is '').
 */
export function* readLinesSync(file: string, flag: string, chunkBytes = 1 << 20): Generator<string> {
  checkRegularFile(file, flag, Number.MAX_SAFE_INTEGER);
  const fd = openSync(file, 'r');
  try {
    const buf = new Uint8Array(chunkBytes);
    // ignoreBOM: keep a leading BOM as readFileSync does (the readers strip it themselves).
    const dec = new TextDecoder('utf-8', { ignoreBOM: true });
    let part = '';
    let lineNo = 1;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, chunkBytes, null);
      } catch (e) {
        throw new FileReadError(`${flag ? `${flag}: ` : ''}cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      const text = n === 0 ? dec.decode() : dec.decode(buf.subarray(0, n), { stream: true });
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        const line = part + text.slice(from, nl);
        part = '';
        from = nl + 1;
        lineNo++;
        yield line;
      }
      part += text.slice(from);
      if (part.length > MAX_LINE_CHARS) throw new FileReadError(`${flag ? `${flag}: ` : ''}${file}:${lineNo}: a line of more than ${MAX_LINE_CHARS} characters: not a log`);
      if (n === 0) break;
    }
    yield part;
  } finally {
    closeSync(fd);
  }
}
