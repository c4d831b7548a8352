/**
 * Two finished sweeps side by side, paired by seed: the same presets run under two settings the
 * sweep identity does not vary within one sweep (backend, machine, thread count, code version).
 * Per preset both sweeps ran, per metric: each side's mean, the paired difference B − A with its
 * Student-t 95% interval, and whether it is within noise (the interval covers 0). Pure: the CLI
 * reads the two summary.json files.
 */
import { pairedDifference } from './stats';
import { formatValue, metricDef, unitSuffix } from './run-metrics';
import type { Summary } from './summary';

/** The metrics a comparison reports (ids of RUN_METRICS). */
export const COMPARE_METRICS = [
  'start/avg/t1.0',
  'final/avg/t1.0',
  'gain/avg/t1.0',
  'gain/avg/t0.6',
  'entropy/second_half',
  'truncation/mean',
  'wall_s',
] as const;

export interface ComparedMetric {
  id: string;
  meanA: number;
  meanB: number;
  /** B − A over the seeds both ran. */
  diff: number;
  lower: number;
  upper: number;
  seeds: number[];
  /** The 95% interval of B − A covers 0. */
  withinNoise: boolean;
}

export interface SweepComparison {
  labelA: string;
  labelB: string;
  /** Sweep settings that differ (name: A → B), e.g. backend. */
  differences: string[];
  presets: Record<string, ComparedMetric[]>;
}

const show = (v: unknown) => (v === null || v === undefined ? 'default' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Throws a RangeError naming what is missing when the sweeps share no preset × seed. */
export function compareSweeps(a: Summary, b: Summary, labelA: string, labelB: string): SweepComparison {
  const differences: string[] = [];
  for (const k of ['backend', 'evalBackend', 'threads', 'steps', 'minutes', 'config', 'evalProblems', 'evalK', 'base'] as const) {
    if (JSON.stringify(a.sweep[k]) !== JSON.stringify(b.sweep[k])) differences.push(`${k}: ${show(a.sweep[k])} → ${show(b.sweep[k])}`);
  }
  const devA = [...new Set(a.runs.map((r) => r.device).filter(Boolean))].join('; ');
  const devB = [...new Set(b.runs.map((r) => r.device).filter(Boolean))].join('; ');
  if (devA !== devB) differences.push(`device: ${devA || 'unknown'} → ${devB || 'unknown'}`);
  const presets: Record<string, ComparedMetric[]> = {};
  for (const p of Object.keys(a.presets)) {
    if (!(p in b.presets)) continue;
    const values = (s: Summary, id: string) => new Map(s.runs.filter((r) => r.preset === p).map((r) => [r.seed, r.values[id]]));
    const rows: ComparedMetric[] = [];
    for (const id of COMPARE_METRICS) {
      const va = values(a, id);
      const vb = values(b, id);
      const d = pairedDifference(vb, va);
      if (!d.seeds.length) continue;
      const avg = (m: Map<number, number>) => d.seeds.reduce((s, seed) => s + m.get(seed)!, 0) / d.seeds.length;
      rows.push({ id, meanA: avg(va), meanB: avg(vb), diff: d.mean, lower: d.lower, upper: d.upper, seeds: d.seeds, withinNoise: !(d.lower > 0 || d.upper < 0) });
    }
    if (rows.length) presets[p] = rows;
  }
  if (!Object.keys(presets).length) throw new RangeError(`the sweeps share no finished preset × seed (${labelA}: ${Object.keys(a.presets).join(', ') || 'none'}; ${labelB}: ${Object.keys(b.presets).join(', ') || 'none'})`);
  return { labelA, labelB, differences, presets };
}

export function comparisonMarkdown(c: SweepComparison): string {
  const L: string[] = [];
  L.push(`Sweeps compared, paired by seed: A = \`${c.labelA}\`, B = \`${c.labelB}\`.`, '');
  L.push(c.differences.length ? `What differs: ${c.differences.join('; ')}.` : 'The sweeps have the same settings.', '');
  for (const [p, rows] of Object.entries(c.presets)) {
    L.push(`**${p}** (seeds ${rows[0].seeds.join(', ')}; B − A with its Student-t 95% interval over the paired seeds)`, '');
    L.push('| metric | A | B | B − A [95% CI] | |', '| --- | --- | --- | --- | --- |');
    for (const r of rows) {
      const def = metricDef(r.id);
      const f = (x: number, signed = false) => formatValue(def.unit, x, signed) + unitSuffix(def.unit);
      L.push(`| ${def.label} | ${f(r.meanA)} | ${f(r.meanB)} | ${f(r.diff, true)} [${f(r.lower, true)}, ${f(r.upper, true)}] | ${r.withinNoise ? 'within noise' : 'differs'} |`);
    }
    L.push('');
  }
  return L.join('\n');
}
