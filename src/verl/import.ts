/**
 * Cluster runs into the lab: turns what a verl run leaves behind into the lab's step and eval
 * records, so the page (and `magic-lab import-verl`) can overlay a cluster run on browser runs.
 * Pure: no DOM, no Node APIs; the CLI and the page's "Import run…" both call it.
 *
 * Accepted inputs (one or more files, merged by step; docs/verl-import.md has the details):
 * - verl's console log: lines `step:N - key:value - key:value …` (verl/utils/logger/aggregate_logger.py,
 *   `concat_dict_to_str`, numbers printed with 3 decimals; `nan` / `inf` allowed), anywhere in a
 *   line (Ray prefixes such as `(TaskRunner pid=12)` and ANSI colours are ignored), mixed with any
 *   other output, which is skipped silently. A line that starts a record (`step:` followed by
 *   non-space) but does not parse is reported as `file:line: reason` and skipped.
 * - a CSV export: wide (W&B: a step column `Step` / `_step` / `step` / `global_step` /
 *   `trainer/global_step` and one column per metric, optionally prefixed `RUN - `; `__MIN` /
 *   `__MAX` columns and W&B's own `_…` columns other than `_runtime` are ignored), TensorBoard's
 *   per-tag download (`Wall time,Step,Value`, the tag taken from the file name
 *   `run-…-tag-TAG.csv`), or long (`step`, `tag` | `metric` | `key` | `name`, `value` columns).
 * - JSONL: one JSON object a line with `step` and numeric keys: the lab's own `metrics.jsonl`
 *   (`type: "step" | "eval"`), `{"step": N, "data": {…}}` records, or W&B's run history (`_step`,
 *   `_runtime`; its other `_…` keys ignored).
 *
 * Rules, applied to the merged series:
 * - Step records hold the non-validation keys of a step, eval records the validation keys
 *   (`val/…`, `val-core/…`, `val-aux/…`); a step seen twice keeps the later values (a resumed
 *   run re-logs steps) and says so once.
 * - Scale: a fraction-valued key (accuracies, clip ratios and fractions; see FRACTION_KEY) whose
 *   values lie in [0, 100] with some above 1 is read as percent and divided by 100; one whose
 *   values leave [0, 100] is kept unscaled and never mapped to a lab name.
 * - Validation names: `val-core|val-aux/<source>/<acc, or reward where the source has no acc>/mean@N`
 *   becomes `val/avg@N/t<τ>`, and `val/test_score/<source>` becomes `val/avg@n/t<τ>`, when the
 *   validation temperature τ (and n for test_score) is known — from the options, or from verl's
 *   printed config / Hydra overrides in the log (`val_kwargs` temperature, n, do_sample) — only one
 *   source maps to that name, no lab-named key already has it, and the values are fractions.
 *   Anything else (best@, maj@, worst@, std@, several data sources) is kept under verl's name.
 * - Units: `timing_s/step` (seconds) becomes the lab's `perf/step_s`; the run's clock `time_ms` is
 *   W&B's `_runtime`, else TensorBoard's wall time from the first point, else the running sum of
 *   `timing_s/step`, in milliseconds (NaN when none is known).
 * - Every other key is kept as it is (the page offers it in the "More metrics" chart). Keys must
 *   be 1–200 printable characters; `__proto__`, `constructor` and `prototype` are refused.
 */
import { STEP_METRIC_KEY_LIST, STEP_METRIC_KEYS, formatTemperature } from '../rl/metrics';
import type { EvalRecord, StepRecord } from '../rl/trainer-types';

export type VerlFormat = 'verl-console' | 'wandb-csv' | 'tensorboard-csv' | 'long-csv' | 'metrics-jsonl';

export const FORMAT_LABELS: Record<VerlFormat, string> = {
  'verl-console': 'verl console log',
  'wandb-csv': 'W&B CSV',
  'tensorboard-csv': 'TensorBoard CSV',
  'long-csv': 'CSV (step, tag, value)',
  'metrics-jsonl': 'metrics JSONL',
};

/** One skipped line (or column, or key): `file:line: reason`. */
export interface ImportWarning {
  file: string;
  /** 1-based; null when the warning is about the file as a whole. */
  line: number | null;
  reason: string;
}

export const warningText = (w: ImportWarning) => (w.line === null ? `${w.file}: ${w.reason}` : `${w.file}:${w.line}: ${w.reason}`);

/** The first `max` warnings as lines, then one line counting the rest. */
export function warningLines(warnings: readonly ImportWarning[], max = 20): string[] {
  const out = warnings.slice(0, max).map(warningText);
  if (warnings.length > max) out.push(`… and ${warnings.length - max} more warning${warnings.length - max > 1 ? 's' : ''}`);
  return out;
}

