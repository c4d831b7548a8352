import { combineVerdicts } from '../../src/sweep/stats';
/** The coverage finding (src/sweep/coverage.ts) and the coverage run metrics, on synthetic runs. */
import { describe, expect, it } from 'vitest';
import { validateRunConfig, getPreset } from '../../src/rl/config';
import { COVERAGE_CHECK_METRICS, COVERAGE_FINDING, COVERAGE_REGIME, coverageCurves, mergeConfigInput, sweepHasRegime } from '../../src/sweep/coverage';
import { coverageMarkdown } from '../../src/sweep/summary-markdown';
import { tInterval } from '../../src/sweep/stats';
import { evaluateFinding, getFinding, type FindingData } from '../../src/sweep/findings';
import { listFindings } from '../../src/cli/ablate';
import { COLLAPSE_STEPS, coverageValues, RUN_METRIC_IDS, type CoverageProblems } from '../../src/sweep/run-metrics';
import { passAtK } from '../../src/rl/metrics';

const seeds = [101, 102, 103, 104, 105];
const arm = (f: (s: number) => Record<string, number>) => new Map(seeds.map((s) => [s, f(s)]));
const collapse = (c: boolean) => (c ? { 'entropy/collapsed': 1, 'entropy/min10': 0.03, 'entropy/below_target_longest': COLLAPSE_STEPS + 100 } : { 'entropy/collapsed': 0, 'entropy/min10': 0.12, 'entropy/below_target_longest': 0 });
const data = (magic: Map<number, Record<string, number>>, twin: Map<number, Record<string, number>>): FindingData => ({
  runs: new Map([
    ['magic', magic],
    ['entropy-off', twin],
  ]),
  entropyTarget: new Map([
    ['magic', 0.1],
    ['entropy-off', 0.1],
  ]),
});
/** The four coverage metrics at a level, with per-seed jitter so intervals are finite. */
const cov = (x: number) => (s: number) => Object.fromEntries(COVERAGE_CHECK_METRICS.map((m, i) => [m, x + 0.1 * i + 0.002 * (s % 3) + 0.001 * (s % 2)]));

