/**
 * The coverage reference file (public/reference/coverage/<rung>.json): the pass@k curves of the
 * base (start weights), the no-control twin `entropy-off` and `magic` at one temperature, from
 * the per-problem counts of k-sample evaluations — overall, per task family and per
 * base-solvability class — each a mean over seeds with its Student-t 95% interval. Curves, not
 * problems: a few kilobytes. scripts/coverage-reference.ts writes it (from a sweep folder, or from
 * named evaluation reports such as a tuning round's); the page's coverage lesson reads it.
 * Pure (no Node imports): the page imports the format and its validator.
 */
import { baseClasses, curveSet, type CurveBandByK } from './coverage';
import type { CoverageProblems } from './run-metrics';
import { SOLVABILITY_CLASSES, type SolvabilityClass } from '../rl/coverage';

export const COVERAGE_REFERENCE_SCHEMA = 'magic-lab-coverage-reference/1';

/** The arms the lesson draws, in drawing order: the reference curve, the twin, MAGIC. */
export const COVERAGE_ARMS = ['base', 'entropy-off', 'magic'] as const;
export type CoverageArm = (typeof COVERAGE_ARMS)[number];

/** A band rounded for the file: mean and its interval (null where undefined: one seed has none), and the seeds in it. */
export interface CoveragePoint {
  n: number;
  mean: number;
  lower: number | null;
  upper: number | null;
}

export interface CoverageGroupCurves {
  /** 'all', a family name, or a base class ('unsolved', 'rare', 'often'). */
  id: string;
  kind: 'all' | 'family' | 'class';
  /** Test problems in the group, summed over seeds. */
  problems: number;
  /** Per arm, per k ("1", "2", … n): the band over seeds. An arm without the group is left out (the base has every group). */
  curves: Partial<Record<CoverageArm, Record<string, CoveragePoint>>>;
}

export interface CoverageReference {
  schema: typeof COVERAGE_REFERENCE_SCHEMA;
  /** 'tuning': tuning seeds (201 and up), a search, not a finding; 'reported': the reported seeds of a finding's sweep. */
  kind: 'tuning' | 'reported';
  /** Where the evaluations came from (a repository path), for the reader. */
  source: string;
  /** One line on how the runs were made (their regime), written by whoever ran the script. */
  note: string;
  rung: string;
  /** The sampling temperature of every curve. */
  temperature: number;
  /** Samples per problem (the largest k). */
  samples: number;
  /** Seeds of the runs, ascending. */
  seeds: number[];
  groups: CoverageGroupCurves[];
}

/** One evaluation of one arm on one seed: its per-problem counts at the file's temperature. */
export interface CoverageEvalInput {
  arm: CoverageArm;
  seed: number;
  rows: CoverageProblems[string];
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
const point = (b: CurveBandByK[string]): CoveragePoint => ({
  n: b.n,
  mean: round(b.mean),
  lower: Number.isFinite(b.lower) ? round(b.lower) : null,
  upper: Number.isFinite(b.upper) ? round(b.upper) : null,
});
const points = (b: CurveBandByK): Record<string, CoveragePoint> => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, point(v)]));

/**
 * Builds the file from the evaluations: each arm's curve over the seeds it has, overall, per family
 * and per base class (a problem's class from its seed's base evaluation, the thresholds of
 * src/rl/coverage.ts). Every seed needs a base evaluation, every arm at least one seed, and an
 * arm's evaluations of a seed the same problems as the base's (same test set): otherwise an Error
 * naming what is missing.
 */
export function buildCoverageReference(o: { evals: readonly CoverageEvalInput[]; kind: CoverageReference['kind']; source: string; note: string; rung: string; temperature: number }): CoverageReference {
  const seeds = [...new Set(o.evals.map((e) => e.seed))].sort((a, b) => a - b);
  const of = (arm: CoverageArm) => o.evals.filter((e) => e.arm === arm).sort((a, b) => a.seed - b.seed);
  for (const arm of COVERAGE_ARMS) if (!of(arm).length) throw new Error(`coverage reference: no evaluation of ${arm}`);
  const base = new Map<number, CoverageEvalInput>();
  for (const e of of('base')) {
    if (base.has(e.seed)) throw new Error(`coverage reference: two base evaluations of seed ${e.seed}`);
    base.set(e.seed, e);
  }
  const samples = Math.min(...o.evals.flatMap((e) => e.rows.map((r) => r.n)));
  for (const e of o.evals) {
    const b = base.get(e.seed);
    if (!b) throw new Error(`coverage reference: ${e.arm} has seed ${e.seed}, which has no base evaluation`);
    if (!e.rows.length) throw new Error(`coverage reference: the ${e.arm} evaluation of seed ${e.seed} has no problems`);
    const ids = new Set(b.rows.map((r) => r.id));
    const other = e.rows.find((r) => !ids.has(r.id));
    if (other || e.rows.length !== b.rows.length) throw new Error(`coverage reference: the ${e.arm} evaluation of seed ${e.seed} is not on its base's test problems (${other ? `${other.id} is not among them` : `${e.rows.length} problems, the base ${b.rows.length}`})`);
  }
  const sets = Object.fromEntries(
    COVERAGE_ARMS.map((arm) => {
      const es = of(arm);
      // The base's classes of each of the arm's seeds (for the base itself: its own counts, so its unsolved curve is 0).
      const set = curveSet(es.map((e) => e.rows), es.map((e) => baseClasses({ '1.0': base.get(e.seed)!.rows })));
      return [arm, set!];
    }),
  ) as Record<CoverageArm, NonNullable<ReturnType<typeof curveSet>>>;
  const baseRows = [...base.values()].flatMap((e) => e.rows);
  const familyOf = (id: string) => id.slice(0, id.indexOf(':'));
  const groups: CoverageGroupCurves[] = [];
  const curvesOf = (pick: (s: (typeof sets)[CoverageArm]) => CurveBandByK | undefined) =>
    Object.fromEntries(COVERAGE_ARMS.flatMap((arm) => {
      const b = pick(sets[arm]);
      return b && Object.keys(b).length ? [[arm, points(b)]] : [];
    }));
  groups.push({ id: 'all', kind: 'all', problems: baseRows.length, curves: curvesOf((s) => s.all) });
  for (const f of Object.keys(sets.base.families)) groups.push({ id: f, kind: 'family', problems: baseRows.filter((r) => familyOf(r.id) === f).length, curves: curvesOf((s) => s.families[f]) });
  for (const c of SOLVABILITY_CLASSES) {
    if (!sets.base.classes?.[c]) continue;
    groups.push({ id: c, kind: 'class', problems: sets.base.classProblems![c]!, curves: curvesOf((s) => s.classes?.[c]) });
  }
  return { schema: COVERAGE_REFERENCE_SCHEMA, kind: o.kind, source: o.source, note: o.note, rung: o.rung, temperature: o.temperature, samples, seeds, groups };
}

