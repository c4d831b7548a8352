/**
 * What a Try-this card claims about its arms, in a form a test can check against the shipped
 * reference runs (public/reference/, means over seeds): a card may say only what those runs show.
 * Pure; tests/ui/try-claims.test.ts checks every card, the page uses armReference() to overlay
 * the arms' reference curves.
 */
import { collapseStats, COLLAPSE_STEPS, ENTROPY_MEAN_STEPS, movingMeans, type CollapseStats, type Row } from '../../sweep/run-metrics';
import { referenceRung, type ReferenceCurve, type ReferenceFile, type ReferencePreset } from './reference';

/** The metrics a claim may name, and the reference curve each is read from. */
export const CLAIM_METRICS = {
  entropy: 'actor/entropy',
  'entropy-coeff': 'actor/entropy_coeff_realized',
  heldout: 'val/avg@8/t1.0',
  reward: 'critic/score/mean',
  'kept-groups': 'batch/kept_groups',
  clipfrac: 'actor/pg_clipfrac',
  'grad-norm': 'actor/grad_norm',
} as const;
export type ClaimMetric = keyof typeof CLAIM_METRICS;

/**
 * Which points of a curve: 'start' = its first point, 'end' = its last 20%, 'all' = every point;
 * `{ to }` = points at steps ≤ to (the card's own run length, when the reference runs longer).
 */
export type ClaimWindow = 'start' | 'end' | 'all' | { to: number };

export type Claim =
  /**
   * The arm's window mean is below / above the other arm's (`by`: at least this far apart; `bands`: their 95%
   * bands apart too — the window mean of the one's upper bound below the other's lower bound).
   */
  | { metric: ClaimMetric; arm: string; relation: 'below' | 'above'; than: string; window: ClaimWindow; by?: number; bands?: boolean }
  /** The two arms' window means differ by at most `within` (absolute). */
  | { metric: ClaimMetric; arm: string; relation: 'similar'; than: string; window: ClaimWindow; within: number }
  /** The arm's window mean is below / above the entropy target of its reference. */
  | { metric: 'entropy'; arm: string; relation: 'below-target' | 'above-target'; window: ClaimWindow }
  /** Every point of the window stays at or above the target (the mean curve never dips under it). */
  | { metric: 'entropy'; arm: string; relation: 'never-below-target'; window: ClaimWindow }
  /** The window mean is 0 / above 0 (e.g. the realized entropy coefficient: the controller acted or not). */
  | { metric: ClaimMetric; arm: string; relation: 'zero' | 'nonzero'; window: ClaimWindow }
  /**
   * The mean curve collapses by the sweep's rule (src/sweep/run-metrics.ts collapseStats) /
   * holds its 10-step mean at or above HOLD_FRACTION × the target throughout.
   */
  | { metric: 'entropy'; arm: string; relation: 'collapses' | 'holds-target'; window: 'all' | { to: number } }
  /**
   * The mean curve does not collapse by the sweep's rule: its 10-step mean is never below the target for
   * COLLAPSE_STEPS steps in a row (a controller that starts at c = 0 may dip before it acts; that is not a collapse).
   */
  | { metric: 'entropy'; arm: string; relation: 'never-collapses'; window: 'all' | { to: number } };

/** "Held": the 10-step mean stays at or above this fraction of the target (the entropy-coef finding's one-sided band, src/sweep/findings.ts). */
export const HOLD_FRACTION = 0.9;

/**
 * A curve as one value per step, for the sweep's per-step collapse rule: a reference grid point is
 * the mean of its bin of steps (src/sweep/summary.ts aggregateCurves), so it is held over the steps
 * since the previous point (the first point's bin is as wide as the gap to the second). A per-step
 * series (a run's own) comes back unchanged.
 */
export function curveStepRows(steps: readonly number[], values: readonly number[]): Row[] {
  const rows: Row[] = [];
  steps.forEach((s, i) => {
    const from = i > 0 ? steps[i - 1] + 1 : s - (steps.length > 1 ? steps[1] - steps[0] : 1) + 1;
    for (let t = from; t <= s; t++) rows.push({ step: t, 'actor/entropy': values[i] } as Row);
  });
  return rows;
}

/** The sweep's collapse statistics of a curve against `target`, and whether its last 10-step mean is below it. */
export function curveCollapse(steps: readonly number[], values: readonly number[], target: number): CollapseStats & { belowAtEnd: boolean; lowStep: number } {
  const rows = curveStepRows(steps, values);
  const means = movingMeans(rows.map((r) => r['actor/entropy']));
  const last = means[means.length - 1];
  const stats = collapseStats(rows, target, means);
  // The step of the lowest 10-step mean (the first, if it recurs); NaN with too few steps.
  const low = means.findIndex((m) => m === stats.min10);
  return { ...stats, belowAtEnd: Number.isFinite(last) && last < target, lowStep: low >= 0 ? rows[low].step : NaN };
}

export { COLLAPSE_STEPS, ENTROPY_MEAN_STEPS };

/** An arm's reference data: the preset's block in some reference file (they share a pool: same seeds, same runs). */
export interface ArmReference {
  file: string;
  preset: string;
  data: ReferencePreset;
}

/** The first file among `files` made at `rung` (default tiny) holding `preset` (null when none does): another rung's runs never stand in. */
export function armReference(files: readonly ReferenceFile[], preset: string, rung = 'tiny'): ArmReference | null {
  for (const f of files) if (referenceRung(f) === rung && f.presets[preset]) return { file: f.name, preset, data: f.presets[preset] };
  return null;
}

