/**
 * Replaces a small file whole: its folder made, the text written to a temp file of this process's
 * own, then renamed over the file. A reader (another process included) sees the old file or the
 * new one, never half of one; two writers of one file each rename a whole file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function replaceFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
