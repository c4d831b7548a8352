/**
 * A sweep's summary from its runs' files: per preset the mean and 95% interval of every run
 * metric (Student-t over seeds; a seeded percentile bootstrap beside it), the entropy trajectory
 * by windows, the curves as mean ± band over seeds, every pair of presets' paired differences,
 * and the verdict of every registered finding whose presets the sweep ran. Pure: the same runs
 * give the same summary.json, byte for byte, however the sweep was interrupted.
 */
import type { RunConfig } from '../rl/config';
import { coverageCurves, sweepHasRegime, type PresetCoverage } from './coverage';
import { evaluateFinding, FINDINGS, type FindingResult } from './findings';
import {
  computeRunMetrics,
  ENTROPY_WINDOWS,
  parseMetricsJsonl,
  RUN_METRICS,
  runCurves,
  runStepCurves,
  type EntropyWindow,
  type RunCurve,
  PAGE_CURVE_KEYS,
  STEP_CURVE_KEYS,
} from './run-metrics';
import type { RunResult, SweepSpec } from './runner';
import { bootstrapMeanInterval, pairedDifference, tInterval } from './stats';

export const SUMMARY_SCHEMA = 'magic-lab-sweep-summary/1';
/** Fixed seed of every bootstrap in a summary (so a summary is reproducible). */
export const BOOTSTRAP_SEED = 20250528;
export const BOOTSTRAP_RESAMPLES = 10000;

export interface MetricStats {
  n: number;
  mean: number;
  sd: number;
  /** Student-t 95% interval over seeds. */
  lower: number;
  upper: number;
  /** Percentile bootstrap 95% interval (10,000 resamples, fixed seed). */
  bootLower: number;
  bootUpper: number;
  /** Mean over seeds of one run's evaluation SE (precise accuracies only). */
  meanRunSE?: number;
  /** seed → value */
  values: Record<string, number>;
}

export interface CurveBand {
  steps: number[];
  mean: number[];
  lower: number[];
  upper: number[];
  /** Runs at each point. */
  n: number[];
  /** seed → value at each step of `steps` */
  seeds: Record<string, number[]>;
}

export interface RunSummary {
  preset: string;
  seed: number;
  dir: string;
  device: string | null;
  values: Record<string, number>;
  se: Record<string, number>;
  entropyWindows: EntropyWindow[];
}

export interface PresetSummary {
  n: number;
  seeds: number[];
  entropyTarget: number;
  entropyMode: string;
  /** Stage schedule of the preset's runs (max response length and steps per stage). */
  stages: { maxResponseLength: number; steps: number | null }[];
  metrics: Record<string, MetricStats>;
  entropyWindows: { from: number; to: number; n: number; mean: number; lower: number; upper: number }[];
}

export interface PairSummary {
  a: string;
  b: string;
  /** a − b per metric over the seeds both have. */
  metrics: Record<string, { n: number; mean: number; lower: number; upper: number; seeds: number[]; diffs: number[] }>;
}

export interface Summary {
  schema: string;
  /** Every planned run is in. */
  complete: boolean;
  command: string;
  sweep: SummarySpec;
  methods: Record<string, string>;
  runs: RunSummary[];
  presets: Record<string, PresetSummary>;
  pairs: PairSummary[];
  /** curve key (e.g. actor/entropy, val/avg@8/t1.0) → preset → band */
  curves: Record<string, Record<string, CurveBand>>;
  /**
   * The page's curves (run-metrics.ts PAGE_CURVE_KEYS: clip fractions, groups, …) the runs recorded, for the
   * reference files; not part of summary.json (summaryJson leaves it out), so summaries replicate as before.
   */
  pageCurves?: Record<string, Record<string, CurveBand>>;
  /** Registered findings whose presets all ran in this sweep. */
  findings: FindingResult[];
  /** Per preset, the mean pass@k curves (start = the base, final) overall, per family and per base-solvability class (coverage.ts); only when the runs wrote coverage reports. */
  coverage?: Record<string, PresetCoverage>;
}

