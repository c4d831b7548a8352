import { describe, expect, it } from 'vitest';
import { ValueRange, axisMap, extent, heldDomain, logDomain, niceDomain, niceStep, ONE_TWO_QUARTER_FIVE, polylines, scheduleDomain, stepDomain, xMap, yMap, type PlotRect } from '../../src/ui/lib/canvas-plot';
import { framePlanned, plannedSteps } from '../../src/ui/components/useChartFrame';
import type { RunData } from '../../src/io/runfile';
import { chartFrame, drawList, RAW_OPACITY } from '../../src/ui/components/CanvasSeries';

describe('canvas-plot domains', () => {
  it('niceStep is 1, 2 or 5 × 10^k; with 2.5 among the mantissas, that too', () => {
    expect([0.03, 0.13, 0.3, 1, 4.1, 7, 230].map((x) => niceStep(x))).toEqual([0.05, 0.2, 0.5, 1, 5, 10, 500]);
    expect([0.022, 0.03, 0.23, 2, 2.4, 7, 230].map((x) => niceStep(x, ONE_TWO_QUARTER_FIVE))).toEqual([0.025, 0.05, 0.25, 2, 2.5, 10, 250]);
  });
  it('a linear domain holds the data, with nice ends, and does not move for every new point', () => {
    expect(niceDomain(0, 0.37)).toEqual([0, 0.4]);
    expect(niceDomain(-0.3, 1.7)).toEqual([-0.5, 2]);
    expect(niceDomain(0, 0)).toEqual([0, 1]);
    const seen = new Set([0.31, 0.33, 0.35, 0.37, 0.39].map((hi) => niceDomain(0, hi).join()));
    expect(seen.size).toBe(1);
  });
  it('a log domain has 1–2–5 ends around the data', () => {
    expect(logDomain(0.013, 0.9)).toEqual([0.01, 1]);
    expect(logDomain(0.3, 4)).toEqual([0.2, 5]);
    expect(logDomain(2, 2)).toEqual([2, 4]);
    expect(logDomain(0, 3)).toEqual([1, 10]);
  });
  it('the step domain starts at the first step and ends on a nice step past the last', () => {
    expect(stepDomain([])).toEqual([0, 1]);
    expect(stepDomain([{ step: 3 }])).toEqual([3, 4]);
    expect(stepDomain([{ step: 0 }, { step: 37 }])).toEqual([0, 40]);
    expect(stepDomain([{ step: 1 }, { step: 4 }])).toEqual([1, 4]);
    // 38, 39, 40 keep the frame of 37.
    expect(new Set([37, 38, 39, 40].map((s) => stepDomain([{ step: 0 }, { step: s }]).join())).size).toBe(1);
  });
  it('extent reads bands and stacked sums', () => {
    const rows = [{ step: 0, a: 1, b: 2, band: [0.5, 3] }, { step: 1, a: null, b: 4 }];
    expect(extent(rows, ['a', 'band'])).toEqual([0.5, 3]);
    expect(extent(rows, [], [['a', 'b']])).toEqual([1, 4]);
    expect(extent(rows, ['missing'])).toBeNull();
  });
  it('chartFrame: a linear left axis holds 0, a right-axis series is left out, a log one gets 1–2–5 ends', () => {
    const lines = [
      { key: '0|l', right: false, colour: '#000', dash: '', dot: false, stack: 's0' },
      { key: '0|r', right: true, colour: '#000', dash: '', dot: false, stack: 's0' },
    ];
    const rows = [{ step: 0, '0|l': 0.2, '0|r': 40 }, { step: 9, '0|l': 0.7, '0|r': 50 }];
    // Headroom of a quarter of the span: 0.7 → 0.875 → nice [0, 1]; log: 0.2–0.7 widened by (3.5)^¼ → 0.1–1.
    expect(chartFrame(rows, lines, [], false, false, false)).toEqual({ x: [0, 10], left: [0, 1], data: true });
    expect(chartFrame(rows, lines, [], false, true, false)).toEqual({ x: [0, 10], left: [0.1, 1], data: true });
    expect(chartFrame([], lines, [], false, false, false)).toEqual({ x: [0, 1], left: [0, 1], data: false });
    // A known schedule: x is 0 to its end from before the first point; a held y stays while the data fits.
    expect(chartFrame([], lines, [], false, false, false, 60)).toEqual({ x: [0, 60], left: [0, 1], data: false });
    expect(chartFrame(rows, lines, [], false, false, false, 60, [0, 2])).toEqual({ x: [0, 60], left: [0, 2], data: true });
  });
  it('the step axis spans a known schedule, and falls back to the rounded rule past it or without one', () => {
    expect(scheduleDomain(null, null, 80)).toEqual([0, 80]);
    expect(scheduleDomain(1, 1, 80)).toEqual([0, 80]);
    expect(scheduleDomain(0, 80, 80)).toEqual([0, 80]);
    // A longer overlay or reference (or a run past its schedule): the rounded end past the last step.
    expect(scheduleDomain(0, 93, 80)).toEqual(stepDomain([{ step: 0 }, { step: 93 }]));
    expect(scheduleDomain(0, 37, null)).toEqual([0, 40]);
    expect(scheduleDomain(null, null, null)).toEqual([0, 1]);
    // It does not move for any step of the run.
    expect(new Set(Array.from({ length: 80 }, (_, s) => scheduleDomain(0, s + 1, 80).join())).size).toBe(1);
  });
  it('plannedSteps: the longest fixed schedule of the runs, null when none has one', () => {
    const run = (steps: (number | null)[]) => ({ config: { stages: steps.map((n) => ({ steps: n })) } }) as unknown as RunData;
    expect(plannedSteps([])).toBeNull();
    expect(plannedSteps([run([30, 30]), run([100])])).toBe(100);
    expect(plannedSteps([run([30, null])])).toBeNull();
    expect(plannedSteps([run([30, null]), run([20])])).toBe(20);
  });
  it('ValueRange: the finite extremes, bands counted by both ends, null when none', () => {
    const r = new ValueRange();
    expect(r.domain()).toBeNull();
    for (const v of [NaN, null, undefined, Infinity, 'x']) r.see(v);
    expect(r.domain()).toBeNull();
    r.see(0.3);
    r.see([0.1, 0.7]);
    r.see(0.05);
    expect(r.domain()).toEqual([0.05, 0.7]);
  });
  it('framePlanned: the schedule while training; afterwards only when the data reached its end', () => {
    const run = (planned: number, last: number | null) => ({ config: { stages: [{ steps: planned / 2 }, { steps: planned / 2 }] }, steps: last === null ? [] : [{ step: 1 }, { step: last }] }) as unknown as RunData;
    expect(framePlanned([run(400, 37)], true)).toBe(400);
    expect(framePlanned([run(400, null)], true)).toBe(400);
    // A finished run keeps its frame: x stays [0, 400] (no axis redraw at its last step).
    expect(framePlanned([run(400, 400)], false)).toBe(400);
    expect(scheduleDomain(1, 400, framePlanned([run(400, 400)], false))).toEqual([0, 400]);
    // Stopped at 150, or an imported log that planned more than it has: the data.
    expect(framePlanned([run(400, 150)], false)).toBeNull();
    expect(framePlanned([run(400, null)], false)).toBeNull();
    // Overlays: the longest schedule, reached by its run.
    expect(framePlanned([run(100, 100), run(400, 400)], false)).toBe(400);
    expect(framePlanned([run(100, 100), run(400, 200)], false)).toBeNull();
  });
  it('a held y domain changes only when a value leaves it, by a generous step, a handful of times per run', () => {
    expect(heldDomain(null, null, false)).toEqual([0, 1]);
    expect(heldDomain([0, 2], [0.1, 1.9], false)).toEqual([0, 2]);
    expect(heldDomain([0, 2], [0.1, 2.1], false)).toEqual([0, 4]);
    expect(heldDomain(null, [-0.3, 0.2], false)).toEqual([-0.6, 0.4]);
    expect(heldDomain([0.1, 1], [0.2, 0.9], true)).toEqual([0.1, 1]);
    expect(heldDomain([0.1, 1], [0.05, 0.9], true)).toEqual([0.02, 2]);
    // A reward rising 0.01 → 0.9 over 200 steps (the worst case: it always leaves at the top), and an
    // entropy falling 1.6 → 0.15: each domain holds every value so far, and changes only a few times.
    for (const series of [Array.from({ length: 200 }, (_, i) => 0.01 + (0.89 * i) / 199), Array.from({ length: 200 }, (_, i) => 1.6 - (1.45 * i) / 199)]) {
      let d: [number, number] | null = null;
      let changes = 0;
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of series) {
        [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
        const next = heldDomain(d, [lo, hi], false);
        if (next !== d) changes += 1;
        expect(next[0] <= Math.min(0, lo) && hi <= next[1]).toBe(true);
        d = next;
      }
      expect(changes).toBeLessThanOrEqual(series[0] < 0.5 ? 7 : 1);
    }
  });
  it('drawList stacks each area on the series before it in its run', () => {
    const lines = ['a', 'b', 'c'].map((key, i) => ({ key, right: false, colour: '#000', dash: '', dot: false, stack: i < 2 ? 's0' : 's1' }));
    expect(drawList(lines, [], false, true).map((d) => d.below)).toEqual([[], ['a'], []]);
    expect(drawList(lines, [], false, false).every((d) => d.kind === 'line' && d.connect)).toBe(true);
  });
  it('a smoothed line has its measured values drawn faintly beneath it, and the axis holds them', () => {
    const lines = [{ key: 'a', right: false, colour: '#123456', dash: '', dot: false, stack: 's0', raw: true }, { key: 'b', right: false, colour: '#000', dash: '', dot: false, stack: 's0' }];
    const list = drawList(lines, [], false, false);
    expect(list.map((d) => d.key)).toEqual(['a|raw', 'a', 'b']);
    expect(list[0]).toMatchObject({ kind: 'line', colour: '#123456', strokeOpacity: RAW_OPACITY });
    expect(list[0].width).toBeLessThan(list[1].width);
    // Not under a stacked chart's areas.
    expect(drawList(lines, [], false, true).map((d) => d.key)).toEqual(['a', 'b']);
    // A raw spike beyond the smoothed line's range is inside the y axis.
    const rows = [
      { step: 1, a: 1, 'a|raw': 1, b: 0 },
      { step: 2, a: 1.2, 'a|raw': 3, b: 0 },
    ];
    expect(chartFrame(rows, lines, [], false, false, false).left[1]).toBeGreaterThanOrEqual(3);
  });
});

