/**
 * The sweep runner: every preset × seed, one after another (the machine has 2 cores), each in
 * its own run directory, by calling the CLI's `train(argv, log)`; then two precise evaluations
 * per run (start weights and final checkpoint, same eval seed) through `magic-lab eval`.
 * Both functions are injected (`SweepDeps`), so tests drive the runner with fakes.
 *
 * Resumable. The files it leaves say how far it got:
 *   OUT/sweep.json                     the sweep's identity; another sweep config in OUT is refused
 *   RUNS/<preset>/seed-<S>/sweep-run.json   the run's identity (preset, seed, schedule, config, backend, base)
 *   RUNS/<preset>/seed-<S>/checkpoint.mlck  written by train; present without train-done.json → `train --resume`
 *   RUNS/<preset>/seed-<S>/train-done.json  marker: train returned (its final checkpoint and eval are written)
 *   RUNS/<preset>/seed-<S>/eval-final-<n>x<k>-s<seed>.json   marker: the final precise evaluation
 *   RUNS/start-evals/<key>.json         the start evaluation, cached by what it depends on
 * A pool run whose config.json differs from what its preset resolves to now (the defaults
 * changed since it trained) is refused, never silently reused.
 *
 * Variants (--variants FILE) are named configs that take a preset's place in the sweep: a label,
 * the preset it starts from and a partial RunConfig over it. They exist for tuning: a baseline
 * and its candidates in one sweep get paired differences over the same seeds like presets do.
 * A re-run of the same command skips finished runs, resumes the interrupted one (bit for bit on
 * one backend) and recomputes the summary from the files.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, appendFileSync, renameSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ConfigError } from '../model/config';
import { crc32Label, decodeCheckpoint, encodeCheckpoint } from '../model/checkpoint';
import { getPreset, longestResponseLength, validateRunConfig, type RunConfig, type RunConfigInput } from '../rl/config';
import { UsageError } from '../cli/args';
import { parseMetricsJsonl, type PreciseEval, TEMPERATURES, formatValue } from './run-metrics';
import { avgAtKSamplingSE } from './stats';
import { formatTemperature } from '../rl/metrics';

/** `train(argv, log)` of src/cli/train.ts, or a fake. */
export type TrainFn = (argv: string[], log: (s: string) => void) => Promise<void>;
/** `evalCommand(argv, log)` of src/cli/eval.ts, or a fake: returns the eval record. */
export type EvalFn = (argv: string[], log: (s: string) => void) => Promise<Record<string, number>>;

export interface SweepDeps {
  train: TrainFn;
  evaluate: EvalFn;
  /** Wall clock for the progress line's ETA (default Date.now). */
  now?: () => number;
  /**
   * Refuses (throws) when a planned run or its evaluations would not fit this machine or engine
   * (src/cli/resources.ts checkSweepFits); called before the sweep writes anything.
   */
  checkRuns?: (runs: { preset: string; config: RunConfig }[], o: SweepOptions) => void | Promise<void>;
}

/** What makes a sweep the sweep it is (stored in OUT/sweep.json; a re-run must match it). */
/** A named config in place of a preset: `preset` + `config` (then the sweep's --config, then the seed). */
export interface Variant {
  preset: string;
  config: RunConfigInput;
}

export interface SweepSpec {
  /** Preset names and variant labels, in the order the sweep runs them. */
  presets: string[];
  /** --variants: label → variant, or null. */
  variants: Record<string, Variant> | null;
  seeds: number[];
  /** --steps (total steps per run), or null: the presets' whole schedules (or --minutes). */
  steps: number | null;
  /** --minutes per run (wall-clock dependent: prefer --steps), or null. */
  minutes: number | null;
  /** The --config partial RunConfig merged over every preset (its content, not its path), or null. */
  config: RunConfigInput | null;
  /** --backend passed to train and eval, or null (their default). */
  backend: string | null;
  /** --threads of the CPU engine passed to train and eval (a run replays bit for bit at one thread count), or null. */
  threads: number | null;
  /**
   * --eval-backend: the engine of the precise evaluations when it is not the training one, or
   * null (the training backend). Comparing training on two engines, one evaluator removes a
   * confound and spares SwiftShader's slow sampling.
   */
  evalBackend?: string | null;
  evalProblems: number;
  evalK: number;
  evalTemperatures: number[];
  /** --base given explicitly, or null (per preset: the shipped base when its model matches, else random init). */
  base: string | null;
}

