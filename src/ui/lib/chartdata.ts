/**
 * Chart data: which runs to draw (the active run plus the overlay selection), the series of
 * each chart, rows keyed by step with one column per run × series, EMA smoothing, and the
 * stage boundaries of a run.
 */
import type { RunConfig } from '../../rl/config';
import { evalKey, STEP_METRIC_KEY_LIST } from '../../rl/metrics';
import type { RunData } from '../../io/runfile';
import { downsampleMinMax } from './downsample';
import { emaSmooth } from './smoothing';
import { TIMING_SERIES } from './timing';

/** Run ids to draw: the active run first, then the overlay selection (existing runs only, no duplicates). */
export function runsToDraw(activeRunId: string | null, overlay: readonly string[], runs: Readonly<Record<string, RunData>>): string[] {
  const out: string[] = [];
  for (const id of [activeRunId, ...overlay]) if (id !== null && runs[id] && !out.includes(id)) out.push(id);
  return out;
}

export interface SeriesSpec {
  key: string;
  label: string;
  source: 'step' | 'eval';
  /** Right-hand axis. */
  right?: boolean;
  /**
   * Step-exact: the value a step set or counted (α, c, group counts, η), drawn as it is at any
   * smoothing, so the line and the sentence under the chart (lib/explain.ts) read the same number.
   */
  exact?: boolean;
}

export interface ChartSpec {
  id: string;
  title: string;
  help: string;
  series: SeriesSpec[];
  /** Offer a log-scale toggle. */
  log?: boolean;
  /** Values that vary run to run (timings): hidden in visual tests. */
  volatile?: boolean;
  /** Draw the series as stacked areas (per run), the top being their sum: the step-time chart (lib/timing.ts). */
  stacked?: boolean;
  /** Draw the entropy target as a horizontal line. */
  entropyTarget?: boolean;
  /**
   * Every held-out avg@k / pass@k series a drawn run has, with its own k and temperatures (the
   * reward chart): a run overlaid with another eval k or other temperatures draws its own.
   * Without it, each held-out series of the chart draws, for each run, that run's series of the
   * same kind at the same temperature (whatever its k).
   */
  allHeldOut?: boolean;
  /** The series each run draws when many runs are overlaid (drawnSeries); default the first. */
  main?: string;
  /** The y axis spans the data (findings: curves near 0.15 are not squashed onto 0–1). */
  fitY?: boolean;
  /** A short hover tooltip: runs and reference means only, no bands or seeds. */
  compactTooltip?: boolean;
}

