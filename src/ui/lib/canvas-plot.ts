/**
 * The pure part of drawing a chart's series on a <canvas> over recharts' plot area
 * (components/CanvasSeries.tsx): axis domains computed from the rows, nice-rounded so that they
 * (and so recharts' frame: axes, ticks, grid) change rarely while points stream in, and the
 * data → pixel mapping recharts uses for those domains (linear, or log10).
 */

/** recharts' plot area (usePlotArea), in px of the chart's SVG. */
export interface PlotRect {
  x: number;
  y: number;
  width: number;
  height: number;
}
export type Domain = [number, number];
type Value = number | null | undefined | readonly number[];
export type Row = { step: number } & Record<string, unknown>;

const round = (v: number) => Number(v.toPrecision(12));

/** The mantissas of a round step: 1, 2 or 5 × 10^k; ONE_TWO_QUARTER_FIVE adds 2.5 (finer y ranges). */
export const ONE_TWO_FIVE = [1, 2, 5] as const;
export const ONE_TWO_QUARTER_FIVE = [1, 2, 2.5, 5] as const;
/** A mantissa × 10^k, the least not below x (x > 0). */
export function niceStep(x: number, mantissas: readonly number[] = ONE_TWO_FIVE): number {
  const p = 10 ** Math.floor(Math.log10(x));
  const m = x / p;
  return round((mantissas.find((k) => m <= k + 1e-9) ?? 10) * p);
}

/**
 * A linear domain holding [lo, hi] whose ends are multiples of a nice step, about `ticks` − 1
 * steps across: it changes only when the data crosses a multiple, not on every new point.
 */
export function niceDomain(lo: number, hi: number, ticks = 5): Domain {
  if (!(hi > lo)) {
    // One value (or none): a span around it, as recharts does for a flat line.
    const v = Number.isFinite(lo) ? lo : 0;
    return v === 0 ? [0, 1] : v > 0 ? [0, niceCeil(v)] : [-niceCeil(-v), 0];
  }
  const step = niceStep((hi - lo) / (ticks - 1));
  return [round(Math.floor(lo / step + 1e-9) * step), round(Math.ceil(hi / step - 1e-9) * step)];
}

const niceCeil = (v: number) => niceStep(v);

const MANTISSAS = [1, 2, 5, 10];
/** A log domain holding [lo, hi] (both > 0) with 1–2–5 ends: 0.02–5, 1–10. */
export function logDomain(lo: number, hi: number): Domain {
  if (!(lo > 0) || !(hi > 0)) return [1, 10];
  const down = (v: number) => {
    const p = 10 ** Math.floor(Math.log10(v));
    return round(p * ([...MANTISSAS].reverse().find((m) => m * p <= v * (1 + 1e-9)) ?? 1));
  };
  const up = (v: number) => {
    const p = 10 ** Math.floor(Math.log10(v));
    return round(p * (MANTISSAS.find((m) => m * p >= v * (1 - 1e-9)) ?? 10));
  };
  const a = down(lo);
  const b = up(hi);
  return b > a ? [a, b] : [a, round(a * 2)];
}

/** The x (step) domain: from the first step to a nice step past the last, so a new step rarely moves it. */
export function stepDomain(rows: readonly Row[]): Domain {
  if (rows.length === 0) return [0, 1];
  const lo = rows[0].step;
  const hi = rows[rows.length - 1].step;
  if (!(hi > lo)) return [lo, lo + 1];
  const step = niceStep((hi - lo) / 5);
  return [lo, round(lo + Math.ceil((hi - lo) / step - 1e-9) * step)];
}

/**
 * The x domain of steps lo..hi (null: no rows) when the longest drawn run's schedule is `planned`
 * steps (null: open-ended, or no run): 0 to the schedule's end from the run's start, so it does not
 * move while the run trains; past the schedule (a longer overlay or reference, or no schedule),
 * the rounded rule (stepDomain).
 */
export function scheduleDomain(lo: number | null, hi: number | null, planned: number | null): Domain {
  if (planned !== null && planned > 0 && (hi === null || hi <= planned)) return [0, planned];
  return lo === null || hi === null ? [0, 1] : stepDomain([{ step: lo }, { step: hi }]);
}

/** Headroom past the data when a y domain has to change: a quarter of the span (on a log axis, of its decades). */
const HEADROOM = 0.25;
/** Whether the domain d holds [lo, hi]. */
export const holds = (d: Domain | null, lo: number, hi: number): d is Domain => !!d && d[0] <= lo && hi <= d[1];

