/**
 * Property-based tests (fast-check) of the config validator and the resource check: random and
 * hostile partial configs — wrong types, NaN, ±Infinity, −0, huge and tiny numbers, numeric
 * strings, Object.prototype names as keys (__proto__, constructor, toString), objects nested
 * 100,000 deep, unknown fields — must give a valid config or ONE ConfigError naming a field,
 * nothing else; an accepted config must pass or be refused by the resource check with a
 * ResourceError. The same for URL parameters. Seeded by fast-check (a failure prints its seed
 * and the shrunk input).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ConfigError } from '../../src/model/config';
import {
  decodeConfigFromUrlParams,
  DEFAULT_RUN_CONFIG,
  getPreset,
  presetNames,
  runConfigFromJSON,
  runConfigToJSON,
  validateRunConfig,
  type RunConfig,
} from '../../src/rl/config';
import { browserHostLimits, checkRunResources, ResourceError, type ResourceLimits } from '../../src/rl/resources';

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', 'isPrototypeOf', '__defineGetter__', 'toJSON'];

/** Every leaf path of a full config with its default value: ['loss', 'entropy', 'target'] → 0.1. */
function leaves(v: unknown, path: string[] = []): [string[], unknown][] {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [[path, v]];
}
const LEAVES = leaves(DEFAULT_RUN_CONFIG);
const KEYS = [...new Set(LEAVES.flatMap(([p]) => p))];

/** An array nested `n` deep, built without recursion (printed as nested(n) in a failure report: fast-check's printer recurses). */
function nested(n: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < n; i++) v = [v];
  Object.defineProperty(v, fc.toStringMethod, { value: () => `nested(${n})` });
  return v;
}

const hostileNumber = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, -1, 1, 0.5, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 1e6 + 1),
  fc.double(),
  fc.integer({ min: -1e9, max: 1e9 }),
);
const hostileLeaf = fc.oneof(
  hostileNumber,
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', '1', '1e3', '0x10', 'NaN', 'Infinity', 'null', 'true', '[]', '{}', ...PROTO_NAMES, 'adaptive', 'addition', 'x'.repeat(100_000)),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const key = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.constantFrom(...KEYS), fc.string({ maxLength: 6 }));

/** Sets an own property, `__proto__` included (an object literal would set the prototype instead). */
function own(obj: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const { value: hostileValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileLeaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((kv) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of kv) own(o, k, v);
      return o;
    }),
    fc.integer({ min: 1, max: 20_000 }).map(nested), // JSON.stringify overflows from ~10,000 levels
  ),
}));

/** A value near a leaf's default: the same kind scaled or shifted, often valid, sometimes just out of range. */
function plausible(def: unknown): fc.Arbitrary<unknown> {
  if (typeof def === 'number') {
    return fc.oneof(
      fc.constantFrom(def, def * 2, def / 2, def + 1, def - 1, Math.round(def * 10), 0, 1, 2, 4, 16, 64),
      fc.integer({ min: 0, max: 2000 }),
      fc.double({ min: 0, max: 4, noNaN: true }),
    );
  }
  if (typeof def === 'boolean') return fc.boolean();
  if (typeof def === 'string') return fc.constantFrom(def, 'adaptive', 'constant', 'off', 'drop', 'refill', 'none', 'k1', 'k3', 'low_var_kl', 'rmsnorm', 'layernorm', 'token-mean', 'current', 'lagged', 'exact', 'sampled', 'adv-mask-before');
  if (def === null) return fc.oneof(fc.constant(null), fc.double({ min: 0, max: 10, noNaN: true }), fc.constant({ window: 5 }));
  if (Array.isArray(def)) {
    return fc.oneof(
      fc.constant(def),
      fc.shuffledSubarray(['addition', 'countdown', 'arith'], { minLength: 1 }),
      fc.array(fc.double({ min: 0.1, max: 2, noNaN: true }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.record({ maxResponseLength: fc.integer({ min: 1, max: 60 }), steps: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ['maxResponseLength'] }), { minLength: 1, maxLength: 3 }),
    );
  }
  return fc.constant(def);
}

/** A partial config: some leaves set near their defaults or to hostile values, plus unknown or prototype-named keys anywhere. */
const partialConfig = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: LEAVES.length - 1 }).chain((i) => fc.tuple(fc.constant(LEAVES[i][0]), fc.oneof(plausible(LEAVES[i][1]), plausible(LEAVES[i][1]), hostileValue))),
      fc.tuple(fc.array(key, { minLength: 1, maxLength: 3 }), hostileValue),
    ),
    { maxLength: 6 },
  )
  .map((sets) => {
    const root: Record<string, unknown> = {};
    for (const [path, v] of sets) {
      let node = root;
      path.slice(0, -1).forEach((k) => {
        const next = Object.prototype.hasOwnProperty.call(node, k) ? node[k] : undefined;
        if (typeof next !== 'object' || next === null || Array.isArray(next)) own(node, k, {});
        node = node[k] as Record<string, unknown>;
      });
      own(node, path[path.length - 1], v);
    }
    return root;
  });

/** The value as a JSON file gives it back (JSON.stringify recurses: a value nested 100,000 deep is given as it is). */
function viaJsonText(v: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(v));
  } catch {
    return v;
  }
}

/** Iteratively freezes a value (the validator must not modify its input). */
function deepFreeze(v: unknown): void {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null || Object.isFrozen(x)) continue;
    Object.freeze(x);
    for (const k of Object.keys(x)) stack.push((x as Record<string, unknown>)[k]);
  }
}

