/**
 * What one sweep run measured: parses a run's metrics.jsonl (step records and periodic eval
 * records, as `magic-lab train` writes them) and reduces it, with the run's two precise
 * evaluations, to the scalar metrics the sweep compares (RUN_METRICS) and the curves it plots
 * (CURVE_METRICS). Pure: the runner reads the files.
 */
import { passAtK } from '../rl/metrics';
import { avgAtKSamplingSE, mean, normalizedArea } from './stats';

/** One metrics.jsonl record with nulls (JSON's NaN) turned back into NaN. */
export type Row = Record<string, number> & { step: number };

export interface ParsedMetrics {
  /** Step records by ascending step (a step written twice, e.g. recomputed after a resume, keeps the last). */
  steps: Row[];
  /** Eval records by ascending step, deduplicated the same way. */
  evals: Row[];
}

function dedupe(rows: Row[]): Row[] {
  const by = new Map<number, Row>();
  for (const r of rows) by.set(r.step, r);
  return [...by.values()].sort((a, b) => a.step - b.step);
}

export function parseMetricsJsonl(text: string): ParsedMetrics {
  const steps: Row[] = [];
  const evals: Row[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const obj = JSON.parse(line) as Record<string, unknown>;
    const row = {} as Row;
    for (const [k, v] of Object.entries(obj)) {
      if (k === 'type') continue;
      row[k] = typeof v === 'number' ? v : v === null ? NaN : Number(v);
    }
    if (typeof obj.step !== 'number') continue;
    (obj.type === 'eval' ? evals : steps).push(row);
  }
  return { steps: dedupe(steps), evals: dedupe(evals) };
}

/** The two evaluation temperatures of the paper, as they appear in keys. */
export const TEMPERATURES = ['1.0', '0.6'] as const;
export type TemperatureLabel = (typeof TEMPERATURES)[number];

export type MetricUnit = 'accuracy' | 'fraction' | 'nats' | 'tokens' | 'seconds' | 'steps' | 'length';

export interface MetricDef {
  id: string;
  label: string;
  unit: MetricUnit;
  /** How it is computed, for the reports. */
  how: string;
  /**
   * Measured only by sweeps whose precise evaluations wrote coverage reports (`eval --json`):
   * a summary lists it only when some run has it, so summaries of older runs stay as they were.
   */
  optional?: boolean;
}

const T = (t: TemperatureLabel) => `τ = ${t}`;

/** The run metric of the entropy at τ = 1.0 on held-out problems (val/entropy/t1.0, mean over in-run evaluations). */
export const HELD_OUT_ENTROPY = 'entropy/held_out/t1.0';

/** Steps in the moving mean of actor/entropy the collapse criterion reads (single steps dip when few groups survive rejection). */
export const ENTROPY_MEAN_STEPS = 10;

/**
 * The collapse criterion (docs/sweeps.md): a run collapses when its ENTROPY_MEAN_STEPS-step mean
 * entropy falls below the config's target and stays below for at least COLLAPSE_STEPS
 * consecutive steps. The one place this number lives.
 */
export const COLLAPSE_STEPS = 50;

/** Stages whose truncation and length are reported (a schedule may have up to 16; the paper's have 2–3). */
export const STAGE_METRIC_COUNT = 4;

/** Steps at a stage's start whose truncation shows what the longer limit released (or the shorter one cut). */
export const STAGE_ENTRY_STEPS = 10;

const STAGE_NUMBERS = Array.from({ length: STAGE_METRIC_COUNT }, (_, i) => i + 1);

/** The pass@k the coverage metrics report besides pass@1 and pass@n (n = the eval's k; NaN when n < 16). */
export const COVERAGE_MID_K = 16;

/**
 * Coverage metrics (src/rl/coverage.ts), from the precise evaluations' coverage reports: pass@1,
 * pass@16 and pass@n of the start weights (the base's reference curve) and of the final
 * checkpoint, and the share of the base-unsolved test problems the final checkpoint solves.
 */
