/**
 * Files kept compressed in the repository: a finished run's metrics.jsonl and a large
 * summary.json are stored as `X.gz` (reports/README.md). Readers open `X` or `X.gz` alike; a
 * run still training appends to plain `X`, which wins when both exist (it is the newer).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { gunzipSync, gzipSync } from 'node:zlib';

/** `file` or, when only that exists, `file.gz`: the path that holds its contents, or null. */
export function storedPath(file: string): string | null {
  if (existsSync(file)) return file;
  if (existsSync(`${file}.gz`)) return `${file}.gz`;
  return null;
}

/** Whether `file` or `file.gz` exists. */
export function existsStored(file: string): boolean {
  return storedPath(file) !== null;
}

/** The text of `file`, read from `file.gz` when only that exists (ENOENT naming `file` when neither does). */
export function readStoredText(file: string): string {
  const path = storedPath(file);
  if (path === null) return readFileSync(file, 'utf8'); // throws ENOENT naming the plain name
  return path === file ? readFileSync(file, 'utf8') : gunzipSync(readFileSync(path)).toString('utf8');
}

/**
 * Replaces `file` by `file.gz` (gzip level 9; temp file + rename, then the plain file is
 * removed): killed at any point it leaves `file`, or both (same contents), never neither.
 */
export function compressFile(file: string): void {
  if (!existsSync(file)) return;
  writeThenRemove(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }), file);
}

/** Writes `target` whole (temp file + rename), then removes `stale`, the other name of the same contents. */
function writeThenRemove(target: string, data: string | Uint8Array, stale: string): void {
  replaceFileWhole(target, data);
  rmSync(stale, { force: true });
}

/** Summaries over this many bytes are kept as `X.gz` (a 5-seed finding's per-step curves run to ~1 MB as text). */
export const GZIP_OVER_BYTES = 50_000;

/**
 * Writes `text` as `file`, or as `file.gz` when it is over GZIP_OVER_BYTES, and removes the other
 * name so a reader never meets a stale copy (temp file + rename: never a half-written file).
 */
export function writeStoredText(file: string, text: string): void {
  if (Buffer.byteLength(text) > GZIP_OVER_BYTES) writeThenRemove(`${file}.gz`, gzipSync(Buffer.from(text), { level: 9 }), file);
  else writeThenRemove(file, text, `${file}.gz`);
}
