import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { evalKey } from '../../src/rl/metrics';
import { buildRows, chartSpecs, columnKey, rawKey, drawnSeries, MANY_RUNS, onlyZeros, extraMetricKeys, heldOutKeys, isLabKey, parseHeldOutKey, plannedStages, runsToDraw, seriesForRun, stageBoundaries, type ChartSpec } from '../../src/ui/lib/chartdata';
import type { EvalRecord } from '../../src/rl/trainer-types';
import { fakeRun, fakeStep } from './helpers';

describe('run overlay selection', () => {
  const runs = { a: fakeRun('a'), b: fakeRun('b'), c: fakeRun('c') };
  it('draws the active run first, then the overlay, without duplicates or missing runs', () => {
    expect(runsToDraw('b', ['a', 'b', 'zzz', 'c'], runs)).toEqual(['b', 'a', 'c']);
    expect(runsToDraw(null, ['c'], runs)).toEqual(['c']);
    expect(runsToDraw(null, [], runs)).toEqual([]);
    expect(runsToDraw('gone', [], runs)).toEqual([]);
  });
});

describe('chart rows', () => {
  it('one row per step, one column per drawn run (slot) × series, eval points on their step', () => {
    const a = fakeRun('a', 4);
    const b = fakeRun('b', 2);
    const spec = chartSpecs(a.config).find((s) => s.id === 'reward')!;
    const rows = buildRows([a, b], spec.series, 0);
    expect(rows.map((r) => r.step)).toEqual([1, 2, 3, 4]);
    expect(rows[0][columnKey(0, 'critic/score/mean')]).toBe(a.steps[0]['critic/score/mean']);
    expect(rows[3][columnKey(1, 'critic/score/mean')]).toBeUndefined();
    expect(rows[1][columnKey(0, evalKey('avg', 2, 1))]).toBe(0.25);
    expect(rows[0][columnKey(0, evalKey('avg', 2, 1))]).toBeUndefined();
  });

  it('smooths step series per run and drops non-positive values on a log axis', () => {
    const a = fakeRun('a', 3);
    a.steps[0]['actor/grad_norm'] = 0;
    const rows = buildRows([a], [{ key: 'actor/grad_norm', label: 'g', source: 'step' }], 0.5, { log: true });
    expect(rows[0][columnKey(0, 'actor/grad_norm')]).toBeNull();
    expect(rows[1][columnKey(0, 'actor/grad_norm')]).toBeCloseTo(a.steps[1]['actor/grad_norm'], 12);
  });

  it('keeps the measured values beside a smoothed series (drawn faintly beneath it), not beside an exact or unsmoothed one', () => {
    const a = fakeRun('a', 12);
    a.steps.forEach((s, i) => (s['actor/entropy'] = i === 7 ? 0.05 : 1));
    const series = [
      { key: 'actor/entropy', label: 'entropy', source: 'step' as const },
      { key: 'actor/entropy_coeff', label: 'c', source: 'step' as const, exact: true },
    ];
    const rows = buildRows([a], series, 0.6);
    const col = columnKey(0, 'actor/entropy');
    // The smoothed line never comes near the one low step; the raw column has it where it was measured.
    expect(Math.min(...rows.map((r) => r[col] as number))).toBeGreaterThan(0.3);
    expect(rows.map((r) => r[rawKey(col)])).toEqual(a.steps.map((s) => s['actor/entropy']));
    expect(rows[0]).not.toHaveProperty(rawKey(columnKey(0, 'actor/entropy_coeff')));
    expect(buildRows([a], series, 0)[0]).not.toHaveProperty(rawKey(col));
  });

  it('has a chart for each metric group the issue lists, with both eval temperatures', () => {
    const specs = chartSpecs(getPreset('magic'));
    expect(specs.map((s) => s.id)).toEqual(['entropy', 'entropy-coeff', 'reward', 'length', 'clipfrac', 'groups', 'grad-norm', 'lr', 'throughput', 'timing']);
    const keys = specs.find((s) => s.id === 'reward')!.series.map((s) => s.key);
    expect(keys).toEqual(expect.arrayContaining([evalKey('avg', 8, 1), evalKey('avg', 8, 0.6), evalKey('pass', 8, 1), evalKey('pass', 8, 0.6)]));
  });
});

describe('stages', () => {
  it('finds the steps where a new stage began', () => {
    const run = fakeRun('a', 0);
    run.steps = [fakeStep(1, 0), fakeStep(2, 0), fakeStep(3, 1), fakeStep(4, 1), fakeStep(5, 2)];
    expect(stageBoundaries(run)).toEqual([
      { step: 3, stage: 1 },
      { step: 5, stage: 2 },
    ]);
  });
  it('lays out the planned schedule', () => {
    expect(plannedStages(getPreset('magic-tiny'))).toEqual([
      { stage: 0, start: 0, length: 2, fixed: true },
      { stage: 1, start: 2, length: 2, fixed: true },
    ]);
  });
});