export const COVERAGE_METRICS: readonly MetricDef[] = TEMPERATURES.flatMap((t): MetricDef[] => [
  ...(['start', 'final'] as const).flatMap((w): MetricDef[] => {
    const of = w === 'start' ? 'the start weights (the base: the reference curve)' : 'the final checkpoint';
    return [
      { id: `${w}/pass@1/t${t}`, label: `${w} pass@1 ${T(t)}`, unit: 'accuracy', how: `unbiased pass@1 of ${of} at ${T(t)}, from the precise evaluation's n samples per problem`, optional: true },
      { id: `${w}/pass@${COVERAGE_MID_K}/t${t}`, label: `${w} pass@${COVERAGE_MID_K} ${T(t)}`, unit: 'accuracy', how: `unbiased pass@${COVERAGE_MID_K} of ${of} at ${T(t)} (NaN when n < ${COVERAGE_MID_K})`, optional: true },
      { id: `${w}/pass@n/t${t}`, label: `${w} pass@n ${T(t)}`, unit: 'accuracy', how: `pass@k at the largest k = n (the eval's samples per problem) of ${of} at ${T(t)}: the share of problems solved at least once`, optional: true },
    ];
  }),
  {
    id: `final/base_unsolved_solved/t${t}`,
    label: `base-unsolved solved ${T(t)}`,
    unit: 'fraction',
    how: `of the test problems the start weights (the base) solved in none of their n samples at τ = 1.0 (class unsolved), the share the final checkpoint solves at least once in n at ${T(t)}; same problems, same eval seed; NaN when the base solved every problem`,
    optional: true,
  },
]);