/** Validation settings of the cluster run: the sampling temperature τ and samples per prompt n. */
export interface ValSettings {
  temperature?: number;
  n?: number;
}

export interface VerlImportOptions {
  /** Overrides what the log says about validation (CLI --val-temperature / --val-n). */
  val?: ValSettings;
  /** TensorBoard per-tag CSV: the tag, instead of reading it from the file name. */
  tag?: string;
}

export interface VerlInputFile {
  name: string;
  text: string;
}

export interface VerlImport {
  /** Format of each file, in input order. */
  formats: VerlFormat[];
  steps: StepRecord[];
  evals: EvalRecord[];
  warnings: ImportWarning[];
  /** What the rules did: scale conversions, renamed keys, keys kept under verl's names and why. */
  notes: string[];
  /** Validation settings used for the name mapping, and where they came from. */
  val: ValSettings & { from: 'options' | 'log' | 'unknown' };
  /** Lab eval keys that mapped validation series now carry (e.g. val/avg@8/t0.6). */
  mappedEvalKeys: string[];
}

/** A file (or set of files) with nothing to import: one message naming the file. */
export class VerlImportError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'VerlImportError';
  }
}

// ---------------------------------------------------------------------------------------------
// Keys and values

const MAX_KEY_LENGTH = 200;
/** More distinct keys than this in one import is not a metrics log; the rest are dropped. */
export const MAX_KEYS = 2000;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Reserved by the lab's records. */
const RESERVED_KEYS = new Set(['step', 'time_ms', 'type']);

/** Why a key is refused, or null when it is fine. */
export function keyProblem(key: string): string | null {
  if (key.length === 0) return 'empty key';
  if (key.length > MAX_KEY_LENGTH) return `key longer than ${MAX_KEY_LENGTH} characters`;
  if (FORBIDDEN_KEYS.has(key)) return `key ${JSON.stringify(key)} is not allowed`;
  if (RESERVED_KEYS.has(key)) return `key ${JSON.stringify(key)} is reserved for the record itself`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return `key ${JSON.stringify(key)} has control characters`;
  return null;
}

const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A logged number: decimal or exponent notation, or Python's `nan` / `inf` / `-inf` (also
 * `NaN`, `Infinity`). Non-finite values (and overflowing ones such as 1e999) become NaN: a
 * missing point, as the lab's run files store them. Anything else is null (not a number).
 */
export function parseValue(raw: string): number | null {
  const s = raw.trim();
  if (NUMBER_RE.test(s)) {
    const v = Number(s);
    return Number.isFinite(v) ? v : NaN;
  }
  if (/^[+-]?(nan|inf|infinity)$/i.test(s)) return NaN;
  return null;
}

const isValKey = (k: string) => k.startsWith('val/') || k.startsWith('val-core/') || k.startsWith('val-aux/');

/**
 * Keys whose values are fractions in [0, 1] in the lab and in verl: accuracies (the lab's
 * val/avg|pass|maj@k, verl's …/acc/mean|best|worst|maj@N, any key ending in acc / accuracy),
 * clip ratios and clip fractions. The percent rule applies to these only.
 */