describe('held-out series keyed per run (#14: an overlaid avg@2 run under an avg@8 primary)', () => {
  const reward = (preset: string) => chartSpecs(getPreset(preset)).find((s) => s.id === 'reward')!;
  // A run whose records hold avg@2 / pass@2 at τ 1.0 only, whatever its config says (an imported run keeps the default config: k = 8).
  const imported = () => {
    const r = fakeRun('imp', 3, 'magic');
    r.evals = [{ step: 2, 'val/avg@2/t1.0': 0.4, 'val/pass@2/t1.0': 0.6 } as EvalRecord];
    return r;
  };

  it('parses held-out keys, and reads a run\'s own from its records, else its config', () => {
    expect(parseHeldOutKey('val/avg@8/t0.6')).toEqual({ key: 'val/avg@8/t0.6', kind: 'avg', k: 8, temperature: 0.6 });
    expect(parseHeldOutKey('val/maj@8/t1.0')).toBeNull();
    expect(parseHeldOutKey('val/response_length/mean/t1.0')).toBeNull();
    expect(heldOutKeys(imported()).map((h) => h.key)).toEqual(['val/avg@2/t1.0', 'val/pass@2/t1.0']);
    const fresh = fakeRun('f', 0, 'magic');
    fresh.evals = [];
    expect(heldOutKeys(fresh).map((h) => h.key)).toEqual([evalKey('avg', 8, 1), evalKey('pass', 8, 1), evalKey('avg', 8, 0.6), evalKey('pass', 8, 0.6)]);
    // Temperatures the config does not list come after its own, highest first; avg before pass.
    const mixed = fakeRun('m', 0, 'magic-tiny');
    mixed.evals = [{ step: 0, 'val/pass@2/t0.3': 1, 'val/avg@2/t0.3': 0.5, 'val/avg@2/t0.6': 0.1, 'val/avg@4/t0.8': 0.2, 'val/avg@2/t1.0': NaN } as EvalRecord];
    expect(heldOutKeys(mixed).map((h) => h.key)).toEqual(['val/avg@2/t0.6', 'val/avg@4/t0.8', 'val/avg@2/t0.3', 'val/pass@2/t0.3']);
  });

  it('a lab run\'s coverage curve (pass@1, @2, @4 beside pass@8, per family too) adds no held-out series and no foreign keys', () => {
    const r = fakeRun('c', 3, 'magic');
    r.evals = [{ step: 2, [evalKey('avg', 8, 1)]: 0.3, [evalKey('pass', 1, 1)]: 0.3, [evalKey('pass', 2, 1)]: 0.4, [evalKey('pass', 4, 1)]: 0.45, [evalKey('pass', 8, 1)]: 0.5, 'val/multiply/pass@1/t1.0': 0.1, 'val/multiply/pass@8/t1.0': 0.2 } as EvalRecord];
    expect(heldOutKeys(r).map((h) => h.key)).toEqual([evalKey('avg', 8, 1), evalKey('pass', 8, 1)]);
    expect(isLabKey('val/multiply/pass@8/t1.0', 'eval')).toBe(true);
    expect(extraMetricKeys([r], chartSpecs(getPreset('magic')))).toEqual([]);
  });

  it('a lab evaluation\'s sample entropy (val/entropy/t…) is the lab\'s own key: no "More metrics" chart for a lab run alone', () => {
    const r = fakeRun('e', 3, 'magic');
    r.evals = [{ step: 2, [evalKey('avg', 8, 1)]: 0.3, [evalKey('pass', 8, 1)]: 0.5, 'val/entropy/t1.0': 0.17, 'val/entropy/t0.6': 0.09 } as EvalRecord];
    expect(isLabKey('val/entropy/t1.0', 'eval')).toBe(true);
    expect(isLabKey('val/entropy/mean', 'eval')).toBe(false);
    expect(extraMetricKeys([r], chartSpecs(getPreset('magic')))).toEqual([]);
  });

  it('the reward chart draws each run\'s own held-out series, labelled with its k and temperatures', () => {
    const spec = reward('magic'); // avg@8 / pass@8 at τ 1.0 and 0.6
    const primary = fakeRun('p', 3, 'magic');
    primary.evals = [{ step: 2, [evalKey('avg', 8, 1)]: 0.3, [evalKey('pass', 8, 1)]: 0.5, [evalKey('avg', 8, 0.6)]: 0.2, [evalKey('pass', 8, 0.6)]: 0.4 } as EvalRecord];
    expect(seriesForRun(spec, primary)).toEqual(spec.series);
    const imp = imported();
    const own = seriesForRun(spec, imp);
    expect(own.map((s) => [s.key, s.label])).toEqual([
      ['critic/score/mean', 'train reward'],
      ['val/avg@2/t1.0', 'avg@2 τ=1'],
      ['val/pass@2/t1.0', 'pass@2 τ=1'],
    ]);
    // Its column holds its points (slot 1), none under the primary's avg@8 keys.
    const rows = buildRows([primary, imp], (run) => seriesForRun(spec, run), 0);
    const at2 = rows.find((r) => r.step === 2)!;
    expect(at2[columnKey(1, 'val/avg@2/t1.0')]).toBe(0.4);
    expect(at2[columnKey(1, evalKey('avg', 8, 1))]).toBeUndefined();
    expect(at2[columnKey(0, evalKey('avg', 8, 1))]).toBe(0.3);
    // Drawn, so not offered again as "More metrics".
    expect(extraMetricKeys([primary, imp], chartSpecs(primary.config)).some((k) => k.key.startsWith('val/avg@2'))).toBe(false);
  });

  it('a chart of one temperature draws each run\'s series at that temperature, whatever its k', () => {
    const spec: ChartSpec = { id: 'avg-t1', title: 't', help: '', series: [{ key: evalKey('avg', 8, 1), label: 'avg@8 τ=1', source: 'eval' }] };
    expect(seriesForRun(spec, imported()).map((s) => s.key)).toEqual(['val/avg@2/t1.0']);
    const other = fakeRun('o', 1, 'magic');
    other.evals = [{ step: 1, 'val/avg@4/t0.6': 0.5 } as EvalRecord];
    // No series at τ 1.0: the spec's (empty) line, as before.
    expect(seriesForRun(spec, other).map((s) => s.key)).toEqual([evalKey('avg', 8, 1)]);
    expect(seriesForRun(spec, null)).toBe(spec.series);
  });
});

