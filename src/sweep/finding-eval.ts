/**
 * A finding evaluated on measured runs: each premise (what the runs must show before the checks
 * can speak, e.g. that a preset's entropy collapses), each check (a paired, equivalence, target
 * or correlation test with its 95% interval) and the verdict (stats.ts). Pure.
 */
import { agreeingVerdict } from './coverage';
import type { Check, Finding, Premise } from './finding-types';
import { COLLAPSE_STEPS, ENTROPY_MEAN_STEPS, metricDef } from './run-metrics';
import {
  combineVerdicts,
  correlationInterval,
  directionalVerdict,
  equivalenceVerdict,
  pairedDifference,
  premiseVerdict,
  tInterval,
  type Verdict,
} from './stats';

/** Per preset: seed → run metric values; and the preset's entropy target (from its config). */
export interface FindingData {
  runs: ReadonlyMap<string, ReadonlyMap<number, Record<string, number>>>;
  entropyTarget: ReadonlyMap<string, number>;
}

export interface CheckResult {
  check: Check;
  /** Words: what was computed. */
  describe: string;
  /** Seeds (or runs, for correlations) that entered. */
  n: number;
  /** Point estimate: mean difference, mean offset from the target, or r. */
  estimate: number;
  lower: number;
  upper: number;
  /** For target checks: the target it was measured against. */
  target?: number;
  /** For equivalence checks: the margin in metric units. */
  margin?: number;
  verdict: Verdict;
}

export interface PremiseResult {
  premise: Premise;
  /** Seeds whose collapse is defined (a target and ≥ 10 steps of entropy). */
  n: number;
  /** Of those, the seeds that collapsed. */
  collapsed: number;
  holds: boolean;
  /** The evidence in words, e.g. "grpo collapsed in 0 of 5 seeds …: its lowest 10-step mean 0.185–0.210 never fell below the target 0.1". */
  evidence: string;
}

export interface FindingResult {
  finding: string;
  /** Present when the finding has premises. */
  premises?: PremiseResult[];
  checks: CheckResult[];
  verdict: Verdict;
}

function metricOf(data: FindingData, preset: string, metric: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [seed, values] of data.runs.get(preset) ?? []) out.set(seed, values[metric] ?? NaN);
  return out;
}

const nats = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const range = (xs: number[], f: (x: number) => string) => {
  if (!xs.length) return '–';
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? f(lo) : `${f(lo)}–${f(hi)}`;
};
const pct = (x: number) => `${+(x * 100).toFixed(1)}%`;

/** What a collapse premise asks for, in words ("≥ 80% of its seeds", "none of its seeds"). */
export function premiseNeed(p: Premise): string {
  const parts: string[] = [];
  if (p.atLeast !== undefined) parts.push(`≥ ${pct(p.atLeast)}`);
  if (p.atMost !== undefined) parts.push(p.atMost === 0 ? 'none' : `≤ ${pct(p.atMost)}`);
  return `${parts.join(' and ')} of its seeds`;
}

export function evaluatePremise(p: Premise, data: FindingData): PremiseResult {
  const target = data.entropyTarget.get(p.preset) ?? NaN;
  const seeds = [...(data.runs.get(p.preset) ?? new Map<number, Record<string, number>>()).values()].filter((v) => Number.isFinite(v['entropy/collapsed']));
  const n = seeds.length;
  const collapsed = seeds.filter((v) => v['entropy/collapsed'] === 1).length;
  const share = n ? collapsed / n : NaN;
  const holds = n > 0 && (p.atLeast === undefined || share >= p.atLeast) && (p.atMost === undefined || share <= p.atMost);
  const need = `the premise needs ${premiseNeed(p)}`;
  if (n === 0) return { premise: p, n, collapsed, holds, evidence: `no run of ${p.preset} has ${ENTROPY_MEAN_STEPS} steps of entropy and a target, so whether it collapses is unknown (${need})` };
  const min10 = seeds.map((v) => v['entropy/min10']).filter(Number.isFinite);
  const longest = seeds.map((v) => v['entropy/below_target_longest']).filter(Number.isFinite);
  const fell = min10.filter((m) => m < target).length;
  const how =
    fell === 0
      ? `its lowest 10-step mean ${range(min10, nats)} never fell below the target ${target}`
      : `its 10-step mean fell below the target ${target} in ${fell} of ${n} seeds, for at most ${Math.max(...longest)} consecutive steps (collapse: ≥ ${COLLAPSE_STEPS}; lowest 10-step mean ${range(min10, nats)})`;
  return { premise: p, n, collapsed, holds, evidence: `${p.preset} collapsed in ${collapsed} of ${n} seeds (${need}): ${how}` };
}