export function chartSpecs(cfg: RunConfig): ChartSpec[] {
  const k = cfg.eval.k;
  const evalSeries: SeriesSpec[] = [];
  for (const t of cfg.eval.temperatures) {
    evalSeries.push({ key: evalKey('avg', k, t), label: `avg@${k} τ=${t}`, source: 'eval' });
    evalSeries.push({ key: evalKey('pass', k, t), label: `pass@${k} τ=${t}`, source: 'eval' });
  }
  return [
    { id: 'entropy', title: 'Entropy e_k', help: 'actor/entropy: mean entropy of the rollout distribution over the kept response tokens (nats), before the update; dashed line = target.', series: [{ key: 'actor/entropy', label: 'entropy', source: 'step' }], entropyTarget: true, log: true },
    { id: 'entropy-coeff', title: 'Entropy coefficient', help: 'c_k (set) and α_k = c_k·1{e_k < target} (realised).', series: [{ key: 'actor/entropy_coeff', label: 'c (set)', source: 'step', exact: true }, { key: 'actor/entropy_coeff_realized', label: 'α (realised)', source: 'step', exact: true }], main: 'actor/entropy_coeff_realized' },
    { id: 'reward', title: 'Reward & held-out accuracy', help: 'Train reward (critic/score/mean) and held-out avg@k / pass@k at each eval temperature (dots: one evaluation each).', series: [{ key: 'critic/score/mean', label: 'train reward', source: 'step' }, ...evalSeries], allHeldOut: true },
    { id: 'length', title: 'Response length', help: 'Mean response length (tokens, left) and truncation ratio (right).', series: [{ key: 'response_length/mean', label: 'mean length', source: 'step' }, { key: 'response_length/clip_ratio', label: 'truncated', source: 'step', right: true }] },
    { id: 'clipfrac', title: 'Clip fractions', help: 'Fraction of tokens whose ratio ρ was clipped above (pg_clipfrac) and below (pg_clipfrac_lower).', series: [{ key: 'actor/pg_clipfrac', label: 'clipfrac', source: 'step' }, { key: 'actor/pg_clipfrac_lower', label: 'clipfrac lower', source: 'step' }] },
    { id: 'groups', title: 'Groups', help: 'Groups solved by all (solve_all), by none (solve_none) and kept by rejection sampling.', series: [{ key: 'batch/solve_all', label: 'solve_all', source: 'step', exact: true }, { key: 'batch/solve_none', label: 'solve_none', source: 'step', exact: true }, { key: 'batch/kept_groups', label: 'kept', source: 'step', exact: true }] },
    { id: 'grad-norm', title: 'Grad norm', help: 'Global gradient norm before clipping.', series: [{ key: 'actor/grad_norm', label: 'grad norm', source: 'step' }], log: true },
    { id: 'lr', title: 'Learning rate η', help: "actor/lr: the AdamW learning rate of the step's updates (update.lr times its schedule: warmup, then constant or cosine).", series: [{ key: 'actor/lr', label: 'η', source: 'step', exact: true }] },
    { id: 'throughput', title: 'Tokens / s', help: 'Generated + trained tokens per second of wall time.', series: [{ key: 'perf/tokens_per_s', label: 'tokens/s', source: 'step' }], log: true, volatile: true },
    { id: 'timing', title: 'Step time by phase', help: "Seconds of each step by phase (verl's timing_s/*), stacked: generate, reward, π_old, π_ref, advantages, update, evaluation, other; the top is the whole step.", series: TIMING_SERIES, stacked: true, volatile: true },
  ];
}

/**
 * Column name of a series of the run drawn in `slot` (0 = the active run, then the overlay).
 * Keyed by slot, not run id, so a chart's lines stay mounted when the run changes or its first
 * points arrive: mounting recharts lines while training is a long main-thread task.
 */
export const columnKey = (slot: number, key: string) => `r${slot}|${key}`;

export type ChartRow = { step: number } & Record<string, number | null>;

/**
 * Whether the rows hold no value but 0 in any of the columns `keys` (or none at all): the chart
 * then draws a 0–1 axis (recharts would label it 0–4). Keys are whole column keys (`r0|actor/lr`).
 */
export function onlyZeros(rows: readonly Record<string, unknown>[], keys: readonly string[]): boolean {
  for (const r of rows) {
    for (const k of keys) {
      const v = r[k];
      if (v !== null && v !== undefined && v !== 0) return false;
    }
  }
  return true;
}

/** A held-out accuracy key, `val/avg@8/t1.0`: its kind, k and temperature. */
export interface HeldOutKey {
  key: string;
  kind: 'avg' | 'pass';
  k: number;
  temperature: number;
}

const HELD_OUT_RE = /^val\/(avg|pass)@(\d+)\/t(\d+(?:\.\d+)?)$/;

export function parseHeldOutKey(key: string): HeldOutKey | null {
  const m = HELD_OUT_RE.exec(key);
  return m ? { key, kind: m[1] as 'avg' | 'pass', k: Number(m[2]), temperature: Number(m[3]) } : null;
}

export const heldOutLabel = (h: HeldOutKey) => `${h.kind}@${h.k} τ=${h.temperature}`;

const heldOutCache = new WeakMap<RunData, HeldOutKey[]>();
/**
 * The held-out avg@k / pass@k series a run has: the keys of its eval records (an imported run's
 * own k and temperatures, whatever its config says; of pass@k only the largest k), else — no evaluation yet — its config's.
 * Ordered by the config's temperatures (others after, highest first), avg before pass, then k.
 */
