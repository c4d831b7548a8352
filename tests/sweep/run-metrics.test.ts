/**
 * The collapse metrics of one run on synthetic entropy curves: the lowest 10-step mean, the
 * longest below-target stretch and the collapse criterion (COLLAPSE_STEPS), at its edges.
 */
import { describe, expect, it } from 'vitest';
import { collapseStats, COLLAPSE_STEPS, computeRunMetrics, ENTROPY_MEAN_STEPS, movingMeans, STAGE_ENTRY_STEPS, type Row } from '../../src/sweep/run-metrics';

const rows = (entropy: number[]): Row[] => entropy.map((e, i) => ({ step: i + 1, 'actor/entropy': e, time_ms: i }) as Row);
/**
 * `high` steps at 1, then `low` steps at 0, then `after` steps at 1. Against the target 0.35 a
 * 10-step window is below once it holds 7 zeros (mean 0.3; 6 zeros: 0.4), so a block of L ≥ 10
 * zeros followed by ≥ 3 ones gives L − 3 below-target means, starting at its 7th zero.
 */
const curve = (high: number, low: number, after = 0) => [...Array(high).fill(1), ...Array(low).fill(0), ...Array(after).fill(1)];
const T = 0.35;

describe('collapse metrics', () => {
  it('the criterion is 50 steps of the 10-step mean', () => {
    expect(COLLAPSE_STEPS).toBe(50);
    expect(ENTROPY_MEAN_STEPS).toBe(10);
  });

  it('moving means start at the 10th step and skip NaN steps', () => {
    const m = movingMeans([...Array(9).fill(1), 2, NaN, 2]);
    expect(m.slice(0, 9).every(Number.isNaN)).toBe(true);
    expect(m[9]).toBeCloseTo(1.1);
    expect(m[10]).toBeCloseTo(10 / 9); // the window of steps 2–11 holds 8 ones, a 2 and a NaN
    expect(m[11]).toBeCloseTo(11 / 9);
    expect(movingMeans(Array(12).fill(NaN)).every(Number.isNaN)).toBe(true);
  });

  it('a flat curve above the target never collapses; its lowest mean is the curve', () => {
    const s = collapseStats(rows(Array(100).fill(0.2)), 0.1);
    expect(s).toEqual({ min10: expect.closeTo(0.2, 12), longestBelow: 0, collapsed: 0, collapseStep: NaN });
  });

  it('exactly 50 steps below collapses; 49 does not', () => {
    const fifty = collapseStats(rows(curve(20, COLLAPSE_STEPS + 3, 30)), T);
    expect(fifty.longestBelow).toBe(COLLAPSE_STEPS);
    expect(fifty.collapsed).toBe(1);
    expect(fifty.collapseStep).toBe(20 + 7);
    const fortyNine = collapseStats(rows(curve(20, COLLAPSE_STEPS + 2, 30)), T);
    expect(fortyNine.longestBelow).toBe(COLLAPSE_STEPS - 1);
    expect(fortyNine.collapsed).toBe(0);
    expect(fortyNine.collapseStep).toBeNaN();
  });

  it('a stretch broken in two does not add up; the longer counts', () => {
    const s = collapseStats(rows([...curve(10, 40, 20), ...Array(40).fill(0)]), T);
    expect(s.longestBelow).toBe(40 - 3); // the first block (the second, at the end, gives 40 − 6)
    expect(s.collapsed).toBe(0);
    expect(s.min10).toBe(0);
  });

  it('NaN steps inside a collapse do not break it; ten NaN steps in a row do', () => {
    const withHoles = curve(10, 100).map((e, i) => (i % 7 === 3 ? NaN : e));
    expect(collapseStats(rows(withHoles), T).collapsed).toBe(1);
    // 40 zeros, 10 NaN, 40 zeros: only the window of the 10 NaN steps is undefined, and it breaks the stretch.
    const s = collapseStats(rows([...Array(40).fill(0), ...Array(10).fill(NaN), ...Array(40).fill(0)]), T);
    expect(s.longestBelow).toBe(31 + 9); // steps 10–49; step 50's window is all NaN
    expect(s.collapsed).toBe(0);
    expect(collapseStats(rows([...Array(40).fill(0), ...Array(9).fill(NaN), ...Array(40).fill(0)]), T).collapsed).toBe(1);
  });

  it('a run shorter than 10 steps has no 10-step mean; one shorter than 50 cannot collapse', () => {
    expect(collapseStats(rows(Array(9).fill(0.01)), 0.1)).toEqual({ min10: NaN, longestBelow: NaN, collapsed: NaN, collapseStep: NaN });
    const short = collapseStats(rows(Array(40).fill(0.01)), 0.1);
    expect(short.longestBelow).toBe(31);
    expect(short.collapsed).toBe(0);
    expect(short.min10).toBeCloseTo(0.01);
  });

  it('no target: the lowest mean only', () => {
    const s = collapseStats(rows(Array(100).fill(0.01)), NaN);
    expect(s.min10).toBeCloseTo(0.01);
    expect(s.collapsed).toBeNaN();
  });

  it('computeRunMetrics reports them from the run\'s target', () => {
    const final = { record: {}, problems: 1, k: 1, seed: 1 };
    const m = computeRunMetrics({ preset: 'p', seed: 1, metrics: { steps: rows(curve(20, 80)), evals: [] }, start: null, final, entropyTarget: T });
    expect(m.values['entropy/collapsed']).toBe(1);
    expect(m.values['entropy/below_target_longest']).toBe(80 - 6);
    expect(m.values['entropy/collapse_step']).toBe(27);
    expect(m.values['entropy/min10']).toBe(0);
  });
});