describe('the 0–1 axis of a chart with nothing but zeros', () => {
  it('reads whole column keys, so a small non-zero value (η = 6e-4) gets its own axis', () => {
    const run = fakeRun('a', 3);
    run.steps.forEach((s) => ((s as Record<string, number>)['actor/lr'] = 6e-4));
    const rows = buildRows([run], [{ key: 'actor/lr', label: 'η', source: 'step' }], 0);
    expect(onlyZeros(rows, [columnKey(0, 'actor/lr')])).toBe(false);
  });
  it('is true for all-zero or absent columns and for no rows', () => {
    const rows = [{ step: 1, 'r0|actor/pg_clipfrac': 0, 'r0|x': null }, { step: 2 }];
    expect(onlyZeros(rows, ['r0|actor/pg_clipfrac', 'r0|x', 'r1|y'])).toBe(true);
    expect(onlyZeros([], ['r0|a'])).toBe(true);
    expect(onlyZeros([{ step: 1, 'r0|a': 0, 'r1|a': 2 }], ['r0|a', 'r1|a'])).toBe(false);
  });
});

describe('many overlaid runs: one series per run', () => {
  const a = fakeRun('a', 4);
  const spec = (id: string) => chartSpecs(a.config).find((s) => s.id === id)!;
  it('below three runs every series draws', () => {
    expect(drawnSeries(spec('reward'), a, 2)).toEqual(seriesForRun(spec('reward'), a));
    expect(drawnSeries(spec('groups'), a, 1)).toHaveLength(3);
  });
  it('from three runs: the reward chart draws train reward, or held-out avg@k τ=1.0 when chosen', () => {
    expect(drawnSeries(spec('reward'), a, 3).map((s) => s.key)).toEqual(['critic/score/mean']);
    expect(drawnSeries(spec('reward'), a, 3, 'heldout').map((s) => s.key)).toEqual([evalKey('avg', 2, 1)]);
    expect(MANY_RUNS).toBe(3);
  });
  it("other charts draw their main series (α on the coefficient chart), the step-time stack stays whole", () => {
    expect(drawnSeries(spec('entropy-coeff'), a, 4).map((s) => s.key)).toEqual(['actor/entropy_coeff_realized']);
    expect(drawnSeries(spec('groups'), a, 3).map((s) => s.key)).toEqual(['batch/solve_all']);
    expect(drawnSeries(spec('timing'), a, 3)).toEqual(spec('timing').series);
  });
  it('rows hold only the drawn columns', () => {
    const rows = buildRows([a, fakeRun('b', 4), fakeRun('c', 4)], (run) => drawnSeries(spec('reward'), run, 3, 'heldout'), 0);
    const cols = new Set(rows.flatMap((r) => Object.keys(r)));
    expect([...cols].sort()).toEqual(['r0|val/avg@2/t1.0', 'r1|val/avg@2/t1.0', 'r2|val/avg@2/t1.0', 'step']);
  });
});
