/**
 * Validation of a (partial, untrusted) RunConfig: deep-merge over a base (unknown fields rejected),
 * then the field rules of rules.ts in order; ONE ConfigError names the first bad field's path.
 */
import { ConfigError } from '../../model/config';
import { RULES, type FieldRule, type NumberRule, type RuleStep } from './rules';
import { DEFAULT_CONVERGENCE, DEFAULT_RUN_CONFIG, STAGE_TEMPLATE, type RunConfig } from './schema';
import { clone, describe, isObj, join, pattern, type Rec } from './values';

/** An unknown key as a field path: quoted when it is not a plain name (`loss[""]`, `["a b"]`), shortened when long. */
function unknownKey(path: string, k: string): string {
  if (/^[A-Za-z_$][\w$]{0,63}$/.test(k)) return join(path, k);
  const q = JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k);
  return `${path}[${q}]`;
}

/** Array elements merge over these (a partial stage gets the template's nulls). */
const ELEMENT_TEMPLATES: Record<string, unknown> = { 'stages[]': STAGE_TEMPLATE };
/** Optional fields by their object's path: known even where a validated base left them out (absent = default). */
const OPTIONAL_KEYS: Record<string, readonly string[]> = { data: ['testDifficulty'] };
/** Fields that are null or an object; a partial object merges over the base's or this default. */
const NULLABLE_OBJECTS: Record<string, unknown> = { 'stages[].convergence': DEFAULT_CONVERGENCE };

/**
 * Deep merge: objects merge key by key (unknown keys rejected), arrays replace whole (their
 * elements merge over a template when there is one), nullable objects accept null or a
 * partial, leaves take the input as given (checked afterwards).
 */
function merge(base: unknown, input: unknown, path: string): unknown {
  if (input === undefined) return clone(base);
  const pat = pattern(path);
  if (pat in NULLABLE_OBJECTS) {
    if (input === null) return null;
    if (!isObj(base)) base = NULLABLE_OBJECTS[pat];
  }
  if (isObj(base)) {
    if (!isObj(input)) throw new ConfigError(path, `must be an object, got ${describe(input)}`);
    const optional = (OPTIONAL_KEYS[pat] ?? []).filter((k) => !Object.prototype.hasOwnProperty.call(base, k));
    for (const k of Object.keys(input)) {
      if (!Object.prototype.hasOwnProperty.call(base, k) && !optional.includes(k)) throw new ConfigError(unknownKey(path, k), `unknown field (known: ${[...Object.keys(base), ...optional].join(', ')})`);
    }
    const out: Rec = {};
    for (const k of Object.keys(base)) out[k] = merge(base[k], input[k], join(path, k));
    for (const k of optional) out[k] = merge(undefined, input[k], join(path, k));
    return out;
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(input)) throw new ConfigError(path, `must be an array, got ${describe(input)}`);
    const tpl = ELEMENT_TEMPLATES[`${pat}[]`];
    return input.map((el, i) => (tpl === undefined ? el : merge(tpl, el, `${path}[${i}]`)));
  }
  // Leaves (and the elements of template-less arrays) are numbers, strings, booleans or null: taken
  // as given, not cloned, so an object nested 100,000 deep where a number goes is refused by the
  // checks instead of overflowing the stack here.
  return input;
}

/** The bounds a value is checked against (the rule's, with any bound that depends on other fields filled in). */
interface Range {
  min?: number;
  max?: number;
  /** Exclusive bounds. */
  minOpen?: boolean;
  maxOpen?: boolean;
  int?: boolean;
}

function rangeText(r: Range): string {
  const lo = r.min ?? -Infinity;
  const hi = r.max ?? Infinity;
  const kind = r.int ? 'an integer ' : '';
  if (hi === Infinity) return `must be ${kind}${r.minOpen ? '>' : '≥'} ${lo}`;
  if (lo === -Infinity) return `must be ${kind}${r.maxOpen ? '<' : '≤'} ${hi}`;
  return `must be ${kind}in ${r.minOpen ? '(' : '['}${lo}, ${hi}${r.maxOpen ? ')' : ']'}`;
}