export interface SweepOptions extends SweepSpec {
  out: string;
  /** Run pool (default OUT/runs); ablations share one pool so a preset × seed trains once. */
  runs?: string;
  /** The command line, for the reports. */
  command: string;
}

export const DEFAULT_BASE = 'public/checkpoints/base.mlck';
const SWEEP_SCHEMA = 'magic-lab-sweep/1';
const RUN_SCHEMA = 'magic-lab-sweep-run/1';

export interface BaseRef {
  file: string;
  crc: string;
}

/** The identity of one training run in the pool. */
export interface RunIdentity {
  schema: string;
  preset: string;
  seed: number;
  steps: number | null;
  minutes: number | null;
  config: RunConfigInput | null;
  backend: string | null;
  threads: number | null;
  base: BaseRef | null;
  /** Present for a variant's run only (so pool runs of presets keep their identity files). */
  variant?: Variant;
}

export interface PlannedRun {
  preset: string;
  seed: number;
  dir: string;
  config: RunConfig;
  base: BaseRef | null;
  /** Steps this run will take (the schedule's total, capped by --steps); NaN under --minutes. */
  plannedSteps: number;
  identity: RunIdentity;
}

/** A finished run as the summary needs it. */
export interface RunResult {
  preset: string;
  seed: number;
  /** Run directory relative to OUT. */
  dir: string;
  config: RunConfig;
  metricsText: string;
  start: PreciseEval | null;
  final: PreciseEval;
  /** train's "training started … on <adapter>" line, when it printed one. */
  device: string | null;
}

// ---------------------------------------------------------------------------------------------
// Planning

/**
 * A preset's (or variant's) config under the sweep's --config and a seed, exactly as
 * `train --preset P --config F --seed S` builds it.
 */
export function resolveRunConfig(preset: string, config: RunConfigInput | null, seed: number, variants: Record<string, Variant> | null = null): RunConfig {
  const variant = variants !== null && Object.prototype.hasOwnProperty.call(variants, preset) ? variants[preset] : undefined;
  let base: RunConfig;
  try {
    base = getPreset(variant ? variant.preset : preset);
  } catch (e) {
    if (variant) throw new UsageError(`--variants: ${preset}: ${(e as Error).message}`);
    const known = variants ? ` (variants: ${Object.keys(variants).join(', ')})` : '';
    throw new UsageError(`--presets: ${(e as Error).message}${known}`);
  }
  if (variant) {
    try {
      base = validateRunConfig(variant.config, base);
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(`--variants: ${preset}: ${e.message}`);
      throw e;
    }
  }
  try {
    return validateRunConfig({ seed }, validateRunConfig(config ?? {}, base));
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`--config: ${e.message}`);
    throw e;
  }
}

/** The variant a sweep name stands for, or undefined for a preset. */
export function variantOf(o: SweepSpec, name: string): Variant | undefined {
  return o.variants !== null && Object.prototype.hasOwnProperty.call(o.variants, name) ? o.variants[name] : undefined;
}

export function scheduleSteps(cfg: RunConfig): number {
  return cfg.stages.reduce((a, s) => a + (s.steps ?? s.convergence?.maxSteps ?? 0), 0);
}

/**
 * Identity (a CRC) and model of base checkpoints, read once per plan. The CRC is of the contents'
 * version-1 encoding — what the file's bytes were when every checkpoint was version 1, and what
 * the pools' sweep-run.json files recorded — so re-encoding a base to a newer format version keeps
 * the runs trained from it.
 */
