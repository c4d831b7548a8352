/**
 * The `coverage` finding: does adaptive entropy control keep the policy exploring — solving more
 * of the problems at large k, and more of those its base never solved — where its no-control
 * twin collapses? Its rule is written here before any run; its regime (the config both arms
 * train under and the precise evaluations' samples per problem) is a parameter, to be fixed on
 * tuning seeds (201 and up) before the reported runs on seeds 101–105.
 */
import type { RunConfigInput } from '../rl/config';
import type { Finding, FindingRegime } from './finding-types';
import { coverageSplit, solvabilityClass, SOLVABILITY_CLASSES, type CoverageSplit, type PassAtKCurve, type SolvabilityClass } from '../rl/coverage';
import { COVERAGE_MID_K, TEMPERATURES, type CoverageProblems } from './run-metrics';
import { tInterval } from './stats';

/**
 * The coverage finding's regime, fixed on tuning seed 201 before any reported run
 * (reports/coverage-tuning/README.md, which lists every configuration tried): the offline filter
 * off, so training keeps the problems the base never solves (about half of each batch's groups
 * solve none at the start), and 800 steps in two stages (80 tokens × 200, 160 × 600), long enough
 * for the twin to collapse and stay collapsed while MAGIC holds its target. The held-out split
 * stays at the training level: one level above it (data.testDifficulty 4) the base solves none of
 * 256 × 64 samples, so no arm could show a difference there.
 */
export const COVERAGE_REGIME: FindingRegime = {
  config: {
    data: { offlineFilter: { enabled: false } },
    stages: [
      { maxResponseLength: 80, steps: 200 },
      { maxResponseLength: 160, steps: 600 },
    ],
  },
  evalK: 64,
  rung: 'small',
  note: 'offline filter off (training keeps base-unsolved problems), 800 steps (80 tokens × 200, 160 × 600), the held-out split at the training level, 64 samples per test problem; fixed on tuning seed 201 (reports/coverage-tuning)',
};

/** The metrics the finding's checks compare, at τ = 1.0 (run-metrics.ts COVERAGE_METRICS). */
export const COVERAGE_CHECK_METRICS = ['final/pass@1/t1.0', `final/pass@${COVERAGE_MID_K}/t1.0`, 'final/pass@n/t1.0', 'final/base_unsolved_solved/t1.0'] as const;


/** Whether a sweep ran under a finding's regime: every field the regime sets has its value in the sweep's --config (which may set more). */
export function sweepHasRegime(regime: FindingRegime, config: RunConfigInput | null): boolean {
  const covers = (want: unknown, got: unknown): boolean => {
    if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
      if (got === null || typeof got !== 'object' || Array.isArray(got)) return false;
      return Object.entries(want as Record<string, unknown>).every(([k, v]) => covers(v, (got as Record<string, unknown>)[k]));
    }
    return JSON.stringify(want) === JSON.stringify(got);
  };
  return covers(regime.config, config ?? {});
}

/** `over` deep-merged over `base` (objects key by key, anything else replaced): the regime under a user's --config. */
export function mergeConfigInput(base: RunConfigInput, over: RunConfigInput | null): RunConfigInput {
  if (over === null) return structuredClone(base);
  const m = (a: unknown, b: unknown): unknown => {
    if (b === undefined) return structuredClone(a);
    const obj = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
    if (!obj(a) || !obj(b)) return structuredClone(b);
    const out: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(a as object), ...Object.keys(b as object)])) out[k] = m((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]);
    return out;
  };
  return m(base, over) as RunConfigInput;
}

const check = (metric: string, says: string) => ({ kind: 'paired' as const, a: 'magic', b: 'entropy-off', metric, direction: 1 as const, says, differIn: ['loss.entropy'] });

