/**
 * The verdict rules say exactly what their data show (four changes, each on synthetic runs that the
 * earlier rules read wrongly):
 * 1. collapse-hurts correlates entropy and accuracy within presets, not across them;
 * 2. …with every run's entropy at one temperature, τ = 1.0 (val/entropy/t1.0), and "not testable
 *    here" where a run lacks it, never a mix of scales;
 * 3. entropy-coef's hold check reads only 10-step means after the controller's ramp window, derived
 *    from the run's own c₀, Δ and c_max;
 * 4. a finding with several checks is contradicted only when all are (as reproduced needs all), and
 *    each check prints its direction and interval.
 */
import { describe, expect, it } from 'vitest';
import { evaluateFinding, getFinding, type FindingData } from '../../src/sweep/findings';
import { findingReportMarkdown, REPORT_SCHEMA, type FindingReport } from '../../src/sweep/report';
import { computeRunMetrics, HELD_OUT_ENTROPY, rampSteps, type EntropyRampConfig, type Row } from '../../src/sweep/run-metrics';
import { pearson, withinCorrelationInterval } from '../../src/sweep/stats';

const SEEDS = [101, 102, 103, 104, 105];

function data(runs: Record<string, Record<number, Record<string, number>>>, target = 0.1): FindingData {
  return {
    runs: new Map(Object.entries(runs).map(([p, bySeed]) => [p, new Map(Object.entries(bySeed).map(([s, v]) => [Number(s), v]))])),
    entropyTarget: new Map(Object.keys(runs).map((p) => [p, target])),
  };
}
const arm = (f: (s: number, i: number) => Record<string, number>) => Object.fromEntries(SEEDS.map((s, i) => [s, f(s, i)]));

describe('1. collapse-hurts: within presets, not between them', () => {
  const f = getFinding('collapse-hurts')!;
  /**
   * Presets whose levels fall on a line of negative slope (higher entropy, lower accuracy: they
   * differ in more than entropy) while within each preset a run with more entropy ends more
   * accurate. Every entropy metric carries the same values, so any rule reads the same numbers.
   */
  const runs = (withinSlope: number) => {
    const out: Record<string, Record<number, Record<string, number>>> = {};
    f.presets.forEach((p, j) => {
      out[p] = arm((_, i) => {
        const ent = 0.04 + 0.02 * j + 0.002 * (i - 2);
        const acc = 0.5 - 0.04 * j + withinSlope * 0.002 * (i - 2) + 0.001 * ((i * 7 + j * 3) % 5);
        return { 'entropy/mean': ent, [HELD_OUT_ENTROPY]: ent, 'entropy/second_half': ent, 'final/avg/t1.0': acc };
      });
    });
    return out;
  };

  it('reads the within-preset relation: reproduced where the pooled r is strongly negative', () => {
    const d = runs(3);
    const pooledX = f.presets.flatMap((p) => SEEDS.map((s) => d[p][s][HELD_OUT_ENTROPY]));
    const pooledY = f.presets.flatMap((p) => SEEDS.map((s) => d[p][s]['final/avg/t1.0']));
    expect(pearson(pooledX, pooledY)).toBeLessThan(-0.8); // what pooling would report
    const res = evaluateFinding(f, data(d));
    expect(res.verdict).toBe('reproduced');
    expect(res.premises![0].holds).toBe(true);
    expect(res.checks[0].estimate).toBeGreaterThan(0.8);
    expect(res.checks[0].describe).toMatch(/within presets/);
    expect(res.checks[0].reads).toBe('positive');
  });

  it('no relation inside presets is inconclusive, never "contradicted" by the presets\' levels', () => {
    const res = evaluateFinding(f, data(runs(0)));
    expect(res.checks[0].verdict).toBe('inconclusive');
    expect(res.verdict).toBe('inconclusive');
  });

  it('the within-preset r is the correlation of the residuals after each preset\'s means, on n − g − 2 degrees of freedom', () => {
    const groups = [
      { xs: [1, 2, 3, 4, 5.5], ys: [2, 2.5, 3.9, 4.1, 6] },
      { xs: [10, 10.5, 12, 11], ys: [-1, -0.2, 0.7, 0.1] },
      { xs: [3, 1, NaN, 2], ys: [0, 1, 5, 0.4] }, // the NaN pair drops, 3 pairs left
      { xs: [7], ys: [7] }, // one pair: no within-group information
    ];
    const res = withinCorrelationInterval(groups);
    const rx: number[] = [];
    const ry: number[] = [];
    for (const g of groups.slice(0, 3)) {
      const keep = g.xs.map((x, i) => Number.isFinite(x) && Number.isFinite(g.ys[i]));
      const x = g.xs.filter((_, i) => keep[i]);
      const y = g.ys.filter((_, i) => keep[i]);
      const mx = x.reduce((a, b) => a + b, 0) / x.length;
      const my = y.reduce((a, b) => a + b, 0) / y.length;
      x.forEach((v, i) => (rx.push(v - mx), ry.push(y[i] - my)));
    }
    expect(res.n).toBe(12);
    expect(res.groups).toBe(3);
    expect(res.r).toBeCloseTo(pearson(rx, ry), 12);
    const h = 1.959963984540054 / Math.sqrt(12 - 3 - 2);
    expect(res.lower).toBeCloseTo(Math.tanh(Math.atanh(res.r) - h), 12);
    expect(res.upper).toBeCloseTo(Math.tanh(Math.atanh(res.r) + h), 12);
    // Too few points for the degrees of freedom: no interval.
    expect(withinCorrelationInterval([{ xs: [1, 2], ys: [1, 3] }, { xs: [1, 2], ys: [2, 1] }]).lower).toBeNaN();
  });
});