// ---------------------------------------------------------------------------------------------
// Reading it back (the page): one error naming the field.

export class CoverageReferenceError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'CoverageReferenceError';
  }
}

const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** The file checked field by field (a malformed one: CoverageReferenceError naming the field). */
export function validateCoverageReference(x: unknown, file: string): CoverageReference {
  const fail = (field: string, what: string): never => {
    throw new CoverageReferenceError(file, `${field}: ${what}`);
  };
  if (!isObj(x)) return fail('(file)', 'expected a JSON object');
  if (x.schema !== COVERAGE_REFERENCE_SCHEMA) fail('schema', `expected "${COVERAGE_REFERENCE_SCHEMA}", got ${JSON.stringify(x.schema)}`);
  if (x.kind !== 'tuning' && x.kind !== 'reported') fail('kind', `expected "tuning" or "reported", got ${JSON.stringify(x.kind)}`);
  for (const f of ['source', 'note', 'rung'] as const) if (typeof x[f] !== 'string') fail(f, 'expected a string');
  if (typeof x.temperature !== 'number' || !(x.temperature > 0)) fail('temperature', 'expected a positive number');
  if (!Number.isInteger(x.samples) || (x.samples as number) < 1) fail('samples', 'expected an integer ≥ 1');
  const seeds = x.seeds;
  if (!Array.isArray(seeds) || !seeds.length || seeds.some((s) => !Number.isInteger(s))) fail('seeds', 'expected a non-empty list of integer seeds');
  if (!Array.isArray(x.groups) || !x.groups.length) return fail('groups', 'expected a non-empty list');
  const ids = new Set<string>();
  x.groups.forEach((g: unknown, i: number) => {
    const at = `groups[${i}]`;
    if (!isObj(g)) return fail(at, 'expected an object');
    if (typeof g.id !== 'string' || !g.id) fail(`${at}.id`, 'expected a name');
    if (ids.has(g.id as string)) fail(`${at}.id`, `"${g.id as string}" twice`);
    ids.add(g.id as string);
    if (g.kind !== 'all' && g.kind !== 'family' && g.kind !== 'class') fail(`${at}.kind`, `expected "all", "family" or "class", got ${JSON.stringify(g.kind)}`);
    if (g.kind === 'class' && !SOLVABILITY_CLASSES.includes(g.id as SolvabilityClass)) fail(`${at}.id`, `a class group is one of ${SOLVABILITY_CLASSES.join(', ')}`);
    if (!Number.isInteger(g.problems) || (g.problems as number) < 1) fail(`${at}.problems`, 'expected an integer ≥ 1');
    if (!isObj(g.curves)) return fail(`${at}.curves`, 'expected an object');
    if (!g.curves.base) fail(`${at}.curves.base`, 'missing: the base is every group\'s reference curve');
    for (const [arm, c] of Object.entries(g.curves)) {
      const ca = `${at}.curves.${arm}`;
      if (!(COVERAGE_ARMS as readonly string[]).includes(arm)) fail(ca, `unknown arm (expected ${COVERAGE_ARMS.join(', ')})`);
      if (!isObj(c) || !Object.keys(c).length) return fail(ca, 'expected points by k');
      for (const [k, p] of Object.entries(c)) {
        const cp = `${ca}["${k}"]`;
        if (!/^[1-9]\d*$/.test(k) || Number(k) > (x.samples as number)) fail(cp, `k must be an integer from 1 to samples (${x.samples as number})`);
        if (!isObj(p)) return fail(cp, 'expected { n, mean, lower, upper }');
        if (!Number.isInteger(p.n) || (p.n as number) < 1) fail(`${cp}.n`, 'expected the seeds in it (an integer ≥ 1)');
        if (typeof p.mean !== 'number' || !(p.mean >= 0 && p.mean <= 1)) fail(`${cp}.mean`, 'expected a share in [0, 1]');
        for (const e of ['lower', 'upper'] as const) if (p[e] !== null && (typeof p[e] !== 'number' || !Number.isFinite(p[e]))) fail(`${cp}.${e}`, 'expected a number or null');
      }
    }
  });
  if (!ids.has('all')) fail('groups', 'no group "all"');
  return x as unknown as CoverageReference;
}