describe('truncation and length per stage', () => {
  /** Stage 1: 14 steps; stage 2: 7 steps. Clip ratio and length are functions of the step, so every mean is known. */
  const staged = (): Row[] =>
    Array.from({ length: 21 }, (_, i) => {
      const step = i + 1;
      const stage = step <= 14 ? 0 : 1;
      return { step, stage, time_ms: step, 'actor/entropy': 0.2, 'response_length/clip_ratio': stage === 0 ? step / 100 : 0.5 / step, 'response_length/mean': 10 * step } as Row;
    });
  const values = (steps: Row[]) => computeRunMetrics({ preset: 'magic', seed: 1, metrics: { steps, evals: [] }, start: null, final: { record: {}, problems: 1, k: 1, seed: 0 } }).values;
  const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

  it('each stage its own steps; its first 10 steps apart; a stage the run lacks is NaN', () => {
    expect(STAGE_ENTRY_STEPS).toBe(10);
    const v = values(staged());
    expect(v['stage1/truncation']).toBeCloseTo(meanOf(range(1, 14).map((s) => s / 100)), 12);
    expect(v['stage1/truncation_entry']).toBeCloseTo(meanOf(range(1, 10).map((s) => s / 100)), 12);
    expect(v['stage1/length']).toBeCloseTo(meanOf(range(1, 14).map((s) => 10 * s)), 12);
    expect(v['stage2/truncation']).toBeCloseTo(meanOf(range(15, 21).map((s) => 0.5 / s)), 12); // fewer than 10 steps: entry = whole stage
    expect(v['stage2/truncation_entry']).toBeCloseTo(v['stage2/truncation'], 12);
    expect(v['stage2/length']).toBeCloseTo(meanOf(range(15, 21).map((s) => 10 * s)), 12);
    for (const n of [3, 4]) expect(Number.isNaN(v[`stage${n}/truncation`]) && Number.isNaN(v[`stage${n}/length`])).toBe(true);
  });

  it('a NaN clip ratio is skipped, not averaged in', () => {
    const steps = staged();
    steps[0]['response_length/clip_ratio'] = NaN;
    expect(values(steps)['stage1/truncation']).toBeCloseTo(meanOf(range(2, 14).map((s) => s / 100)), 12);
  });
});