describe('2. collapse-hurts: one temperature, or not testable here', () => {
  const f = getFinding('collapse-hurts')!;
  it('a preset whose runs lack the entropy at τ = 1.0 makes the finding not testable, naming it; actor/entropy never stands in', () => {
    const runs: Record<string, Record<number, Record<string, number>>> = {};
    f.presets.forEach((p, j) => {
      runs[p] = arm((_, i) => {
        const ent = 0.05 + 0.01 * j + 0.003 * i;
        const v: Record<string, number> = { 'entropy/mean': ent, 'entropy/second_half': ent, 'final/avg/t1.0': 0.3 + 2 * ent + 0.001 * (i % 2) };
        // temp-0.6's runs were evaluated before val/entropy/t1.0 was logged: only its τ = 0.6 actor/entropy exists.
        if (p !== 'temp-0.6') v[HELD_OUT_ENTROPY] = ent;
        return v;
      });
    });
    const res = evaluateFinding(f, data(runs));
    expect(res.verdict).toBe('not-testable');
    expect(res.premises![0].holds).toBe(false);
    expect(res.premises![0].evidence).toMatch(/^20 of 25 runs of magic, grpo, temp-0\.6, off-policy-nsgd4, const-entropy-small have held-out entropy τ = 1\.0, whole run \(entropy\/held_out\/t1\.0\) \(lacking: temp-0\.6 0 of 5\);/);
    expect(res.because).toMatch(/^not testable here: a premise is not shown/);
  });

  it('the run metric is the mean of val/entropy/t1.0 over the in-run evaluations after step 0, NaN where the records lack it', () => {
    const steps = Array.from({ length: 40 }, (_, i) => ({ step: i + 1, time_ms: i, 'actor/entropy': 0.05 }) as Row);
    const ev = (step: number, h?: number) => ({ step, 'val/avg@8/t1.0': 0.3, ...(h === undefined ? {} : { 'val/entropy/t1.0': h, 'val/entropy/t0.6': h / 3 }) }) as Row;
    const final = { record: {}, problems: 1, k: 1, seed: 1 };
    const at = (evals: Row[]) => computeRunMetrics({ preset: 'temp-0.6', seed: 1, metrics: { steps, evals }, start: null, final }).values[HELD_OUT_ENTROPY];
    expect(at([ev(0, 0.5), ev(20, 0.2), ev(40, 0.1)])).toBeCloseTo(0.15, 12); // step 0 (the base) is left out
    expect(at([ev(0), ev(20), ev(40)])).toBeNaN();
  });
});

