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
  getPreset,
  presetNames,
  runConfigFromJSON,
  runConfigToJSON,
  validateRunConfig,
  type RunConfig,
} from '../../src/rl/config';
import { browserHostLimits, checkRunResources, ResourceError, type ResourceLimits } from '../../src/rl/resources';
import { hostileLeaf, hostileNumber, hostileValue, key, LEAVES, nested, partialConfig } from '../config-arbitraries';

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
