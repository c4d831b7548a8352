/** JSONL metrics: the lab's metrics.jsonl, `{"step": N, "data": {…}}` records, or W&B's run history. */
import { checkStep, keyProblem, RESERVED_KEYS, type LineParser, type Sink } from './log-records';

/** Every JSON-object line with a step into the sink; other lines are warnings. */
export function jsonlParser(file: string, sink: Sink): LineParser {
  const ignored = new Set<string>();
  let i = -1;
  const line = (text: string) => {
    i++;
    const lineNo = i + 1;
    const raw = (i === 0 ? text.replace(/^\uFEFF/, '') : text).trim();
    if (raw === '') return;
    const warn = (reason: string) => sink.warnings.push({ file, line: lineNo, reason });
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch {
      warn('not valid JSON');
      return;
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
      warn('not a JSON object');
      return;
    }
    const rec = obj as Record<string, unknown>;
    const type = rec.type;
    if (type !== undefined && type !== 'step' && type !== 'eval') {
      warn(`record type ${JSON.stringify(type)} skipped (expected "step" or "eval")`);
      return;
    }
    // W&B's run history (`run.scan_history()` / `history.jsonl`) names the step `_step`.
    const stepKey = Object.prototype.hasOwnProperty.call(rec, 'step') ? 'step' : Object.prototype.hasOwnProperty.call(rec, '_step') ? '_step' : null;
    if (stepKey === null) {
      warn('no "step"');
      return;
    }
    const rawStep = rec[stepKey];
    const step = typeof rawStep === 'number' ? checkStep(rawStep) : `step must be a non-negative integer, got ${JSON.stringify(rawStep)}`;
    if (typeof step === 'string') {
      warn(step);
      return;
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
      return;
    }
    sink.emit({ file, line: lineNo, step, values, runtimeS: timeMs !== undefined ? timeMs / 1000 : undefined, kind: type === 'eval' ? 'eval' : type === 'step' ? 'step' : 'auto' });
  };
  return { line, end: () => {} };
}
