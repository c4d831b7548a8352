/**
 * Run files: export a run (config + metrics) as JSONL or CSV, and import one back with
 * validation. Every import error names the file and the line: `run.jsonl:3: …`.
 *
 * JSONL: line 1 `{"type":"run","format":"magic-lab-run","version":1,id,name,preset,createdAt,config}`,
 * then one `{"type":"step",…StepRecord}` or `{"type":"eval",…EvalRecord}` per line.
 * CSV: one row per step, columns `step,time_ms,<step metrics…>,<eval metrics…>` (eval values on
 * the row of their step, empty elsewhere). CSV carries no config: an imported CSV run gets the
 * default config and says so in its name.
 */
import { DEFAULT_RUN_CONFIG, validateRunConfig, type RunConfig } from '../../rl/config';
import { LATER_STEP_METRIC_KEYS, STEP_METRIC_KEY_LIST } from '../../rl/metrics';
import type { EvalRecord, StepRecord } from '../../rl/trainer-types';

export const RUN_FILE_FORMAT = 'magic-lab-run';
export const RUN_FILE_VERSION = 1;

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

export function runToJsonl(run: RunData): string {
  const header = { type: 'run', format: RUN_FILE_FORMAT, version: RUN_FILE_VERSION, id: run.id, name: run.name, preset: run.preset, createdAt: run.createdAt, config: run.config };
  const lines = [JSON.stringify(header)];
  const clean = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, numOut(v)]));
  for (const s of run.steps) lines.push(JSON.stringify({ type: 'step', ...clean(s) }));
  for (const e of run.evals) lines.push(JSON.stringify({ type: 'eval', ...clean(e) }));
  return lines.join('\n') + '\n';
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

export function parseJsonl(text: string, file: string): Omit<RunData, 'id'> & { id: string } {
  const lines = text.split(/\r?\n/);
  let header: Record<string, unknown> | null = null;
  let config: RunConfig = DEFAULT_RUN_CONFIG;
  const steps: StepRecord[] = [];
  const evals: EvalRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i].trim();
    if (raw === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw new RunFileError(file, line, `not valid JSON (${(e as Error).message})`);
    }
    if (!isObj(obj)) throw new RunFileError(file, line, 'each line must be a JSON object');
    if (header === null) {
      if (obj.type !== 'run' || obj.format !== RUN_FILE_FORMAT) throw new RunFileError(file, line, `the first line must be the run header {"type":"run","format":"${RUN_FILE_FORMAT}",…}`);
      if (obj.version !== RUN_FILE_VERSION) throw new RunFileError(file, line, `unsupported version ${JSON.stringify(obj.version)} (this lab reads version ${RUN_FILE_VERSION})`);
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
    if (Number.isFinite(row.time_ms)) {
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

/** Imports a .jsonl or .csv run file (by extension; content sniffed otherwise). */
export function parseRunFile(text: string, file: string): RunData {
  const lower = file.toLowerCase();
  if (lower.endsWith('.csv')) return parseCsv(text, file);
  if (lower.endsWith('.jsonl') || lower.endsWith('.json') || text.trimStart().startsWith('{')) return parseJsonl(text, file);
  if (text.startsWith('step,')) return parseCsv(text, file);
  throw new RunFileError(file, null, 'not a run file (expected .jsonl or .csv exported by MAGIC Lab)');
}
