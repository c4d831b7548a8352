import { memo, useLayoutEffect, useRef } from 'react';
import { usePlotArea } from 'recharts';
import { axisMap, extent, heldDomain, polylines, scheduleDomain, type Domain, type PlotRect, type Row } from '../lib/canvas-plot';
import { rawKey } from '../lib/chartdata';
import { refBandKey, refMeanKey, refSeedKey, type RefSeries } from '../lib/refchart';
import type { RunEvent } from '../lib/explain';
import { drawEventLabels, drawEventLines } from './ChartParts';
import { eventLabelPx } from '../lib/eventlayout';

/**
 * What one drawn series looks like (the recharts Line / Area it replaces): a line, a stacked
 * area (its value added to `below`'s), or a reference band (a [lower, upper] column).
 */
export interface DrawSeries {
  key: string;
  kind: 'line' | 'area' | 'band';
  colour: string;
  /** SVG-style dash ('6 3'), '' for solid. */
  dash: string;
  width: number;
  strokeOpacity?: number;
  fillOpacity?: number;
  /** A dot at every point (held-out series, one point per evaluation). */
  dot: boolean;
  right: boolean;
  /** Skip missing values instead of breaking the line (recharts' connectNulls). */
  connect: boolean;
  /** Stacked areas: the keys stacked under this one in the same row. */
  below?: readonly string[];
}

export interface Frame {
  x: Domain;
  left: Domain;
  right: Domain;
  log: boolean;
}

/** Room past the plot's edges, so a dot on an edge is drawn whole (recharts does not clip its dots). */
export const PAD = 4;
const DOT_R = 2.5;

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const stackBase = (r: Row, below: readonly string[] = []) => below.reduce((s, k) => s + (num(r[k]) ?? 0), 0);

/**
 * Draws the series on a 2D context whose origin is the SVG's (px of the chart), and returns what
 * was drawn per series (points, dots), which the canvas carries as its data-drawn attribute.
 */