describe('3. entropy-coef: the hold check after the controller\'s ramp window', () => {
  const small: EntropyRampConfig = { mode: 'adaptive', c0: 0, delta: 0.02, cMax: 0.5 };

  /**
   * A magic-like run of 200 steps: entropy starts at 0.12, falls below the 0.1 target at step 15,
   * dips to `dip` while c ramps (steps 16–35), then is held at 0.097–0.103. The logged coefficient
   * follows the controller: c_k rises by Δ after each below-target step.
   */
  function run(dip: number, cfg = small): Row[] {
    const rows: Row[] = [];
    let c = cfg.c0;
    for (let step = 1; step <= 200; step++) {
      const e = step < 15 ? 0.12 : step <= 35 ? dip : 0.1 + 0.003 * Math.sin(step);
      rows.push({ step, time_ms: step, 'actor/entropy': e, 'actor/entropy_coeff': c } as Row);
      c = Math.min(cfg.cMax, Math.max(0, c + (e < 0.1 ? cfg.delta : -cfg.delta)));
    }
    return rows;
  }
  const values = (steps: Row[], cfg?: EntropyRampConfig) =>
    computeRunMetrics({ preset: 'magic', seed: 1, metrics: { steps, evals: [] }, start: null, final: { record: {}, problems: 1, k: 1, seed: 1 }, entropyTarget: 0.1, entropyControl: cfg }).values;

  it('the window is ⌈(c_max − c₀)/Δ⌉ steps from the first below-target step, read from the config', () => {
    expect(rampSteps(small)).toBe(25);
    expect(rampSteps({ mode: 'adaptive', c0: 1, delta: 0.005, cMax: 2 })).toBe(200);
    expect(rampSteps({ mode: 'constant', c0: 0, delta: 0.02, cMax: 0.5 })).toBe(0);
    const v = values(run(0.06), small);
    expect(v['entropy/ramp_end']).toBe(15 + 25 - 1);
    expect(v['entropy/min10']).toBeCloseTo(0.06, 12);
    // Means clear of steps ≤ 39 start at step 49: the dip is out, the held level is in.
    expect(v['entropy/min10_after_ramp']).toBeGreaterThan(0.099);
    // Δ halved: the window doubles (50 steps), from the same first crossing.
    const slow = { ...small, delta: 0.01 };
    expect(values(run(0.06, slow), slow)['entropy/ramp_end']).toBe(15 + 50 - 1);
    // No controller config (or not adaptive): no ramp, the whole run's lowest mean.
    expect(values(run(0.06))['entropy/min10_after_ramp']).toBeCloseTo(0.06, 12);
  });

  it('a dip inside the ramp no longer contradicts "adaptive control holds the target"; one after it still does', () => {
    const f = getFinding('entropy-coef')!;
    const collapsed = { 'entropy/collapsed': 1, 'entropy/min10': 0.03, 'entropy/below_target_longest': 300 };
    const large = arm((_, i) => ({ 'entropy/second_half': 0.8 + 0.01 * i }));
    const magic = (late: (i: number) => Row[]) => arm((_, i) => values(late(i), small));
    const inRamp = magic((i) => run(0.06 + 0.002 * i));
    const res = evaluateFinding(f, data({ 'const-entropy-small': arm(() => collapsed), 'const-entropy-large': large, magic: inRamp }));
    expect(res.verdict).toBe('reproduced');
    expect(res.checks[1].describe).toMatch(/^magic: entropy, lowest 10-step mean after the ramp − 0\.9 × target 0\.1/);
    expect(res.checks.map((c) => c.verdict)).toEqual(['reproduced', 'reproduced']);
    // A dip that lasts past the window (to step 80) is read, and the check is contradicted.
    const lateDip = (i: number) => run(0.06 + 0.002 * i).map((r) => (r.step > 35 && r.step <= 80 ? { ...r, 'actor/entropy': 0.07 + 0.001 * i } : r));
    const late = evaluateFinding(f, data({ 'const-entropy-small': arm(() => collapsed), 'const-entropy-large': large, magic: magic(lateDip) }));
    expect(late.checks[1].verdict).toBe('contradicted');
    expect(late.checks[1].reads).toBe('below the level');
  });
});