const baseCache = new Map<string, { crc: string; model: string }>();
function baseInfo(file: string): { crc: string; model: string } {
  let info = baseCache.get(file);
  if (!info) {
    const ck = decodeCheckpoint(new Uint8Array(readFileSync(file)), file);
    info = { crc: crc32Label(encodeCheckpoint(ck, 1)), model: JSON.stringify(ck.model) };
    baseCache.set(file, info);
  }
  return info;
}

/** The start weights of a run: --base, or train's default rule (the shipped base when its model matches). */
function resolveBase(spec: SweepSpec, cfg: RunConfig, preset: string): BaseRef | null {
  const model = JSON.stringify(cfg.model);
  if (spec.base !== null) {
    if (!existsSync(spec.base)) throw new UsageError(`--base: ${spec.base} does not exist`);
    const b = baseInfo(spec.base);
    if (b.model !== model) throw new UsageError(`--base: ${spec.base} holds a different model than preset ${preset}'s`);
    return { file: spec.base, crc: b.crc };
  }
  if (!existsSync(DEFAULT_BASE)) return null;
  const b = baseInfo(DEFAULT_BASE);
  return b.model === model ? { file: DEFAULT_BASE, crc: b.crc } : null;
}

export function runsRoot(o: SweepOptions): string {
  return o.runs ?? join(o.out, 'runs');
}

export function planSweep(o: SweepOptions): PlannedRun[] {
  baseCache.clear();
  const root = runsRoot(o);
  const out: PlannedRun[] = [];
  for (const preset of o.presets) {
    for (const seed of o.seeds) {
      const config = resolveRunConfig(preset, o.config, seed, o.variants);
      const variant = variantOf(o, preset);
      if (o.evalProblems > config.data.testSize) {
        throw new UsageError(`--eval-problems: preset ${preset}'s test set has ${config.data.testSize} problems, asked for ${o.evalProblems}`);
      }
      const base = resolveBase(o, config, preset);
      const total = scheduleSteps(config);
      const plannedSteps = o.minutes !== null && o.steps === null ? NaN : Math.min(total, o.steps ?? total);
      out.push({
        preset,
        seed,
        dir: join(root, preset, `seed-${seed}`),
        config,
        base,
        plannedSteps,
        identity: { schema: RUN_SCHEMA, preset, seed, steps: o.steps, minutes: o.minutes, config: o.config, backend: o.backend, threads: o.threads, base, ...(variant ? { variant } : {}) },
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Files

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Atomic JSON write (temp file + rename): a kill never leaves half a marker. */
function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  renameSync(tmp, file);
}

/** Names the first top-level field where two identities differ. */
function firstDifference(a: Record<string, unknown>, b: Record<string, unknown>): string | null {
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return k;
  }
  return null;
}

const show = (v: unknown) => (v === null || v === undefined ? 'none' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** OUT/sweep.json: created on the first call, compared on every later one. */
function checkSweepIdentity(o: SweepOptions): void {
  const file = join(o.out, 'sweep.json');
  const spec: Record<string, unknown> = {
    schema: SWEEP_SCHEMA,
    presets: o.presets,
    seeds: o.seeds,
    steps: o.steps,
    minutes: o.minutes,
    config: o.config,
    backend: o.backend,
    threads: o.threads,
    ...(o.evalBackend ? { evalBackend: o.evalBackend } : {}),
    evalProblems: o.evalProblems,
    evalK: o.evalK,
    evalTemperatures: o.evalTemperatures,
    base: o.base,
    runs: relative(o.out, runsRoot(o)) || '.',
    // Only when given, so the identity files of sweeps made before variants existed still match.
    ...(o.variants !== null ? { variants: o.variants } : {}),
  };
  if (existsSync(file)) {
    const old = readJson<Record<string, unknown>>(file);
    const diff = firstDifference(old, spec);
    if (diff !== null) {
      throw new UsageError(
        `--out: ${o.out} holds a different sweep (${diff}: ${show(old[diff])} there, ${show(spec[diff])} now); re-run it with its own flags or choose another --out`,
      );
    }
    return;
  }
  writeJson(file, spec);
}

/** The run's identity file: written before it starts, compared when the pool already holds the run. */
function checkRunIdentity(run: PlannedRun): void {
  const file = join(run.dir, 'sweep-run.json');
  if (existsSync(file)) {
    const old = readJson<Record<string, unknown>>(file);
    const diff = firstDifference(old, run.identity as unknown as Record<string, unknown>);
    if (diff !== null) {
      throw new UsageError(`--runs: ${run.dir} holds a ${run.preset} run made with another ${diff} (${show(old[diff])}); use another --runs or --out`);
    }
    checkRunConfig(run);
    return;
  }
  writeJson(file, run.identity);
}

/** Dotted path of the first field where two JSON values differ, or null. */
export function firstDifferentField(a: unknown, b: unknown, path = ''): string | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      const d = firstDifferentField(ra[k], rb[k], path ? `${path}.${k}` : k);
      if (d !== null) return d;
    }
  }
  return path || '(whole config)';
}

/**
 * A pool run trained under the config its preset resolved to then (its config.json): when the
 * preset's defaults have changed since, reusing it would report old training under a new name.
 */
function checkRunConfig(run: PlannedRun): void {
  const file = join(run.dir, 'config.json');
  if (!existsSync(file)) return;
  const trained = validateRunConfig(readJson<RunConfigInput>(file));
  const field = firstDifferentField(trained, run.config);
  if (field !== null) {
    throw new UsageError(
      `--runs: ${run.dir} holds a ${run.preset} run trained with another ${field} (${show(fieldAt(trained, field))} there, ${show(fieldAt(run.config, field))} now: its defaults changed since); use another --runs or --out`,
    );
  }
}

function fieldAt(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((x, k) => (typeof x === 'object' && x !== null ? (x as Record<string, unknown>)[k] : undefined), v);
}

/** A lock so two sweeps never write one directory at once (a stale lock of a dead process is taken over). */
function lock(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '.sweep-lock');
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8'));
    let alive = false;
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch {
        alive = false;
      }
    }
    if (alive) throw new UsageError(`--out: another sweep (process ${pid}) is using ${dir}; wait for it or remove ${file}`);
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