export const COVERAGE_FINDING: Finding = {
  id: 'coverage',
  title: 'Entropy control keeps coverage: pass@k at large k and base-unsolved problems',
  claim: 'Its central lesson: premature entropy collapse hurts; keep the policy exploring.',
  source: 'shared/MAGIC-RECIPE.md, introduction',
  presets: ['magic', 'entropy-off'],
  premises: [
    { kind: 'collapse', preset: 'entropy-off', atLeast: 0.8, says: 'without the controller entropy collapses' },
    { kind: 'collapse', preset: 'magic', atMost: 0, says: 'with the controller it never does' },
  ],
  checks: [
    check('final/pass@1/t1.0', 'the controlled run ends with a higher pass@1'),
    check(`final/pass@${COVERAGE_MID_K}/t1.0`, `the controlled run ends with a higher pass@${COVERAGE_MID_K}`),
    check('final/pass@n/t1.0', 'the controlled run solves more test problems at least once in n samples (pass@k at the largest k)'),
    check('final/base_unsolved_solved/t1.0', 'the controlled run solves more of the problems its base never solved'),
  ],
  regime: COVERAGE_REGIME,
  rule:
    'entropy-off is magic with the entropy term off and nothing else (loss.entropy, checked before running); both train under the finding\'s regime ' +
    '(its config over each preset; its precise evaluations draw n samples per test problem), and the base (the start weights, evaluated on the same ' +
    'test problems with the same eval seed) is the reference curve. Premise: entropy-off collapses — its 10-step mean actor/entropy falls below the ' +
    'entropy target and stays below for at least 50 consecutive steps (docs/sweeps.md) — in at least 80% of its seeds (4 of 5), while magic ' +
    'collapses in none; otherwise the finding is not testable here and the report gives the evidence. Checks, paired over seeds 101–105 (same base, ' +
    'data, test set and eval seed), magic − entropy-off at the final checkpoint on the held-out test set at τ = 1.0, each by its 95% Student-t ' +
    `interval: (a) unbiased pass@1, (b) pass@${COVERAGE_MID_K}, (c) pass@k at the largest k = n, (d) of the test problems the base solved in none of its n samples ` +
    'at τ = 1.0, the share solved at least once in n. Each check: reproduced when its interval lies above 0, contradicted when below 0, inconclusive ' +
    'otherwise. With the premise shown: reproduced when all four checks are reproduced; contradicted when all four are contradicted (the same ' +
    'agreement); inconclusive otherwise — each metric\'s own direction and interval is reported either way. ' +
    `Regime (src/sweep/coverage.ts): config ${JSON.stringify(COVERAGE_REGIME.config)} over each preset, n = ${COVERAGE_REGIME.evalK} samples per test problem — ${COVERAGE_REGIME.note}.`,
};

// ---------------------------------------------------------------------------------------------
// The summary's coverage curves

/** A curve over seeds: per k ("1", "2", …) the mean over seeds and its Student-t 95% interval. */
export type CurveBandByK = Record<string, { n: number; mean: number; lower: number; upper: number }>;

/** One evaluation's curves at one temperature, each a band over seeds. */
export interface CoverageCurveSet {
  all: CurveBandByK;
  families: Record<string, CurveBandByK>;
  /**
   * Per base-solvability class (src/rl/coverage.ts solvabilityClass), the curve on the problems of
   * that class; a problem's class is what its seed's start weights (the base) scored on it at
   * τ = 1.0 — 0 of n unsolved, 1..max(1, ⌊n/8⌋) rare, more often — so the start evaluation's own
   * unsolved curve is 0 by construction and the final's shows what training reached. A class is
   * left out where no run has a problem in it; absent where no run has a start evaluation.
   */
  classes?: Partial<Record<SolvabilityClass, CurveBandByK>>;
  /** Per class, its test problems summed over the runs (seeds) that have it. */
  classProblems?: Partial<Record<SolvabilityClass, number>>;
}

export interface PresetCoverage {
  /** Per evaluation (start = the base's reference curve, final) and temperature label: the curves overall, per family and per base class. */
  start: Record<string, CoverageCurveSet>;
  final: Record<string, CoverageCurveSet>;
}

export interface RunCoverageInput {
  preset: string;
  coverage?: { start: CoverageProblems | null; final: CoverageProblems };
}

