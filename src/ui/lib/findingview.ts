/**
 * What the Findings view draws for one reference: its charts (entropy and held-out avg@k at each
 * temperature the reference has curves for), the page's runs of its queue (by name, so runs
 * queued before a reload are found again), and number formats. Pure.
 */
import { evalKey } from '../../rl/metrics';
import { niceStep, ONE_TWO_QUARTER_FIVE, ValueRange } from './canvas-plot';
import type { ChartSpec } from './chartdata';
import { queuedRunName } from './queue';
import { REFERENCE_COLOURS } from './refchart';
import type { Num, ReferenceFile } from './reference';
import type { RunData } from '../../io/runfile';

const AVG_RE = /^val\/avg@\d+\/t([0-9.]+)$/;

/**
 * Charts of a finding: entropy, then held-out avg@k per temperature (τ = 1.0 first). Series keys
 * are the page's own (avg@k with the runs' k); the reference's avg@k' draws on them whatever k'.
 */
export function findingChartSpecs(ref: ReferenceFile, k: number): ChartSpec[] {
  const metrics = new Set(Object.values(ref.presets).flatMap((p) => Object.keys(p.curves)));
  const temps = [...new Set([...metrics].map((m) => AVG_RE.exec(m)?.[1]).filter((t): t is string => t !== undefined).map(Number))].sort((a, b) => b - a);
  const specs: ChartSpec[] = [];
  if (metrics.has('actor/entropy'))
    specs.push({ id: 'finding-entropy', title: 'Entropy', help: 'actor/entropy per step: the reference mean over seeds with its 95% band, and the runs made here.', series: [{ key: 'actor/entropy', label: 'entropy', source: 'step' }], entropyTarget: true, fitY: true, compactTooltip: true });
  for (const t of temps) {
    const key = evalKey('avg', k, t);
    specs.push({ id: `finding-avg-t${t}`, title: `Held-out avg@k τ=${t}`, help: `Held-out accuracy (avg@k) at τ = ${t} during training: reference mean with its 95% band, and the runs made here.`, series: [{ key, label: `avg@${k} τ=${t}`, source: 'eval' }], fitY: true, compactTooltip: true });
  }
  return specs;
}

export interface FindingRun {
  run: RunData;
  preset: string;
  seed: number;
  colour: string;
}

/**
 * `next`, or `prev` when it holds the same runs (the same objects, presets, seeds and colours):
 * a metrics batch of a run that is not in the finding then changes nothing its charts draw, and
 * they do not redraw (the Findings view once redrew every chart on every step).
 */
export function sameFindingRuns(prev: readonly FindingRun[], next: FindingRun[]): readonly FindingRun[] {
  if (prev.length !== next.length) return next;
  return next.every((f, i) => f.run === prev[i].run && f.preset === prev[i].preset && f.seed === prev[i].seed && f.colour === prev[i].colour) ? prev : next;
}

/**
 * The page's runs of the reference's queue: for each preset × seed the newest run named
 * "<reference> · <preset> · seed S", coloured as its preset's band, named "<preset> · seed S".
 */
export function findingRuns(ref: ReferenceFile, runs: Readonly<Record<string, RunData>>, order: readonly string[], colours: readonly string[] = REFERENCE_COLOURS): FindingRun[] {
  const newest = new Map<string, RunData>();
  for (const id of order) {
    const r = runs[id];
    if (r) newest.set(r.name, r);
  }
  const out: FindingRun[] = [];
  Object.entries(ref.presets).forEach(([preset, p], pi) => {
    for (const seed of p.seeds) {
      const run = newest.get(queuedRunName(ref.name, preset, seed));
      if (run) out.push({ run, preset, seed, colour: colours[pi % colours.length] });
    }
  });
  return out;
}

/** The entropy target to mark: the first preset's that has one. */
export function referenceEntropyTarget(ref: ReferenceFile): number | null {
  for (const p of Object.values(ref.presets)) if (p.entropyTarget !== null) return p.entropyTarget;
  return null;
}