// ---------------------------------------------------------------------------------------------
// Precise evaluations

function evalTag(problems: number, k: number, seed: number): string {
  return `${problems}x${k}-s${seed}`;
}

function backendArgs(o: SweepSpec): string[] {
  return [...(o.backend ? ['--backend', o.backend] : []), ...(o.threads !== null ? ['--threads', String(o.threads)] : [])];
}

function evalArgs(file: string, o: SweepSpec, seed: number): string[] {
  return [
    '--checkpoint',
    file,
    '--problems',
    String(o.evalProblems),
    '--k',
    String(o.evalK),
    '--temperatures',
    o.evalTemperatures.join(','),
    '--seed',
    String(seed),
    ...backendArgs(o.evalBackend ? { ...o, backend: o.evalBackend } : o),
  ];
}

interface CachedEval extends PreciseEval {
  argv: string[];
  key?: unknown;
}

/**
 * What the start evaluation depends on: the start weights, the test set (the data section and
 * seed: each seed draws its own test set), the sampling (longest response length, top-p), the
 * evaluation's size, temperatures and seed, and the backend.
 */
export function startEvalKey(run: PlannedRun, o: SweepSpec): Record<string, unknown> {
  const c = run.config;
  const d = c.data;
  return {
    base: run.base?.crc ?? null,
    model: c.model,
    data: { seed: c.seed, families: d.families, difficulty: d.difficulty, trainSize: d.trainSize, testSize: d.testSize },
    maxResponseLength: longestResponseLength(c),
    topP: c.rollout.topP,
    problems: o.evalProblems,
    k: o.evalK,
    temperatures: o.evalTemperatures,
    seed: run.seed,
    backend: o.evalBackend || o.backend,
  };
}

function keyName(key: unknown): string {
  return crc32Label(new TextEncoder().encode(JSON.stringify(key))).slice('crc32:'.length);
}

/**
 * The start weights under the run's config, as a file `magic-lab eval` reads with the run's test
 * set: the base weights in a checkpoint whose meta carries the run config (eval only; it holds no
 * run state and cannot be resumed).
 */