/** The window's points of a curve (steps and means). */
export function windowPoints(curve: ReferenceCurve, w: ClaimWindow): { steps: number[]; values: number[] } {
  const n = curve.steps.length;
  let idx: number[];
  if (w === 'start') idx = n ? [0] : [];
  else if (w === 'all') idx = [...Array(n).keys()];
  else if (w === 'end') idx = [...Array(n).keys()].slice(Math.floor(n * 0.8));
  else idx = [...Array(n).keys()].filter((i) => curve.steps[i] <= w.to);
  const values = idx.map((i) => curve.mean[i]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return { steps: idx.map((i) => curve.steps[i]), values };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const windowText = (w: ClaimWindow) => (typeof w === 'string' ? w : `steps ≤ ${w.to}`);

/** A claim in words (test messages). */
export function claimText(c: Claim): string {
  const other = 'than' in c ? ` ${c.than}` : '';
  return `${c.arm}'s ${c.metric} ${c.relation}${other} (${windowText(c.window)})`;
}

/**
 * Checks one claim against the arms' reference data: null when the runs show it, else why not
 * (with the numbers). `arms`: arm key → its reference (a missing arm is an error, not a pass).
 */
export function checkClaim(c: Claim, arms: Record<string, ArmReference | null | undefined>): string | null {
  const series = (arm: string) => {
    const ref = arms[arm];
    if (!ref) return { error: `arm ${arm} has no reference run` } as const;
    const curve = ref.data.curves[CLAIM_METRICS[c.metric]];
    if (!curve) return { error: `${ref.file}: ${ref.preset} has no ${CLAIM_METRICS[c.metric]} curve` } as const;
    const pts = windowPoints(curve, c.window);
    if (!pts.values.length) return { error: `${ref.file}: ${ref.preset} has no ${c.metric} points in ${windowText(c.window)}` } as const;
    const band = (xs: (number | null)[]) => mean(xs.filter((v, i): v is number => typeof v === 'number' && Number.isFinite(v) && pts.steps.includes(curve.steps[i])));
    return { ref, values: pts.values, mean: mean(pts.values), lower: band(curve.lower), upper: band(curve.upper) } as const;
  };
  const a = series(c.arm);
  if ('error' in a) return a.error!;
  const f = (x: number) => x.toFixed(4);
  switch (c.relation) {
    case 'below':
    case 'above':
    case 'similar': {
      const b = series(c.than);
      if ('error' in b) return b.error!;
      const d = a.mean - b.mean;
      if (c.relation === 'similar') return Math.abs(d) <= c.within ? null : `${c.arm} ${f(a.mean)} vs ${c.than} ${f(b.mean)}: differ by ${f(Math.abs(d))} > ${c.within}`;
      const by = c.by ?? 0;
      const ok = c.relation === 'below' ? d < -by : d > by;
      if (!ok) return `${c.arm} ${f(a.mean)} is not ${c.relation} ${c.than} ${f(b.mean)}${by ? ` by ${by}` : ''}`;
      if (c.bands) {
        const apart = c.relation === 'below' ? a.upper < b.lower : a.lower > b.upper;
        if (!apart) return `${c.arm}'s 95% band [${f(a.lower)}, ${f(a.upper)}] overlaps ${c.than}'s [${f(b.lower)}, ${f(b.upper)}] (${windowText(c.window)})`;
      }
      return null;
    }
    case 'below-target':
    case 'above-target':
    case 'never-below-target': {
      const t = a.ref.data.entropyTarget;
      if (t === null) return `${a.ref.file}: ${a.ref.preset} has no entropy target`;
      if (c.relation === 'never-below-target') {
        const low = Math.min(...a.values);
        return low >= t ? null : `${c.arm}'s mean entropy dips to ${f(low)} < target ${t}`;
      }
      const ok = c.relation === 'below-target' ? a.mean < t : a.mean > t;
      return ok ? null : `${c.arm}'s mean entropy ${f(a.mean)} is not ${c.relation === 'below-target' ? 'below' : 'above'} the target ${t}`;
    }
    case 'collapses':
    case 'never-collapses':
    case 'holds-target': {
      const t = a.ref.data.entropyTarget;
      if (t === null) return `${a.ref.file}: ${a.ref.preset} has no entropy target`;
      const curve = a.ref.data.curves[CLAIM_METRICS.entropy];
      const w = c.window;
      const idx = [...curve.steps.keys()].filter((i) => w === 'all' || curve.steps[i] <= w.to);
      const cs = curveCollapse(idx.map((i) => curve.steps[i]), idx.map((i) => curve.mean[i] ?? NaN), t);
      if (c.relation === 'collapses')
        return cs.collapsed === 1 ? null : `${c.arm}'s mean entropy does not collapse: its ${ENTROPY_MEAN_STEPS}-step mean is below the target ${t} for at most ${cs.longestBelow} steps (< ${COLLAPSE_STEPS})`;
      if (c.relation === 'never-collapses')
        return cs.collapsed === 0 ? null : `${c.arm}'s mean entropy collapses: its ${ENTROPY_MEAN_STEPS}-step mean falls below the target ${t} at step ${cs.collapseStep} for ${cs.longestBelow} steps (≥ ${COLLAPSE_STEPS})`;
      return cs.min10 >= HOLD_FRACTION * t ? null : `${c.arm}'s lowest ${ENTROPY_MEAN_STEPS}-step mean entropy ${f(cs.min10)} is below ${HOLD_FRACTION} × the target ${t}`;
    }
    case 'zero':
    case 'nonzero': {
      const ok = c.relation === 'zero' ? a.mean === 0 : a.mean > 0;
      return ok ? null : `${c.arm}'s ${c.metric} mean is ${f(a.mean)}, not ${c.relation}`;
    }
  }
}
