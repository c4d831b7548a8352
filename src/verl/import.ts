/**
 * Cluster runs into the lab: turns what a verl run leaves behind into the lab's step and eval
 * records, so the page (and `magic-lab import-verl`) can overlay a cluster run on browser runs.
 * Pure: no DOM, no Node APIs; the CLI and the page's "Import run…" both call it. One reader per
 * format (console-log.ts, csv-log.ts, jsonl-log.ts) emits raw points (log-records.ts); this file
 * detects the format, then merges, scales and maps the points into records.
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
import { looksLikeConsoleLog, consoleParser, CONSOLE_RECORD_RE, stripAnsi } from './console-log';
import { csvFormatOf, csvParser } from './csv-log';
import { forkRenames } from './fork-names';
import { jsonlParser } from './jsonl-log';
import { FORMAT_LABELS, isFractionKey, isValKey, MAX_KEYS, textSource, VerlImportError, warningText, type LineParser, type Sink, type VerlFormat, type VerlImport, type VerlImportOptions, type VerlInputFile, type VerlLineSource } from './log-records';
import { StepTable } from './step-table';

// The import's public types and messages (the page, the CLI and src/io/runfile.ts read them from here).
export { FORMAT_LABELS, textSource, VerlImportError, warningLines, warningText } from './log-records';
export type { ImportWarning, ValSettings, VerlFormat, VerlImport, VerlImportOptions, VerlInputFile, VerlLineSource } from './log-records';

/** The format of one file, by content (the extension only breaks ties), or null. */
export function detectVerlFormat(text: string, name: string): VerlFormat | null {
  const body = text.replace(/^\uFEFF/, '');
  const lines = body.split('\n');
  const first = lines.find((l) => l.trim() !== '')?.trim() ?? '';
  // Console first: verl's log may open with its printed config, a line starting with `{`.
  if (looksLikeConsoleLog(lines)) return 'verl-console';
  if (first.startsWith('{')) return 'metrics-jsonl';
  return csvFormatOf(first, name);
}

/** detectVerlFormat over a file read line by line: stops at the first console record. */
export function detectVerlFormatOf(src: VerlLineSource): VerlFormat | null {
  let first: string | null = null;
  let n = 0;
  for (const raw of src.lines()) {
    const l = n++ === 0 ? raw.replace(/^\uFEFF/, '') : raw;
    if (CONSOLE_RECORD_RE.test(stripAnsi(l))) return 'verl-console';
    if (first === null && l.trim() !== '') first = l.trim();
  }
  first ??= '';
  if (first.startsWith('{')) return 'metrics-jsonl';
  return csvFormatOf(first, src.name);
}

// ---------------------------------------------------------------------------------------------
// Merge, scale, map

/**
 * An import read and merged, its records not yet built: steps() and evals() make them one at a
 * time (in step order), so a writer can stream a million of them without holding them.
 */
export interface VerlImportStream extends Omit<VerlImport, 'steps' | 'evals'> {
  stepCount: number;
  evalCount: number;
  /** The keys of the eval records (after renaming), for the run's config. */
  evalKeys: Set<string>;
  steps(): Generator<StepRecord>;
  evals(): Generator<EvalRecord>;
}

/** Imports one or more files (merged by step) into the lab's step and eval records. */
export function importVerlRun(files: readonly VerlInputFile[], opts: VerlImportOptions = {}): VerlImport {
  const imp = importVerlSources(files.map(textSource), opts);
  const { stepCount: _s, evalCount: _e, evalKeys: _k, steps, evals, ...rest } = imp;
  return { ...rest, steps: [...steps()], evals: [...evals()] };
}

/** importVerlRun over files read line by line: each file is read twice (format, then points), never whole. */
export function importVerlSources(files: readonly VerlLineSource[], opts: VerlImportOptions = {}): VerlImportStream {
  if (files.length === 0) throw new VerlImportError('(no file)', 'nothing to import');
  const table = new StepTable(files.map((f) => f.name), opts.maxTableBytes);
  let fileIdx = 0;
  let emitted = 0;
  const sink: Sink = { emit: (l) => (emitted++, table.add(l, fileIdx)), warnings: [], notes: [], val: { temperature: new Set(), n: new Set() }, pendingValKwargs: '' };
  const formats: VerlFormat[] = [];
  for (const f of files) {
    const format = detectVerlFormatOf(f);
    if (format === null)
      throw new VerlImportError(
        f.name,
        'not a run file (expected a MAGIC Lab .jsonl / .csv export, verl console output with lines "step:N - key:value - …", a W&B / TensorBoard CSV export with a step column, or JSONL records with "step")',
      );
    formats.push(format);
    const before = emitted;
    sink.pendingValKwargs = '';
    const parser: LineParser = format === 'verl-console' ? consoleParser(f.name, sink) : format === 'metrics-jsonl' ? jsonlParser(f.name, sink) : csvParser(f.name, format, opts, sink);
    for (const line of f.lines()) parser.line(line);
    parser.end();
    if (emitted === before && files.length > 1) sink.warnings.push({ file: f.name, line: null, reason: 'no usable records' });
    fileIdx++;
  }
  if (emitted === 0) {
    const name = files.length === 1 ? files[0].name : files.map((f) => f.name).join(', ');
    const skipped = sink.warnings.filter((w) => w.line !== null).length;
    throw new VerlImportError(name, `no usable records (${FORMAT_LABELS[formats[0]]}${skipped ? `; ${skipped} malformed line${skipped > 1 ? 's' : ''} skipped, first: ${warningText(sink.warnings.find((w) => w.line !== null)!)}` : ''})`);
  }
  // Merge warnings follow the readers' (the merge used to run after every file was read).
  for (const w of table.warnings) sink.warnings.push(w);
  if (table.droppedKeys) sink.warnings.push({ file: files[0].name, line: null, reason: `more than ${MAX_KEYS} distinct keys: ${table.droppedKeys} values of further keys dropped` });
  return buildRecords(table, sink, formats, opts);
}

