/**
 * Replaces a small file whole: its folder made, the text written to a temp file of this process's
 * own, then renamed over the file. A reader (another process included) sees the old file or the
 * new one, never half of one; two writers of one file each rename a whole file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { replaceFileWhole } from './write-file';

export function replaceFile(file: string, text: string): void {
  replaceFileWhole(file, text, { beforeCreate: () => mkdirSync(dirname(file), { recursive: true }) });
}