/** The scalar metrics of one run (ids are stable: findings and reports refer to them). */
export const RUN_METRICS: readonly MetricDef[] = [
  ...TEMPERATURES.flatMap((t): MetricDef[] => [
    { id: `start/avg/t${t}`, label: `start avg@k ${T(t)}`, unit: 'accuracy', how: `precise avg@k of the start weights at ${T(t)}` },
    { id: `final/avg/t${t}`, label: `final avg@k ${T(t)}`, unit: 'accuracy', how: `precise avg@k of the final checkpoint at ${T(t)}` },
    { id: `gain/avg/t${t}`, label: `gain avg@k ${T(t)}`, unit: 'accuracy', how: `final − start precise avg@k at ${T(t)} (same problems, same eval seed)` },
    { id: `final/pass/t${t}`, label: `final pass@k ${T(t)}`, unit: 'accuracy', how: `precise unbiased pass@k of the final checkpoint at ${T(t)}` },
    { id: `final/truncation/t${t}`, label: `final truncated ${T(t)}`, unit: 'fraction', how: `share of the precise evaluation's responses cut at the max length, ${T(t)}` },
    { id: `auc/avg/t${t}`, label: `area under held-out avg@k ${T(t)}`, unit: 'accuracy', how: `trapezoid area under the periodic held-out evals (val/avg@k, ${T(t)}) over steps ÷ the step range: the mean accuracy during training` },
  ]),
  { id: 'entropy/mean', label: 'entropy, whole run', unit: 'nats', how: 'mean of actor/entropy over every step' },
  { id: 'entropy/first_half', label: 'entropy, first half', unit: 'nats', how: 'mean of actor/entropy over steps ≤ S/2 (S = the run\'s last step)' },
  { id: 'entropy/second_half', label: 'entropy, second half', unit: 'nats', how: 'mean of actor/entropy over steps > S/2' },
  {
    id: 'entropy/target_rmsd',
    label: 'entropy − target, RMS (second half)',
    unit: 'nats',
    how: "root mean square of (actor/entropy − the config's loss.entropy.target) over steps > S/2: how closely the run holds its target (exact entropy, whatever e_k the controller used)",
  },
  { id: 'entropy/below_target', label: 'steps below target (second half)', unit: 'fraction', how: 'share of steps > S/2 whose actor/entropy is below the config\'s target' },
  { id: 'entropy/min10', label: 'entropy, lowest 10-step mean', unit: 'nats', how: `lowest trailing ${ENTROPY_MEAN_STEPS}-step mean of actor/entropy (defined from the ${ENTROPY_MEAN_STEPS}th step on; NaN steps skipped)` },
  {
    id: 'entropy/below_target_longest',
    label: 'longest stretch below target',
    unit: 'steps',
    how: `longest run of consecutive steps whose ${ENTROPY_MEAN_STEPS}-step mean actor/entropy is below the config's target`,
  },
  {
    id: 'entropy/collapsed',
    label: 'entropy collapsed',
    unit: 'fraction',
    how: `1 when the ${ENTROPY_MEAN_STEPS}-step mean actor/entropy falls below the target and stays below for at least ${COLLAPSE_STEPS} consecutive steps (COLLAPSE_STEPS), else 0; over seeds: the share that collapsed`,
  },
  {
    id: 'entropy/ramp_end',
    label: "controller's ramp: last step",
    unit: 'steps',
    how: "last step of the adaptive controller's ramp window: from the first step whose e_k fell below the target (the step after it logs a higher actor/entropy_coeff), ⌈(c_max − c₀)/Δ⌉ steps of the run config's loss.entropy, the steps c needs to climb from c₀ to c_max at Δ a step; NaN when the controller is not adaptive or never raised c",
  },
  {
    id: 'entropy/min10_after_ramp',
    label: 'entropy, lowest 10-step mean after the ramp',
    unit: 'nats',
    how: `lowest trailing ${ENTROPY_MEAN_STEPS}-step mean of actor/entropy whose ${ENTROPY_MEAN_STEPS} steps all lie after the controller's ramp window (entropy/ramp_end); the whole run's when there is no ramp (not adaptive, or c never raised); NaN when the run ends before such a mean`,
  },
  {
    id: HELD_OUT_ENTROPY,
    label: 'held-out entropy τ = 1.0, whole run',
    unit: 'nats',
    how: "mean over the run's periodic held-out evaluations after step 0 of val/entropy/t1.0: the token-mean entropy H_t of the policy at τ = 1.0 on its own samples of the test problems, whatever the rollout temperature (one scale for every preset); NaN when the records lack it (runs evaluated before it was logged)",
  },
  { id: 'entropy/collapse_step', label: 'collapse step', unit: 'steps', how: `first step of the first below-target stretch of at least ${COLLAPSE_STEPS} steps (the moment of collapse); NaN when the run did not collapse` },
  { id: 'truncation/mean', label: 'truncated (train)', unit: 'fraction', how: 'mean of response_length/clip_ratio over steps' },
  { id: 'response_length/mean', label: 'response length (train)', unit: 'length', how: 'mean of response_length/mean over steps' },
  ...STAGE_NUMBERS.flatMap((n): MetricDef[] => {
    const of = `the steps of stage ${n} (step records whose 0-based \`stage\` is ${n - 1}); NaN when the run has no stage ${n}`;
    return [
      { id: `stage${n}/truncation`, label: `stage ${n}: truncated`, unit: 'fraction', how: `mean of response_length/clip_ratio over ${of}` },
      { id: `stage${n}/truncation_entry`, label: `stage ${n}: truncated, first ${STAGE_ENTRY_STEPS} steps`, unit: 'fraction', how: `mean of response_length/clip_ratio over the first ${STAGE_ENTRY_STEPS} of ${of}` },
      { id: `stage${n}/length`, label: `stage ${n}: response length`, unit: 'length', how: `mean of response_length/mean over ${of}` },
    ];
  }),
  ...COVERAGE_METRICS,
  { id: 'tokens', label: 'tokens', unit: 'tokens', how: 'Σ over steps of perf/tokens_per_s × perf/step_s: prompt + response tokens generated plus tokens trained' },
  { id: 'wall_s', label: 'train time', unit: 'seconds', how: 'the last step record\'s time_ms (the trainer\'s clock: training without evaluations, kept across resumes)' },
  { id: 'steps', label: 'steps', unit: 'steps', how: 'the last step recorded' },
];

