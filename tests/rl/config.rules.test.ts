import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/model/config';
import { DEFAULT_CONVERGENCE, decodeConfigFromUrlParams, fieldRule, getPreset, ruledPaths, validateRunConfig, type NumberRule, type RunConfig } from '../../src/rl/config';
import { CONFIG_FIELDS } from '../../src/ui/lib/fields';

const MAGIC = getPreset('magic');

/** A copy of MAGIC with one field set; `stages[].x` sets stage 0's (a convergence field makes stage 0 end by convergence). */
function withField(path: string, value: unknown): unknown {
  const c = JSON.parse(JSON.stringify(MAGIC)) as Record<string, unknown>;
  const stage = /^stages\[\]\.(.+)$/.exec(path);
  if (stage) {
    const s0 = (c.stages as Record<string, unknown>[])[0];
    const [k, sub] = stage[1].split('.');
    if (sub !== undefined) Object.assign(s0, { steps: null, convergence: { ...DEFAULT_CONVERGENCE, [sub]: value } });
    else s0[k] = value;
    return c;
  }
  const keys = path.split('.');
  const parent = keys.slice(0, -1).reduce((o, k) => o[k] as Record<string, unknown>, c);
  parent[keys[keys.length - 1]] = value;
  return c;
}

/** The field a validation of `input` names, or null when it passes. */
function refusedField(input: unknown): string | null {
  try {
    validateRunConfig(input);
    return null;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.field;
  }
}

const concrete = (path: string) => path.replace('stages[]', 'stages[0]');

describe('one rule per field: the validator, the page and the URL codec read the same bounds', () => {
  const numeric = ruledPaths()
    .map((path) => [path, fieldRule(path)!] as const)
    .filter((e): e is readonly [string, NumberRule] => e[1].kind === 'int' || e[1].kind === 'number');

  it('the value just outside each static bound is refused, naming the field', () => {
    let checked = 0;
    for (const [path, r] of numeric) {
      const eps = r.kind === 'int' ? 1 : 1e-6;
      if (r.min !== undefined && !r.minOf) {
        const v = r.minOpen ? r.min : r.min - eps;
        expect(refusedField(withField(path, v)), `${path} = ${v}`).toBe(concrete(path));
        checked++;
      }
      if (r.max !== undefined && !r.maxOf) {
        const v = r.maxOpen ? r.max : r.max + eps;
        expect(refusedField(withField(path, v)), `${path} = ${v}`).toBe(concrete(path));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('bounds that depend on other fields are refused just outside too', () => {
    const ctx = MAGIC.model.contextLength;
    expect(refusedField(withField('stages[].maxResponseLength', ctx))).toBe('stages[0].maxResponseLength');
    expect(refusedField(withField('stages[].convergence.maxSteps', 2 * DEFAULT_CONVERGENCE.window - 1))).toBe('stages[0].convergence.maxSteps');
    expect(refusedField(withField('loss.entropy.cMax', -1e-6))).toBe('loss.entropy.cMax');
    const c = withField('loss.entropy.cMin', 0.5) as RunConfig;
    c.loss.entropy.cMax = 0.4;
    expect(refusedField(c)).toBe('loss.entropy.cMax');
    expect(refusedField(withField('eval.testProblems', MAGIC.data.testSize + 1))).toBe('eval.testProblems');
    expect(refusedField(withField('eval.testProblems', MAGIC.data.testSize))).toBeNull();
  });

  it("each page field's min/max are its rule's (one step inside an open bound)", () => {
    let checked = 0;
    for (const f of CONFIG_FIELDS) {
      const r = fieldRule(f.path)!;
      expect(f.symbol, f.path).toBe(r.symbol);
      const inp = f.input;
      if (inp.kind !== 'int' && inp.kind !== 'number' && inp.kind !== 'nullable-number') continue;
      expect(r.kind === 'int' ? 'int' : r.kind === 'number' && r.nullable ? 'nullable-number' : 'number', f.path).toBe(inp.kind);
      const rule = r as NumberRule;
      const step = inp.kind === 'int' ? 1 : inp.step;
      if (rule.min !== undefined) expect(inp.min, `${f.path} min`).toBe(rule.minOpen ? rule.min + step! : rule.min);
      if (inp.kind !== 'nullable-number') {
        const max = rule.crossMax !== undefined ? undefined : rule.maxOpen ? rule.max! - step! : rule.max;
        expect(inp.max, `${f.path} max`).toBe(max);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(35);
    // The case the issue named: the target's bound is the validator's > 0, not a second 0.001.
    const target = CONFIG_FIELDS.find((f) => f.path === 'loss.entropy.target')!;
    expect(fieldRule('loss.entropy.target')).toMatchObject({ min: 0, minOpen: true });
    expect(target.input).toMatchObject({ kind: 'number', min: 0.01, step: 0.01 });
  });

  it('the URL codec takes an enum field raw and every other field as JSON', () => {
    expect(decodeConfigFromUrlParams('preset=magic&loss.kl.type=k1&model.norm=layernorm').config.loss.kl.type).toBe('k1');
    expect(decodeConfigFromUrlParams('preset=magic&loss.kl.beta=0.5').config.loss.kl.beta).toBe(0.5);
    expect(() => decodeConfigFromUrlParams('preset=magic&loss.kl.type="k1"')).toThrow(/loss\.kl\.type: must be one of/);
  });
});
