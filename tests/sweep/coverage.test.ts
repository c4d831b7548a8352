import { combineVerdicts } from '../../src/sweep/stats';
/** The coverage finding (src/sweep/coverage.ts) and the coverage run metrics, on synthetic runs. */
import { describe, expect, it } from 'vitest';
import { validateRunConfig, getPreset } from '../../src/rl/config';
import { COVERAGE_CHECK_METRICS, COVERAGE_FINDING, COVERAGE_REGIME, mergeConfigInput, sweepHasRegime } from '../../src/sweep/coverage';
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