describe('4. two checks: contradicted needs the same agreement as reproduced; each prints its direction', () => {
  const f = getFinding('entropy-control')!;
  const collapse = (c: boolean) => (c ? { 'entropy/collapsed': 1, 'entropy/min10': 0.03, 'entropy/below_target_longest': 300 } : { 'entropy/collapsed': 0, 'entropy/min10': 0.08, 'entropy/below_target_longest': 30 });
  const twin = arm((_, i) => ({ 'final/avg/t1.0': 0.43 + 0.01 * i, 'final/pass/t1.0': 0.56 + 0.01 * i, ...collapse(true) }));
  // avg@k: magic 3.8 points behind on every seed (±0.5); pass@k: ±3 points around 2 behind.
  const magic = (passNoise: number) =>
    arm((_, i) => ({ 'final/avg/t1.0': 0.43 + 0.01 * i - 0.038 + 0.005 * ((i % 2) * 2 - 1), 'final/pass/t1.0': 0.56 + 0.01 * i - 0.02 + passNoise * ((i % 2) * 2 - 1), ...collapse(false) }));

  it('avg@k contradicted while pass@k shows no direction: inconclusive, with each metric\'s direction and interval', () => {
    const res = evaluateFinding(f, data({ magic: magic(0.03), 'entropy-off': twin }));
    expect(res.checks.map((c) => c.verdict)).toEqual(['contradicted', 'inconclusive']);
    expect(res.verdict).toBe('inconclusive');
    expect(res.checks.map((c) => c.reads)).toEqual(['entropy-off higher', 'no direction: the interval spans 0']);
    expect(res.because).toBe(
      'magic − entropy-off in final avg@k τ = 1.0: contradicted; magic − entropy-off in final pass@k τ = 1.0: inconclusive → inconclusive (reproduced needs both checks reproduced, contradicted both checks contradicted)',
    );
    const report: FindingReport = {
      schema: REPORT_SCHEMA,
      finding: f,
      command: 'synthetic',
      complete: true,
      seeds: SEEDS,
      schedule: { steps: null, minutes: null, backend: 'wasm', evalProblems: 256, evalK: 8, stages: {}, stepsRun: { min: 400, max: 400 } },
      devices: [],
      result: res,
      measured: {},
      charts: [],
    };
    const md = findingReportMarkdown(report);
    expect(md).toMatch(/final avg@k τ = 1\.0, paired over 5 seeds \(Student-t 95%\); paper: > 0 → -\d\.\d \[-\d\.\d, -\d\.\d\]%, entropy-off higher → contradicted/);
    expect(md).toMatch(/final pass@k τ = 1\.0, paired over 5 seeds \(Student-t 95%\); paper: > 0 → -\d\.\d \[-\d\.\d, \+\d\.\d\]%, no direction: the interval spans 0 → inconclusive/);
    expect(md).toContain('Combined: magic − entropy-off in final avg@k τ = 1.0: contradicted;');
  });

  it('both contradicted: contradicted', () => {
    const res = evaluateFinding(f, data({ magic: magic(0.001), 'entropy-off': twin }));
    expect(res.checks.map((c) => c.verdict)).toEqual(['contradicted', 'contradicted']);
    expect(res.verdict).toBe('contradicted');
  });

  it('the same for every finding with two checks (clip-high: one against the paper, one without direction)', () => {
    const ch = getFinding('clip-high')!;
    const at = (x: number, noise: number) => arm((_, i) => ({ 'entropy/second_half': x + 0.001 * i + noise * ((i % 2) * 2 - 1) }));
    const res = evaluateFinding(ch, data({ 'off-policy-nsgd4': at(0.11, 0), 'clip-high-0.25': at(0.1, 0.0005), 'clip-high-0.28': at(0.1, 0.01) }));
    expect(res.checks.map((c) => c.verdict)).toEqual(['contradicted', 'inconclusive']);
    expect(res.verdict).toBe('inconclusive');
  });
});

describe('REPLICATION.md keeps a place for a finding being added', () => {
  it('lists a pending finding as "runs pending" until the registry has it', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { PENDING_FINDINGS, replicationMarkdown } = await import('../../src/sweep/report');
    const { FINDINGS } = await import('../../src/sweep/findings');
    const dir = mkdtempSync(join(tmpdir(), 'pending-'));
    try {
      const text = replicationMarkdown(dir, join(dir, 'REPLICATION.md'));
      for (const p of PENDING_FINDINGS) {
        const registered = FINDINGS.some((f) => f.id === p.id);
        expect(text.includes(`| [${p.title}](#${p.id}-small) | runs pending |`), p.id).toBe(!registered);
        if (!registered) expect(text).toContain(`**${p.id}: runs pending.**`);
      }
      expect(PENDING_FINDINGS.map((p) => p.id)).toContain('coverage');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
