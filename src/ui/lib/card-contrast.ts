/**
 * A Try-this card's contrasts, worded from the arms' data at render time: each names a chart, a
 * curve and a window of steps, and the page writes the sentence from the curves it draws — every
 * arm's mean over the window and which arm is higher by how much. No number or direction in a
 * card's words is written by hand: the arms' reference curves (means over seeds) or their own runs
 * give them. Pure; TryThis.tsx renders them, e2e/teacher-dry-run.spec.ts recomputes them from the
 * reference files the charts draw.
 */
import type { RunData } from '../../io/runfile';
import type { ReferenceFile } from './reference';
import type { ClaimWindow } from './try-claims';

/** One contrast a card asks its reader to see. */
export interface Contrast {
  /** The chart it is drawn on (one of the card's charts). */
  chart: string;
  /** The curve: a step-record key (`actor/entropy`) or a held-out `val/avg@k/tτ` (any k of the same τ matches). */
  metric: string;
  /** What the curve is, for the sentence ("entropy", "kept groups"). */
  name: string;
  /** The steps read: `{ to: 80 }` = steps ≤ 80 (a card's own run length), 'all', 'end' = the last 20%. */
  window: ClaimWindow;
  /** Unit after the numbers ("nats"), or none. */
  unit?: string;
  /** Decimals shown (default 3). */
  digits?: number;
}

/** One arm's curve of a contrast's metric. */
export interface ArmCurve {
  /** "A", "B": the arm's short name. */
  arm: string;
  steps: number[];
  values: number[];
}

/** The arm's short name: "A" of "A: τ = 1.0 (MAGIC)". */
export const armShort = (label: string) => label.split(':')[0].trim();

const AVG_RE = /^val\/avg@(\d+)\/t([0-9.]+)$/;

/** The key among `keys` that holds `metric`: itself, or for a held-out avg@k another k at the same temperature. */
export function matchingKey(metric: string, keys: readonly string[]): string | null {
  if (keys.includes(metric)) return metric;
  const m = AVG_RE.exec(metric);
  if (!m) return null;
  return keys.find((k) => {
    const x = AVG_RE.exec(k);
    return !!x && Number(x[2]) === Number(m[2]);
  }) ?? null;
}

/** An arm's mean curve from a reference preset (null points: NaN); empty when the preset lacks it. */
export function referenceArmCurve(label: string, preset: ReferenceFile['presets'][string] | undefined, metric: string): ArmCurve {
  const key = preset ? matchingKey(metric, Object.keys(preset.curves)) : null;
  const c = key ? preset!.curves[key] : undefined;
  return { arm: armShort(label), steps: c?.steps ?? [], values: (c?.mean ?? []).map((v) => (v === null ? NaN : v)) };
}

/** An arm's curve from its run: its step records, or its evaluations for a held-out metric. */
export function runArmCurve(label: string, run: Pick<RunData, 'steps' | 'evals'>, metric: string): ArmCurve {
  const rows = (AVG_RE.test(metric) ? run.evals : run.steps) as unknown as Record<string, number>[];
  const key = matchingKey(metric, [...new Set(rows.flatMap((r) => Object.keys(r)))]);
  const steps: number[] = [];
  const values: number[] = [];
  if (key)
    for (const r of rows)
      if (typeof r[key] === 'number') {
        steps.push(r.step);
        values.push(r[key]);
      }
  return { arm: armShort(label), steps, values };
}

/** The window's finite values of a curve. */
export function windowValues(c: Pick<ArmCurve, 'steps' | 'values'>, w: ClaimWindow): number[] {
  const n = c.steps.length;
  let idx = [...Array(n).keys()];
  if (w === 'start') idx = n ? [0] : [];
  else if (w === 'end') idx = idx.slice(Math.floor(n * 0.8));
  else if (typeof w === 'object') idx = idx.filter((i) => c.steps[i] <= w.to);
  return idx.map((i) => c.values[i]).filter(Number.isFinite);
}

const windowWords = (w: ClaimWindow) => (w === 'all' ? 'over all steps' : w === 'end' ? 'over the last 20% of steps' : w === 'start' ? 'at the first point' : `over steps ≤ ${w.to}`);

/** A contrast read from the arms' curves: each arm's window mean (rounded as shown) and the sentence. */
export interface ContrastReading {
  means: { arm: string; mean: number; text: string }[];
  sentence: string;
}

/**
 * The sentence of a contrast from the drawn curves, e.g. "Entropy over steps ≤ 80: A 0.184, B 0.145
 * nats; A is higher by 0.039." Null until two arms have points in the window.
 */
export function readContrast(c: Contrast, arms: readonly ArmCurve[]): ContrastReading | null {
  const d = c.digits ?? 3;
  const means = arms
    .map((a) => {
      const v = windowValues(a, c.window);
      return v.length ? { arm: a.arm, mean: v.reduce((x, y) => x + y, 0) / v.length } : null;
    })
    .filter((x): x is { arm: string; mean: number } => x !== null)
    .map((x) => ({ ...x, text: x.mean.toFixed(d) }));
  if (means.length < 2) return null;
  const unit = c.unit ? ` ${c.unit}` : '';
  const head = `${c.name[0].toUpperCase()}${c.name.slice(1)} ${windowWords(c.window)}: ${means.map((m) => `${m.arm} ${m.text}`).join(', ')}${unit}`;
  // Compared as shown: arms equal at the shown precision are said to be equal, not "higher by 0.000".
  const shown = means.map((m) => Number(m.text));
  const hi = shown.indexOf(Math.max(...shown));
  const lo = shown.indexOf(Math.min(...shown));
  if (shown[hi] === shown[lo]) return { means, sentence: `${head}; ${means.length === 2 ? 'the same for both' : 'the same for all'} at this precision.` };
  const by = (shown[hi] - shown[lo]).toFixed(d);
  const tail = means.length === 2 ? `${means[hi].arm} is higher by ${by}` : `${means[hi].arm} highest, ${means[lo].arm} lowest (by ${by})`;
  return { means, sentence: `${head}; ${tail}.` };
}