export function heldOutKeys(run: RunData): HeldOutKey[] {
  let out = heldOutCache.get(run);
  if (out) return out;
  const found = new Map<string, HeldOutKey>();
  for (const r of run.evals)
    for (const [key, v] of Object.entries(r)) {
      if (found.has(key) || typeof v !== 'number' || !Number.isFinite(v)) continue;
      const h = parseHeldOutKey(key);
      if (h) found.set(key, h);
    }
  if (found.size === 0) {
    const { k, temperatures } = run.config.eval;
    for (const t of temperatures) for (const kind of ['avg', 'pass'] as const) found.set(evalKey(kind, k, t), { key: evalKey(kind, k, t), kind, k, temperature: t });
  }
  // The coverage curve's smaller k (val/pass@1, @2, … beside pass@k) are not drawn here: per temperature the largest pass@k only.
  for (const h of [...found.values()]) {
    if (h.kind === 'pass' && [...found.values()].some((o) => o.kind === 'pass' && o.temperature === h.temperature && o.k > h.k)) found.delete(h.key);
  }
  const temps = run.config.eval.temperatures;
  const rank = (t: number) => (temps.includes(t) ? temps.indexOf(t) : temps.length);
  out = [...found.values()].sort((a, b) => rank(a.temperature) - rank(b.temperature) || b.temperature - a.temperature || (a.kind === b.kind ? 0 : a.kind === 'avg' ? -1 : 1) || a.k - b.k);
  heldOutCache.set(run, out);
  return out;
}

/**
 * The series `spec` draws for `run` (null: no run yet, the spec's own). Held-out series are keyed
 * per run: the run's own series of the same kind and temperature (its k), and with `allHeldOut`
 * every held-out series the run has. Step series and other eval series are the spec's.
 */
export function seriesForRun(spec: ChartSpec, run: RunData | null): SeriesSpec[] {
  if (!run || !spec.series.some((s) => s.source === 'eval' && parseHeldOutKey(s.key))) return spec.series;
  const own = heldOutKeys(run);
  const used = new Set<string>();
  const out: SeriesSpec[] = [];
  const add = (h: HeldOutKey, right?: boolean) => {
    if (used.has(h.key)) return;
    used.add(h.key);
    out.push({ key: h.key, label: heldOutLabel(h), source: 'eval', ...(right ? { right } : {}) });
  };
  for (const s of spec.series) {
    const want = s.source === 'eval' ? parseHeldOutKey(s.key) : null;
    if (!want) {
      out.push(s);
      continue;
    }
    const same = own.filter((h) => h.kind === want.kind && h.temperature === want.temperature);
    const pick = same.find((h) => h.k === want.k) ?? same[0];
    if (pick) add(pick, s.right);
    else if (!spec.allHeldOut) out.push(s); // the run has none: an empty line, as before
  }
  if (spec.allHeldOut) for (const h of own) add(h);
  return out;
}

/** From this many overlaid runs on, each run draws one series per chart (drawnSeries). */
export const MANY_RUNS = 3;

/** Which family the reward chart draws per run when many are overlaid: train reward or held-out avg@k at τ = 1.0. */
export type RewardFamily = 'train' | 'heldout';

/**
 * The series `spec` draws for `run` when `runCount` runs are drawn: all of them (seriesForRun)
 * below MANY_RUNS or on a stacked chart; else only the run's main series, so the lines and the
 * legend grow by one per run — on the reward chart, its train reward or (`family` 'heldout') its
 * held-out avg@k at τ = 1.0 (else its highest temperature), and on others `spec.main`.
 */