describe('the coverage finding', () => {
  it('is registered, listed by ablate --list with magic and entropy-off, and reads coverage metrics', () => {
    expect(getFinding('coverage')).toBe(COVERAGE_FINDING);
    expect(listFindings()).toMatch(/coverage\s+Entropy control keeps coverage[^\n]*\n\s+presets: magic, entropy-off/);
    expect(COVERAGE_FINDING.checks.map((c) => (c.kind === 'paired' ? [c.a, c.b, c.metric] : null))).toEqual(COVERAGE_CHECK_METRICS.map((m) => ['magic', 'entropy-off', m]));
    for (const m of COVERAGE_CHECK_METRICS) expect(RUN_METRIC_IDS).toContain(m);
    expect(COVERAGE_CHECK_METRICS).toEqual(['final/pass@1/t1.0', 'final/pass@16/t1.0', 'final/pass@n/t1.0', 'final/base_unsolved_solved/t1.0']);
  });

  it('its regime is valid over both presets at its rung and above, and both arms still differ in loss.entropy alone', () => {
    expect(COVERAGE_REGIME.rung).toBe('small');
    for (const rung of ['small', 'medium'] as const) {
      for (const p of COVERAGE_FINDING.presets) {
        const cfg = validateRunConfig(COVERAGE_REGIME.config, getPreset(p, rung));
        expect(cfg.data.offlineFilter.enabled).toBe(false);
      }
    }
    expect(COVERAGE_REGIME.evalK).toBeGreaterThanOrEqual(16);
  });

  it('reproduced when every metric is above 0 and the premise holds', () => {
    const magic = arm((s) => ({ ...cov(0.5)(s), ...collapse(false) }));
    const twin = arm((s) => ({ ...cov(0.4)(s), ...collapse(s !== 105) })); // 4 of 5 collapse
    const r = evaluateFinding(COVERAGE_FINDING, data(magic, twin));
    expect(r.premises!.map((p) => p.holds)).toEqual([true, true]);
    expect(r.checks.map((c) => c.verdict)).toEqual(['reproduced', 'reproduced', 'reproduced', 'reproduced']);
    expect(r.checks[0].estimate).toBeCloseTo(0.1, 12);
    expect(r.verdict).toBe('reproduced');
  });

  it('contradicted only when every metric is contradicted: the same agreement as reproduced', () => {
    const magic = arm((s) => ({ ...cov(0.3)(s), ...collapse(false) }));
    const twin = arm((s) => ({ ...cov(0.4)(s), ...collapse(true) }));
    const r = evaluateFinding(COVERAGE_FINDING, data(magic, twin));
    expect(r.checks.map((c) => c.verdict)).toEqual(['contradicted', 'contradicted', 'contradicted', 'contradicted']);
    expect(r.verdict).toBe('contradicted');
    // One metric contradicted, the others reproduced: inconclusive (the old rule would say contradicted).
    const mixed = arm((s) => ({ ...cov(0.5)(s), 'final/pass@1/t1.0': 0.3 + 0.001 * (s % 2), ...collapse(false) }));
    const m = evaluateFinding(COVERAGE_FINDING, data(mixed, twin));
    expect(m.checks.map((c) => c.verdict)).toEqual(['contradicted', 'reproduced', 'reproduced', 'reproduced']);
    expect(m.verdict).toBe('inconclusive');
  });

  it('inconclusive when an interval holds 0', () => {
    const magic = arm((s) => ({ ...cov(0.4)(s), 'final/pass@n/t1.0': 0.6 + (s % 2 ? 0.1 : -0.1), ...collapse(false) }));
    const twin = arm((s) => ({ ...cov(0.3)(s), 'final/pass@n/t1.0': 0.6, ...collapse(true) }));
    const r = evaluateFinding(COVERAGE_FINDING, data(magic, twin));
    expect(r.checks[2].verdict).toBe('inconclusive');
    expect(r.checks[2].lower).toBeLessThan(0);
    expect(r.checks[2].upper).toBeGreaterThan(0);
    expect(r.verdict).toBe('inconclusive');
  });

  it('not testable when the twin collapses in fewer than 4 of 5 seeds, or MAGIC collapses, whatever the checks say', () => {
    const magic = arm((s) => ({ ...cov(0.5)(s), ...collapse(false) }));
    const three = arm((s) => ({ ...cov(0.4)(s), ...collapse(s <= 103) }));
    const r = evaluateFinding(COVERAGE_FINDING, data(magic, three));
    expect(r.checks.every((c) => c.verdict === 'reproduced')).toBe(true);
    expect(r.verdict).toBe('not-testable');
    expect(r.premises![0].evidence).toMatch(/^entropy-off collapsed in 3 of 5 seeds/);
    const magicCollapses = arm((s) => ({ ...cov(0.5)(s), ...collapse(s === 101) }));
    expect(evaluateFinding(COVERAGE_FINDING, data(magicCollapses, arm((s) => ({ ...cov(0.4)(s), ...collapse(true) })))).verdict).toBe('not-testable');
  });

  it('combines its checks symmetrically: contradicted, like reproduced, only when every check agrees', () => {
    expect(combineVerdicts(['reproduced', 'reproduced'])).toBe('reproduced');
    expect(combineVerdicts(['contradicted', 'contradicted'])).toBe('contradicted');
    expect(combineVerdicts(['contradicted', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts(['reproduced', 'contradicted'])).toBe('inconclusive');
    expect(combineVerdicts([])).toBe('inconclusive');
  });

  it('speaks only for sweeps run under its regime (older magic + entropy-off sweeps are left as they were)', () => {
    expect(sweepHasRegime(COVERAGE_REGIME, null)).toBe(false);
    expect(sweepHasRegime(COVERAGE_REGIME, { data: { offlineFilter: { enabled: true } } })).toBe(false);
    expect(sweepHasRegime(COVERAGE_REGIME, COVERAGE_REGIME.config)).toBe(true);
    // A --config that refines the regime (the lead's tuned schedule) still runs under it.
    const refined = mergeConfigInput(COVERAGE_REGIME.config, { data: { testDifficulty: 4 }, update: { lr: 1e-4 } });
    expect(refined).toEqual({ ...COVERAGE_REGIME.config, data: { offlineFilter: { enabled: false }, testDifficulty: 4 }, update: { lr: 1e-4 } });
    expect(sweepHasRegime(COVERAGE_REGIME, refined)).toBe(true);
    // Another schedule is another regime.
    expect(sweepHasRegime(COVERAGE_REGIME, mergeConfigInput(COVERAGE_REGIME.config, { stages: [{ maxResponseLength: 24, steps: 300 }] }))).toBe(false);
    expect(mergeConfigInput(COVERAGE_REGIME.config, null)).toEqual(COVERAGE_REGIME.config);
  });
});

describe('coverage run metrics', () => {
  const rows = (cs: number[], n = 16) => cs.map((c, i) => ({ id: `sort:${i}`, n, correct: c }));
  it('pass@1, @16 and @n of start and final, and the share of base-unsolved problems solved, joined by problem identity', () => {
    const start: CoverageProblems = { '1.0': rows([0, 0, 3, 16]), '0.6': rows([0, 1, 2, 16]) };
    // The final rows come in another order: the join is by id.
    const final: CoverageProblems = { '1.0': [...rows([2, 0, 8, 16])].reverse(), '0.6': rows([0, 0, 9, 16]) };
    const v = coverageValues(start, final);
    const mean = (cs: number[], k: number) => cs.reduce((a, c) => a + passAtK(16, c, k), 0) / cs.length;
    expect(v['start/pass@1/t1.0']).toBeCloseTo(mean([0, 0, 3, 16], 1), 14);
    expect(v['final/pass@16/t1.0']).toBeCloseTo(mean([2, 0, 8, 16], 16), 14);
    expect(v['final/pass@n/t1.0']).toBe(0.75);
    expect(v['start/pass@n/t0.6']).toBe(0.75);
    // Base-unsolved at τ = 1.0: sort:0 and sort:1; the final solves sort:0 only.
    expect(v['final/base_unsolved_solved/t1.0']).toBe(0.5);
    expect(v['final/base_unsolved_solved/t0.6']).toBe(0);
  });

  it('pass@16 is NaN below 16 samples; no base: no base-unsolved share', () => {
    const v = coverageValues(null, { '1.0': rows([1, 0], 8) });
    expect(v['final/pass@16/t1.0']).toBeNaN();
    expect(v['final/pass@n/t1.0']).toBe(0.5);
    expect(v['final/base_unsolved_solved/t1.0']).toBeNaN();
    expect(v['start/pass@1/t1.0']).toBeNaN();
  });
});

describe('the summary\'s coverage curves per base-solvability class', () => {
  // Two seeds, each with its own test set (ids differ by seed): the base's counts at τ = 1.0 set each problem's class.
  const n = 16;
  const row = (id: string, correct: number) => ({ id, n, correct });
  // seed 1: base 0, 0, 1, 2, 9 of 16 → unsolved, unsolved, rare, rare (2 = ⌊16/8⌋), often
  const start1: CoverageProblems = { '1.0': [row('multiply:a', 0), row('multiply:b', 0), row('sort:c', 1), row('sort:d', 2), row('sort:e', 9)], '0.6': [row('multiply:a', 0), row('multiply:b', 1), row('sort:c', 3), row('sort:d', 4), row('sort:e', 12)] };
  // The final rows in another order (the join is by identity).
  const final1: CoverageProblems = { '1.0': [row('sort:e', 16), row('sort:d', 8), row('sort:c', 0), row('multiply:b', 0), row('multiply:a', 3)], '0.6': [row('multiply:a', 1), row('multiply:b', 0), row('sort:c', 0), row('sort:d', 10), row('sort:e', 16)] };
  // seed 2: base 0, 5, 12 → unsolved, often, often (no rare problem)
  const start2: CoverageProblems = { '1.0': [row('multiply:x', 0), row('sort:y', 5), row('sort:z', 12)] };
  const final2: CoverageProblems = { '1.0': [row('multiply:x', 1), row('sort:y', 7), row('sort:z', 16)] };
  const runs = [
    { preset: 'magic', coverage: { start: start1, final: final1 } },
    { preset: 'magic', coverage: { start: start2, final: final2 } },
  ];
  const mean = (cs: number[], k: number) => cs.reduce((a, c) => a + passAtK(n, c, k), 0) / cs.length;

  it('each class\'s curve is the mean over seeds of the class\'s own problems, classes from the base at τ = 1.0', () => {
    const c = coverageCurves(['magic'], runs)!.magic;
    const f = c.final['1.0'];
    expect(Object.keys(f.classes!)).toEqual(['unsolved', 'rare', 'often']);
    expect(f.classProblems).toEqual({ unsolved: 3, rare: 2, often: 3 });
    for (const k of ['1', '4', '16']) {
      const K = Number(k);
      // unsolved: seed 1's a (3), b (0); seed 2's x (1)
      expect(f.classes!.unsolved![k].mean).toBeCloseTo((mean([3, 0], K) + mean([1], K)) / 2, 14);
      expect(f.classes!.unsolved![k].n).toBe(2);
      // rare: seed 1 only (c: 0, d: 8): one seed, no interval
      expect(f.classes!.rare![k].mean).toBeCloseTo(mean([0, 8], K), 14);
      expect(f.classes!.rare![k].n).toBe(1);
      expect(f.classes!.rare![k].lower).toBeNaN();
      // often: seed 1's e (16); seed 2's y (7), z (16)
      expect(f.classes!.often![k].mean).toBeCloseTo((mean([16], K) + mean([7, 16], K)) / 2, 14);
    }
    // The interval over the two seeds' unsolved curves at k = 16.
    const iv = tInterval([mean([3, 0], 16), mean([1], 16)]);
    expect(f.classes!.unsolved!['16'].lower).toBeCloseTo(iv.lower, 12);
    expect(f.classes!.unsolved!['16'].upper).toBeCloseTo(iv.upper, 12);
    // The start's own unsolved curve is 0 at every k; its classes come from τ = 1.0 at τ = 0.6 too (seed 1 only has τ = 0.6).
    expect(Object.values(c.start['1.0'].classes!.unsolved!).map((b) => b.mean)).toEqual([0, 0, 0, 0, 0]);
    expect(c.final['0.6'].classes!.unsolved!['1'].mean).toBeCloseTo(mean([1, 0], 1), 14);
    expect(c.final['0.6'].classProblems).toEqual({ unsolved: 2, rare: 2, often: 1 });
    // Overall and per family as before, beside the classes.
    expect(f.all['1'].mean).toBeCloseTo((mean([16, 8, 0, 0, 3], 1) + mean([1, 7, 16], 1)) / 2, 14);
    expect(Object.keys(f.families)).toEqual(['multiply', 'sort']);
  });

  it('without a start evaluation there are no classes; a final problem the base has no row for is in no class', () => {
    const none = coverageCurves(['magic'], [{ preset: 'magic', coverage: { start: null, final: final1 } }])!.magic;
    expect(none.final['1.0'].classes).toBeUndefined();
    expect(none.final['1.0'].all['1'].n).toBe(1);
    const extra = coverageCurves(['magic'], [{ preset: 'magic', coverage: { start: start2, final: { '1.0': [...final2['1.0'], row('sort:new', 16)] } } }])!.magic;
    expect(extra.final['1.0'].classProblems).toEqual({ unsolved: 1, often: 2 });
    expect(extra.final['1.0'].all['1'].mean).toBeCloseTo(mean([1, 7, 16, 16], 1), 14);
  });

  it('summary.md prints every curve (overall, families, classes with their problem counts) per temperature', () => {
    const coverage = coverageCurves(['magic'], runs)!;
    const md = coverageMarkdown(coverage).join('\n');
    expect(md).toMatch(/^## Coverage: pass@k curves, mean \[95% CI over seeds\]/);
    expect(md).toContain('### τ = 1.0');
    expect(md).toContain('| preset | weights | problems | k=1 | k=2 | k=4 | k=8 | k=16 |');
    const u = coverage.magic.final['1.0'].classes!.unsolved!['16'];
    expect(md).toContain(`| magic | final | base unsolved (3) | `);
    expect(md).toContain(`${(u.mean * 100).toFixed(1)} [${(u.lower * 100).toFixed(1)}, ${(u.upper * 100).toFixed(1)}] |`);
    expect(md).toContain('| magic | final | base rare (2) | ');
    expect(md).toContain('| magic | start | multiply | ');
    expect(coverageMarkdown(undefined)).toEqual([]);
  });
});