/** The base class of each problem of a run, by identity, from its start evaluation at τ = 1.0 (null: no start evaluation). */
export function baseClasses(start: CoverageProblems | null): Map<string, SolvabilityClass> | null {
  const rows = start?.['1.0'];
  if (!rows?.length) return null;
  return new Map(rows.map((r) => [r.id, solvabilityClass(r.correct, r.n)]));
}

/** The band over seeds at every k any curve has (a curve without that k, or a NaN, is left out of its k's band). */
function band(curves: readonly PassAtKCurve[]): CurveBandByK {
  const out: CurveBandByK = {};
  const ks = [...new Set(curves.flatMap((c) => Object.keys(c)))].sort((a, b) => Number(a) - Number(b));
  for (const k of ks) {
    const iv = tInterval(curves.map((c) => c[k] ?? NaN));
    out[k] = { n: iv.n, mean: iv.mean, lower: iv.lower, upper: iv.upper };
  }
  return out;
}

/**
 * The curves of one evaluation (start or final) at one temperature over runs: `evals[i]` is run i's
 * per-problem counts, `classes[i]` its base classes (null: none). Null when no run has rows.
 */
export function curveSet(evals: readonly (CoverageProblems[string] | undefined)[], classes: readonly (Map<string, SolvabilityClass> | null)[]): CoverageCurveSet | null {
  const rowsOf = (rows: CoverageProblems[string]) => rows.map((r) => ({ family: r.id.slice(0, r.id.indexOf(':')), difficulty: 0, n: r.n, correct: r.correct }));
  const splits: CoverageSplit[] = [];
  const byClass = new Map<SolvabilityClass, { curves: PassAtKCurve[]; problems: number }>();
  evals.forEach((rows, i) => {
    if (!rows?.length) return;
    const cls = classes[i];
    // Problems the base has no row for are in the overall and family curves, in no class.
    const known = cls ? rows.filter((r) => cls.has(r.id)) : [];
    splits.push(coverageSplit(rowsOf(rows)));
    if (!cls || !known.length) return;
    const split = coverageSplit(rowsOf(known), known.map((r) => cls.get(r.id)!));
    for (const c of SOLVABILITY_CLASSES) {
      const g = split.classes?.[c];
      if (!g) continue;
      const acc = byClass.get(c) ?? { curves: [], problems: 0 };
      acc.curves.push(g['pass@k']);
      acc.problems += g.problems;
      byClass.set(c, acc);
    }
  });
  if (!splits.length) return null;
  const families = [...new Set(splits.flatMap((s) => Object.keys(s.families)))].sort();
  const set: CoverageCurveSet = {
    all: band(splits.map((s) => s['pass@k'])),
    families: Object.fromEntries(families.map((f) => [f, band(splits.filter((s) => s.families[f]).map((s) => s.families[f]['pass@k']))])),
  };
  if (classes.some((c) => c !== null)) {
    set.classes = {};
    set.classProblems = {};
    for (const c of SOLVABILITY_CLASSES) {
      const acc = byClass.get(c);
      if (!acc) continue;
      set.classes[c] = band(acc.curves);
      set.classProblems[c] = acc.problems;
    }
  }
  return set;
}

/**
 * Per preset, the mean pass@k curve over its seeds (k = 1, 2, 4, … n) of the start weights and the
 * final checkpoint, overall, per task family (a problem's family is its identity's prefix) and per
 * base-solvability class (from each run's own start evaluation at τ = 1.0); null when no run has a
 * coverage report (summaries of older sweeps stay as they were).
 */
export function coverageCurves(presets: readonly string[], runs: readonly RunCoverageInput[]): Record<string, PresetCoverage> | null {
  if (!runs.some((r) => r.coverage)) return null;
  const out: Record<string, PresetCoverage> = {};
  for (const p of presets) {
    const rs = runs.filter((r) => r.preset === p && r.coverage);
    const classes = rs.map((r) => baseClasses(r.coverage!.start));
    const pc: PresetCoverage = { start: {}, final: {} };
    for (const which of ['start', 'final'] as const) {
      for (const t of TEMPERATURES) {
        const set = curveSet(rs.map((r) => r.coverage![which]?.[t]), classes);
        if (set) pc[which][t] = set;
      }
    }
    out[p] = pc;
  }
  return out;
}
