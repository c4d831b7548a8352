/**
 * fast-check arbitraries of random and hostile partial RunConfigs, shared by the validator's
 * property tests (tests/rl/config.property.test.ts) and the CLI's (tests/cli/cli.property.test.ts).
 */
import fc from 'fast-check';
import { DEFAULT_RUN_CONFIG } from '../src/rl/config';

export const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', 'isPrototypeOf', '__defineGetter__', 'toJSON'];

/** Every leaf path of a full config with its default value: ['loss', 'entropy', 'target'] → 0.1. */
function leaves(v: unknown, path: string[] = []): [string[], unknown][] {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [[path, v]];
}
export const LEAVES = leaves(DEFAULT_RUN_CONFIG);
const KEYS = [...new Set(LEAVES.flatMap(([p]) => p))];

/** An array nested `n` deep, built without recursion (printed as nested(n) in a failure report: fast-check's printer recurses). */
export function nested(n: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < n; i++) v = [v];
  Object.defineProperty(v, fc.toStringMethod, { value: () => `nested(${n})` });
  return v;
}

export const hostileNumber = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, -1, 1, 0.5, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 1e6 + 1),
  fc.double(),
  fc.integer({ min: -1e9, max: 1e9 }),
);
export const hostileLeaf = fc.oneof(
  hostileNumber,
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', '1', '1e3', '0x10', 'NaN', 'Infinity', 'null', 'true', '[]', '{}', ...PROTO_NAMES, 'adaptive', 'addition', 'x'.repeat(100_000)),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
export const key = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.constantFrom(...KEYS), fc.string({ maxLength: 6 }));

/** Sets an own property, `__proto__` included (an object literal would set the prototype instead). */
function own(obj: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export const { value: hostileValue } = fc.letrec((tie) => ({
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
      fc.shuffledSubarray(['addition', 'countdown', 'arith', 'sort'], { minLength: 1 }),
      fc.array(fc.double({ min: 0.1, max: 2, noNaN: true }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.record({ maxResponseLength: fc.integer({ min: 1, max: 60 }), steps: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ['maxResponseLength'] }), { minLength: 1, maxLength: 3 }),
    );
  }
  return fc.constant(def);
}

/** A partial config: some leaves set near their defaults or to hostile values, plus unknown or prototype-named keys anywhere. */
export const partialConfig = fc
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

