import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { evalKey } from '../../src/rl/metrics';
import { buildRows, chartSpecs, columnKey, plannedStages, runsToDraw, stageBoundaries } from '../../src/ui/lib/chartdata';
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

  it('has a chart for each metric group the issue lists, with both eval temperatures', () => {
    const specs = chartSpecs(getPreset('magic'));
    expect(specs.map((s) => s.id)).toEqual(['entropy', 'entropy-coeff', 'reward', 'length', 'clipfrac', 'groups', 'grad-norm', 'throughput']);
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
