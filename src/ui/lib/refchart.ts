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
  /** That series' label (`train reward`, `avg@8 τ=1.0`): names the curve in the tooltip and, where a preset draws several, the legend. */
  seriesLabel: string;
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
  /** The legend entry's key: the preset, or the preset and series where it draws several. */
  id: string;
  preset: string;
  colour: string;
  /** The mean line's dash (that of the series it draws on). */
  dash: string;
  label: string;
}

/** A reference mean's name in a tooltip: its preset and the series it draws (`reference magic · train reward`). */
export const refSeriesName = (r: Pick<RefSeries, 'preset' | 'seriesLabel'>) => `reference ${r.preset} · ${r.seriesLabel}`;

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
        seriesLabel: s.label,
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

/**
 * The legend entries: one per preset, "reference: <preset> (n seeds)", where the chart draws one series of it (the
 * chart's title names it); where it draws several (train reward and held-out accuracy), one per series, named and
 * dashed as drawn: "reference: <preset> · <series> (n seeds)".
 */
export function referenceLegends(series: readonly RefSeries[], ref: ReferenceFile | null): RefLegend[] {
  if (!ref) return [];
  const perPreset = new Map<string, number>();
  for (const s of series) perPreset.set(s.preset, (perPreset.get(s.preset) ?? 0) + 1);
  const seen = new Set<string>();
  const out: RefLegend[] = [];
  for (const s of series) {
    const several = perPreset.get(s.preset)! > 1;
    const id = several ? s.id : s.preset;
    if (seen.has(id)) continue;
    seen.add(id);
    const seeds = ref.presets[s.preset].seeds.length;
    const label = several ? referenceLegend(`${s.preset} · ${s.seriesLabel}`, seeds) : referenceLegend(s.preset, seeds);
    out.push({ id, preset: s.preset, colour: s.colour, dash: several ? s.dash : '', label });
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