export const METHODS: Record<string, string> = {
  interval:
    'Per preset, over seeds: mean ± t_{0.975, n−1} · sd/√n (Student-t 95% confidence interval; sd with n − 1). With 5 seeds t = 2.776. ' +
    'bootLower/bootUpper: percentile bootstrap of the mean (10,000 resamples with replacement, fixed seed), narrower than the t interval at small n because it ignores that sd is estimated; shown beside it, never used for verdicts.',
  paired:
    'Per pair of presets: the per-seed differences a − b over the seeds both ran (same seed → same data, test set and evaluation seed), their mean ± t_{0.975, n−1} · sd/√n.',
  precise:
    'Start weights and final checkpoint of each run are evaluated with `magic-lab eval` on the first P test problems × k samples at τ = 1.0 and 0.6 with the eval seed = the run seed, on the run\'s own test set (each seed draws its own). Start and final share the seed (common random numbers).',
  se:
    'One run\'s SE of avg@k: √(p̄(1−p̄)/(P·k)), an upper bound of the sampling noise √(Σ p_i(1−p_i)/k)/P of re-evaluating the checkpoint on the same P problems (p(1−p) is concave); ≤ 1.10 points at 256 × 8. Gains: √(SE_start² + SE_final²) (conservative: start and final share the eval seed). The spread of problem difficulty is not in it: each seed has its own test set, so it is in the spread over seeds.',
  auc: 'Area under the held-out curve: trapezoid rule over the periodic evals in metrics.jsonl (val/avg@k, the config\'s eval set) ÷ the step range = the mean held-out accuracy during training.',
  entropy: `actor/entropy as the trainer logs it; trajectory = its mean over ${ENTROPY_WINDOWS} equal windows of steps; first/second half = steps ≤ S/2 / > S/2.`,
  curves: 'Curves: per step (binned to at most 100 points for step metrics), the mean over seeds and its pointwise Student-t 95% band.',
  cost: 'tokens = Σ perf/tokens_per_s × perf/step_s (prompt + response tokens generated, plus tokens trained); train time = the trainer\'s clock (time_ms, evaluations excluded).',
};

/**
 * JSON with NaN/±Infinity as null (JSON has no NaN), indented, with arrays of numbers or strings
 * on one line (curves stay readable and small).
 */
export function toJson(value: unknown): string {
  const fmt = (v: unknown, indent: string): string => {
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    if (v === null || typeof v !== 'object') return v === undefined ? 'null' : JSON.stringify(v);
    const inner = indent + '  ';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      if (v.every((x) => x === null || typeof x !== 'object')) return `[${v.map((x) => fmt(x, inner)).join(', ')}]`;
      return `[\n${v.map((x) => inner + fmt(x, inner)).join(',\n')}\n${indent}]`;
    }
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${fmt(x, inner)}`).join(',\n')}\n${indent}}`;
  };
  return fmt(value, '') + '\n';
}

const round = (x: number, digits = 6) => (Number.isFinite(x) ? Number(x.toPrecision(digits)) : x);

/** Mean ± pointwise t band over runs of one curve; bins step metrics to at most maxPoints. */
export function aggregateCurves(runs: { seed: number; steps: number[]; values: number[] }[], maxPoints = 100): CurveBand {
  const band: CurveBand = { steps: [], mean: [], lower: [], upper: [], n: [], seeds: {} };
  if (runs.length === 0) return band;
  const lastStep = Math.min(...runs.map((r) => (r.steps.length ? r.steps[r.steps.length - 1] : 0)));
  const distinct = new Set(runs.flatMap((r) => r.steps.filter((s) => s <= lastStep)));
  const perRun: number[][] = runs.map(() => []);
  if (distinct.size <= maxPoints) {
    const common = [...distinct].filter((s) => runs.every((r) => r.steps.includes(s))).sort((a, b) => a - b);
    band.steps = common;
    runs.forEach((r, i) => (perRun[i] = common.map((s) => r.values[r.steps.indexOf(s)])));
  } else {
    const w = Math.ceil(lastStep / maxPoints);
    for (let hi = w; hi - w < lastStep; hi += w) {
      const top = Math.min(hi, lastStep);
      band.steps.push(top);
      runs.forEach((r, i) => {
        const vs = r.values.filter((v, j) => r.steps[j] > hi - w && r.steps[j] <= top && Number.isFinite(v));
        perRun[i].push(vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : NaN);
      });
    }
  }
  band.steps.forEach((_, j) => {
    const iv = tInterval(perRun.map((p) => p[j]));
    band.mean.push(round(iv.mean));
    band.lower.push(round(iv.lower));
    band.upper.push(round(iv.upper));
    band.n.push(iv.n);
  });
  runs.forEach((r, i) => (band.seeds[String(r.seed)] = perRun[i].map((v) => round(v))));
  return band;
}