export function drawnSeries(spec: ChartSpec, run: RunData | null, runCount: number, family: RewardFamily = 'train'): SeriesSpec[] {
  const all = seriesForRun(spec, run);
  if (runCount < MANY_RUNS || spec.stacked || all.length <= 1) return all;
  if (spec.allHeldOut && family === 'heldout') {
    const avg = all.filter((s) => parseHeldOutKey(s.key)?.kind === 'avg');
    const pick = avg.find((s) => parseHeldOutKey(s.key)!.temperature === 1) ?? [...avg].sort((a, b) => parseHeldOutKey(b.key)!.temperature - parseHeldOutKey(a.key)!.temperature)[0];
    return pick ? [pick] : [];
  }
  return [all.find((s) => s.key === spec.main) ?? all.find((s) => s.source === 'step') ?? all[0]];
}

/**
 * One row per step present in any drawn run; each (run, series) column EMA-smoothed over that
 * run's own points (eval series are not smoothed: they are sparse; nor are step-exact ones). `seriesIn`: the series of
 * every run, or of each run (seriesForRun). Non-positive values are dropped when `log` (a log axis cannot show them). At most ~`maxPoints` points per series, min/max per bucket (lib/downsample.ts).
 */
/** The column of a smoothed series' measured (unsmoothed) values. */
export const rawKey = (column: string) => `${column}|raw`;

export function buildRows(runs: readonly RunData[], seriesIn: readonly SeriesSpec[] | ((run: RunData, slot: number) => readonly SeriesSpec[]), smoothing: number, opts: { log?: boolean; maxPoints?: number } = {}): ChartRow[] {
  const byStep = new Map<number, ChartRow>();
  const row = (step: number) => {
    let r = byStep.get(step);
    if (!r) byStep.set(step, (r = { step } as ChartRow));
    return r;
  };
  runs.forEach((run, slot) => {
    const series = typeof seriesIn === 'function' ? seriesIn(run, slot) : seriesIn;
    for (const s of series) {
      const recs = s.source === 'step' ? run.steps : run.evals;
      const raw = recs.map((r) => {
        const v = (r as Record<string, number>)[s.key];
        return v === undefined || !Number.isFinite(v) || (opts.log && v <= 0) ? null : v;
      });
      const smoothed = s.source === 'step' && !s.exact && smoothing > 0;
      const vals = smoothed ? emaSmooth(raw, smoothing) : raw;
      const key = columnKey(slot, s.key);
      recs.forEach((r, i) => {
        if (vals[i] !== null || s.source === 'step') row(r.step)[key] = vals[i];
        // The measured values beside their smoothed line: drawn faintly beneath it (rawKey), so what the
        // sentence under the chart says (it reads these) is on the chart at any smoothing.
        if (smoothed) row(r.step)[rawKey(key)] = raw[i];
      });
    }
  });
  const rows = [...byStep.values()].sort((a, b) => a.step - b.step);
  // Min/max per bucket: ~maxPoints per series, spikes kept (lib/downsample.ts); the rows are new here.
  return downsampleMinMax(rows, opts.maxPoints ?? 600) as ChartRow[];
}

/** Steps at which a new stage began (the first step whose `stage` differs from the previous one). */
export function stageBoundaries(run: RunData): { step: number; stage: number }[] {
  const out: { step: number; stage: number }[] = [];
  let prev: number | null = null;
  for (const s of run.steps) {
    const st = s.stage;
    if (prev !== null && Number.isFinite(st) && st !== prev) out.push({ step: s.step, stage: st });
    if (Number.isFinite(st)) prev = st;
  }
  return out;
}

/**
 * Planned stage spans (fixed-step stages; a convergence stage has an unknown length, drawn
 * with its max). Used by the timeline.
 */
export function plannedStages(cfg: RunConfig): { stage: number; start: number; length: number; fixed: boolean }[] {
  let start = 0;
  return cfg.stages.map((s, i) => {
    const length = s.steps ?? s.convergence?.maxSteps ?? 0;
    const span = { stage: i, start, length, fixed: s.steps !== null };
    start += length;
    return span;
  });
}

/** A metric key and the records it lives in. */
export interface MetricKeyRef {
  key: string;
  source: 'step' | 'eval';
}

