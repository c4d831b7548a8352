/**
 * Reference runs on the page's charts: which reference curves a chart draws (one per preset ×
 * chart series the reference has a curve for), and their columns merged into the chart's rows —
 * the mean, the 95% band as a [lower, upper] pair (one recharts Area per band, drawn as one
 * path), and optionally every seed's curve. Pure.
 */
import type { ChartRow, ChartSpec } from './chartdata';
import { chartKeyForReferenceMetric, referenceLegend, type ReferenceCurve, type ReferenceFile } from './reference';

/** Reference preset colours: distinct from the live runs' SERIES_COLOURS. */
export const REFERENCE_COLOURS = ['#0d9488', '#c026d3', '#65a30d', '#0284c7', '#a16207', '#e11d48', '#4f46e5', '#78716c'];

export interface RefSeries {
  /** Column prefix: `ref<preset index>|<chart series key>`. */
  id: string;
  preset: string;
  /** The chart series it draws on (its axis). */
  seriesKey: string;
  right: boolean;
  colour: string;
  /** Dash of the mean line (by the chart series it draws on, as live runs' series). */
  dash: string;
  /** The reference metric it came from (e.g. val/avg@8/t1.0 drawn on the page's val/avg@2/t1.0). */
  metric: string;
  curve: ReferenceCurve;
  /** Seeds with a curve, in order. */
  seeds: string[];
}

export interface RefLegend {
  preset: string;
  colour: string;
  label: string;
}

const DASHES = ['', '6 3', '2 2', '8 3 2 3', '1 3'];

export const refMeanKey = (id: string) => `${id}|mean`;
export const refBandKey = (id: string) => `${id}|band`;
export const refSeedKey = (id: string, seed: string) => `${id}|s${seed}`;

/** The reference curves `spec` draws from `ref` (presets in the file's order, series in the chart's). */
export function referenceSeries(spec: ChartSpec, ref: ReferenceFile | null, colours: readonly string[] = REFERENCE_COLOURS): RefSeries[] {
  if (!ref) return [];
  const keys = spec.series.map((s) => s.key);
  const out: RefSeries[] = [];
  Object.entries(ref.presets).forEach(([preset, p], pi) => {
    const bySeries = new Map<string, { metric: string; curve: ReferenceCurve }>();
    for (const [metric, curve] of Object.entries(p.curves)) {
      const key = chartKeyForReferenceMetric(metric, keys);
      if (key !== null && !bySeries.has(key) && curve.steps.length) bySeries.set(key, { metric, curve });
    }
    spec.series.forEach((s, si) => {
      const hit = bySeries.get(s.key);
      if (!hit) return;
      out.push({
        id: `ref${pi}|${s.key}`,
        preset,
        seriesKey: s.key,
        right: !!s.right,
        colour: colours[pi % colours.length],
        dash: DASHES[si % DASHES.length],
        metric: hit.metric,
        curve: hit.curve,
        seeds: Object.keys(hit.curve.seeds),
      });
    });
  });
  return out;
}

/** One legend entry per preset drawn: "reference: <preset> (n seeds)". */
export function referenceLegends(series: readonly RefSeries[], ref: ReferenceFile | null): RefLegend[] {
  if (!ref) return [];
  const seen = new Set<string>();
  const out: RefLegend[] = [];
  for (const s of series) {
    if (seen.has(s.preset)) continue;
    seen.add(s.preset);
    out.push({ preset: s.preset, colour: s.colour, label: referenceLegend(s.preset, ref.presets[s.preset].seeds.length) });
  }
  return out;
}

/**
 * The range a metric can take: a band (mean ± t·sd/√n) over few seeds can reach past it (an
 * accuracy below 0), and is drawn clipped to it. Every curve metric of a sweep is ≥ 0; accuracies,
 * rewards and fractions are ≤ 1.
 */
export function metricRange(metric: string): [number, number] {
  if (/^val\/(avg|pass)@/.test(metric) || metric === 'critic/score/mean' || metric === 'response_length/clip_ratio') return [0, 1];
  return [0, Infinity];
}

export type RefRow = { step: number } & Record<string, number | null | [number, number]>;

/**
 * `rows` (a chart's live rows, sorted by step) with the reference columns added: rows at the
 * reference's steps are merged in (a step both have is one row). On a log axis, non-positive
 * values are dropped, and a band whose lower end is not positive starts at the smallest positive
 * value of the chart's reference curves instead.
 */
export function mergeReferenceRows(rows: readonly ChartRow[], series: readonly RefSeries[], opts: { log?: boolean; seeds?: boolean } = {}): RefRow[] {
  if (series.length === 0) return rows as RefRow[];
  const byStep = new Map<number, RefRow>();
  for (const r of rows) byStep.set(r.step, { ...r } as RefRow);
  const row = (step: number) => {
    let r = byStep.get(step);
    if (!r) byStep.set(step, (r = { step } as RefRow));
    return r;
  };
  let floor = Infinity;
  if (opts.log) for (const s of series) for (const v of [...s.curve.mean, ...s.curve.lower]) if (v !== null && v > 0 && v < floor) floor = v;
  const ok = (v: number | null): v is number => v !== null && Number.isFinite(v) && (!opts.log || v > 0);
  for (const s of series) {
    const [lo, hi] = metricRange(s.metric);
    const clip = (v: number) => Math.min(hi, Math.max(lo, v));
    const { steps, mean, lower, upper } = s.curve;
    steps.forEach((step, j) => {
      const r = row(step);
      const m = mean[j];
      r[refMeanKey(s.id)] = ok(m) ? clip(m) : null;
      const l = lower[j];
      const u = upper[j];
      if (l !== null && u !== null) {
        let a = clip(l);
        const b = clip(u);
        if (opts.log && a <= 0) a = floor;
        r[refBandKey(s.id)] = ok(a) && ok(b) && a <= b ? [a, b] : null;
      } else r[refBandKey(s.id)] = null;
      if (opts.seeds) for (const seed of s.seeds) r[refSeedKey(s.id, seed)] = ok(s.curve.seeds[seed][j]) ? clip(s.curve.seeds[seed][j] as number) : null;
    });
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}
