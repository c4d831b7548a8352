/**
 * What every verl log reader shares (src/verl/import.ts has the rules): the import's types and
 * warnings, which keys and values are accepted, and the raw points each reader emits.
 */
import { STEP_METRIC_KEY_LIST } from '../rl/metrics';
import { TIMING_PHASES } from '../rl/phase-timer';
import type { EvalRecord, StepRecord } from '../rl/trainer-types';

export type VerlFormat = 'verl-console' | 'wandb-csv' | 'tensorboard-csv' | 'long-csv' | 'metrics-jsonl';

export const FORMAT_LABELS: Record<VerlFormat, string> = {
  'verl-console': 'verl console log',
  'wandb-csv': 'W&B CSV',
  'tensorboard-csv': 'TensorBoard CSV',
  'long-csv': 'CSV (step, tag, value)',
  'metrics-jsonl': 'metrics JSONL',
};

/** A log reader fed one line at a time (as `text.split('\n')` gives them), then told the file ended. */
export interface LineParser {
  line(s: string): void;
  end(): void;
}

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
  /** The most the merged step table may hold, in bytes (src/verl/step-table.ts); past it the import is refused. Unset: no bound. */
  maxTableBytes?: number;
}

export interface VerlInputFile {
  name: string;
  text: string;
}

/**
 * A file read line by line: `lines()` yields what `text.split('\n')` would (a first line may start
 * with a BOM, a line may end in "\r") and starts over from the beginning on every call (the
 * import reads a file twice: once to tell its format, once to parse it). The CLI streams a file
 * from disk; the page wraps a File's text (textSource).
 */
export interface VerlLineSource {
  name: string;
  lines(): Iterable<string>;
}

/** A source over text already in memory (the page's Files, tests). */
export const textSource = (f: VerlInputFile): VerlLineSource => ({ name: f.name, lines: () => f.text.split('\n') });

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
export const RESERVED_KEYS = new Set(['step', 'time_ms', 'type']);

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

export const isValKey = (k: string) => k.startsWith('val/') || k.startsWith('val-core/') || k.startsWith('val-aux/');

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
    // verl's phase timers: the trainer records the same names (src/rl/phase-timer.ts), so a verl run's phases draw on the same chart.
    ...[...TIMING_PHASES, 'step', 'save_checkpoint'].map((s) => `timing_s/${s}`),
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

export interface RawLine {
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

export interface Sink {
  /** Each raw point as it is read (merged at once: nothing per line is kept). */
  emit(line: RawLine): void;
  warnings: ImportWarning[];
  notes: string[];
  /** Validation settings found in the text (console logs). */
  val: { temperature: Set<number>; n: Set<number> };
  /** A pprint'ed `'val_kwargs': {…}` being collected over several lines. */
  pendingValKwargs: string;
}

export function checkStep(raw: string | number): number | string {
  const v = typeof raw === 'number' ? raw : raw.trim() !== '' && /^[+-]?\d+(\.0*)?$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isFinite(v) || !Number.isInteger(v)) return `step must be a non-negative integer, got ${JSON.stringify(raw)}`;
  if (v < 0) return `step must be a non-negative integer, got ${v}`;
  if (v > Number.MAX_SAFE_INTEGER) return `step ${raw} is too large`;
  return v;
}
