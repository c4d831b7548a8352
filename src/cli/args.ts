/**
 * Minimal flag parser for the CLI: `--name value`, `--name=value`, `--flag`. Unknown flags and
 * malformed values raise UsageError naming the flag; the CLI maps it to exit code 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A run that ended badly by itself (e.g. it diverged): one line and exit 1, no stack trace — nothing in the code is wrong. */
export class RunFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunFailure';
  }
}

export interface FlagSpec {
  /** 'string' | 'int' | 'number' | 'bool' */
  type: 'string' | 'int' | 'number' | 'bool';
  help: string;
  min?: number;
  /** The largest value taken, and why (the message says so). */
  max?: { value: number; why: string };
}

export type Flags = Record<string, string | number | boolean | undefined>;

export function parseFlags(argv: string[], spec: Record<string, FlagSpec>, command: string): Flags {
  const out: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`${command}: unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const s = spec[name];
    if (!s) throw new UsageError(`${command}: unknown flag --${name} (known: ${Object.keys(spec).map((k) => `--${k}`).join(', ')})`);
    if (s.type === 'bool') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (s.type === 'string') {
      out[name] = value;
      continue;
    }
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name}: expected a number, got ${JSON.stringify(value)}`);
    if (s.type === 'int' && !Number.isInteger(n)) throw new UsageError(`--${name}: expected an integer, got ${JSON.stringify(value)}`);
    // Past 2^53 integers are not exact (1e300 is an "integer"): no count or seed a command takes is that large.
    if (s.type === 'int' && !Number.isSafeInteger(n)) throw new UsageError(`--${name}: must be at most ${Number.MAX_SAFE_INTEGER} (the largest exact integer), got ${n}`);
    if (s.min !== undefined && n < s.min) throw new UsageError(`--${name}: must be at least ${s.min}, got ${n}`);
    if (s.max !== undefined && n > s.max.value) throw new UsageError(`--${name}: must be at most ${s.max.value} (${s.max.why}), got ${n}`);
    out[name] = n;
    value = undefined;
  }
  return out;
}

/** Parses `key=value,key=value` (the bench's --config) into numbers; unknown keys are an error. */
export function parseKeyValues(text: string, known: readonly string[], flag: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const [k, v, ...rest] = part.split('=');
    if (v === undefined || rest.length) throw new UsageError(`${flag}: expected key=value, got ${JSON.stringify(part)}`);
    const key = k.trim();
    if (!known.includes(key)) throw new UsageError(`${flag}: unknown key ${JSON.stringify(key)} (known: ${known.join(', ')})`);
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || !Number.isInteger(n)) throw new UsageError(`${flag}: ${key} must be an integer, got ${JSON.stringify(v)}`);
    out[key] = n;
  }
  return out;
}

export function helpText(command: string, summary: string, spec: Record<string, FlagSpec>): string {
  const lines = [`magic-lab ${command} — ${summary}`, ''];
  for (const [k, s] of Object.entries(spec)) lines.push(`  --${k}${s.type === 'bool' ? '' : ` <${s.type}>`}`.padEnd(28) + s.help);
  return lines.join('\n');
}