export function evaluateCheck(c: Check, data: FindingData): CheckResult {
  switch (c.kind) {
    case 'paired':
    case 'equivalence': {
      const d = pairedDifference(metricOf(data, c.a, c.metric), metricOf(data, c.b, c.metric));
      const head = `${c.a} − ${c.b} in ${metricDef(c.metric).label}, paired over ${d.n} seeds (Student-t 95%)`;
      if (c.kind === 'equivalence') {
        return { check: c, describe: `${head}; paper: within ±${c.margin}`, n: d.n, estimate: d.mean, lower: d.lower, upper: d.upper, margin: c.margin, verdict: equivalenceVerdict(d, c.margin) };
      }
      return { check: c, describe: `${head}; paper: ${c.direction > 0 ? '> 0' : '< 0'}`, n: d.n, estimate: d.mean, lower: d.lower, upper: d.upper, verdict: directionalVerdict(c.direction, d) };
    }
    case 'target': {
      const target = data.entropyTarget.get(c.preset) ?? NaN;
      const fraction = c.targetFraction ?? 1;
      const level = fraction * target;
      const iv = tInterval([...metricOf(data, c.preset, c.metric).values()].map((x) => x - level));
      const margin = c.direction === 0 ? (c.marginFraction ?? 0.2) * target : undefined;
      const against = fraction === 1 ? `target ${Number.isFinite(target) ? target : '?'}` : `${fraction} × target ${Number.isFinite(target) ? target : '?'} (= ${+level.toFixed(6)})`;
      const paper = c.direction > 0 ? '> 0' : c.direction < 0 ? '< 0' : `within ±${margin === undefined ? '?' : +margin.toFixed(4)}`;
      return {
        check: c,
        describe: `${c.preset}: ${metricDef(c.metric).label} − ${against}, over ${iv.n} seeds (Student-t 95%); paper: ${paper}`,
        n: iv.n,
        estimate: iv.mean,
        lower: iv.lower,
        upper: iv.upper,
        target,
        margin,
        verdict: c.direction === 0 ? (Number.isFinite(margin!) ? equivalenceVerdict(iv, margin!) : 'inconclusive') : directionalVerdict(c.direction, iv),
      };
    }
    case 'correlation': {
      const xs: number[] = [];
      const ys: number[] = [];
      for (const p of c.presets) {
        for (const [, values] of data.runs.get(p) ?? []) {
          xs.push(values[c.x] ?? NaN);
          ys.push(values[c.y] ?? NaN);
        }
      }
      const r = correlationInterval(xs, ys);
      return {
        check: c,
        describe: `Pearson r(${metricDef(c.x).label}, ${metricDef(c.y).label}) over ${r.n} runs of ${c.presets.join(', ')} (Fisher-z 95%); paper: ${c.direction > 0 ? 'r > 0' : 'r < 0'}`,
        n: r.n,
        estimate: r.r,
        lower: r.lower,
        upper: r.upper,
        verdict: directionalVerdict(c.direction, r),
      };
    }
  }
}

/**
 * The checks are always computed and reported; when a premise fails the verdict is
 * 'not-testable' whatever they say.
 */
export function evaluateFinding(f: Finding, data: FindingData): FindingResult {
  const checks = f.checks.map((c) => evaluateCheck(c, data));
  const combined = f.combine === 'symmetric' ? agreeingVerdict(checks.map((c) => c.verdict)) : combineVerdicts(checks.map((c) => c.verdict));
  if (!f.premises?.length) return { finding: f.id, checks, verdict: combined };
  const premises = f.premises.map((p) => evaluatePremise(p, data));
  return { finding: f.id, premises, checks, verdict: premiseVerdict(premises.map((p) => p.holds), combined) };
}