/** The validator's contract on one input: a valid, stable config, or one ConfigError naming a field. */
function validateOrRefuse(input: unknown, base?: RunConfig): RunConfig | null {
  let out: RunConfig;
  try {
    out = validateRunConfig(input, base);
  } catch (e) {
    expect(e, String(e)).toBeInstanceOf(ConfigError);
    const err = e as ConfigError;
    expect(typeof err.field).toBe('string');
    expect(err.field.length).toBeGreaterThan(0);
    expect(err.message.startsWith(`${err.field}: `)).toBe(true);
    expect(err.message).not.toContain('\n');
    expect(err.message.length, err.message).toBeLessThan(600);
    return null;
  }
  // Accepted: complete, a fixed point of the validator, and the same after a JSON round trip.
  expect(validateRunConfig(out)).toEqual(out);
  // (As text: a −0 given reads back as 0, which behaves the same everywhere.)
  expect(runConfigToJSON(runConfigFromJSON(runConfigToJSON(out)))).toBe(runConfigToJSON(out));
  return out;
}

const GiB = 2 ** 30;
const LIMITS: ResourceLimits[] = [
  { engine: { engine: 'webgpu', maxStorageBufferBindingSize: 128 * 2 ** 20, maxBufferSize: 256 * 2 ** 20, software: false }, host: browserHostLimits({ deviceMemory: 8 }) },
  { engine: { engine: 'wasm', memoryBytes: 2 * GiB, threads: 4 }, host: browserHostLimits({ deviceMemory: 4, jsHeapSizeLimit: 2 * GiB }) },
];

/** The resource check's contract on an accepted config: passes, or one ResourceError naming a field. */
function fitsOrRefused(cfg: RunConfig): void {
  for (const limits of LIMITS) {
    try {
      checkRunResources(cfg, limits);
    } catch (e) {
      expect(e, String(e)).toBeInstanceOf(ResourceError);
      expect((e as ResourceError).message).not.toContain('\n');
    }
  }
}

describe('validateRunConfig on random and hostile input (fast-check)', () => {
  it('gives a valid config or one ConfigError naming a field, nothing else; the resource check passes it or refuses it with a ResourceError', () => {
    let accepted = 0;
    fc.assert(
      fc.property(partialConfig, fc.constantFrom(...presetNames()), fc.boolean(), (input, preset, viaJson) => {
        // As a --config file or URL gives it (JSON: NaN and ±Infinity become null, undefined fields vanish) or as the page's Worker gets it.
        const given = viaJson ? viaJsonText(input) : input;
        deepFreeze(given);
        const out = validateOrRefuse(given, getPreset(preset));
        if (out) {
          accepted++;
          fitsOrRefused(out);
        }
      }),
      { numRuns: 300 },
    );
    // The generator reaches the accepted branch too, not only refusals.
    expect(accepted).toBeGreaterThan(20);
  });

  it('refuses any non-object config with one ConfigError on "config"', () => {
    fc.assert(
      fc.property(fc.oneof(hostileLeaf, fc.array(hostileValue, { maxLength: 2 })), (input) => {
        fc.pre(input !== undefined && input !== null);
        expect(() => validateRunConfig(input)).toThrow(ConfigError);
        try {
          validateRunConfig(input);
        } catch (e) {
          expect((e as ConfigError).field).toBe('config');
        }
      }),
      { numRuns: 100 },
    );
  });

  it('decodes random URL parameters into a valid config or one ConfigError', () => {
    const param = fc.tuple(
      fc.oneof(
        fc.constantFrom(...LEAVES.map(([p]) => p.join('.'))),
        fc.array(key, { minLength: 1, maxLength: 3 }).map((k) => k.join('.')),
        fc.constantFrom('preset', 'model.__proto__.x', 'constructor.prototype', '.', 'a..b'),
      ),
      fc.oneof(fc.string({ maxLength: 10 }), hostileNumber.map(String), fc.constantFrom('NaN', '-0', '1e400', '[1,2]', '{"__proto__":1}', 'magic', 'toString', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]')),
    );
    fc.assert(
      fc.property(fc.array(param, { maxLength: 5 }), (pairs) => {
        const params = new URLSearchParams(pairs);
        try {
          const { config } = decodeConfigFromUrlParams(params);
          validateOrRefuse(config);
          fitsOrRefused(config);
        } catch (e) {
          expect(e, String(e)).toBeInstanceOf(ConfigError);
          expect((e as Error).message).not.toContain('\n');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('names the field for prototype-named keys and deep nesting (examples the generator also reaches)', () => {
    const cases: [unknown, RegExp][] = [
      [JSON.parse('{"__proto__": {"seed": 3}}'), /^__proto__: unknown field/],
      [{ loss: JSON.parse('{"constructor": 1}') }, /^loss\.constructor: unknown field/],
      [{ seed: nested(100_000) }, /^seed: must be an integer, got a deeply nested array$/],
      [{ eval: { temperatures: [nested(50_000)] } }, /^eval\.temperatures\[0\]: must be a finite number, got a deeply nested array$/],
      [{ rollout: { batchPrompts: 'x'.repeat(100_000) } }, /^rollout\.batchPrompts: must be an integer, got "x{76}…$/],
      [{ data: { trainSize: 1e308 } }, /^data\.trainSize: must be an integer in \[1, 1000000\], got 1e\+308$/],
    ];
    for (const [input, msg] of cases) expect(() => validateRunConfig(input)).toThrow(msg);
  });
});
