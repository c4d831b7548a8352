/**
 * Run files: export a run (config + metrics) as JSONL or CSV, and import one back with
 * validation. Every import error names the file and the line: `run.jsonl:3: …`. No browser code:
 * the page (Runs → Import / Export) and the CLI (`magic-lab import-verl`) both read and write them.
 *
 * JSONL: line 1 `{"type":"run","format":"magic-lab-run","version":2,id,name,preset,createdAt,config}`,
 * then one `{"type":"step",…StepRecord}` or `{"type":"eval",…EvalRecord}` per line, and last
 * `{"type":"end","records":N,"checksum":"crc32:<8 hex>"}`: N step/eval records, and the CRC-32 of
 * every line before it (UTF-8, each ending in "\n"; CRLF line ends are read as LF). On import the
 * checksum is verified before the records are read, so a truncated or corrupted file is one message
 * naming it; then every field is validated (header fields, config, each record), because an edited
 * file with a recomputed checksum must still be refused rather than imported garbled.
 * Version 1 (exported before the checksum; users have such files) is still imported: it has no end
 * record, so a cut at a line boundary or an edit that keeps the JSON valid is not detected; its
 * records and config are validated as version 2's, its header fields fall back to defaults.
 * CSV: one row per step, columns `step,time_ms,<step metrics…>,<eval metrics…>` (eval values on
 * the row of their step, empty elsewhere). CSV carries no config: an imported CSV run gets the
 * default config and says so in its name. CSV carries no checksum either (a trailer row would break
 * the spreadsheets and pandas it is exported for); each cell is validated on import.
 *
 * Import also takes what a verl cluster run leaves (its console log, a W&B / TensorBoard CSV
 * export, JSONL metrics such as `magic-lab train`'s metrics.jsonl): src/verl/import.ts reads
 * them, and importRunFiles wraps the records into a run (docs/verl-import.md).
 */
import { crc32Label } from '../model/checkpoint';
import { DEFAULT_RUN_CONFIG, validateRunConfig, type RunConfig } from '../rl/config';
import { LATER_STEP_METRIC_KEYS, STEP_METRIC_KEY_LIST } from '../rl/metrics';
import type { EvalRecord, StepRecord } from '../rl/trainer-types';
import { FORMAT_LABELS, importVerlRun, VerlImportError, type ImportWarning, type VerlImport, type VerlImportOptions } from '../verl/import';

export const RUN_FILE_FORMAT = 'magic-lab-run';
/** The version this build writes: 2 ends with a checksum record (version 1, without one, is still read). */
export const RUN_FILE_VERSION = 2;

/** A run as the UI keeps it (IndexedDB, store, files). */
export interface RunData {
  id: string;
  name: string;
  preset: string;
  createdAt: number;
  config: RunConfig;
  steps: StepRecord[];
  evals: EvalRecord[];
  /** Step of the last checkpoint kept in IndexedDB, if any. */
  checkpointStep?: number;
  /** Training finished (every stage done). */
  done?: boolean;
  /** e.g. "started from random init: base checkpoint missing". */
  note?: string;
}

export class RunFileError extends Error {
  constructor(file: string, line: number | null, detail: string) {
    super(line === null ? `${file}: ${detail}` : `${file}:${line}: ${detail}`);
    this.name = 'RunFileError';
  }
}

/** NaN / ±Infinity are not JSON: written as null, read back as NaN. */
const numOut = (v: number) => (Number.isFinite(v) ? v : null);

export const headerLine = (run: Omit<RunData, 'steps' | 'evals'>) =>
  JSON.stringify({ type: 'run', format: RUN_FILE_FORMAT, version: RUN_FILE_VERSION, id: run.id, name: run.name, preset: run.preset, createdAt: run.createdAt, ...(run.note ? { note: run.note } : {}), config: run.config });
const clean = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, numOut(v)]));
export const recordLine = (type: 'step' | 'eval', r: StepRecord | EvalRecord) => JSON.stringify({ type, ...clean(r as Record<string, number>) });

export function runToJsonl(run: RunData): string {
  const lines = [headerLine(run)];
  for (const s of run.steps) lines.push(recordLine('step', s));
  for (const e of run.evals) lines.push(recordLine('eval', e));
  return sealRunJsonl(lines);
}