function buildRecords(table: StepTable, sink: Sink, formats: VerlFormat[], opts: VerlImportOptions): VerlImportStream {
  const order = table.order();
  const allKeys = new Set(table.keyIds.keys());
  const idOf = (k: string) => table.keyIds.get(k)!;

  // Scale: percent → fraction, per key over the whole run.
  const unscalable = new Set<string>();
  for (const key of allKeys) {
    if (!isFractionKey(key)) continue;
    const id = idOf(key);
    let lo = Infinity;
    let hi = -Infinity;
    for (const a of order) {
      const v = table.get(id, a, 'train') ?? table.get(id, a, 'val');
      if (v === undefined || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    if (hi === -Infinity || (lo >= 0 && hi <= 1)) continue;
    if (lo >= 0 && hi <= 100) {
      table.scale(id, 100);
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
      const id = idOf(sources[0]);
      for (const a of order) {
        const v = table.get(id, a, 'val');
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

  for (const [k, v] of forkRenames(allKeys, val.n, sink.notes)) if (!renames.has(k)) renames.set(k, v); // fork-names.ts

  // Records, made when asked for.
  const hasRuntime = order.some((a) => !Number.isNaN(table.runtimeS[a]));
  // A loop, not Math.min(...rows): spreading ~125k rows overflows the call stack.
  let wall0 = Infinity;
  for (const a of order) if (!Number.isNaN(table.wallS[a]) && !(table.wallS[a] >= wall0)) wall0 = table.wallS[a];
  const nameOf = (id: number) => renames.get(table.cols[id].key) ?? table.cols[id].key;
  let stepCount = 0;
  let evalCount = 0;
  const evalSigs = new Set<number>();
  for (const a of order) {
    if (table.trainSig[a] !== 0) stepCount++;
    if (table.valSig[a] !== 0) {
      evalCount++;
      evalSigs.add(table.valSig[a]);
    }
  }
  const evalKeys = new Set<string>(['step']);
  for (const sig of evalSigs) for (const id of table.sigKeys[sig]) evalKeys.add(nameOf(id));
  function* steps(): Generator<StepRecord> {
    let clock = 0;
    for (const a of order) {
      const sig = table.trainSig[a];
      if (sig === 0) continue;
      const rec: Record<string, number> = { step: table.steps[a], time_ms: NaN };
      for (const k of STEP_METRIC_KEY_LIST) rec[k] = NaN;
      for (const id of table.sigKeys[sig]) rec[nameOf(id)] = table.get(id, a, 'train')!;
      const stepS = rec[STEP_METRIC_KEYS.stepS];
      if (Number.isFinite(stepS)) clock += stepS;
      const runtimeS = table.runtimeS[a];
      const wallS = table.wallS[a];
      if (hasRuntime) rec.time_ms = !Number.isNaN(runtimeS) ? runtimeS * 1000 : NaN;
      else if (Number.isFinite(wall0)) rec.time_ms = !Number.isNaN(wallS) ? (wallS - wall0) * 1000 : NaN;
      else if (Number.isFinite(stepS)) rec.time_ms = clock * 1000;
      yield rec as StepRecord;
    }
  }
  function* evals(): Generator<EvalRecord> {
    for (const a of order) {
      const sig = table.valSig[a];
      if (sig === 0) continue;
      const rec: Record<string, number> = { step: table.steps[a] };
      for (const id of table.sigKeys[sig]) rec[nameOf(id)] = table.get(id, a, 'val')!;
      yield rec as EvalRecord;
    }
  }
  const mappedEvalKeys = [...new Set([...renames.values()].filter((k) => k.startsWith('val/')))].sort();
  return { formats, warnings: sink.warnings, notes: sink.notes, val, mappedEvalKeys, stepCount, evalCount, evalKeys, steps, evals };
}