function writeStartCheckpoint(run: PlannedRun, file: string): void {
  const ck = decodeCheckpoint(new Uint8Array(readFileSync(run.base!.file)), run.base!.file);
  const bytes = encodeCheckpoint({
    model: ck.model,
    params: ck.params,
    meta: { kind: 'magic-lab-run', config: run.config, note: 'magic-lab sweep: start weights under this run config, for evaluation only' },
  });
  writeFileSync(file, bytes);
}

async function startEval(run: PlannedRun, o: SweepOptions, deps: SweepDeps, log: (s: string) => void): Promise<PreciseEval | null> {
  if (!run.base) return null;
  const key = startEvalKey(run, o);
  const dir = join(runsRoot(o), 'start-evals');
  const file = join(dir, `${keyName(key)}.json`);
  if (existsSync(file)) {
    const hit = readJson<CachedEval>(file);
    if (JSON.stringify(hit.key) === JSON.stringify(key)) return { record: hit.record, problems: hit.problems, k: hit.k, seed: hit.seed };
  }
  mkdirSync(dir, { recursive: true });
  const ckFile = join(dir, `${keyName(key)}.mlck`);
  writeStartCheckpoint(run, ckFile);
  try {
    const argv = evalArgs(ckFile, o, run.seed);
    const record = await deps.evaluate(argv, log);
    const res: CachedEval = { key, argv, record, problems: o.evalProblems, k: o.evalK, seed: run.seed };
    writeJson(file, res);
    return { record, problems: o.evalProblems, k: o.evalK, seed: run.seed };
  } finally {
    rmSync(ckFile, { force: true });
  }
}

async function finalEval(run: PlannedRun, o: SweepOptions, deps: SweepDeps, log: (s: string) => void): Promise<PreciseEval> {
  const file = join(run.dir, `eval-final-${evalTag(o.evalProblems, o.evalK, run.seed)}.json`);
  if (existsSync(file)) {
    const hit = readJson<CachedEval>(file);
    return { record: hit.record, problems: hit.problems, k: hit.k, seed: hit.seed };
  }
  const argv = evalArgs(join(run.dir, 'checkpoint.mlck'), o, run.seed);
  const record = await deps.evaluate(argv, log);
  writeJson(file, { argv, record, problems: o.evalProblems, k: o.evalK, seed: run.seed, temperatures: o.evalTemperatures });
  return { record, problems: o.evalProblems, k: o.evalK, seed: run.seed };
}

// ---------------------------------------------------------------------------------------------
// Training one run

function lastStepRecord(dir: string): { step: number; time_ms: number } | null {
  const f = join(dir, 'metrics.jsonl');
  if (!existsSync(f)) return null;
  const steps = parseMetricsJsonl(readFileSync(f, 'utf8')).steps;
  return steps.length ? { step: steps[steps.length - 1].step, time_ms: steps[steps.length - 1].time_ms } : null;
}

/** train's argv for this run: a fresh start, or --resume when the directory holds a checkpoint. */
export function trainArgs(run: PlannedRun, o: SweepSpec): string[] {
  const tail = backendArgs(o);
  if (existsSync(join(run.dir, 'checkpoint.mlck'))) {
    const args = ['--resume', run.dir];
    if (o.steps !== null) args.push('--steps', String(o.steps));
    if (o.minutes !== null) {
      // --minutes counts from the resume; give the run what is left of its budget (time_ms is the trainer's own clock).
      const last = lastStepRecord(run.dir);
      const left = o.minutes - (last ? last.time_ms / 60000 : 0);
      if (left > 0) args.push('--minutes', String(+left.toFixed(4)));
      else if (o.steps === null) args.push('--steps', String(last?.step ?? 1)); // the budget ran out: finish at the step it had reached
    }
    return [...args, ...tail];
  }
  const variant = run.identity.variant;
  const args = ['--preset', variant ? variant.preset : run.preset, '--seed', String(run.seed), '--out', run.dir];
  if (o.config !== null || variant) args.push('--config', join(run.dir, 'sweep-config.json'));
  if (run.base) args.push('--base', run.base.file);
  if (o.steps !== null) args.push('--steps', String(o.steps));
  if (o.minutes !== null) args.push('--minutes', String(o.minutes));
  return [...args, ...tail];
}