const LAB_STEP_KEYS = new Set<string>(['step', 'time_ms', ...STEP_METRIC_KEY_LIST, ...TIMING_SERIES.map((s) => s.key), 'timing_s/step']);
// val/<family>/pass@k/t<τ>: the coverage curve per task family (src/rl/coverage.ts); val/entropy/t<τ>: the samples' mean entropy.
const LAB_EVAL_KEY_RE = /^(step|val\/(avg|pass|maj)@\d+\/t\d+(\.\d+)?|val\/response_length\/(mean|clip_ratio)\/t\d+(\.\d+)?|val\/[a-z]+\/pass@\d+\/t\d+(\.\d+)?|val\/entropy\/t\d+(\.\d+)?)$/;

/** Whether the lab's trainer writes this key (anything else came in with an imported run). */
export const isLabKey = (key: string, source: 'step' | 'eval') => (source === 'step' ? LAB_STEP_KEYS.has(key) : LAB_EVAL_KEY_RE.test(key));

const keyCache = new WeakMap<RunData, { step: Set<string>; eval: Set<string> }>();
/** Every key in a run's step and eval records (cached per run object: runs are replaced, not mutated). */
export function runKeys(run: RunData): { step: Set<string>; eval: Set<string> } {
  let k = keyCache.get(run);
  if (!k) {
    k = { step: new Set(), eval: new Set() };
    for (const r of run.steps) for (const key of Object.keys(r)) k.step.add(key);
    for (const r of run.evals) for (const key of Object.keys(r)) k.eval.add(key);
    k.step.delete('step');
    k.step.delete('time_ms');
    k.eval.delete('step');
    keyCache.set(run, k);
  }
  return k;
}

/**
 * The keys of the drawn runs that no chart draws, sorted (step keys first), offered in the
 * "More metrics" chart — only when some drawn run carries a key the lab never writes (an
 * imported cluster run's): lab runs alone keep the page as it was.
 */
export function extraMetricKeys(runs: readonly RunData[], specs: readonly ChartSpec[]): MetricKeyRef[] {
  const out = new Map<string, MetricKeyRef>();
  let foreign = false;
  for (const run of runs) {
    // Held-out series are keyed per run: an imported run's avg@2 is drawn on the reward chart.
    const drawn = new Set(specs.flatMap((c) => seriesForRun(c, run).map((s) => `${s.source}:${s.key}`)));
    const keys = runKeys(run);
    for (const source of ['step', 'eval'] as const)
      for (const key of keys[source]) {
        if (!isLabKey(key, source)) foreign = true;
        if (!drawn.has(`${source}:${key}`)) out.set(`${source}:${key}`, { key, source });
      }
  }
  if (!foreign) return [];
  return [...out.values()].sort((a, b) => (a.source === b.source ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.source === 'step' ? -1 : 1));
}

/**
 * The run as the charts see it: the same object for as long as what any chart reads of it (id,
 * name, config, steps, evals) is the same, so a run patched elsewhere (its note, checkpoint step,
 * done flag) re-renders no chart. Keyed by the steps array, which only a metrics batch replaces.
 */
const chartViews = new WeakMap<readonly unknown[], RunData>();
export function chartRun(run: RunData): RunData {
  const v = chartViews.get(run.steps);
  if (v && v.id === run.id && v.name === run.name && v.config === run.config && v.evals === run.evals) return v;
  chartViews.set(run.steps, run);
  return run;
}

/**
 * Do two lists of drawn runs draw the same on chart `spec`? Only the records it has series of
 * count: a new evaluation does not re-render the step-only charts (MetricChart's memo).
 */
export function sameChartRuns(spec: ChartSpec, a: readonly RunData[], b: readonly RunData[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  const steps = spec.series.some((s) => s.source === 'step');
  const evals = !!spec.allHeldOut || spec.series.some((s) => s.source === 'eval');
  return a.every((r, i) => {
    const q = b[i];
    return r === q || (r.id === q.id && r.name === q.name && r.config === q.config && (!steps || r.steps === q.steps) && (!evals || r.evals === q.evals));
  });
}