describe('canvas-plot mapping', () => {
  const plot: PlotRect = { x: 44, y: 6, width: 301, height: 137 };
  it("the domain's max maps to the plot's top edge, its min to the bottom, at odd sizes", () => {
    const y = yMap([0, 0.4], plot);
    expect(y(0.4)).toBe(6);
    expect(y(0)).toBe(143);
    expect(y(0.2)).toBeCloseTo(74.5, 9);
    const x = xMap([0, 40], plot);
    expect(x(0)).toBe(44);
    expect(x(40)).toBe(345);
  });
  it('a log axis maps decades evenly', () => {
    const y = yMap([0.01, 1], plot, true);
    expect(y(1)).toBeCloseTo(6, 9);
    expect(y(0.01)).toBeCloseTo(143, 9);
    expect(y(0.1)).toBeCloseTo(74.5, 9);
  });
  it('a degenerate domain does not divide by zero', () => {
    expect(Number.isFinite(axisMap([1, 1], 0, 10)(1))).toBe(true);
  });
  it('a null or NaN gap breaks the line; with connect it is skipped', () => {
    const rows = [{ step: 0, v: 1 }, { step: 1, v: null }, { step: 2, v: 2 }, { step: 3, v: NaN }, { step: 4, v: 3 }, { step: 5, v: 4 }];
    const id = (v: number) => v;
    const get = (r: Record<string, unknown>) => r.v as number | null;
    expect(polylines(rows, get, id, id)).toEqual([[[0, 1]], [[2, 2]], [[4, 3], [5, 4]]]);
    expect(polylines(rows, get, id, id, { connect: true })).toEqual([[[0, 1], [2, 2], [4, 3], [5, 4]]]);
    // A log axis cannot show 0 or less.
    expect(polylines([{ step: 0, v: 0 }, { step: 1, v: 1 }], get, id, id, { log: true })).toEqual([[[1, 1]]]);
  });
});