export function isFractionKey(k: string): boolean {
  if (/^val\/(avg|pass|maj)@\d+\//.test(k)) return true;
  if (/^val-(core|aux)\/.+\/acc\/(mean|best|worst|maj)@\d+(\/mean)?$/.test(k)) return true;
  if (/(^|\/)clip_ratio(\/|$)/.test(k) || k.includes('clipfrac')) return true;
  const last = k.slice(k.lastIndexOf('/') + 1).toLowerCase();
  return last === 'acc' || last === 'accuracy';
}

/** Names a verl run logs (and the lab's own), used to undo TensorBoard's `/` → `_` in file names. */
const KNOWN_KEYS: readonly string[] = [
  ...new Set([
    ...STEP_METRIC_KEY_LIST,
    ...['score', 'rewards', 'advantages', 'returns', 'values'].flatMap((m) => ['mean', 'max', 'min'].map((s) => `critic/${m}/${s}`)),
    ...['response_length', 'prompt_length'].flatMap((m) => ['mean', 'max', 'min', 'clip_ratio'].map((s) => `${m}/${s}`)),
    'actor/lr',
    'actor/kl_loss',
    'actor/kl_coef',
    'critic/vf_explained_var',
    'perf/throughput',
    'perf/time_per_step',
    'perf/total_num_tokens',
    'perf/max_memory_allocated_gb',
    'perf/max_memory_reserved_gb',
    'perf/cpu_memory_used_gb',
    'training/global_step',
    'training/epoch',
    ...['step', 'gen', 'ref', 'old_log_prob', 'adv', 'update_actor', 'testing', 'reward', 'save_checkpoint'].map((s) => `timing_s/${s}`),
  ]),
];

/** TensorBoard's CSV download names a tag with `/` written as `_`: the known key it stands for, if exactly one. */
export function unmangleTag(tag: string): string {
  if (tag.includes('/')) return tag;
  const hits = KNOWN_KEYS.filter((k) => k.replace(/\//g, '_') === tag);
  return hits.length === 1 ? hits[0] : tag;
}

// ---------------------------------------------------------------------------------------------
// Raw points, as each parser reads them

interface RawLine {
  file: string;
  line: number;
  step: number;
  values: Map<string, number>;
  /** Seconds since the run began (W&B _runtime). */
  runtimeS?: number;
  /** Unix seconds (TensorBoard wall time). */
  wallS?: number;
  /** Where the keys go: by prefix ('auto'), or all to one record kind (lab metrics.jsonl's `type`). */
  kind: 'auto' | 'step' | 'eval';
}

interface Sink {
  lines: RawLine[];
  warnings: ImportWarning[];
  notes: string[];
  /** Validation settings found in the text (console logs). */
  val: { temperature: Set<number>; n: Set<number> };
  /** A pprint'ed `'val_kwargs': {…}` being collected over several lines. */
  pendingValKwargs: string;
}

function checkStep(raw: string | number): number | string {
  const v = typeof raw === 'number' ? raw : raw.trim() !== '' && /^[+-]?\d+(\.0*)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isFinite(v) || !Number.isInteger(v)) return `step must be a non-negative integer, got ${JSON.stringify(raw)}`;
  if (v < 0) return `step must be a non-negative integer, got ${v}`;
  if (v > Number.MAX_SAFE_INTEGER) return `step ${raw} is too large`;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Format detection

const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** `step:` not inside a longer word (global_step:), followed by a value: a console record starts here. */
const CONSOLE_STEP_RE = /(?<![\w/.-])step:(?=\S)/;
const CONSOLE_RECORD_RE = /(?<![\w/.-])step:\s*\d+\s+-\s+\S+:/;

/** The format of one file, by content (the extension only breaks ties), or null. */
export function detectVerlFormat(text: string, name: string): VerlFormat | null {
  const body = text.replace(/^\uFEFF/, '');
  const lines = body.split('\n');
  const first = lines.find((l) => l.trim() !== '')?.trim() ?? '';
  // Console first: verl's log may open with its printed config, a line starting with `{`.
  if (lines.some((l) => CONSOLE_RECORD_RE.test(l.replace(ANSI_RE, '')))) return 'verl-console';
  if (first.startsWith('{')) return 'metrics-jsonl';
  if (first.includes(',') || name.toLowerCase().endsWith('.csv')) {
    const header = splitCsvRow(first).map((h) => h.trim().toLowerCase());
    if (header.length === 3 && header[0] === 'wall time' && header[1] === 'step' && header[2] === 'value') return 'tensorboard-csv';
    if (header.some((h) => STEP_COLUMNS.includes(h))) {
      if (header.includes('value') && header.some((h) => TAG_COLUMNS.includes(h))) return 'long-csv';
      return 'wandb-csv';
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// verl console log

function parseConsole(file: string, text: string, sink: Sink) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let s = lines[i].replace(ANSI_RE, '');
    if (s.endsWith('\r')) s = s.slice(0, -1);
    sniffValSettings(s, sink);
    const m = CONSOLE_STEP_RE.exec(s);
    if (!m) continue;
    const rest = s.slice(m.index + 'step:'.length);
    const parts = rest.split(/\s+-\s+/);
    const step = checkStep(parts[0].trim());
    const warn = (reason: string) => sink.warnings.push({ file, line: lineNo, reason });
    if (typeof step === 'string') {
      warn(step);
      continue;
    }
    const values = new Map<string, number>();
    let bad: string | null = null;
    for (const part0 of parts.slice(1)) {
      const part = part0.trim();
      const colon = part.lastIndexOf(':');
      if (colon <= 0) {
        bad = `expected key:value, got ${JSON.stringify(part.slice(0, 80))}`;
        break;
      }
      const key = part.slice(0, colon).trim();
      const v = parseValue(part.slice(colon + 1));
      if (v === null) {
        bad = `${JSON.stringify(key.slice(0, 80))}: not a number: ${JSON.stringify(part.slice(colon + 1).trim().slice(0, 40))}`;
        break;
      }
      const kp = keyProblem(key);
      if (kp) {
        bad = kp;
        break;
      }
      values.set(key, v);
    }
    if (bad) {
      warn(bad);
      continue;
    }
    if (values.size === 0) {
      warn(`no key:value pairs after step:${step}`);
      continue;
    }
    sink.lines.push({ file, line: lineNo, step, values, kind: 'auto' });
  }
}

/**
 * verl prints its resolved config at start-up (`pprint` of a dict: `'val_kwargs': {'do_sample':
 * True, 'n': 8, 'temperature': 0.6, …}`), and launch scripts echo Hydra overrides
 * (`actor_rollout_ref.rollout.val_kwargs.temperature=0.6`). do_sample false means greedy
 * decoding: τ = 0, one sample.
 */
const VAL_OVERRIDE_RE = /val_kwargs\.(temperature|n|do_sample)=(\S+)/g;
function sniffValSettings(line: string, sink: Sink) {
  for (const m of line.matchAll(VAL_OVERRIDE_RE)) addValSetting(m[1], m[2].replace(/["',]/g, ''), sink);
  // pprint splits the dict over lines: collect from `'val_kwargs': {` to the closing brace.
  const start = line.indexOf("'val_kwargs':");
  if (start >= 0) sink.pendingValKwargs = line.slice(start);
  else if (sink.pendingValKwargs) sink.pendingValKwargs += ' ' + line.trim();
  if (sink.pendingValKwargs) {
    const close = sink.pendingValKwargs.indexOf('}');
    if (close >= 0 || sink.pendingValKwargs.length > 2000) {
      const body = sink.pendingValKwargs.slice(0, close >= 0 ? close : undefined);
      for (const m of body.matchAll(/'(temperature|n|do_sample)':\s*([^,}\s]+)/g)) addValSetting(m[1], m[2], sink);
      sink.pendingValKwargs = '';
    }
  }
}

function addValSetting(key: string, raw: string, sink: Sink) {
  if (key === 'do_sample') {
    if (/^false$/i.test(raw)) {
      sink.val.temperature.add(0);
      sink.val.n.add(1);
    }
    return;
  }
  const v = parseValue(raw);
  if (v === null || !Number.isFinite(v) || v < 0) return;
  if (key === 'temperature') sink.val.temperature.add(v);
  else if (Number.isInteger(v) && v >= 1) sink.val.n.add(v);
}

// ---------------------------------------------------------------------------------------------
// CSV

const STEP_COLUMNS = ['step', '_step', 'global_step', 'trainer/global_step'];
const TAG_COLUMNS = ['tag', 'metric', 'key', 'name'];

/** One CSV row's cells (RFC 4180 quotes, doubled quotes inside). */
function splitCsvRow(row: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < row.length; i++) {
    const c = row[i];
    if (quoted) {
      if (c === '"') {
        if (row[i + 1] === '"') {
          cur += '"';
          i++;
        } else quoted = false;
      } else cur += c;
    } else if (c === '"' && cur.trim() === '') {
      quoted = true;
      cur = '';
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Rows with the line each starts on; a quoted cell may span lines. */
function csvRows(text: string): { line: number; cells: string[] }[] {
  const physical = text.replace(/^\uFEFF/, '').split('\n');
  const rows: { line: number; cells: string[] }[] = [];
  for (let i = 0; i < physical.length; i++) {
    const start = i;
    let row = physical[i].replace(/\r$/, '');
    // An odd number of quotes: the row goes on on the next line.
    while ((row.match(/"/g)?.length ?? 0) % 2 === 1 && i + 1 < physical.length) row += '\n' + physical[++i].replace(/\r$/, '');
    if (row.trim() === '') continue;
    rows.push({ line: start + 1, cells: splitCsvRow(row) });
  }
  return rows;
}

function parseCsvFile(file: string, text: string, format: VerlFormat, opts: VerlImportOptions, sink: Sink) {
  const rows = csvRows(text);
  if (rows.length === 0) return;
  const header = rows[0].cells.map((h) => h.trim());
  const lower = header.map((h) => h.toLowerCase());
  const warn = (line: number | null, reason: string) => sink.warnings.push({ file, line, reason });
  const num = (cells: string[], j: number, line: number): number | null | undefined => {
    const c = (cells[j] ?? '').trim();
    if (c === '') return undefined;
    const v = parseValue(c);
    if (v === null) warn(line, `column ${JSON.stringify(header[j].slice(0, 80))}: not a number: ${JSON.stringify(c.slice(0, 40))}`);
    return v;
  };

  if (format === 'tensorboard-csv') {
    const tag = opts.tag ?? tagFromFileName(file);
    const kp = keyProblem(tag);
    if (kp) throw new VerlImportError(file, `TensorBoard CSV: cannot use the tag from the file name (${kp}); name the file run-RUN-tag-TAG.csv`);
    sink.notes.push(`${file}: TensorBoard CSV of tag "${tag}"`);
    for (const { line, cells } of rows.slice(1)) {
      if (cells.length !== 3) {
        warn(line, `expected 3 cells (Wall time, Step, Value), got ${cells.length}`);
        continue;
      }
      const step = checkStep(cells[1].trim());
      if (typeof step === 'string') {
        warn(line, step);
        continue;
      }
      const wall = num(cells, 0, line);
      const v = num(cells, 2, line);
      if (wall === null || v === null) continue;
      if (v === undefined) {
        warn(line, 'empty value');
        continue;
      }
      sink.lines.push({ file, line, step, values: new Map([[tag, v]]), wallS: wall !== undefined && Number.isFinite(wall) ? wall : undefined, kind: 'auto' });
    }
    return;
  }

  const stepCol = lower.findIndex((h) => STEP_COLUMNS.includes(h));
  if (stepCol < 0) throw new VerlImportError(file, `no step column (expected one of ${STEP_COLUMNS.join(', ')})`);

  if (format === 'long-csv') {
    const tagCol = lower.findIndex((h) => TAG_COLUMNS.includes(h));
    const valueCol = lower.indexOf('value');
    const wallCol = lower.findIndex((h) => h === 'wall_time' || h === 'wall time');
    const runCol = lower.indexOf('run');
    let firstRun: string | null = null;
    const otherRuns = new Set<string>();
    for (const { line, cells } of rows.slice(1)) {
      if (cells.length !== header.length) {
        warn(line, `expected ${header.length} cells, got ${cells.length}`);
        continue;
      }
      if (runCol >= 0) {
        const r = cells[runCol].trim();
        if (firstRun === null) firstRun = r;
        if (r !== firstRun) {
          otherRuns.add(r);
          continue;
        }
      }
      const step = checkStep(cells[stepCol].trim());
      if (typeof step === 'string') {
        warn(line, step);
        continue;
      }
      const tag = unmangleTag(cells[tagCol].trim());
      const kp = keyProblem(tag);
      if (kp) {
        warn(line, kp);
        continue;
      }
      const v = num(cells, valueCol, line);
      if (v === null) continue;
      if (v === undefined) {
        warn(line, 'empty value');
        continue;
      }
      const wall = wallCol >= 0 ? num(cells, wallCol, line) : undefined;
      sink.lines.push({ file, line, step, values: new Map([[tag, v]]), wallS: typeof wall === 'number' && Number.isFinite(wall) ? wall : undefined, kind: 'auto' });
    }
    if (otherRuns.size) warn(null, `several runs in one file: imported run ${JSON.stringify(firstRun)}, ignored ${[...otherRuns].map((r) => JSON.stringify(r)).join(', ')}`);
    return;
  }

  // Wide (W&B): a step column and one column per metric.
  type Col = { j: number; key: string } | { j: number; runtime: true } | { j: number; wall: true };
  const cols: Col[] = [];
  let run: string | null = null;
  const otherRuns = new Set<string>();
  let minMax = 0;
  const internal: string[] = [];
  const seen = new Map<string, number>();
  header.forEach((h, j) => {
    if (j === stepCol) return;
    if (/__(min|max)$/i.test(h)) return void minMax++;
    // W&B's chart export names a column `RUN - key`.
    let key = h;
    const sep = h.lastIndexOf(' - ');
    if (sep >= 0) {
      const r = h.slice(0, sep);
      key = h.slice(sep + 3).trim();
      if (run === null) run = r;
      if (r !== run) return void otherRuns.add(r);
    }
    const lk = key.toLowerCase();
    if (STEP_COLUMNS.includes(lk)) return;
    if (lk === '_runtime') return void cols.push({ j, runtime: true });
    if (lk === '_timestamp' || lk === 'wall time' || lk === 'wall_time') return void cols.push({ j, wall: true });
    if (key.startsWith('_')) return void internal.push(key);
    const kp = keyProblem(key);
    if (kp) return warn(1, `column ${j + 1}: ${kp}; column skipped`);
    if (seen.has(key)) return warn(1, `column ${j + 1}: "${key}" repeats column ${seen.get(key)! + 1}; column skipped`);
    seen.set(key, j);
    cols.push({ j, key });
  });
  if (minMax) sink.notes.push(`${file}: ${minMax} __MIN/__MAX column${minMax > 1 ? 's' : ''} ignored (W&B's sampling envelopes)`);
  if (internal.length) sink.notes.push(`${file}: W&B internal columns ignored: ${internal.join(', ')}`);
  if (otherRuns.size) warn(1, `several runs in one file: imported run ${JSON.stringify(run)}, ignored ${[...otherRuns].map((r) => JSON.stringify(r)).join(', ')}`);
  for (const { line, cells } of rows.slice(1)) {
    if (cells.length !== header.length) {
      warn(line, `expected ${header.length} cells, got ${cells.length}`);
      continue;
    }
    const step = checkStep(cells[stepCol].trim());
    if (typeof step === 'string') {
      warn(line, step);
      continue;
    }
    const values = new Map<string, number>();
    let runtimeS: number | undefined;
    let wallS: number | undefined;
    let bad = false;
    for (const c of cols) {
      const v = num(cells, c.j, line);
      if (v === null) {
        bad = true;
        break;
      }
      if (v === undefined) continue;
      if ('key' in c) values.set(c.key, v);
      else if ('runtime' in c) runtimeS = Number.isFinite(v) ? v : undefined;
      else wallS = Number.isFinite(v) ? v : undefined;
    }
    if (bad || values.size === 0) continue;
    sink.lines.push({ file, line, step, values, runtimeS, wallS, kind: 'auto' });
  }
}

/** `run-foo-tag-actor_entropy.csv` → actor/entropy (TensorBoard's download name); else the file's stem. */
export function tagFromFileName(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1).replace(/\.csv$/i, '');
  const m = /(?:^|[-_])tag[-_](.+)$/.exec(base);
  return unmangleTag(m ? m[1] : base);
}

// ---------------------------------------------------------------------------------------------
// JSONL

function parseJsonlFile(file: string, text: string, sink: Sink) {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const ignored = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i].trim();
    if (raw === '') continue;
    const warn = (reason: string) => sink.warnings.push({ file, line: lineNo, reason });
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch {
      warn('not valid JSON');
      continue;
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
      warn('not a JSON object');
      continue;
    }
    const rec = obj as Record<string, unknown>;
    const type = rec.type;
    if (type !== undefined && type !== 'step' && type !== 'eval') {
      warn(`record type ${JSON.stringify(type)} skipped (expected "step" or "eval")`);
      continue;
    }
    // W&B's run history (`run.scan_history()` / `history.jsonl`) names the step `_step`.
    const stepKey = Object.prototype.hasOwnProperty.call(rec, 'step') ? 'step' : Object.prototype.hasOwnProperty.call(rec, '_step') ? '_step' : null;
    if (stepKey === null) {
      warn('no "step"');
      continue;
    }
    const rawStep = rec[stepKey];
    const step = typeof rawStep === 'number' ? checkStep(rawStep) : `step must be a non-negative integer, got ${JSON.stringify(rawStep)}`;
    if (typeof step === 'string') {
      warn(step);
      continue;
    }
    const data = typeof rec.data === 'object' && rec.data !== null && !Array.isArray(rec.data) ? (rec.data as Record<string, unknown>) : rec;
    const values = new Map<string, number>();
    for (const key of Object.keys(data)) {
      if (data === rec && RESERVED_KEYS.has(key)) continue;
      if (key === 'time_ms' || key === 'step') continue;
      // W&B's own columns (_step, _runtime, _timestamp, _wandb): the clock is read below, the rest ignored.
      if (stepKey === '_step' && key.startsWith('_')) continue;
      const v = data[key];
      const kp = keyProblem(key);
      if (kp) {
        warn(`${kp}; key skipped`);
        continue;
      }
      if (v === null) values.set(key, NaN);
      else if (typeof v === 'number') values.set(key, Number.isFinite(v) ? v : NaN);
      else if (!ignored.has(key)) {
        ignored.add(key);
        sink.notes.push(`${file}: "${key}" is not numeric (first at line ${lineNo}); ignored`);
      }
    }
    const timeMs =
      typeof rec.time_ms === 'number' && Number.isFinite(rec.time_ms) ? rec.time_ms : stepKey === '_step' && typeof rec._runtime === 'number' && Number.isFinite(rec._runtime) ? rec._runtime * 1000 : undefined;
    if (values.size === 0 && timeMs === undefined) {
      warn('no numeric values');
      continue;
    }
    sink.lines.push({ file, line: lineNo, step, values, runtimeS: timeMs !== undefined ? timeMs / 1000 : undefined, kind: type === 'eval' ? 'eval' : type === 'step' ? 'step' : 'auto' });
  }
}

// ---------------------------------------------------------------------------------------------
// Merge, scale, map

interface StepAcc {
  step: number;
  train: Map<string, number>;
  val: Map<string, number>;
  runtimeS?: number;
  wallS?: number;
  /** Where each key's value came from, to report overwrites. */
  from: Map<string, string>;
}

/** Imports one or more files (merged by step) into the lab's step and eval records. */
export function importVerlRun(files: readonly VerlInputFile[], opts: VerlImportOptions = {}): VerlImport {
  if (files.length === 0) throw new VerlImportError('(no file)', 'nothing to import');
  const sink: Sink = { lines: [], warnings: [], notes: [], val: { temperature: new Set(), n: new Set() }, pendingValKwargs: '' };
  const formats: VerlFormat[] = [];
  for (const f of files) {
    const format = detectVerlFormat(f.text, f.name);
    if (format === null)
      throw new VerlImportError(
        f.name,
        'not a run file (expected a MAGIC Lab .jsonl / .csv export, verl console output with lines "step:N - key:value - …", a W&B / TensorBoard CSV export with a step column, or JSONL records with "step")',
      );
    formats.push(format);
    const before = sink.lines.length;
    sink.pendingValKwargs = '';
    if (format === 'verl-console') parseConsole(f.name, f.text, sink);
    else if (format === 'metrics-jsonl') parseJsonlFile(f.name, f.text, sink);
    else parseCsvFile(f.name, f.text, format, opts, sink);
    if (sink.lines.length === before && files.length > 1) sink.warnings.push({ file: f.name, line: null, reason: 'no usable records' });
  }
  if (sink.lines.length === 0) {
    const name = files.length === 1 ? files[0].name : files.map((f) => f.name).join(', ');
    const skipped = sink.warnings.filter((w) => w.line !== null).length;
    throw new VerlImportError(name, `no usable records (${FORMAT_LABELS[formats[0]]}${skipped ? `; ${skipped} malformed line${skipped > 1 ? 's' : ''} skipped, first: ${warningText(sink.warnings.find((w) => w.line !== null)!)}` : ''})`);
  }

  // Merge by step; a later line overrides an earlier one's value for the same key.
  const bySteps = new Map<number, StepAcc>();
  const allKeys = new Set<string>();
  let droppedKeys = 0;
  for (const l of sink.lines) {
    let acc = bySteps.get(l.step);
    if (!acc) bySteps.set(l.step, (acc = { step: l.step, train: new Map(), val: new Map(), from: new Map() }));
    let overwritten = 0;
    let firstFrom = '';
    for (const [k, v] of l.values) {
      if (!allKeys.has(k)) {
        if (allKeys.size >= MAX_KEYS) {
          droppedKeys++;
          continue;
        }
        allKeys.add(k);
      }
      const target = l.kind === 'eval' || (l.kind === 'auto' && isValKey(k)) ? acc.val : acc.train;
      const prev = acc.from.get(k);
      if (prev !== undefined && target.has(k)) {
        overwritten++;
        firstFrom ||= prev;
      }
      target.set(k, v);
      acc.from.set(k, `${l.file}:${l.line}`);
    }
    if (overwritten) sink.warnings.push({ file: l.file, line: l.line, reason: `step ${l.step} logged again (${overwritten} value${overwritten > 1 ? 's' : ''} first at ${firstFrom}); the later values are kept` });
    if (l.runtimeS !== undefined) acc.runtimeS = l.runtimeS;
    if (l.wallS !== undefined && (acc.wallS === undefined || l.wallS < acc.wallS)) acc.wallS = l.wallS;
  }
  if (droppedKeys) sink.warnings.push({ file: files[0].name, line: null, reason: `more than ${MAX_KEYS} distinct keys: ${droppedKeys} values of further keys dropped` });
  const accs = [...bySteps.values()].sort((a, b) => a.step - b.step);

  // Scale: percent → fraction, per key over the whole run.
  const unscalable = new Set<string>();
  for (const key of allKeys) {
    if (!isFractionKey(key)) continue;
    let lo = Infinity;
    let hi = -Infinity;
    for (const a of accs) {
      const v = a.train.get(key) ?? a.val.get(key);
      if (v === undefined || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    if (hi === -Infinity || (lo >= 0 && hi <= 1)) continue;
    if (lo >= 0 && hi <= 100) {
      for (const a of accs) for (const m of [a.train, a.val]) if (m.has(key)) m.set(key, m.get(key)! / 100);
      sink.notes.push(`${key}: values up to ${hi} read as percent, divided by 100`);
    } else {
      unscalable.add(key);
      sink.notes.push(`${key}: values from ${lo} to ${hi} are neither fractions nor percent; kept unscaled`);
    }
  }

  // Validation settings: options first, else what the log printed (when it printed one value).
  const logT = [...sink.val.temperature];
  const logN = [...sink.val.n];
  let val: VerlImport['val'] = { from: 'unknown' };
  if (opts.val && (opts.val.temperature !== undefined || opts.val.n !== undefined)) val = { ...opts.val, from: 'options' };
  else if (logT.length || logN.length) {
    val = { from: 'log' };
    if (logT.length === 1) val.temperature = logT[0];
    else if (logT.length > 1) sink.notes.push(`the log names several validation temperatures (${logT.join(', ')}): validation keys kept under verl's names`);
    if (logN.length === 1) val.n = logN[0];
    else if (logN.length > 1) sink.notes.push(`the log names several validation sample counts n (${logN.join(', ')})`);
  }

  // Validation names → the lab's val/avg@k/t<τ>.
  const valKeys = [...allKeys].filter(isValKey);
  const candidates = new Map<string, string[]>(); // lab key → verl keys
  const accVars = new Set<string>();
  for (const k of valKeys) {
    const m = /^val-(?:core|aux)\/(.+)\/acc\/mean@\d+$/.exec(k);
    if (m) accVars.add(m[1]);
  }
  const unmappable: string[] = [];
  for (const k of valKeys) {
    let labKey: string | null = null;
    const core = /^val-(?:core|aux)\/(.+)\/(acc|reward)\/mean@(\d+)$/.exec(k);
    const score = /^val\/test_score\/(.+)$/.exec(k);
    if (core && (core[2] === 'acc' || !accVars.has(core[1]))) {
      if (val.temperature !== undefined) labKey = `val/avg@${Number(core[3])}/t${formatTemperature(val.temperature)}`;
      else unmappable.push(k);
    } else if (score) {
      if (val.temperature !== undefined && val.n !== undefined) labKey = `val/avg@${val.n}/t${formatTemperature(val.temperature)}`;
      else unmappable.push(k);
    }
    if (labKey) candidates.set(labKey, [...(candidates.get(labKey) ?? []), k]);
  }
  if (unmappable.length) sink.notes.push(`validation temperature${val.temperature === undefined ? '' : ' or n'} unknown: ${unmappable.join(', ')} kept under verl's name${unmappable.length > 1 ? 's' : ''} (give --val-temperature / --val-n)`);
  const renames = new Map<string, string>();
  for (const [labKey, sources] of candidates) {
    if (sources.length > 1) sink.notes.push(`${sources.join(', ')} would all be ${labKey} (one per data source): kept under verl's names`);
    else if (allKeys.has(labKey)) sink.notes.push(`${sources[0]}: the file already has ${labKey}; kept under verl's name`);
    else if (unscalable.has(sources[0])) sink.notes.push(`${sources[0]}: not a fraction; kept under verl's name`);
    else {
      let ok = true;
      for (const a of accs) {
        const v = a.val.get(sources[0]);
        if (v !== undefined && Number.isFinite(v) && (v < 0 || v > 1)) ok = false;
      }
      if (!ok) sink.notes.push(`${sources[0]}: values outside [0, 1]; kept under verl's name`);
      else {
        renames.set(sources[0], labKey);
        sink.notes.push(`${sources[0]} → ${labKey}`);
      }
    }
  }
  // Units: verl's step time in seconds is the lab's perf/step_s.
  if (allKeys.has('timing_s/step') && !allKeys.has(STEP_METRIC_KEYS.stepS)) {
    renames.set('timing_s/step', STEP_METRIC_KEYS.stepS);
    sink.notes.push(`timing_s/step → ${STEP_METRIC_KEYS.stepS}`);
  }

  // Records.
  const steps: StepRecord[] = [];
  const evals: EvalRecord[] = [];
  const hasRuntime = accs.some((a) => a.runtimeS !== undefined);
  const wall0 = Math.min(...accs.map((a) => a.wallS ?? Infinity));
  let clock = 0;
  for (const a of accs) {
    if (a.train.size) {
      const rec: Record<string, number> = { step: a.step, time_ms: NaN };
      for (const k of STEP_METRIC_KEY_LIST) rec[k] = NaN;
      for (const [k, v] of a.train) rec[renames.get(k) ?? k] = v;
      const stepS = rec[STEP_METRIC_KEYS.stepS];
      if (Number.isFinite(stepS)) clock += stepS;
      if (hasRuntime) rec.time_ms = a.runtimeS !== undefined ? a.runtimeS * 1000 : NaN;
      else if (Number.isFinite(wall0)) rec.time_ms = a.wallS !== undefined ? (a.wallS - wall0) * 1000 : NaN;
      else if (Number.isFinite(stepS)) rec.time_ms = clock * 1000;
      steps.push(rec as StepRecord);
    }
    if (a.val.size) {
      const rec: Record<string, number> = { step: a.step };
      for (const [k, v] of a.val) rec[renames.get(k) ?? k] = v;
      evals.push(rec as EvalRecord);
    }
  }
  const mappedEvalKeys = [...new Set([...renames.values()].filter((k) => k.startsWith('val/')))].sort();
  return { formats, steps, evals, warnings: sink.warnings, notes: sink.notes, val, mappedEvalKeys };
}