export const RUN_METRIC_IDS: readonly string[] = RUN_METRICS.map((m) => m.id);
export function metricDef(id: string): MetricDef {
  const d = RUN_METRICS.find((m) => m.id === id);
  if (!d) throw new RangeError(`unknown run metric ${JSON.stringify(id)} (known: ${RUN_METRIC_IDS.join(', ')})`);
  return d;
}

/** Step-record keys plotted as curves (the eval curves are added per k: val/avg@k/t1.0, val/avg@k/t0.6). */
export const STEP_CURVE_KEYS = ['actor/entropy', 'actor/entropy_coeff_realized', 'critic/score/mean', 'response_length/mean', 'response_length/clip_ratio'] as const;

/**
 * Step-record keys the page's charts draw beside the report's curves (the entropy coefficient c as
 * set, clip fractions, groups, gradient norm, tokens/s): a summary computes their bands too
 * (`pageCurves`, never written to summary.json, whose bytes stay as they were), so a reference file
 * (src/sweep/reference.ts) holds every curve a Try-this card points to. Reports do not chart them.
 */
export const PAGE_CURVE_KEYS = [
  'actor/entropy_coeff',
  'actor/pg_clipfrac',
  'actor/pg_clipfrac_lower',
  'actor/grad_norm',
  'batch/solve_all',
  'batch/solve_none',
  'batch/kept_groups',
  'perf/tokens_per_s',
] as const;

/** Number of windows the entropy trajectory is cut into. */
export const ENTROPY_WINDOWS = 10;

/** One precise evaluation: the record `magic-lab eval` returned and what it was asked for. */
export interface PreciseEval {
  record: Record<string, number>;
  problems: number;
  k: number;
  seed: number;
}

/** One precise evaluation's per-problem counts at each temperature (the coverage report's `problems`). */
export type CoverageProblems = Record<string, { id: string; n: number; correct: number }[]>;

export interface RunInput {
  /** The coverage reports of the precise evaluations, when they wrote them (absent: no coverage metrics). */
  coverage?: { start: CoverageProblems | null; final: CoverageProblems };
  preset: string;
  seed: number;
  metrics: ParsedMetrics;
  /** null when the run started from random init (no start weights to evaluate). */
  start: PreciseEval | null;
  final: PreciseEval;
  /** The run config's entropy target (loss.entropy.target), for how well the run holds it; NaN/absent: not computed. */
  entropyTarget?: number;
  /** The run config's entropy controller (loss.entropy), for its ramp window; absent: no ramp. */
  entropyControl?: EntropyRampConfig;
}

/** What the controller's ramp window is derived from (RunConfig.loss.entropy). */
export interface EntropyRampConfig {
  mode: string;
  c0: number;
  delta: number;
  cMax: number;
}

/** ⌈(c_max − c₀)/Δ⌉: the steps the adaptive controller needs to raise c from c₀ to c_max (0 when it starts there). */
export function rampSteps(c: EntropyRampConfig): number {
  if (c.mode !== 'adaptive' || !(c.delta > 0)) return 0;
  // The tolerance keeps 0.5 / 0.02 at 25 whatever the last bit of the division.
  return Math.max(0, Math.ceil((c.cMax - c.c0) / c.delta - 1e-9));
}

/**
 * The controller's ramp window in one run: it starts at the first step whose e_k fell below the
 * target — the step before the logged coefficient (actor/entropy_coeff, c_k before the update)
 * first rises — and lasts rampSteps(c) steps. null when there is none (not adaptive, no coefficient
 * logged, or c never raised).
 */
export function rampWindow(steps: readonly Row[], c: EntropyRampConfig | undefined): { from: number; to: number } | null {
  if (!c || c.mode !== 'adaptive') return null;
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]['actor/entropy_coeff'];
    const cur = steps[i]['actor/entropy_coeff'];
    if (Number.isFinite(prev) && Number.isFinite(cur) && cur > prev) {
      const from = steps[i - 1].step;
      return { from, to: from + rampSteps(c) - 1 };
    }
  }
  return null;
}

export interface EntropyWindow {
  /** Steps (from, to]. */
  from: number;
  to: number;
  mean: number;
}

