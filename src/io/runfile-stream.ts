/**
 * Run files written and recognised line by line, for `magic-lab import-verl`: cluster logs read as
 * line sources (src/verl/import.ts, importVerlSources) become a run file written a line at a time,
 * byte for byte what runToJsonl(importRunFiles(…).run) gives (src/io/runfile.ts), so neither the
 * logs nor the run file is ever one string.
 */
import { crc32Update } from '../model/checkpoint';
import type { RunConfig } from '../rl/config';
import { FORMAT_LABELS, importVerlSources, VerlImportError, type VerlImportOptions, type VerlLineSource } from '../verl/import';
import { headerLine, importedRunHeader, recordLine, recordType, RunFileError, type RunImport } from './runfile';

/**
 * Cluster logs written as a run file line by line, with the end record's checksum kept running. `write` gets
 * chunks of whole lines. Errors are RunFileError naming the file.
 */
export function writeImportedRunJsonl(
  files: readonly VerlLineSource[],
  opts: VerlImportOptions,
  write: (chunk: string) => void,
  over: { name?: string; config?: RunConfig } = {},
): Omit<RunImport, 'run'> & { name: string; steps: number; evals: number } {
  let imp;
  try {
    imp = importVerlSources(files, opts);
  } catch (e) {
    if (e instanceof VerlImportError) throw new RunFileError(e.file, null, e.detail);
    throw e;
  }
  const head = importedRunHeader(imp, files.map((f) => f.name), imp.evalKeys);
  if (over.name !== undefined) head.name = over.name;
  if (over.config) head.config = over.config;
  const enc = new TextEncoder();
  let buf = new Uint8Array(1 << 16);
  let crc = 0xffffffff;
  let chunk = '';
  let records = 0;
  const put = (line: string) => {
    const l = line + '\n';
    // One buffer for every line's UTF-8 (at most 3 bytes a UTF-16 unit), not a new array each.
    if (buf.length < 3 * l.length) buf = new Uint8Array(3 * l.length);
    crc = crc32Update(crc, buf.subarray(0, enc.encodeInto(l, buf).written));
    chunk += l;
    if (chunk.length >= 1 << 20) {
      write(chunk);
      chunk = '';
    }
  };
  put(headerLine(head));
  for (const s of imp.steps()) put(recordLine('step', s)), records++;
  for (const e of imp.evals()) put(recordLine('eval', e)), records++;
  const checksum = `crc32:${((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0')}`;
  write(chunk + JSON.stringify({ type: 'end', records, checksum }) + '\n');
  return { format: [...new Set(imp.formats.map((f) => FORMAT_LABELS[f]))].join(' + '), warnings: imp.warnings, notes: imp.notes, name: head.name, steps: imp.stepCount, evals: imp.evalCount };
}

/** isLabJsonl || isLabCsv over a file read line by line (only its first and last non-empty lines are kept). */
export function isLabRunFile(lines: Iterable<string>): boolean {
  let first: string | null = null;
  let last = '';
  let n = 0;
  for (const raw of lines) {
    const t = (n++ === 0 ? raw.replace(/^\uFEFF/, '') : raw).trim();
    if (t === '') continue;
    first ??= t;
    last = t;
  }
  first ??= '';
  return recordType(first) === 'run' || (/"checksum"/.test(last) && recordType(last) === 'end') || /^step,time_ms(,|$)/.test(first);
}
