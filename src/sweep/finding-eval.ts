/**
 * A finding evaluated on measured runs: each premise (what the runs must show before the checks
 * can speak, e.g. that a preset's entropy collapses), each check (a paired, equivalence, target
 * or correlation test with its 95% interval) and the verdict (stats.ts). Pure.
 */
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
  withinCorrelationInterval,
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
  /** The direction the interval shows, in words ("entropy-off higher", "no direction: the interval spans 0"). */
  reads: string;
}

export interface PremiseResult {
  premise: Premise;
  /** 'collapse': seeds whose collapse is defined (a target and ≥ 10 steps of entropy); 'measured': runs of its presets. */
  n: number;
  /** 'collapse': of those, the seeds that collapsed. */
  collapsed?: number;
  /** 'measured': of those, the runs that have the metric. */
  measured?: number;
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
  /** How the checks' verdicts (and premises) combine into `verdict`, in words. */
  because: string;
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
  if (p.kind === 'measured') return 'every run of its presets';
  const parts: string[] = [];
  if (p.atLeast !== undefined) parts.push(`≥ ${pct(p.atLeast)}`);
  if (p.atMost !== undefined) parts.push(p.atMost === 0 ? 'none' : `≤ ${pct(p.atMost)}`);
  return `${parts.join(' and ')} of its seeds`;
}