export interface RunMetrics {
  values: Record<string, number>;
  /** Standard error of each precise accuracy (sampling SE bound, see stats.avgAtKSamplingSE); gains: √(SE_s² + SE_f²). */
  se: Record<string, number>;
  entropyWindows: EntropyWindow[];
}

const finiteMean = (xs: number[]) => mean(xs.filter((x) => Number.isFinite(x)));

/** The eval-record key of avg@k at a temperature, whatever k the run used. */
export function findEvalKey(row: Record<string, number>, kind: 'avg' | 'pass', t: TemperatureLabel): string | undefined {
  return Object.keys(row).find((k) => k.startsWith(`val/${kind}@`) && k.endsWith(`/t${t}`));
}

export function entropyWindows(steps: Row[], windows = ENTROPY_WINDOWS): EntropyWindow[] {
  const last = steps.length ? steps[steps.length - 1].step : 0;
  if (last === 0) return [];
  const n = Math.min(windows, last);
  const out: EntropyWindow[] = [];
  for (let j = 0; j < n; j++) {
    const from = Math.floor((j * last) / n);
    const to = Math.floor(((j + 1) * last) / n);
    out.push({ from, to, mean: finiteMean(steps.filter((r) => r.step > from && r.step <= to).map((r) => r['actor/entropy'])) });
  }
  return out;
}

/**
 * Trailing w-step means of `values`: entry i is the mean of the finite values among i−w+1..i, NaN
 * before the w-th value or where the whole window is NaN (a NaN step neither counts nor breaks it).
 */
export function movingMeans(values: readonly number[], w = ENTROPY_MEAN_STEPS): number[] {
  return values.map((_, i) => (i < w - 1 ? NaN : finiteMean(values.slice(i - w + 1, i + 1) as number[])));
}

export interface CollapseStats {
  /** Lowest 10-step mean (NaN: fewer than 10 steps). */
  min10: number;
  /** Longest run of consecutive steps whose 10-step mean is below the target. */
  longestBelow: number;
  /** 1 collapsed, 0 not; NaN when undefined (no target, or fewer than 10 steps). */
  collapsed: number;
  /** First step of the first below-target stretch of ≥ COLLAPSE_STEPS steps; NaN when none. */
  collapseStep: number;
}

/**
 * The collapse criterion on one run's step records (ascending, one per step) and its entropy
 * target. A step whose 10-step mean is undefined (10 NaN steps in a row) breaks a stretch.
 * `means`: the records' 10-step entropy means, when the caller already has them.
 */
export function collapseStats(steps: readonly Row[], target: number, means = movingMeans(steps.map((r) => r['actor/entropy']))): CollapseStats {
  const defined = means.filter((m) => Number.isFinite(m));
  const min10 = defined.length ? Math.min(...defined) : NaN;
  if (!Number.isFinite(target) || !defined.length) return { min10, longestBelow: NaN, collapsed: NaN, collapseStep: NaN };
  let longestBelow = 0;
  let run = 0;
  let collapseStep = NaN;
  means.forEach((m, i) => {
    run = Number.isFinite(m) && m < target ? run + 1 : 0;
    longestBelow = Math.max(longestBelow, run);
    if (run === COLLAPSE_STEPS && Number.isNaN(collapseStep)) collapseStep = steps[i - COLLAPSE_STEPS + 1].step;
  });
  return { min10, longestBelow, collapsed: longestBelow >= COLLAPSE_STEPS ? 1 : 0, collapseStep };
}