export function drawSeries(ctx: CanvasRenderingContext2D, rows: readonly Row[], series: readonly DrawSeries[], frame: Frame, plot: PlotRect, lineScale = 1) {
  const x = axisMap(frame.x, plot.x, plot.x + plot.width);
  const yl = axisMap(frame.left, plot.y + plot.height, plot.y, frame.log);
  const yr = axisMap(frame.right, plot.y + plot.height, plot.y);
  const drawn: { key: string; kind: DrawSeries['kind']; colour: string; points: number; dots: number; width: number }[] = [];
  for (const s of series) {
    const y = s.right ? yr : yl;
    const log = frame.log && !s.right;
    ctx.setLineDash(s.dash ? s.dash.split(/[ ,]+/).map(Number) : []);
    ctx.lineWidth = s.width * lineScale;
    ctx.strokeStyle = s.colour;
    ctx.fillStyle = s.colour;
    let points = 0;
    if (s.kind === 'band') {
      const lower = polylines(rows, (r) => (Array.isArray(r[s.key]) ? (r[s.key] as number[])[0] : null), x, y, { connect: true, log });
      const upper = polylines(rows, (r) => (Array.isArray(r[s.key]) ? (r[s.key] as number[])[1] : null), x, y, { connect: true, log });
      if (lower.length && upper.length && lower[0].length === upper[0].length) {
        ctx.beginPath();
        upper[0].forEach(([px, py], i) => (i ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
        for (let i = lower[0].length - 1; i >= 0; i--) ctx.lineTo(lower[0][i][0], lower[0][i][1]);
        ctx.closePath();
        ctx.globalAlpha = s.fillOpacity ?? 0.16;
        ctx.fill();
        points = upper[0].length;
      }
    } else {
      const value = s.kind === 'area' ? (r: Row) => { const v = num(r[s.key]); return v === null ? null : stackBase(r, s.below) + v; } : (r: Row) => num(r[s.key]);
      const parts = polylines(rows, value, x, y, { connect: s.connect, log });
      if (s.kind === 'area') {
        // Each run of points filled down to the stack under it.
        const base = polylines(rows, (r) => (num(r[s.key]) === null ? null : stackBase(r, s.below)), x, y, { connect: s.connect, log });
        ctx.globalAlpha = s.fillOpacity ?? 0.35;
        parts.forEach((p, i) => {
          ctx.beginPath();
          p.forEach(([px, py], j) => (j ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
          for (let j = base[i].length - 1; j >= 0; j--) ctx.lineTo(base[i][j][0], base[i][j][1]);
          ctx.closePath();
          ctx.fill();
        });
      }
      ctx.globalAlpha = s.strokeOpacity ?? 1;
      for (const p of parts) {
        points += p.length;
        if (p.length < 2) continue;
        ctx.beginPath();
        p.forEach(([px, py], j) => (j ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
        ctx.stroke();
      }
      if (s.dot) {
        ctx.setLineDash([]);
        ctx.lineWidth = 1;
        ctx.globalAlpha = 1;
        for (const p of parts)
          for (const [px, py] of p) {
            ctx.beginPath();
            ctx.arc(px, py, DOT_R, 0, 2 * Math.PI);
            ctx.fill();
            ctx.stroke();
          }
      }
    }
    ctx.globalAlpha = 1;
    drawn.push({ key: s.key, kind: s.kind, colour: s.colour, points, dots: s.dot ? points : 0, width: s.width * lineScale });
  }
  return drawn;
}

/**
 * A chart's canvas drawing: its event lines (ChartParts.tsx), its series over them, then the
 * event labels over the series on a halo, so no line runs through a label's text.
 */
export function drawChart(ctx: CanvasRenderingContext2D, rows: readonly Row[], series: readonly DrawSeries[], frame: Frame, plot: PlotRect, lineScale: number, events: readonly RunEvent[], font: string) {
  drawEventLines(ctx, events, frame.x, plot);
  const drawn = drawSeries(ctx, rows, series, frame, plot, lineScale);
  drawEventLabels(ctx, events, frame.x, plot, font, eventLabelPx(lineScale));
  return drawn;
}

/** Inside the recharts chart: reports its plot area whenever recharts lays the frame out again. */
export const PlotReporter = memo(function PlotReporter({ onPlot }: { onPlot(p: PlotRect): void }) {
  const p = usePlotArea();
  useLayoutEffect(() => {
    if (p) onPlot({ x: p.x, y: p.y, width: p.width, height: p.height });
  }, [p?.x, p?.y, p?.width, p?.height, onPlot]);
  return null;
});

interface Props {
  rows: readonly Row[];
  series: readonly DrawSeries[];
  frame: Frame;
  plot: PlotRect | null;
  /** Line widths × this (view=projector draws thicker lines). */
  lineScale: number;
  /** The active run's event marks on this chart (drawn under the series). */
  events: readonly RunEvent[];
}

/**
 * The series (and event marks) of one chart on a <canvas> laid exactly over recharts' plot area (PAD px larger on
 * each side), at devicePixelRatio: a new point redraws this canvas, not recharts' SVG.
 */
export const CanvasSeries = memo(function CanvasSeries({ rows, series, frame, plot, lineScale, events }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const draws = useRef(0);
  useLayoutEffect(() => {
    const c = canvas.current;
    if (!c || !plot) return;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round((plot.width + 2 * PAD) * dpr));
    const h = Math.max(1, Math.round((plot.height + 2 * PAD) * dpr));
    if (c.width !== w) c.width = w;
    if (c.height !== h) c.height = h;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    // The drawing's origin is the SVG's: the canvas starts PAD px before the plot.
    ctx.setTransform(dpr, 0, 0, dpr, (PAD - plot.x) * dpr, (PAD - plot.y) * dpr);
    ctx.lineJoin = 'round';
    const drawn = drawChart(ctx, rows, series, frame, plot, lineScale, events, events.length ? getComputedStyle(c).fontFamily : '');
    c.setAttribute('data-drawn', JSON.stringify(drawn));
    // The event marks drawn (e2e/lab.spec.ts: a new one redraws the canvas, not the frame).
    c.setAttribute('data-marks', events.map((e) => `${e.kind}@${e.step}`).join(' '));
    // How many times the canvas has drawn (e2e/lab.spec.ts compares it with the frame's re-renders).
    c.setAttribute('data-draws', String((draws.current += 1)));
  }, [rows, series, frame, plot, lineScale, events]);
  const style = plot ? { left: plot.x - PAD, top: plot.y - PAD, width: plot.width + 2 * PAD, height: plot.height + 2 * PAD } : { display: 'none' };
  return <canvas ref={canvas} className="chart-canvas" style={style} data-testid="chart-canvas" aria-hidden="true" />;
});

/** A chart's own series as MetricChart lists them. */
export interface LineSpec {
  key: string;
  right: boolean;
  colour: string;
  dash: string;
  dot: boolean;
  stack: string;
  /** A smoothed line: its measured values (column rawKey(key)) are drawn faintly beneath it. */
  raw?: boolean;
}

/** The measured values under a smoothed line: thin and faint, so the smoothed line reads first. */
export const RAW_OPACITY = 0.3;

/** What the canvas draws, in recharts' order: each reference's band, seeds and mean, then the chart's own lines (or stacked areas). */
export function drawList(lines: readonly LineSpec[], refs: readonly RefSeries[], seeds: boolean, stacked: boolean): DrawSeries[] {
  const out: DrawSeries[] = [];
  for (const r of refs) {
    out.push({ key: refBandKey(r.id), kind: 'band', colour: r.colour, dash: '', width: 0, fillOpacity: 0.16, dot: false, right: r.right, connect: true });
    if (seeds) for (const seed of r.seeds) out.push({ key: refSeedKey(r.id, seed), kind: 'line', colour: r.colour, dash: '', width: 0.75, strokeOpacity: 0.45, dot: false, right: r.right, connect: true });
    out.push({ key: refMeanKey(r.id), kind: 'line', colour: r.colour, dash: r.dash, width: 1.25, dot: false, right: r.right, connect: true });
  }
  if (!stacked) for (const l of lines) if (l.raw) out.push({ key: rawKey(l.key), kind: 'line', colour: l.colour, dash: '', width: 1, strokeOpacity: RAW_OPACITY, dot: false, right: l.right, connect: true });
  for (const l of lines) {
    if (stacked) {
      const below = lines.filter((o) => o.stack === l.stack).map((o) => o.key);
      out.push({ key: l.key, kind: 'area', colour: l.colour, dash: l.dash, width: 1, fillOpacity: 0.35, dot: false, right: false, connect: false, below: below.slice(0, below.indexOf(l.key)) });
    } else out.push({ key: l.key, kind: 'line', colour: l.colour, dash: l.dash, width: 1.5, dot: l.dot, right: l.right, connect: true });
  }
  return out;
}

/**
 * The x and left-y domains for the rows: x spans the schedule of `planned` steps (scheduleDomain);
 * the left y holds the data with headroom and stays `prevLeft` while the data fits in it (heldDomain).
 * `data`: whether the left domain came from values (an empty chart's default is not held).
 */
export function chartFrame(rows: readonly Row[], lines: readonly LineSpec[], refs: readonly RefSeries[], seeds: boolean, log: boolean, stacked: boolean, planned: number | null = null, prevLeft: Domain | null = null): { x: Domain; left: Domain; data: boolean } {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rows) {
    if (r.step < lo) lo = r.step;
    if (r.step > hi) hi = r.step;
  }
  // Reference curves alone (no run planning a schedule): 0 to their last step, as a live run of that schedule spans
  // 0 to its last step; so every chart of a reference shows the same steps as the live run it stands for.
  if (planned === null) for (const r of refs) planned = Math.max(planned ?? 0, r.curve.steps[r.curve.steps.length - 1] ?? 0, hi) || null;
  const x = rows.length ? scheduleDomain(lo, hi, planned) : scheduleDomain(null, null, planned);
  const leftRefs = refs.filter((r) => !r.right);
  const keys = [...(stacked ? [] : lines.filter((l) => !l.right).flatMap((l) => (l.raw ? [l.key, rawKey(l.key)] : [l.key]))), ...leftRefs.flatMap((r) => [refBandKey(r.id), refMeanKey(r.id), ...(seeds ? r.seeds.map((s) => refSeedKey(r.id, s)) : [])])];
  const stacks = stacked ? [...new Set(lines.map((l) => l.stack))].map((s) => lines.filter((l) => l.stack === s).map((l) => l.key)) : [];
  const e = extent(rows, keys, stacks);
  // data: the left domain came from values (not the empty default), so it may be held for the next rows.
  return { x, left: heldDomain(prevLeft, e, log), data: e !== null && (!log || e[0] > 0) };
}
