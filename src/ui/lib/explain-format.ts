/**
 * The number formatting and record reading that every explanation sentence shares (src/ui/lib/explain.ts):
 * one place, so "3 significant digits" or "the last 5 steps" reads the same on every chart.
 */
import type { RunConfig } from '../../rl/config';
import type { EvalRecord, StepRecord } from '../../rl/trainer-types';

/** Steps averaged for "now" values (reward, length, clip fractions, grad norm). */
export const RECENT = 5;

/** What the functions read of a run (RunData has it). */
export interface RunLike {
  config: RunConfig;
  steps: readonly StepRecord[];
  evals: readonly EvalRecord[];
}

export const val = (r: StepRecord | EvalRecord, key: string): number => {
  const v = (r as Record<string, number>)[key];
  return typeof v === 'number' ? v : NaN;
};
export const fin = (x: number) => Number.isFinite(x);
/** 3 significant digits, no trailing zeros: 0.1823 → "0.182", 1 → "1", 0.00012 → "0.00012". */
export const num = (x: number) => (fin(x) ? String(Number(x.toPrecision(3))) : '–');
export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
export const pts = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const mean = (xs: readonly number[]) => {
  const f = xs.filter(fin);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
};

/** "the last 5 steps" (fewer at the start of a run: "the last step"). */
export const recent = (run: RunLike) => (Math.min(RECENT, run.steps.length) === 1 ? 'the last step' : `the last ${Math.min(RECENT, run.steps.length)} steps`);

/** Mean of `key` over the last (or first) `n` steps with a finite value. */
export function tailMean(steps: readonly StepRecord[], key: string, n = RECENT, from: 'end' | 'start' = 'end'): number {
  const vals = steps.map((s) => val(s, key)).filter(fin);
  return mean(from === 'end' ? vals.slice(-n) : vals.slice(0, n));
}