export function computeRunMetrics(run: RunInput): RunMetrics {
  const { steps, evals } = run.metrics;
  const v: Record<string, number> = {};
  const se: Record<string, number> = {};
  const last = steps.length ? steps[steps.length - 1].step : 0;
  for (const t of TEMPERATURES) {
    const rec = (e: PreciseEval | null, kind: 'avg' | 'pass') => {
      if (!e) return NaN;
      const key = `val/${kind}@${e.k}/t${t}`;
      return key in e.record ? e.record[key] : NaN;
    };
    const s = rec(run.start, 'avg');
    const f = rec(run.final, 'avg');
    v[`start/avg/t${t}`] = s;
    v[`final/avg/t${t}`] = f;
    v[`gain/avg/t${t}`] = f - s;
    v[`final/pass/t${t}`] = rec(run.final, 'pass');
    v[`final/truncation/t${t}`] = run.final.record[`val/response_length/clip_ratio/t${t}`] ?? NaN;
    se[`start/avg/t${t}`] = run.start ? avgAtKSamplingSE(s, run.start.problems, run.start.k) : NaN;
    se[`final/avg/t${t}`] = avgAtKSamplingSE(f, run.final.problems, run.final.k);
    se[`gain/avg/t${t}`] = Math.hypot(se[`start/avg/t${t}`], se[`final/avg/t${t}`]);
    const key = evals.length ? findEvalKey(evals[0], 'avg', t) : undefined;
    v[`auc/avg/t${t}`] = key ? normalizedArea(evals.map((e) => e.step), evals.map((e) => e[key])) : NaN;
  }
  if (run.coverage) Object.assign(v, coverageValues(run.coverage.start, run.coverage.final));
  const ent = (f: (r: Row) => boolean) => finiteMean(steps.filter(f).map((r) => r['actor/entropy']));
  v['entropy/mean'] = ent(() => true);
  v['entropy/first_half'] = ent((r) => r.step <= last / 2);
  v['entropy/second_half'] = ent((r) => r.step > last / 2);
  const target = run.entropyTarget ?? NaN;
  const late = steps.filter((r) => r.step > last / 2 && Number.isFinite(r['actor/entropy'])).map((r) => r['actor/entropy']);
  v['entropy/target_rmsd'] = Number.isFinite(target) && late.length ? Math.sqrt(late.reduce((a, e) => a + (e - target) ** 2, 0) / late.length) : NaN;
  v['entropy/below_target'] = Number.isFinite(target) && late.length ? late.filter((e) => e < target).length / late.length : NaN;
  const means = movingMeans(steps.map((r) => r['actor/entropy']));
  const cs = collapseStats(steps, target, means);
  v['entropy/min10'] = cs.min10;
  const ramp = rampWindow(steps, run.entropyControl);
  v['entropy/ramp_end'] = ramp ? ramp.to : NaN;
  // A trailing mean at step s covers s − 9 … s: it is clear of the ramp when s − 9 > ramp.to.
  const after = means.filter((m, i) => Number.isFinite(m) && (!ramp || steps[i].step - (ENTROPY_MEAN_STEPS - 1) > ramp.to));
  v['entropy/min10_after_ramp'] = after.length ? Math.min(...after) : NaN;
  const heldOut = evals.filter((e) => e.step > 0).map((e) => e['val/entropy/t1.0']);
  v[HELD_OUT_ENTROPY] = heldOut.some((x) => Number.isFinite(x)) ? finiteMean(heldOut) : NaN;
  v['entropy/below_target_longest'] = cs.longestBelow;
  v['entropy/collapsed'] = cs.collapsed;
  v['entropy/collapse_step'] = cs.collapseStep;
  v['truncation/mean'] = finiteMean(steps.map((r) => r['response_length/clip_ratio']));
  v['response_length/mean'] = finiteMean(steps.map((r) => r['response_length/mean']));
  for (const n of STAGE_NUMBERS) {
    const rows = steps.filter((r) => r.stage === n - 1);
    v[`stage${n}/truncation`] = finiteMean(rows.map((r) => r['response_length/clip_ratio']));
    v[`stage${n}/truncation_entry`] = finiteMean(rows.slice(0, STAGE_ENTRY_STEPS).map((r) => r['response_length/clip_ratio']));
    v[`stage${n}/length`] = finiteMean(rows.map((r) => r['response_length/mean']));
  }
  v.tokens = steps.reduce((a, r) => a + (Number.isFinite(r['perf/tokens_per_s'] * r['perf/step_s']) ? r['perf/tokens_per_s'] * r['perf/step_s'] : 0), 0);
  v.tokens = Math.round(v.tokens);
  v.wall_s = steps.length ? steps[steps.length - 1].time_ms / 1000 : NaN;
  v.steps = last;
  return { values: v, se, entropyWindows: entropyWindows(steps) };
}

