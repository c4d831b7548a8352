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
import { looksLikeConsoleLog, parseConsole } from './console-log';
import { csvFormatOf, parseCsvFile } from './csv-log';
import { forkRenames } from './fork-names';
import { parseJsonlFile } from './jsonl-log';
import { FORMAT_LABELS, isFractionKey, isValKey, MAX_KEYS, VerlImportError, warningText, type Sink, type VerlFormat, type VerlImport, type VerlImportOptions, type VerlInputFile } from './log-records';

// The import's public types and messages (the page, the CLI and src/io/runfile.ts read them from here).
export { FORMAT_LABELS, VerlImportError, warningLines, warningText } from './log-records';
export type { ImportWarning, ValSettings, VerlFormat, VerlImport, VerlImportOptions, VerlInputFile } from './log-records';

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

  for (const [k, v] of forkRenames(allKeys, val.n, sink.notes)) if (!renames.has(k)) renames.set(k, v); // fork-names.ts

  // Records.
  const steps: StepRecord[] = [];
  const evals: EvalRecord[] = [];
  const hasRuntime = accs.some((a) => a.runtimeS !== undefined);
  // A loop, not Math.min(...rows): spreading ~125k rows overflows the call stack.
  let wall0 = Infinity;
  for (const a of accs) if (a.wallS !== undefined && !(a.wallS >= wall0)) wall0 = a.wallS; // NaN sticks, as in Math.min
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
