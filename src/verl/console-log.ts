/** verl's console log (`step:N - key:value - …` lines) and the validation settings it prints. */
import { checkStep, keyProblem, parseValue, type LineParser, type Sink } from './log-records';

const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** `step:` not inside a longer word (global_step:), followed by a value: a console record starts here. */
const CONSOLE_STEP_RE = /(?<![\w/.-])step:(?=\S)/;
export const CONSOLE_RECORD_RE = /(?<![\w/.-])step:\s*\d+\s+-\s+\S+:/;

export const stripAnsi = (s: string) => s.replace(ANSI_RE, '');

/** Whether any line holds a console record (`step:N - key:value`), colours aside. */
export function looksLikeConsoleLog(lines: readonly string[]): boolean {
  return lines.some((l) => CONSOLE_RECORD_RE.test(l.replace(ANSI_RE, '')));
}

/** A console record's values, or why it does not parse. */
function recordValues(rest: string): { step: number; values: Map<string, number> } | { error: string; cutKey: boolean } {
  const parts = rest.split(/\s+-\s+/);
  const step = checkStep(parts[0].trim());
  if (typeof step === 'string') return { error: step, cutKey: false };
  const values = new Map<string, number>();
  for (let j = 1; j < parts.length; j++) {
    const part = parts[j].trim();
    const colon = part.lastIndexOf(':');
    if (colon <= 0) return { error: `expected key:value, got ${JSON.stringify(part.slice(0, 80))}`, cutKey: j === parts.length - 1 };
    const key = part.slice(0, colon).trim();
    const v = parseValue(part.slice(colon + 1));
    if (v === null) return { error: `${JSON.stringify(key.slice(0, 80))}: not a number: ${JSON.stringify(part.slice(colon + 1).trim().slice(0, 40))}`, cutKey: false };
    const kp = keyProblem(key);
    if (kp) return { error: kp, cutKey: false };
    values.set(key, v);
  }
  if (values.size === 0) return { error: `no key:value pairs after step:${step}`, cutKey: false };
  return { step, values };
}

/**
 * Every `step:N - key:value …` line of a console log into the sink; malformed ones are warnings.
 * A record whose last key is cut off by a line break (`critic` + newline + `/rewards/min:0.1`, as
 * logs copied from issue threads have) is rejoined with the next line when that line starts no
 * record of its own and the joined text parses; the record keeps its first line's number.
 */
export function consoleParser(file: string, sink: Sink): LineParser {
  let lineNo = 0;
  /** A record line that ended inside a key, waiting for the line that may finish it. */
  let held: { lineNo: number; rest: string; error: string } | null = null;
  const warn = (line: number, reason: string) => sink.warnings.push({ file, line, reason });
  const flushHeld = () => {
    if (held) warn(held.lineNo, held.error);
    held = null;
  };
  const line = (raw: string) => {
    lineNo++;
    let s = raw.replace(ANSI_RE, '');
    if (s.endsWith('\r')) s = s.slice(0, -1);
    const m = CONSOLE_STEP_RE.exec(s);
    if (held) {
      const h: { lineNo: number; rest: string; error: string } = held;
      held = null;
      const joined = m ? null : recordValues(h.rest + s.trim());
      if (joined && 'values' in joined) {
        sniffValSettings(s, sink);
        sink.emit({ file, line: h.lineNo, step: joined.step, values: joined.values, kind: 'auto' });
        return;
      }
      warn(h.lineNo, h.error);
    }
    sniffValSettings(s, sink);
    if (!m) return;
    const rest = s.slice(m.index + 'step:'.length);
    const r = recordValues(rest);
    if ('values' in r) sink.emit({ file, line: lineNo, step: r.step, values: r.values, kind: 'auto' });
    else if (r.cutKey) held = { lineNo, rest: rest.trimEnd(), error: r.error };
    else warn(lineNo, r.error);
  };
  return { line, end: flushHeld };
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