export interface Progress {
  index: number;
  total: number;
  preset: string;
  seed: number;
  step: number;
  plannedSteps: number;
  etaS: number;
}

export function formatDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '–';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

export function progressText(p: Progress): string {
  const of = Number.isFinite(p.plannedSteps) ? `/${p.plannedSteps}` : '';
  return `[sweep ${p.index}/${p.total}] ${p.preset} seed ${p.seed} · step ${p.step}${of} · ETA ${formatDuration(p.etaS)}`;
}

// ---------------------------------------------------------------------------------------------
// The sweep

export interface SweepOutcome {
  planned: PlannedRun[];
  results: RunResult[];
  /** Runs trained (or resumed) by this call. */
  trained: number;
  skipped: number;
}

const fmtAcc = (x: number, se: number) => `${formatValue('accuracy', x)}% (SE ${formatValue('accuracy', se)})`;

function runLine(r: RunResult, steps: number): string {
  const parts = TEMPERATURES.map((t) => {
    const key = `val/avg@${r.final.k}/t${t}`;
    const f = r.final.record[key];
    const fse = avgAtKSamplingSE(f, r.final.problems, r.final.k);
    if (!r.start) return `τ=${t} final ${fmtAcc(f, fse)}`;
    const s = r.start.record[key];
    const sse = avgAtKSamplingSE(s, r.start.problems, r.start.k);
    return `τ=${t} ${fmtAcc(s, sse)} → ${fmtAcc(f, fse)}, gain ${formatValue('accuracy', f - s, true)} (SE ${formatValue('accuracy', Math.hypot(sse, fse))})`;
  });
  return `${steps} steps; avg@${r.final.k} on ${r.final.problems} problems: ${parts.join('; ')}`;
}

/** Loads a finished run's files (null while any is missing). */
export function loadRun(run: PlannedRun, o: SweepOptions): RunResult | null {
  const done = join(run.dir, 'train-done.json');
  const finalFile = join(run.dir, `eval-final-${evalTag(o.evalProblems, o.evalK, run.seed)}.json`);
  if (!existsSync(done) || !existsSync(finalFile)) return null;
  let start: PreciseEval | null = null;
  if (run.base) {
    const key = startEvalKey(run, o);
    const f = join(runsRoot(o), 'start-evals', `${keyName(key)}.json`);
    if (!existsSync(f)) return null;
    const c = readJson<CachedEval>(f);
    start = { record: c.record, problems: c.problems, k: c.k, seed: c.seed };
  }
  const fe = readJson<CachedEval>(finalFile);
  const config = existsSync(join(run.dir, 'config.json')) ? validateRunConfig(readJson<RunConfigInput>(join(run.dir, 'config.json'))) : run.config;
  const dn = readJson<{ device?: string | null }>(done);
  return {
    preset: run.preset,
    seed: run.seed,
    dir: relative(o.out, run.dir) || '.',
    config,
    metricsText: readFileSync(join(run.dir, 'metrics.jsonl'), 'utf8'),
    start,
    final: { record: fe.record, problems: fe.problems, k: fe.k, seed: fe.seed },
    device: dn.device ?? null,
  };
}

/**
 * Runs (or continues) the sweep. Throws UsageError for a mismatching OUT or run pool; any error
 * of a run propagates (the sweep stops; the same command continues it). `onRunDone` sees the
 * finished runs so far (the CLI rewrites the summary there).
 */