/** CRC-32 of run-file lines as the end record states it: each line's UTF-8 bytes followed by "\n". */
export function runLinesChecksum(lines: readonly string[]): string {
  return crc32Label(new TextEncoder().encode(lines.map((l) => l + '\n').join('')));
}

/**
 * A run file from its header and record lines: the lines and an end record with their count and
 * checksum. Exported for tests and tools that edit a file on purpose (import must then catch what
 * is wrong by validation alone).
 */
export function sealRunJsonl(lines: readonly string[]): string {
  const end = { type: 'end', records: lines.length - 1, checksum: runLinesChecksum(lines) };
  return [...lines, JSON.stringify(end)].join('\n') + '\n';
}

/** Eval metric keys present in a run, sorted. */
export function evalKeysOf(evals: readonly EvalRecord[]): string[] {
  const keys = new Set<string>();
  for (const e of evals) for (const k of Object.keys(e)) if (k !== 'step') keys.add(k);
  return [...keys].sort();
}

const csvCell = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '' : String(v));

export function runToCsv(run: RunData): string {
  const evalKeys = evalKeysOf(run.evals);
  const header = ['step', 'time_ms', ...STEP_METRIC_KEY_LIST, ...evalKeys];
  const evalByStep = new Map(run.evals.map((e) => [e.step, e]));
  const rows = [header.join(',')];
  const steps = new Set(run.steps.map((s) => s.step));
  for (const s of run.steps) {
    const e = evalByStep.get(s.step);
    rows.push([s.step, s.time_ms, ...STEP_METRIC_KEY_LIST.map((k) => s[k]), ...evalKeys.map((k) => e?.[k])].map((v) => csvCell(v as number | undefined)).join(','));
  }
  // An eval at a step with no step record (e.g. step 0, before training) gets its own row.
  for (const e of run.evals) {
    if (steps.has(e.step)) continue;
    rows.push([e.step, undefined, ...STEP_METRIC_KEY_LIST.map(() => undefined), ...evalKeys.map((k) => e[k])].map((v) => csvCell(v as number | undefined)).join(','));
  }
  return rows.join('\n') + '\n';
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toNumber(v: unknown, file: string, line: number, key: string): number {
  if (v === null) return NaN;
  if (typeof v !== 'number') throw new RunFileError(file, line, `"${key}" must be a number or null, got ${JSON.stringify(v)}`);
  return v;
}

function checkStepNumber(v: unknown, file: string, line: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new RunFileError(file, line, `"step" must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

function parseMetrics(obj: Record<string, unknown>, file: string, line: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'type') out[k] = toNumber(v, file, line, k);
  return out;
}

/** The last non-empty line's index, or -1. */
function lastLine(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim() !== '') return i;
  return -1;
}

/** A version-2 file's end record, checked against the lines before it; returns the end line's index. */
function checkEndRecord(lines: readonly string[], file: string): number {
  const i = lastLine(lines);
  let end: unknown;
  try {
    end = JSON.parse(lines[i]);
  } catch {
    end = undefined;
  }
  if (!isObj(end) || end.type !== 'end') {
    throw new RunFileError(file, i + 1, 'the file does not end with its {"type":"end",…} checksum record: it is truncated or damaged');
  }
  const extra = Object.keys(end).find((k) => !['type', 'records', 'checksum'].includes(k));
  if (extra !== undefined) throw new RunFileError(file, i + 1, `end record: unknown field "${extra}"`);
  if (typeof end.checksum !== 'string' || !/^crc32:[0-9a-f]{8}$/.test(end.checksum)) throw new RunFileError(file, i + 1, `end record: "checksum" must be "crc32:<8 hex>", got ${JSON.stringify(end.checksum)}`);
  const actual = runLinesChecksum(lines.slice(0, i));
  if (end.checksum !== actual) throw new RunFileError(file, null, `checksum mismatch (end record ${end.checksum}, file ${actual}): the file is corrupt or was edited`);
  const records = lines.slice(1, i).filter((l) => l.trim() !== '').length;
  if (end.records !== records) throw new RunFileError(file, i + 1, `end record: "records" is ${JSON.stringify(end.records)}, the file holds ${records}`);
  return i;
}

/** Header fields of a version-2 file (its checksum matched, so an error here is an edit or a bug). */
const HEADER_FIELDS: Record<string, (v: unknown) => boolean> = {
  type: () => true,
  format: () => true,
  version: () => true,
  config: () => true,
  id: (v) => typeof v === 'string',
  name: (v) => typeof v === 'string',
  preset: (v) => typeof v === 'string' && v !== '',
  createdAt: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  note: (v) => typeof v === 'string',
};
const REQUIRED_HEADER_FIELDS = ['id', 'name', 'preset', 'createdAt'];

export function parseJsonl(input: string, file: string): Omit<RunData, 'id'> & { id: string } {
  const text = input.replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/);
  let header: Record<string, unknown> | null = null;
  let config: RunConfig = DEFAULT_RUN_CONFIG;
  const steps: StepRecord[] = [];
  const evals: EvalRecord[] = [];
  // Version 2: the index of the end record (checked before any record is read); -1 until known.
  let endLine = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i].trim();
    if (raw === '') continue;
    if (i === endLine) break;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw new RunFileError(file, line, `not valid JSON (${(e as Error).message})`);
    }
    if (!isObj(obj)) throw new RunFileError(file, line, 'each line must be a JSON object');
    if (header === null) {
      if (obj.type !== 'run' || obj.format !== RUN_FILE_FORMAT) throw new RunFileError(file, line, `the first line must be the run header {"type":"run","format":"${RUN_FILE_FORMAT}",…}`);
      if (obj.version !== 1 && obj.version !== RUN_FILE_VERSION) throw new RunFileError(file, line, `unsupported version ${JSON.stringify(obj.version)} (this lab reads versions 1 and ${RUN_FILE_VERSION})`);
      if (obj.version === 2) {
        if (i !== 0) throw new RunFileError(file, line, 'the run header must be the first line');
        endLine = checkEndRecord(lines, file);
        for (const [k, v] of Object.entries(obj)) {
          const ok = HEADER_FIELDS[k];
          if (!ok || !Object.prototype.hasOwnProperty.call(HEADER_FIELDS, k)) throw new RunFileError(file, line, `run header: unknown field "${k}"`);
          if (!ok(v)) throw new RunFileError(file, line, `run header: "${k}" is not valid: ${JSON.stringify(v)?.slice(0, 60)}`);
        }
        const missing = REQUIRED_HEADER_FIELDS.find((k) => !(k in obj));
        if (missing) throw new RunFileError(file, line, `run header: "${missing}" is missing`);
      }
      try {
        config = validateRunConfig(obj.config);
      } catch (e) {
        throw new RunFileError(file, line, `invalid config: ${(e as Error).message}`);
      }
      header = obj;
      continue;
    }
    if (obj.type === 'step') {
      const step = checkStepNumber(obj.step, file, line);
      const m = parseMetrics(obj, file, line);
      for (const k of STEP_METRIC_KEY_LIST) {
        if (k in m) continue;
        if (LATER_STEP_METRIC_KEYS.includes(k)) m[k] = NaN;
        else throw new RunFileError(file, line, `step record is missing "${k}"`);
      }
      if (!('time_ms' in m)) throw new RunFileError(file, line, 'step record is missing "time_ms"');
      if (steps.length && step <= steps[steps.length - 1].step) throw new RunFileError(file, line, `steps must increase, got step ${step} after ${steps[steps.length - 1].step}`);
      steps.push({ ...m, step } as StepRecord);
    } else if (obj.type === 'eval') {
      const step = checkStepNumber(obj.step, file, line);
      evals.push({ ...parseMetrics(obj, file, line), step } as EvalRecord);
    } else {
      throw new RunFileError(file, line, `unknown record type ${JSON.stringify(obj.type)} (expected "step" or "eval")`);
    }
  }
  if (header === null) throw new RunFileError(file, null, 'empty file (no run header)');
  const str = (v: unknown, d: string) => (typeof v === 'string' && v ? v : d);
  return {
    id: str(header.id, ''),
    name: str(header.name, file.replace(/\.[^.]*$/, '')),
    preset: str(header.preset, 'magic'),
    createdAt: typeof header.createdAt === 'number' ? header.createdAt : Date.now(),
    config,
    steps,
    evals,
    ...(typeof header.note === 'string' && header.note ? { note: header.note } : {}),
  };
}

export function parseCsv(text: string, file: string): RunData {
  const lines = text.split(/\r?\n/);
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) throw new RunFileError(file, null, 'empty file');
  const header = lines[0].split(',').map((h) => h.trim());
  if (header[0] !== 'step') throw new RunFileError(file, 1, `the first column must be "step", got ${JSON.stringify(header[0])}`);
  const missing = ['time_ms', ...STEP_METRIC_KEY_LIST.filter((k) => !LATER_STEP_METRIC_KEYS.includes(k))].filter((k) => !header.includes(k));
  if (missing.length) throw new RunFileError(file, 1, `missing column${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}`);
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup) throw new RunFileError(file, 1, `duplicate column "${dup}"`);
  const evalCols = header.filter((h) => h.startsWith('val/'));
  const steps: StepRecord[] = [];
  const evals: EvalRecord[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = i + 1;
    const cells = lines[i].split(',');
    if (cells.length !== header.length) throw new RunFileError(file, line, `expected ${header.length} cells, got ${cells.length}`);
    const row: Record<string, number> = {};
    header.forEach((h, j) => {
      const c = cells[j].trim();
      if (c === '') row[h] = NaN;
      else {
        const v = Number(c);
        if (Number.isNaN(v) && c !== 'NaN') throw new RunFileError(file, line, `column "${h}": not a number: ${JSON.stringify(c)}`);
        row[h] = v;
      }
    });
    const step = checkStepNumber(row.step, file, line);
    // A step row has its clock or any step metric (an imported cluster run may have no clock).
    if (Number.isFinite(row.time_ms) || STEP_METRIC_KEY_LIST.some((k) => Number.isFinite(row[k]))) {
      const rec: Record<string, number> = { step, time_ms: row.time_ms };
      for (const k of STEP_METRIC_KEY_LIST) rec[k] = row[k] ?? NaN;
      if (steps.length && step <= steps[steps.length - 1].step) throw new RunFileError(file, line, `steps must increase, got step ${step} after ${steps[steps.length - 1].step}`);
      steps.push(rec as StepRecord);
    }
    const ev: Record<string, number> = { step };
    let any = false;
    for (const k of evalCols) {
      if (Number.isFinite(row[k])) {
        ev[k] = row[k];
        any = true;
      }
    }
    if (any) evals.push(ev as EvalRecord);
  }
  return { id: '', name: `${file.replace(/\.[^.]*$/, '')} (CSV: default config)`, preset: 'magic', createdAt: Date.now(), config: validateRunConfig({}), steps, evals };
}

/** A file's first non-empty line. */
const firstLine = (text: string) => text.replace(/^\uFEFF/, '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';

/** A line's JSON object's `type`, or undefined. */
export function recordType(line: string): unknown {
  if (!line.startsWith('{')) return undefined;
  try {
    const o = JSON.parse(line) as unknown;
    return typeof o === 'object' && o !== null ? (o as Record<string, unknown>).type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * MAGIC Lab's own run file: a JSONL whose first record is the run header, or (a damaged header)
 * whose last is a version-2 end record — so that damage is reported as such, not read as metrics.
 */
function isLabJsonl(text: string): boolean {
  if (recordType(firstLine(text)) === 'run') return true;
  const last = text.split('\n').map((l) => l.trim()).filter((l) => l !== '').pop() ?? '';
  return /"checksum"/.test(last) && recordType(last) === 'end';
}

/** MAGIC Lab's own CSV export (its header starts `step,time_ms`). */
const isLabCsv = (text: string) => /^step,time_ms(,|$)/.test(firstLine(text));


/** A run import: the run, lines skipped on the way (file:line), and what the import rules did. */
export interface RunImport {
  run: RunData;
  /** e.g. "verl console log", or "MAGIC Lab run file". */
  format: string;
  warnings: ImportWarning[];
  notes: string[];
}

const stem = (file: string) => file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1).replace(/\.[^.]*$/, '');

/**
 * The config an imported cluster run is shown with: the lab's default (the log does not carry
 * one) with the eval k and temperatures of its lab-named held-out series, so the reward chart
 * draws them when the run is the one shown.
 */
function configForImport(evalKeys: Iterable<string>): RunConfig {
  const ks = new Set<number>();
  const temps = new Set<number>();
  for (const k of evalKeys) {
    const m = /^val\/(?:avg|pass)@(\d+)\/t(\d+(?:\.\d+)?)$/.exec(k);
    if (m) {
      ks.add(Number(m[1]));
      temps.add(Number(m[2]));
    }
  }
  if (ks.size !== 1 || temps.size === 0) return validateRunConfig({});
  try {
    return validateRunConfig({ eval: { k: [...ks][0], temperatures: [...temps].sort((a, b) => b - a) } });
  } catch {
    return validateRunConfig({});
  }
}

/** A run from imported cluster records. */
export function runFromImport(imp: VerlImport, files: readonly string[]): RunData {
  const evalKeys = new Set<string>();
  for (const e of imp.evals) for (const k of Object.keys(e)) evalKeys.add(k);
  return { ...importedRunHeader(imp, files, evalKeys), steps: imp.steps, evals: imp.evals };
}

/** A run's header fields for imported cluster records (evalKeys: the eval records' keys, for its config). */
export function importedRunHeader(imp: Pick<VerlImport, 'formats' | 'warnings'>, files: readonly string[], evalKeys: Iterable<string>): Omit<RunData, 'steps' | 'evals'> {
  const label = [...new Set(imp.formats.map((f) => FORMAT_LABELS[f]))].join(' + ');
  const skipped = imp.warnings.length;
  return {
    id: '',
    name: `${stem(files[0])} (${label})`,
    preset: 'imported',
    createdAt: Date.now(),
    config: configForImport(evalKeys),
    note: `Imported from ${files.length > 1 ? `${files.length} files (${label})` : `a ${label}`}; its config is not in the file (the lab's default stands in)${skipped ? `; ${skipped} warning${skipped > 1 ? 's' : ''} on import` : ''}.`,
  };
}


/**
 * Imports run files: MAGIC Lab's own JSONL / CSV export (one file), or cluster logs that
 * src/verl/import.ts reads (one or more, merged by step). Errors are RunFileError naming the file.
 */
export function importRunFiles(files: readonly { name: string; text: string }[], opts: VerlImportOptions = {}): RunImport {
  if (files.length === 1 && isLabJsonl(files[0].text)) return { run: parseJsonl(files[0].text, files[0].name), format: 'MAGIC Lab run file', warnings: [], notes: [] };
  if (files.length === 1 && isLabCsv(files[0].text)) return { run: parseCsv(files[0].text, files[0].name), format: 'MAGIC Lab CSV', warnings: [], notes: [] };
  const own = files.find((f) => isLabJsonl(f.text) || isLabCsv(f.text));
  if (own) throw new RunFileError(own.name, null, 'a MAGIC Lab run file is imported on its own, not merged with other files');
  try {
    const imp = importVerlRun(files, opts);
    return { run: runFromImport(imp, files.map((f) => f.name)), format: [...new Set(imp.formats.map((f) => FORMAT_LABELS[f]))].join(' + '), warnings: imp.warnings, notes: imp.notes };
  } catch (e) {
    if (e instanceof VerlImportError) throw new RunFileError(e.file, null, e.detail);
    throw e;
  }
}

/**
 * Imports one run file, whatever it is: MAGIC Lab's JSONL or CSV export, verl's console log, a
 * W&B / TensorBoard CSV export, or JSONL metrics (by content). Skipped lines are dropped silently
 * here; importRunFiles reports them.
 */
export function parseRunFile(text: string, file: string): RunData {
  return importRunFiles([{ name: file, text }]).run;
}

/**
 * Whether two runs hold the same records (every step and evaluation, wall-clock times included, so
 * two runs of one seed are still two): an import that matches a listed run is that run again.
 */
export function sameRunRecords(a: Pick<RunData, 'steps' | 'evals'>, b: Pick<RunData, 'steps' | 'evals'>): boolean {
  if (a.steps.length !== b.steps.length || a.evals.length !== b.evals.length) return false;
  if (a.steps.length + a.evals.length === 0) return false;
  const canon = (recs: readonly object[]) => JSON.stringify(recs.map(canonicalRecord));
  return canon(a.steps) === canon(b.steps) && canon(a.evals) === canon(b.evals);
}

/** A record's defined values in key order: a value the file could not hold (NaN, absent) is left out on both sides. */
function canonicalRecord(rec: object): [string, unknown][] {
  return Object.entries(rec)
    .filter(([, v]) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}
