/**
 * The event labels ("α on", "α off", …) on a chart's canvas: drawn after the series, on a halo of
 * the background, so a series line never runs through a label's text; 14 px in projector view
 * (lineScale 2), where the page's 9 px cannot be read from the back of a room.
 */
import { describe, expect, it } from 'vitest';
import { drawChart, type DrawSeries } from '../../src/ui/components/CanvasSeries';
import { LABEL_HALO } from '../../src/ui/components/ChartParts';
import { placeEventMarks } from '../../src/ui/lib/eventlayout';
import type { RunEvent } from '../../src/ui/lib/explain';

/** A 2D context that records every call (with the stroke and fill style and font at the time) and does nothing else. */
function recorder() {
  const calls: { op: string; args: unknown[]; strokeStyle: unknown; fillStyle: unknown; font: unknown }[] = [];
  const state: Record<string, unknown> = { strokeStyle: '#000', fillStyle: '#000', font: '10px sans-serif' };
  const stack: Record<string, unknown>[] = [];
  const ctx = new Proxy(state, {
    get(_t, k: string) {
      if (k in state) return state[k];
      return (...args: unknown[]) => {
        if (k === 'save') stack.push({ ...state });
        if (k === 'restore') Object.assign(state, stack.pop());
        if (k === 'measureText') return { width: String(args[0]).length * 5 };
        calls.push({ op: k, args, strokeStyle: state.strokeStyle, fillStyle: state.fillStyle, font: state.font });
      };
    },
    set(_t, k: string, v) {
      state[k] = v;
      return true;
    },
  });
  return { ctx: ctx as unknown as CanvasRenderingContext2D, calls };
}

const SERIES: DrawSeries = { key: '0|entropy', kind: 'line', colour: '#2563eb', dash: '', width: 2, dot: false, right: false, connect: true };
const ROWS = Array.from({ length: 41 }, (_, i) => ({ step: i, '0|entropy': 0.5 + 0.4 * Math.sin(i / 3) }));
const FRAME = { x: [0, 40] as [number, number], left: [0, 1] as [number, number], right: [0, 1] as [number, number], log: false };
const PLOT = { x: 44, y: 6, width: 300, height: 160 };
const EVENTS: RunEvent[] = [
  { step: 12, kind: 'controller-on', label: 'α on', detail: 'entropy under its target' },
  { step: 13, kind: 'controller-off', label: 'α off', detail: 'entropy back over its target' },
];

describe('event labels on the chart canvas', () => {
  for (const [lineScale, px] of [
    [1, 9],
    [2, 14],
  ] as const)
    it(`lineScale ${lineScale}: each label is drawn after every series stroke, on a halo, at ${px} px`, () => {
      const { ctx, calls } = recorder();
      drawChart(ctx, ROWS, [SERIES], FRAME, PLOT, lineScale, EVENTS, 'sans-serif');
      const lastSeriesStroke = calls.map((c, i) => (c.op === 'stroke' && c.strokeStyle === SERIES.colour ? i : -1)).reduce((a, b) => Math.max(a, b), -1);
      expect(lastSeriesStroke, 'the series was drawn').toBeGreaterThan(0);
      const fills = calls.map((c, i) => ({ c, i })).filter(({ c }) => c.op === 'fillText');
      expect(fills.map(({ c }) => c.args[0])).toEqual(['α on', 'α off']);
      for (const { c, i } of fills) {
        expect(i, `"${c.args[0]}" over the series`).toBeGreaterThan(lastSeriesStroke);
        expect(c.font).toBe(`${px}px sans-serif`);
        const halo = calls[i - 1];
        expect(halo).toMatchObject({ op: 'strokeText', args: [c.args[0], c.args[1], c.args[2]], strokeStyle: LABEL_HALO });
      }
      // The event lines stay under the series.
      const eventLine = calls.findIndex((c) => c.op === 'stroke' && c.strokeStyle !== SERIES.colour);
      expect(eventLine).toBeGreaterThanOrEqual(0);
      expect(eventLine).toBeLessThan(lastSeriesStroke);
    });

  it("the layout spaces the projector's larger labels: rows further apart, labels wider", () => {
    const small = placeEventMarks(EVENTS, FRAME.x, PLOT, 9);
    const large = placeEventMarks(EVENTS, FRAME.x, PLOT, 14);
    expect(small.map((p) => p.label.row)).toEqual([0, 1]);
    expect(large.map((p) => p.label.row)).toEqual([0, 1]);
    expect(large[0].label.y - large[1].label.y).toBeGreaterThan(small[0].label.y - small[1].label.y);
    expect(large[0].label.y - large[1].label.y).toBeGreaterThanOrEqual(14);
  });
});