/**
 * The coverage metrics of one run from its precise evaluations' per-problem counts. The base's
 * classes come from the start evaluation at τ = 1.0 (a problem with 0 of n correct is unsolved),
 * joined to the final evaluation's rows by problem identity.
 */
export function coverageValues(start: CoverageProblems | null, final: CoverageProblems): Record<string, number> {
  const v: Record<string, number> = {};
  const curve = (rows: { n: number; correct: number }[] | undefined, k: number | 'n') => {
    if (!rows || !rows.length) return NaN;
    const n = Math.min(...rows.map((r) => r.n));
    const kk = k === 'n' ? n : k;
    return kk > n ? NaN : rows.reduce((a, r) => a + passAtK(r.n, r.correct, kk), 0) / rows.length;
  };
  const baseRows = start?.['1.0'];
  const unsolved = baseRows ? new Set(baseRows.filter((r) => r.correct === 0).map((r) => r.id)) : null;
  for (const t of TEMPERATURES) {
    for (const [w, rows] of [['start', start?.[t]], ['final', final[t]]] as const) {
      v[`${w}/pass@1/t${t}`] = curve(rows, 1);
      v[`${w}/pass@${COVERAGE_MID_K}/t${t}`] = curve(rows, COVERAGE_MID_K);
      v[`${w}/pass@n/t${t}`] = curve(rows, 'n');
    }
    const rows = (final[t] ?? []).filter((r) => unsolved?.has(r.id));
    v[`final/base_unsolved_solved/t${t}`] = rows.length ? rows.filter((r) => r.correct > 0).length / rows.length : NaN;
  }
  return v;
}

/** One run's curve of one metric: ascending steps and their values. */
export interface RunCurve {
  steps: number[];
  values: number[];
}

/** The curves of one run: step metrics (STEP_CURVE_KEYS) and the held-out avg@k at both temperatures. */
export function runCurves(m: ParsedMetrics): Record<string, RunCurve> {
  const out: Record<string, RunCurve> = runStepCurves(m, STEP_CURVE_KEYS);
  for (const t of TEMPERATURES) {
    const key = m.evals.length ? findEvalKey(m.evals[0], 'avg', t) : undefined;
    if (key) out[key] = { steps: m.evals.map((r) => r.step), values: m.evals.map((r) => r[key]) };
  }
  return out;
}

/** The step-record curves of one run among `keys` (those it recorded). */
export function runStepCurves(m: ParsedMetrics, keys: readonly string[]): Record<string, RunCurve> {
  const out: Record<string, RunCurve> = {};
  for (const key of keys) {
    const rows = m.steps.filter((r) => key in r);
    if (rows.length) out[key] = { steps: rows.map((r) => r.step), values: rows.map((r) => r[key]) };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Formatting (reports print accuracies in points)

export function formatValue(unit: MetricUnit, x: number, signed = false): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–';
  const sign = signed && x > 0 ? '+' : '';
  switch (unit) {
    case 'accuracy':
    case 'fraction':
      return `${sign}${(x * 100).toFixed(1)}`;
    case 'nats':
      return `${sign}${x.toFixed(3)}`;
    case 'tokens':
      return `${sign}${Math.round(x).toLocaleString('en-US')}`;
    case 'seconds':
      return `${sign}${(x / 60).toFixed(1)}`;
    case 'length':
      return `${sign}${x.toFixed(1)}`;
    case 'steps':
      return `${sign}${Math.round(x)}`;
  }
}

/** The unit's suffix in tables: accuracies in points (%), time in minutes. */
export function unitSuffix(unit: MetricUnit): string {
  return { accuracy: '%', fraction: '%', nats: ' nats', tokens: '', seconds: ' min', length: ' tok', steps: '' }[unit];
}