export function evaluatePremise(p: Premise, data: FindingData): PremiseResult {
  if (p.kind === 'measured') return evaluateMeasuredPremise(p, data);
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

function evaluateMeasuredPremise(p: Extract<Premise, { kind: 'measured' }>, data: FindingData): PremiseResult {
  const per = p.presets.map((preset) => {
    const vals = [...(data.runs.get(preset) ?? new Map<number, Record<string, number>>()).values()].map((v) => v[p.metric]);
    return { preset, n: vals.length, have: vals.filter((x) => Number.isFinite(x)).length };
  });
  const n = per.reduce((a, x) => a + x.n, 0);
  const measured = per.reduce((a, x) => a + x.have, 0);
  const holds = n > 0 && measured === n;
  const def = metricDef(p.metric);
  const head = `${measured} of ${n} runs of ${p.presets.join(', ')} have ${def.label} (${p.metric})`;
  if (holds) return { premise: p, n, measured, holds, evidence: head };
  const lacking = per.filter((x) => x.have < x.n || x.n === 0).map((x) => (x.n === 0 ? `${x.preset} has no runs` : `${x.preset} ${x.have} of ${x.n}`));
  return { premise: p, n, measured, holds, evidence: `${head} (lacking: ${lacking.join(', ')}); a check over them would drop those runs or put another measurement in its place, so it is not testable here from these runs` };
}

/** The interval's direction in words: which arm is higher, which side of the level, which sign. */
function readsOf(c: Check, lower: number, upper: number, margin?: number): string {
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return 'no interval (too few runs with both values)';
  const spans = 'no direction: the interval spans 0';
  switch (c.kind) {
    case 'paired':
      return lower > 0 ? `${c.a} higher` : upper < 0 ? `${c.b} higher` : spans;
    case 'equivalence':
      return lower > -c.margin && upper < c.margin
        ? `within ±${c.margin}`
        : lower > c.margin
          ? `${c.a} higher by more than ${c.margin}`
          : upper < -c.margin
            ? `${c.b} higher by more than ${c.margin}`
            : `neither inside nor outside ±${c.margin}`;
    case 'target': {
      if (c.direction === 0 && margin !== undefined) return lower > -margin && upper < margin ? `within ±${+margin.toFixed(4)} of the level` : 'not shown within the band';
      return lower > 0 ? 'above the level' : upper < 0 ? 'below the level' : 'no direction: the interval spans the level';
    }
    case 'correlation':
      return lower > 0 ? 'positive' : upper < 0 ? 'negative' : 'no sign: the interval spans 0';
  }
}

/** A check's name in a verdict's explanation: its arms and metric (or r of its two metrics). */
export function checkLabel(c: Check): string {
  switch (c.kind) {
    case 'paired':
    case 'equivalence':
      return `${c.a} − ${c.b} in ${metricDef(c.metric).label}`;
    case 'target':
      return `${c.preset}: ${metricDef(c.metric).label}`;
    case 'correlation':
      return `r(${metricDef(c.x).label}, ${metricDef(c.y).label})${c.within ? ' within presets' : ''}`;
  }
}

/** How the verdict follows from the premises and the checks, in a sentence. */
function becauseOf(premises: PremiseResult[], checks: CheckResult[], verdict: Verdict): string {
  const failed = premises.filter((p) => !p.holds);
  if (failed.length) return `not testable here: ${failed.length === 1 ? 'a premise is' : `${failed.length} premises are`} not shown (${failed.map((p) => p.premise.says).join('; ')}), so the checks are reported, not judged`;
  if (checks.length === 1) return `its one check: ${checks[0].verdict}`;
  const each = checks.map((c) => `${checkLabel(c.check)}: ${c.verdict}`).join('; ');
  const all = checks.length === 2 ? 'both checks' : `all ${checks.length} checks`;
  return `${each} → ${verdict} (reproduced needs ${all} reproduced, contradicted ${all} contradicted)`;
}

/** A correlation check's result: r with its interval, `over` saying which runs and how (pooled or within presets). */
function correlationResult(c: Extract<Check, { kind: 'correlation' }>, r: { n: number; r: number; lower: number; upper: number }, over: string, paper: string): CheckResult {
  return {
    check: c,
    describe: `Pearson r(${metricDef(c.x).label}, ${metricDef(c.y).label}) ${over}; ${paper}`,
    n: r.n,
    estimate: r.r,
    lower: r.lower,
    upper: r.upper,
    verdict: directionalVerdict(c.direction, r),
    reads: readsOf(c, r.lower, r.upper),
  };
}

export function evaluateCheck(c: Check, data: FindingData): CheckResult {
  switch (c.kind) {
    case 'paired':
    case 'equivalence': {
      const d = pairedDifference(metricOf(data, c.a, c.metric), metricOf(data, c.b, c.metric));
      const head = `${c.a} − ${c.b} in ${metricDef(c.metric).label}, paired over ${d.n} seeds (Student-t 95%)`;
      if (c.kind === 'equivalence') {
        return { check: c, describe: `${head}; paper: within ±${c.margin}`, n: d.n, estimate: d.mean, lower: d.lower, upper: d.upper, margin: c.margin, verdict: equivalenceVerdict(d, c.margin), reads: readsOf(c, d.lower, d.upper) };
      }
      return { check: c, describe: `${head}; paper: ${c.direction > 0 ? '> 0' : '< 0'}`, n: d.n, estimate: d.mean, lower: d.lower, upper: d.upper, verdict: directionalVerdict(c.direction, d), reads: readsOf(c, d.lower, d.upper) };
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
        reads: readsOf(c, iv.lower, iv.upper, margin),
      };
    }
    case 'correlation': {
      const paper = `paper: ${c.direction > 0 ? 'r > 0' : 'r < 0'}`;
      if (c.within) {
        const groups = c.presets.map((p) => {
          const runs = [...(data.runs.get(p) ?? [])].map(([, values]) => values);
          return { xs: runs.map((v) => v[c.x] ?? NaN), ys: runs.map((v) => v[c.y] ?? NaN) };
        });
        const r = withinCorrelationInterval(groups);
        const over = `within presets (each preset's runs centred on its own means) over ${r.n} runs of ${c.presets.join(', ')} (${r.groups} presets with 2 or more; Fisher-z 95% on n − presets − 2 degrees of freedom)`;
        return correlationResult(c, r, over, paper);
      }
      const xs: number[] = [];
      const ys: number[] = [];
      for (const p of c.presets) {
        for (const [, values] of data.runs.get(p) ?? []) {
          xs.push(values[c.x] ?? NaN);
          ys.push(values[c.y] ?? NaN);
        }
      }
      const r = correlationInterval(xs, ys);
      return correlationResult(c, r, `over ${r.n} runs of ${c.presets.join(', ')} (Fisher-z 95%)`, paper);
    }
  }
}

/**
 * The checks are always computed and reported; when a premise fails the verdict is
 * 'not-testable' whatever they say.
 */
export function evaluateFinding(f: Finding, data: FindingData): FindingResult {
  const checks = f.checks.map((c) => evaluateCheck(c, data));
  const combined = combineVerdicts(checks.map((c) => c.verdict));
  if (!f.premises?.length) return { finding: f.id, checks, verdict: combined, because: becauseOf([], checks, combined) };
  const premises = f.premises.map((p) => evaluatePremise(p, data));
  const verdict = premiseVerdict(premises.map((p) => p.holds), combined);
  return { finding: f.id, premises, checks, verdict, because: becauseOf(premises, checks, verdict) };
}