export async function runSweep(
  o: SweepOptions,
  deps: SweepDeps,
  log: (s: string) => void,
  onRunDone?: (results: RunResult[]) => void | Promise<void>,
): Promise<SweepOutcome> {
  const planned = planSweep(o);
  await deps.checkRuns?.(planned, o);
  mkdirSync(o.out, { recursive: true });
  const unlockOut = lock(o.out);
  const root = runsRoot(o);
  const unlockRuns = resolve(root) === resolve(o.out) ? () => {} : lock(root);
  try {
    checkSweepIdentity(o);
    for (const run of planned) {
      mkdirSync(run.dir, { recursive: true });
      checkRunIdentity(run);
    }
    const now = deps.now ?? Date.now;
    const results: RunResult[] = [];
    let trained = 0;
    let skipped = 0;
    // ETA: seconds per step measured in this call, times the steps left (evaluations not counted).
    let measuredSteps = 0;
    let measuredS = 0;
    const stepsLeft = (from: number, step: number) =>
      planned.slice(from).reduce((a, r, j) => a + (Number.isFinite(r.plannedSteps) ? r.plannedSteps : 0) - (j === 0 ? step : 0), 0);
    for (let i = 0; i < planned.length; i++) {
      const run = planned[i];
      const head = `[sweep ${i + 1}/${planned.length}] ${run.preset} seed ${run.seed}`;
      let result = loadRun(run, o);
      if (result) {
        skipped++;
        results.push(result);
        log(`${head}: finished earlier (${relative(o.out, run.dir) || run.dir}), skipped`);
        continue;
      }
      if (!existsSync(join(run.dir, 'train-done.json'))) {
        // A variant's run gets its whole resolved config (train merges it over the variant's preset).
        if (run.identity.variant) writeJson(join(run.dir, 'sweep-config.json'), run.config);
        else if (o.config !== null) writeJson(join(run.dir, 'sweep-config.json'), o.config);
        const argv = trainArgs(run, o);
        const resuming = argv[0] === '--resume';
        // Killed before its first checkpoint: nothing to resume, and train refuses to overwrite records.
        if (!resuming) for (const f of ['metrics.jsonl', 'samples.jsonl']) rmSync(join(run.dir, f), { force: true });
        log(`${head}: ${resuming ? 'resuming' : 'training'} in ${run.dir}`);
        const logFile = join(run.dir, 'train.log');
        appendFileSync(logFile, `# magic-lab train ${argv.join(' ')}\n`);
        let device: string | null = null;
        let lastPrint = 0;
        let lastStepAt = now();
        let lastStep = -1;
        await deps.train(argv, (line) => {
          appendFileSync(logFile, line + '\n');
          if (device === null && /^training (started|resumed)/.test(line)) device = / on (.*?)(?: from | at step |$)/.exec(line)?.[1] ?? null;
          const m = /^step (\d+)\b/.exec(line);
          if (!m) return;
          const step = Number(m[1]);
          const t = now();
          if (lastStep >= 0 && step > lastStep) {
            measuredSteps += step - lastStep;
            measuredS += (t - lastStepAt) / 1000;
          }
          lastStep = step;
          lastStepAt = t;
          if (t - lastPrint >= 10000 || step === run.plannedSteps) {
            lastPrint = t;
            const rate = measuredSteps ? measuredS / measuredSteps : NaN;
            log(progressText({ index: i + 1, total: planned.length, preset: run.preset, seed: run.seed, step, plannedSteps: run.plannedSteps, etaS: rate * stepsLeft(i, step) }));
          }
        });
        const last = lastStepRecord(run.dir);
        writeJson(join(run.dir, 'train-done.json'), { steps: last?.step ?? 0, device });
        trained++;
      }
      const evalLog = (line: string) => appendFileSync(join(run.dir, 'eval.log'), line + '\n');
      log(`${head}: precise evaluation (${o.evalProblems} problems × ${o.evalK} samples at τ = ${o.evalTemperatures.map((t) => formatTemperature(t)).join(', ')})`);
      await startEval(run, o, deps, evalLog);
      await finalEval(run, o, deps, evalLog);
      result = loadRun(run, o);
      if (!result) throw new Error(`${run.dir}: the run's files are incomplete after training and evaluation`);
      results.push(result);
      log(`${head}: ${runLine(result, readJson<{ steps: number }>(join(run.dir, 'train-done.json')).steps)}`);
      await onRunDone?.(results);
    }
    return { planned, results, trained, skipped };
  } finally {
    unlockRuns();
    unlockOut();
  }
}