function metricStats(values: Map<number, number>, seIf?: Map<number, number>): MetricStats {
  const xs = [...values.values()];
  const iv = tInterval(xs);
  const boot = bootstrapMeanInterval(xs, { seed: BOOTSTRAP_SEED, resamples: BOOTSTRAP_RESAMPLES });
  const out: MetricStats = {
    n: iv.n,
    mean: iv.mean,
    sd: iv.sd,
    lower: iv.lower,
    upper: iv.upper,
    bootLower: boot.lower,
    bootUpper: boot.upper,
    values: Object.fromEntries([...values].map(([s, v]) => [String(s), v])),
  };
  if (seIf) {
    const ses = [...seIf.values()].filter((x) => Number.isFinite(x));
    out.meanRunSE = ses.length ? ses.reduce((a, b) => a + b, 0) / ses.length : NaN;
  }
  return out;
}

/** The sweep's spec as the summary stores it: `variants` only when the sweep had some. */
export type SummarySpec = Omit<SweepSpec, 'variants'> & { variants?: SweepSpec['variants']; runs: string };

export interface SummaryInput {
  spec: SummarySpec;
  command: string;
  /** Presets in sweep order. */
  presets: string[];
  /** Runs planned (for `complete`). */
  planned: number;
  runs: RunResult[];
}