/** Accuracy-like scalars (fractions) print as points (×100); others as they are. */
export function isFractionMetric(id: string): boolean {
  return /\/avg\//.test(id) || /^(start|final|gain)\//.test(id);
}

/** Decimals that give the largest of `values` three significant figures (0 to 4), shared by a row's numbers so they line up. */
function sharedDecimals(values: readonly number[]): number {
  const max = Math.max(0, ...values.map(Math.abs));
  if (max === 0) return 2;
  return Math.min(4, Math.max(0, 2 - Math.floor(Math.log10(max))));
}

/** A number as the Findings print it: fixed decimals (never 4.00e-4 beside plain numbers); points ×100. */
export function fmtNum(v: Num, opts: { points?: boolean; decimals?: number } = {}): string {
  if (v === null) return '–';
  const x = opts.points ? v * 100 : v;
  return x.toFixed(opts.decimals ?? sharedDecimals([x]));
}

/** "0.0513 [0.0102, 0.0924]" (or in points: "5.13 [1.02, 9.24]"): the three with the same decimals. */
export function fmtInterval(mean: Num, lower: Num, upper: Num, opts: { points?: boolean } = {}): string {
  const scale = opts.points ? 100 : 1;
  const decimals = sharedDecimals([mean, lower, upper].filter((v): v is number => v !== null).map((v) => v * scale));
  const f = (v: Num) => fmtNum(v, { ...opts, decimals });
  return `${f(mean)} [${f(lower)}, ${f(upper)}]`;
}

/**
 * The unit of a finding's check, read from its description: a difference in held-out accuracy (avg@k / pass@k,
 * final or gain) prints in points like the scalars beside it; entropy in nats; a Pearson r and a count of tokens
 * as they are.
 */
export function checkUnit(describe: string): { points: boolean; unit: string } {
  if (/Pearson r/.test(describe)) return { points: false, unit: '' };
  if (/\bin (final|start|gain) (avg|pass)@k\b/.test(describe)) return { points: true, unit: 'points' };
  if (/\bin tokens\b/.test(describe)) return { points: false, unit: 'tokens' };
  if (/\bentropy\b/.test(describe)) return { points: false, unit: 'nats' };
  return { points: false, unit: '' };
}

/** "4 steps per run" / "each preset's whole schedule" / "30 minutes per run". */
export function scheduleText(s: ReferenceFile['schedule']): string {
  const parts = [s.steps !== null ? `${s.steps} steps per run` : s.minutes !== null ? `${s.minutes} minutes per run` : "each preset's whole schedule"];
  if (s.backend) parts.push(`on ${s.backend}`);
  parts.push(`precise evaluations ${s.evalProblems} problems × ${s.evalK} samples`);
  return parts.join(', ');
}

/**
 * The y range of a finding's chart: its data (every run, reference mean, band and seed column of
 * `rows`, and `marks` such as the entropy target), padded by 8% each side and widened to
 * multiples of a round step (about 4 ticks), floored at 0 when all values are ≥ 0 — so curves that
 * all sit near 0.15 fill the chart rather than a 0–1 axis. Null: no value yet (the default axis).
 */
export function fitDomain(rows: readonly Record<string, unknown>[], marks: readonly (number | null)[] = []): [number, number] | null {
  const range = new ValueRange();
  for (const r of rows) for (const [k, v] of Object.entries(r)) if (k !== 'step') range.see(v);
  for (const m of marks) range.see(m);
  const seen = range.domain();
  if (!seen) return null;
  const [lo, hi] = seen;
  const span = Math.max(hi - lo, Math.abs(hi) * 0.2, 1e-6);
  const step = niceStep((span * 1.16) / 4, ONE_TWO_QUARTER_FIVE);
  const a = Math.floor((lo - span * 0.08) / step + 1e-9) * step;
  const b = Math.ceil((hi + span * 0.08) / step - 1e-9) * step;
  return [Number((lo >= 0 ? Math.max(0, a) : a).toPrecision(6)), Number(b.toPrecision(6))];
}