function num(v: unknown, path: string, r: Range): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new ConfigError(path, `must be ${r.int ? 'an integer' : 'a finite number'}, got ${describe(v)}`);
  }
  const lo = r.min ?? -Infinity;
  const hi = r.max ?? Infinity;
  const bad = (r.int && !Number.isInteger(v)) || v < lo || v > hi || (r.minOpen && v === lo) || (r.maxOpen && v === hi);
  if (bad) throw new ConfigError(path, `${rangeText(r)}, got ${v}`);
  return v;
}


function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new ConfigError(path, `must be true or false, got ${describe(v)}`);
  return v;
}

function oneOf<T extends string>(v: unknown, path: string, options: readonly T[]): T {
  if (typeof v !== 'string' || !options.includes(v as T)) {
    throw new ConfigError(path, `must be one of ${options.map((o) => `"${o}"`).join(', ')}, got ${describe(v)}`);
  }
  return v as T;
}


/** Checks one field's value against its rule; `parent[key]` holds it (an optional field may be deleted from it). */
function checkField(c: RunConfig, rule: FieldRule, parent: Rec, key: string, path: string): void {
  const v = parent[key];
  switch (rule.kind) {
    case 'int':
    case 'number':
      if (rule.optional && (v === undefined || v === null)) delete parent[key];
      else if (!(rule.nullable && v === null)) num(v, path, rangeOf(c, rule, parent));
      return;
    case 'enum':
      oneOf(v, path, rule.options);
      return;
    case 'bool':
      bool(v, path);
      return;
    case 'list':
      if (!Array.isArray(v) || v.length === 0) throw new ConfigError(path, `must be a non-empty array, got ${describe(v)}`);
      v.forEach((el, i) => {
        checkField(c, rule.of, v as unknown as Rec, String(i), `${path}[${i}]`);
        if (rule.unique !== undefined && v.indexOf(el) !== i) throw new ConfigError(`${path}[${i}]`, `duplicate ${rule.unique} "${el}"`);
      });
  }
}

function rangeOf(c: RunConfig, r: NumberRule, parent: Rec): Range {
  return {
    min: r.minOf ? r.minOf(c, parent) : r.min,
    max: r.maxOf ? r.maxOf(c, parent) : r.max,
    minOpen: r.minOpen,
    maxOpen: r.maxOpen,
    int: r.kind === 'int',
  };
}

/** Walks the rule steps over `at` (the object at `path`), throwing the first failure. */
function run(c: RunConfig, steps: readonly RuleStep[], at: Rec, path: string): void {
  for (const s of steps) {
    if ('check' in s) s.check(c, at, path);
    else if ('field' in s) {
      const keys = s.field.split('.');
      const parent = keys.slice(0, -1).reduce((o, k) => o[k] as Rec, at);
      checkField(c, s.rule, parent, keys[keys.length - 1], join(path, s.field));
    } else if ('each' in s) {
      const p = join(path, s.each);
      const list = at[s.each];
      if (!Array.isArray(list) || list.length === 0) throw new ConfigError(p, `must be a non-empty array, got ${describe(list)}`);
      if (list.length > s.maxItems) throw new ConfigError(p, `at most ${s.maxItems} ${s.each}, got ${list.length}`);
      list.forEach((el: Rec, i) => run(c, s.steps, el, `${p}[${i}]`));
    } else {
      const inner = at[s.within];
      if (inner !== null) run(c, s.steps, inner as Rec, join(path, s.within));
    }
  }
}

/**
 * Validates a (partial, untrusted) config and returns a complete, fresh one: `input` is
 * deep-merged over `base` (default: the MAGIC recipe); neither is modified.
 * Throws ONE ConfigError naming the first bad field, e.g. `loss.epsLow: must be in [0, 1), got -1`.
 */
export function validateRunConfig(input: unknown, base: RunConfig = DEFAULT_RUN_CONFIG): RunConfig {
  if (input === undefined || input === null) input = {};
  if (!isObj(input)) throw new ConfigError('config', `must be an object, got ${describe(input)}`);
  const merged = merge(base, input, '') as RunConfig;
  run(merged, RULES, merged as unknown as Rec, '');
  return merged;
}
