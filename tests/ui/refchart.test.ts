/** Reference bands on the charts and the Findings view's charts and runs, from the real tiny reference. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { evalKey } from '../../src/rl/metrics';
import { buildRows, chartSpecs, columnKey } from '../../src/ui/lib/chartdata';
import { checkUnit, findingChartSpecs, findingRuns, fmtInterval, sameFindingRuns, referenceEntropyTarget, scheduleText } from '../../src/ui/lib/findingview';
import { REFERENCE_COLOURS, mergeReferenceRows, metricRange, refBandKey, refMeanKey, refSeedKey, referenceLegends, referenceSeries, refSeriesName } from '../../src/ui/lib/refchart';
import { validateReferenceFile } from '../../src/ui/lib/reference';
import { fakeRun } from './helpers';

const tiny = validateReferenceFile(JSON.parse(readFileSync('e2e/fixtures/reference/tiny-demo.json', 'utf8')), 'reference/tiny-demo.json');
const specs = chartSpecs(getPreset('magic-tiny'));
const spec = (id: string) => specs.find((s) => s.id === id)!;

describe('reference series of a chart', () => {
  it('one per preset × chart series the reference has a curve for, coloured per preset', () => {
    const entropy = referenceSeries(spec('entropy'), tiny);
    expect(entropy.map((s) => [s.preset, s.seriesKey, s.colour])).toEqual([
      ['magic-tiny', 'actor/entropy', REFERENCE_COLOURS[0]],
      ['grpo-tiny', 'actor/entropy', REFERENCE_COLOURS[1]],
    ]);
    expect(entropy[0].seeds).toEqual(['101', '102']);
    // Reward chart: train reward and held-out avg@k at both temperatures (not pass@k, which the reference has no curve for).
    const k = getPreset('magic-tiny').eval.k;
    const reward = referenceSeries(spec('reward'), tiny).filter((s) => s.preset === 'magic-tiny');
    expect(reward.map((s) => s.seriesKey)).toEqual(['critic/score/mean', evalKey('avg', k, 1), evalKey('avg', k, 0.6)]);
    // The truncation series is on the right axis.
    expect(referenceSeries(spec('length'), tiny).find((s) => s.seriesKey === 'response_length/clip_ratio')?.right).toBe(true);
    // Charts without a reference metric get none.
    expect(referenceSeries(spec('grad-norm'), tiny)).toEqual([]);
    expect(referenceSeries(spec('entropy'), null)).toEqual([]);
  });

  it('a legend entry per preset where a chart draws one series of it; per series, named and dashed, where it draws several', () => {
    expect(referenceLegends(referenceSeries(spec('entropy'), tiny), tiny).map((l) => l.label)).toEqual(['reference: magic-tiny (2 seeds)', 'reference: grpo-tiny (2 seeds)']);
    const k = getPreset('magic-tiny').eval.k;
    const reward = referenceLegends(referenceSeries(spec('reward'), tiny), tiny);
    expect(reward.filter((l) => l.preset === 'magic-tiny').map((l) => l.label)).toEqual([
      'reference: magic-tiny · train reward (2 seeds)',
      `reference: magic-tiny · avg@${k} τ=1 (2 seeds)`,
      `reference: magic-tiny · avg@${k} τ=0.6 (2 seeds)`,
    ]);
    // Each entry dashed as its line is drawn: the first series solid, the next dashed.
    expect(reward.filter((l) => l.preset === 'magic-tiny').map((l) => l.dash)).toEqual(referenceSeries(spec('reward'), tiny).filter((s) => s.preset === 'magic-tiny').map((s) => s.dash));
    expect(new Set(reward.map((l) => l.id)).size).toBe(reward.length);
  });

  it('a reference mean is named in the tooltip by its preset and its series', () => {
    const [mean] = referenceSeries(spec('reward'), tiny);
    expect(refSeriesName(mean)).toBe('reference magic-tiny · train reward');
  });
});

describe('rows with the reference merged in', () => {
  const series = referenceSeries(spec('entropy'), tiny);
  const curve = tiny.presets['magic-tiny'].curves['actor/entropy'];

  it('mean and [lower, upper] band on the reference steps, clipped to the metric range; live columns kept', () => {
    const live = buildRows([fakeRun('a', 6)], spec('entropy').series, 0);
    const rows = mergeReferenceRows(live, series);
    expect(rows.map((r) => r.step)).toEqual([1, 2, 3, 4, 5, 6]);
    const id = series[0].id;
    curve.steps.forEach((step, j) => {
      const r = rows.find((x) => x.step === step)!;
      expect(r[refMeanKey(id)]).toBe(curve.mean[j]);
      expect(r[refBandKey(id)]).toEqual([Math.max(0, curve.lower[j]!), curve.upper[j]]);
      expect(r[columnKey(0, 'actor/entropy')]).toBe(live.find((x) => x.step === step)![columnKey(0, 'actor/entropy')]);
    });
    // The real band over 2 seeds reaches below 0 at step 1 (t = 12.7): drawn from 0.
    expect(curve.lower[0]).toBeLessThan(0);
    expect((rows[0][refBandKey(id)] as number[])[0]).toBe(0);
    expect(rows[0][refSeedKey(id, '101')]).toBeUndefined();
    expect(live[0]).not.toHaveProperty(refMeanKey(id)); // the live rows are not mutated
  });

  it('per-seed columns when asked; with no run the rows are the reference alone', () => {
    const rows = mergeReferenceRows([], series, { seeds: true });
    expect(rows.map((r) => r.step)).toEqual(curve.steps);
    expect(rows.map((r) => r[refSeedKey(series[0].id, '102')])).toEqual(curve.seeds['102'].map((v) => Math.max(0, v!)));
  });

  it('on a log axis a band is drawn from the smallest positive value instead of 0', () => {
    const rows = mergeReferenceRows([], series, { log: true });
    const band = rows[0][refBandKey(series[0].id)] as number[];
    expect(band[0]).toBeGreaterThan(0);
    expect(band[1]).toBe(curve.upper[0]);
  });

  it('metric ranges', () => {
    expect(metricRange('val/avg@8/t1.0')).toEqual([0, 1]);
    expect(metricRange('response_length/clip_ratio')).toEqual([0, 1]);
    expect(metricRange('actor/entropy')).toEqual([0, Infinity]);
    expect(metricRange('response_length/mean')).toEqual([0, Infinity]);
  });

  it('no reference: the live rows unchanged', () => {
    const live = buildRows([fakeRun('a', 3)], spec('entropy').series, 0);
    expect(mergeReferenceRows(live, [])).toBe(live);
  });
});

describe('the Findings view', () => {
  it('charts: entropy, then held-out avg@k at τ = 1.0 and 0.6, keyed as the runs log them', () => {
    const s = findingChartSpecs(tiny, 2);
    expect(s.map((x) => x.id)).toEqual(['finding-entropy', 'finding-avg-t1', 'finding-avg-t0.6']);
    expect(s[1].series[0].key).toBe('val/avg@2/t1.0');
    expect(referenceSeries(s[2], tiny).map((r) => r.metric)).toEqual(['val/avg@2/t0.6', 'val/avg@2/t0.6']);
    expect(referenceEntropyTarget(tiny)).toBe(0.15);
  });

  it("finds the queue's runs by name (the newest of each), coloured as their preset", () => {
    const a = { ...fakeRun('a'), name: 'tiny-demo · grpo-tiny · seed 102' };
    const b = { ...fakeRun('b'), name: 'tiny-demo · magic-tiny · seed 101' };
    const c = { ...fakeRun('c'), name: 'tiny-demo · magic-tiny · seed 101' };
    const d = { ...fakeRun('d'), name: 'magic-tiny #1' };
    const found = findingRuns(tiny, { a, b, c, d }, ['a', 'b', 'c', 'd']);
    expect(found.map((f) => [f.run.id, f.preset, f.seed, f.colour])).toEqual([
      ['c', 'magic-tiny', 101, REFERENCE_COLOURS[0]],
      ['a', 'grpo-tiny', 102, REFERENCE_COLOURS[1]],
    ]);
    // Another run's step (a new runs record, these runs unchanged): the same array, so no chart redraws.
    const e = { ...a, id: 'e', name: 'something else' };
    expect(sameFindingRuns(found, findingRuns(tiny, { a, b, c, d, e }, ['a', 'b', 'c', 'd', 'e']))).toBe(found);
    // One of them got a step (a new run object): the new list.
    const a2 = { ...a, steps: [...a.steps] };
    const next = findingRuns(tiny, { a: a2, b, c, d }, ['a', 'b', 'c', 'd']);
    expect(sameFindingRuns(found, next)).toBe(next);
    expect(sameFindingRuns(found, found.slice(1))).not.toBe(found);
  });

  it('formats', () => {
    expect(fmtInterval(0.0513, 0.0102, 0.0924)).toBe('0.0513 [0.0102, 0.0924]');
    expect(fmtInterval(0.0513, -0.0102, null, { points: true })).toBe('5.13 [-1.02, –]');
    // One format in a row: no 4.00e-4 beside plain numbers, the same decimals for all three.
    expect(fmtInterval(0.0004, -0.002, 0.0034)).toBe('0.0004 [-0.0020, 0.0034]');
    expect(fmtInterval(59866.6, 1200.4, 118532.9)).toBe('59867 [1200, 118533]');
    expect(fmtInterval(0.0251, 0.004, 0.0462, { points: true })).toBe('2.51 [0.40, 4.62]');
  });

  it("a check's unit from its description: accuracy differences in points, entropy in nats", () => {
    expect(checkUnit('magic − temp-0.6 in final avg@k τ = 1.0, paired over 5 seeds (Student-t 95%); paper: > 0')).toEqual({ points: true, unit: 'points' });
    expect(checkUnit('magic − grpo in gain avg@k τ = 1.0, paired over 5 seeds')).toEqual({ points: true, unit: 'points' });
    expect(checkUnit('magic − temp-0.6 in entropy, second half, paired over 5 seeds')).toEqual({ points: false, unit: 'nats' });
    expect(checkUnit('single-stage − magic in tokens, paired over 5 seeds')).toEqual({ points: false, unit: 'tokens' });
    expect(checkUnit('Pearson r(entropy, whole run, final avg@k τ = 1.0) over 25 runs')).toEqual({ points: false, unit: '' });
    expect(scheduleText(tiny.schedule)).toBe('4 steps per run, on webgpu, precise evaluations 8 problems × 2 samples');
  });
});
