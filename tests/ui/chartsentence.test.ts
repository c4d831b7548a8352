/** The line under a chart and the line in it read the same number (issue 28: step-exact series are not smoothed). */
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { STEP_METRIC_KEY_LIST } from '../../src/rl/metrics';
import type { StepRecord } from '../../src/rl/trainer-types';
import type { RunData } from '../../src/io/runfile';
import { buildRows, chartSpecs, columnKey, seriesForRun } from '../../src/ui/lib/chartdata';
import { explainCharts, runEvents } from '../../src/ui/lib/explain';

function rec(step: number, over: Record<string, number>): StepRecord {
  const r: Record<string, number> = { step, time_ms: step * 1000, stage: 0 };
  for (const k of STEP_METRIC_KEY_LIST) r[k] = 0;
  Object.assign(r, { 'actor/entropy': 0.2, 'actor/entropy_coeff': 0.8, 'actor/entropy_coeff_realized': 0, 'batch/groups': 16, 'batch/kept_groups': 9, 'batch/solve_all': 5, 'batch/solve_none': 2 }, over);
  return r as StepRecord;
}

const run = (steps: StepRecord[]): RunData => ({ id: 'a', name: 'a', preset: 'magic', createdAt: 0, config: getPreset('magic'), steps, evals: [] });
const SMOOTHING = 0.6;
const plotted = (r: RunData, chart: string, key: string) => {
  const spec = chartSpecs(r.config).find((s) => s.id === chart)!;
  const rows = buildRows([r], seriesForRun(spec, r), SMOOTHING);
  return (step: number) => rows.find((x) => x.step === step)![columnKey(0, key)];
};

describe('step-exact series', () => {
  // α is 0 for 9 steps, then the controller switches on at step 10 with c = 0.795: smoothed at 0.6, α would read ~0.3 there.
  const steps = Array.from({ length: 12 }, (_, i) => {
    const s = i + 1;
    return s < 10 ? rec(s, { 'actor/entropy_coeff': 0.8 - 0.0005 * s }) : rec(s, { 'actor/entropy': 0.09, 'actor/entropy_coeff': 0.795, 'actor/entropy_coeff_realized': 0.795 });
  });
  const r = run(steps);

  it('are marked in the chart specs: α, c, the group counts and η', () => {
    const exact = chartSpecs(r.config).flatMap((c) => c.series.filter((s) => s.exact).map((s) => s.key));
    expect(exact).toEqual(['actor/entropy_coeff', 'actor/entropy_coeff_realized', 'batch/solve_all', 'batch/solve_none', 'batch/kept_groups', 'actor/lr']);
    // Measured (noisy) series stay smoothed.
    expect(chartSpecs(r.config).find((c) => c.id === 'entropy')!.series[0].exact).toBeUndefined();
  });

  it('the entropy-coefficient chart plots, at the event step and the last step, the α its sentence reads, at smoothing 0.6', () => {
    const on = runEvents(r).find((e) => e.kind === 'controller-on')!;
    expect(on.step).toBe(10);
    const alphaInEvent = Number(/α = c = ([\d.]*\d)/.exec(on.detail)![1]);
    const alpha = plotted(r, 'entropy-coeff', 'actor/entropy_coeff_realized');
    expect(alpha(on.step)).toBe(alphaInEvent);
    expect(alphaInEvent).toBe(0.795);
    const sentence = explainCharts(r)['entropy-coeff'];
    const [, last, nowAlpha] = /at step (\d+) it is on \(α = ([\d.]*\d)\), and c = ([\d.]*\d)/.exec(sentence)!;
    expect(alpha(Number(last))).toBe(Number(nowAlpha));
    const c = Number(/and c = ([\d.]*\d)/.exec(sentence)![1]);
    expect(plotted(r, 'entropy-coeff', 'actor/entropy_coeff')(Number(last))).toBe(c);
  });

  it('group counts are drawn as counted: a step with all groups dropped plots kept = 0', () => {
    const g = run([rec(1, {}), rec(2, {}), rec(3, { 'batch/kept_groups': 0, 'batch/solve_all': 14, 'batch/solve_none': 2 })]);
    expect(explainCharts(g).groups).toMatch(/^Step 3: all of 16 groups dropped — 14 solved by every response, 2 by none/);
    expect(plotted(g, 'groups', 'batch/kept_groups')(3)).toBe(0);
    expect(plotted(g, 'groups', 'batch/solve_all')(3)).toBe(14);
  });

  it('a series not marked step-exact is still smoothed (the check can fail)', () => {
    const e = plotted(r, 'entropy', 'actor/entropy');
    expect(e(10)).toBeGreaterThan(0.09);
  });

  it('a long run downsampled to ~1 point per pixel still plots the event step with the α its sentence reads', () => {
    // 2000 steps, α off until step 1234: min/max downsampling (lib/downsample.ts) keeps the step where α jumps.
    const long = Array.from({ length: 2000 }, (_, i) => {
      const s = i + 1;
      return s < 1234 ? rec(s, { 'actor/entropy_coeff': 0.8 }) : rec(s, { 'actor/entropy': 0.09, 'actor/entropy_coeff': 0.795, 'actor/entropy_coeff_realized': 0.795 });
    });
    const lr = run(long);
    const on = runEvents(lr).find((e) => e.kind === 'controller-on')!;
    expect(on.step).toBe(1234);
    const spec = chartSpecs(lr.config).find((c) => c.id === 'entropy-coeff')!;
    const rows = buildRows([lr], seriesForRun(spec, lr), SMOOTHING, { maxPoints: 300 });
    expect(rows.length).toBeLessThan(400);
    const at = rows.find((x) => x.step === on.step);
    expect(at?.[columnKey(0, 'actor/entropy_coeff_realized')]).toBe(Number(/α = c = ([\d.]*\d)/.exec(on.detail)![1]));
  });
});
