/** verl's console log (`step:N - key:value - …` lines) and the validation settings it prints. */
import { checkStep, keyProblem, parseValue, type Sink } from './log-records';

const ANSI_RE = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** `step:` not inside a longer word (global_step:), followed by a value: a console record starts here. */
const CONSOLE_STEP_RE = /(?<![\w/.-])step:(?=\S)/;
const CONSOLE_RECORD_RE = /(?<![\w/.-])step:\s*\d+\s+-\s+\S+:/;

/** Whether any line holds a console record (`step:N - key:value`), colours aside. */
export function looksLikeConsoleLog(lines: readonly string[]): boolean {
  return lines.some((l) => CONSOLE_RECORD_RE.test(l.replace(ANSI_RE, '')));
}

/** Every `step:N - key:value …` line of a console log into the sink; malformed ones are warnings. */
export function parseConsole(file: string, text: string, sink: Sink) {
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