export function buildSummary(input: SummaryInput): Summary {
  const runs = [...input.runs].sort((a, b) => input.presets.indexOf(a.preset) - input.presets.indexOf(b.preset) || a.seed - b.seed);
  const parsed = runs.map((r) => ({ r, m: parseMetricsJsonl(r.metricsText) }));
  const runSummaries: RunSummary[] = parsed.map(({ r, m }) => {
    const rm = computeRunMetrics({ preset: r.preset, seed: r.seed, metrics: m, start: r.start, final: r.final, entropyTarget: r.config.loss.entropy.target, entropyControl: r.config.loss.entropy, ...(r.coverage ? { coverage: r.coverage } : {}) });
    return { preset: r.preset, seed: r.seed, dir: r.dir, device: r.device, values: rm.values, se: rm.se, entropyWindows: rm.entropyWindows };
  });

  // Coverage metrics only where a run measured them (older sweeps' summaries stay as they were).
  const metricDefs = RUN_METRICS.filter((d) => !d.optional || runSummaries.some((r) => d.id in r.values));
  const presets: Record<string, PresetSummary> = {};
  const byPreset = new Map<string, Map<number, Record<string, number>>>();
  const targets = new Map<string, number>();
  for (const p of input.presets) {
    const rs = runSummaries.filter((r) => r.preset === p);
    const cfg: RunConfig | undefined = runs.find((r) => r.preset === p)?.config;
    byPreset.set(p, new Map(rs.map((r) => [r.seed, r.values])));
    targets.set(p, cfg?.loss.entropy.target ?? NaN);
    const metrics: Record<string, MetricStats> = {};
    for (const def of metricDefs) {
      const vals = new Map(rs.map((r) => [r.seed, r.values[def.id]]));
      const hasSE = rs.some((r) => def.id in r.se);
      metrics[def.id] = metricStats(vals, hasSE ? new Map(rs.map((r) => [r.seed, r.se[def.id]])) : undefined);
    }
    const windows = rs.length ? rs[0].entropyWindows.map((w, j) => ({ w, j })) : [];
    presets[p] = {
      n: rs.length,
      seeds: rs.map((r) => r.seed),
      entropyTarget: cfg?.loss.entropy.target ?? NaN,
      entropyMode: cfg?.loss.entropy.mode ?? 'unknown',
      stages: cfg ? cfg.stages.map((s) => ({ maxResponseLength: s.maxResponseLength, steps: s.steps })) : [],
      metrics,
      entropyWindows: windows.map(({ w, j }) => {
        const iv = tInterval(rs.map((r) => r.entropyWindows[j]?.mean ?? NaN));
        return { from: w.from, to: w.to, n: iv.n, mean: iv.mean, lower: iv.lower, upper: iv.upper };
      }),
    };
  }

  const pairs: PairSummary[] = [];
  for (let i = 0; i < input.presets.length; i++) {
    for (let j = i + 1; j < input.presets.length; j++) {
      const a = input.presets[i];
      const b = input.presets[j];
      const metrics: PairSummary['metrics'] = {};
      for (const def of metricDefs) {
        const get = (p: string) => new Map([...(byPreset.get(p) ?? [])].map(([s, v]) => [s, v[def.id]]));
        const d = pairedDifference(get(a), get(b));
        metrics[def.id] = { n: d.n, mean: d.mean, lower: d.lower, upper: d.upper, seeds: d.seeds, diffs: d.diffs };
      }
      pairs.push({ a, b, metrics });
    }
  }

  const bands = (runCurveSets: { r: RunResult; c: Record<string, RunCurve> }[]) => {
    const out: Record<string, Record<string, CurveBand>> = {};
    const keys = [...new Set(runCurveSets.flatMap(({ c }) => Object.keys(c)))].sort(curveOrder);
    for (const key of keys) {
      out[key] = {};
      for (const p of input.presets) {
        const rs = runCurveSets.filter(({ r, c }) => r.preset === p && c[key]).map(({ r, c }) => ({ seed: r.seed, ...c[key] }));
        if (rs.length) out[key][p] = aggregateCurves(rs);
      }
    }
    return out;
  };
  const curves = bands(parsed.map(({ r, m }) => ({ r, c: runCurves(m) })));
  const pageCurves = bands(parsed.map(({ r, m }) => ({ r, c: runStepCurves(m, PAGE_CURVE_KEYS) })));

  // A finding with a regime speaks only for sweeps run under it (coverage.ts sweepHasRegime).
  const findings = FINDINGS.filter((f) => f.presets.every((p) => input.presets.includes(p)) && (!f.regime || sweepHasRegime(f.regime, input.spec.config))).map((f) =>
    evaluateFinding(f, { runs: byPreset, entropyTarget: targets }),
  );

  const coverage = coverageCurves(input.presets, runs);
  return {
    schema: SUMMARY_SCHEMA,
    complete: runs.length === input.planned,
    command: input.command,
    sweep: input.spec,
    methods: METHODS,
    runs: runSummaries,
    presets,
    pairs,
    curves,
    findings,
    ...(coverage ? { coverage } : {}),
    pageCurves,
  };
}

/** summary.json's text: the summary without its page curves (they go to reference files only). */
export function summaryJson(s: Summary): string {
  const { pageCurves: _page, ...file } = s;
  void _page;
  return toJson(file);
}

/** Curves in a fixed order: held-out accuracy (τ = 1.0 first), then entropy, coefficient, reward, length, truncation (the page's curves in their own order). */
const CURVE_ORDER: readonly string[] = [...STEP_CURVE_KEYS, ...PAGE_CURVE_KEYS];
function curveRank(key: string): number {
  const ev = /^val\/avg@\d+\/t(.+)$/.exec(key);
  if (ev) return -Number(ev[1]); // τ = 1.0 before 0.6
  const i = CURVE_ORDER.indexOf(key);
  return i >= 0 ? i : CURVE_ORDER.length;
}
function curveOrder(a: string, b: string): number {
  return curveRank(a) - curveRank(b) || (a < b ? -1 : a > b ? 1 : 0);
}