/**
 * The left y domain: `prev` (the one shown) while every value [lo, hi] still lies in it, so a new
 * point rarely changes it; otherwise nice-rounded around the data plus HEADROOM on the side(s) away
 * from 0 (and at least twice the old span) (linear: holding 0, as recharts' [0, 'auto']; log: 1–2–5 ends).
 */
export function heldDomain(prev: Domain | null, e: Domain | null, log: boolean): Domain {
  if (log) {
    if (!e || !(e[0] > 0)) return prev ?? [1, 10];
    if (holds(prev, e[0], e[1])) return prev;
    const f = Math.max(10 ** (HEADROOM * Math.log10(e[1] / e[0])), 1.25);
    return logDomain(e[0] / f, e[1] * f);
  }
  if (!e) return prev ?? [0, 1];
  const lo = Math.min(0, e[0]);
  const hi = Math.max(0, e[1]);
  if (holds(prev, lo, hi)) return prev;
  const pad = (hi - lo || Math.abs(hi) || 1) * HEADROOM;
  let [a, b] = [lo < 0 ? lo - pad : lo, hi > 0 ? hi + pad : hi];
  // Leaving a held domain, its span at least doubles on that side: a series that keeps growing
  // (a reward from 0.01 to 0.9) changes the frame a handful of times, not once per new high.
  if (prev && hi > prev[1]) b = Math.max(b, prev[1] + (prev[1] - prev[0]));
  if (prev && lo < prev[0]) a = Math.min(a, prev[0] - (prev[1] - prev[0]));
  return niceDomain(a, b);
}

/**
 * The least and greatest value of the columns `keys` over the rows ([lower, upper] bands
 * included). `stacks` (stacked areas): groups of keys whose values add up, the sum counted.
 */
export function extent(rows: readonly Row[], keys: readonly string[], stacks: readonly (readonly string[])[] = []): Domain | null {
  const range = new ValueRange();
  for (const r of rows) {
    for (const k of keys) range.see(r[k]);
    for (const s of stacks) {
      let sum = 0;
      for (const k of s) {
        const v = r[k];
        if (typeof v === 'number' && Number.isFinite(v)) range.see((sum += v));
      }
    }
  }
  return range.domain();
}

/** The least and greatest finite number seen (a band's [lo, hi] pair counts both ends); the live and findings charts' y ranges scan with it. */
export class ValueRange {
  private lo = Infinity;
  private hi = -Infinity;
  see(v: unknown): void {
    if (typeof v === 'number' && Number.isFinite(v)) {
      if (v < this.lo) this.lo = v;
      if (v > this.hi) this.hi = v;
    } else if (Array.isArray(v)) for (const x of v) this.see(x);
  }
  /** [lo, hi], or null when no finite number was seen. */
  domain(): Domain | null {
    return this.lo > this.hi ? null : [this.lo, this.hi];
  }
}

/** A value → px mapping for one axis of the plot (y grows downwards: the domain's max is the plot's top). */
export function axisMap(domain: Domain, from: number, to: number, log = false): (v: number) => number {
  const f = log ? Math.log10 : (v: number) => v;
  const a = f(domain[0]);
  const span = f(domain[1]) - a || 1;
  return (v) => from + ((f(v) - a) / span) * (to - from);
}
export const xMap = (domain: Domain, plot: PlotRect) => axisMap(domain, plot.x, plot.x + plot.width);
export const yMap = (domain: Domain, plot: PlotRect, log = false) => axisMap(domain, plot.y + plot.height, plot.y, log);

/**
 * A series as polylines of [x, y] px: a null, missing or non-finite value (or ≤ 0 on a log axis)
 * ends a polyline unless `connect` (recharts' connectNulls), which skips it.
 */
export function polylines(rows: readonly Row[], value: (r: Row) => Value, x: (v: number) => number, y: (v: number) => number, opts: { connect?: boolean; log?: boolean } = {}): [number, number][][] {
  const out: [number, number][][] = [];
  let cur: [number, number][] = [];
  for (const r of rows) {
    const v = value(r);
    if (typeof v !== 'number' || !Number.isFinite(v) || (opts.log && v <= 0)) {
      if (!opts.connect && cur.length) {
        out.push(cur);
        cur = [];
      }
      continue;
    }
    cur.push([x(r.step), y(v)]);
  }
  if (cur.length) out.push(cur);
  return out;
}
