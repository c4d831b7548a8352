/**
 * The sweep's plan: what a sweep is (SweepSpec, SweepOptions), the runs it holds (every preset or
 * variant × seed, each with its resolved config, start weights and identity) and the functions
 * the runner is given (SweepDeps). Nothing here writes a file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError } from '../model/config';
import { crc32Label, decodeCheckpoint, encodeCheckpoint } from '../model/checkpoint';
import { DEFAULT_RUNG, getPreset, validateRunConfig, type RunConfig, type RunConfigInput, type RungName } from '../rl/config';
import { DEFAULT_BASE, defaultBaseFor, missingRungBase, rungBasePath } from '../run/rung-base';
import { SweepError } from './errors';
import type { CoverageProblems, PreciseEval } from './run-metrics';
import type { TrainRunOptions } from '../run/train-options';

/** `runTraining(options, log)` of src/cli/train.ts, or a fake. */
export type TrainFn = (options: TrainRunOptions, log: (s: string) => void) => Promise<void>;
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
  /** --base given explicitly, or null (per preset: the shipped base of its rung when its model matches, else random init). */
  base: string | null;
  /** --rung the presets are taken at; absent or null: tiny (so the sweeps made before the ladder keep their identity). */
  rung?: RungName | null;
}

/** Shard `index` (1 … count) of `count` (src/sweep/shard.ts). */
export interface Shard {
  index: number;
  count: number;
}

export interface SweepOptions extends SweepSpec {
  out: string;
  /** --shard i/n: this call runs that slice of the grid only (src/sweep/shard.ts); not part of the sweep's identity. */
  shard?: Shard | null;
  /** Run pool (default OUT/runs); ablations share one pool so a preset × seed trains once. */
  runs?: string;
  /** The command line, for the reports. */
  command: string;
}

export { DEFAULT_BASE };
export const SWEEP_SCHEMA = 'magic-lab-sweep/1';
export const RUN_SCHEMA = 'magic-lab-sweep-run/1';

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
  /** Present for a rung other than tiny only (likewise). */
  rung?: RungName;
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
  /** The precise evaluations' per-problem counts, when they wrote coverage reports (run-metrics.ts coverageValues). */
  coverage?: { start: CoverageProblems | null; final: CoverageProblems };
}

// ---------------------------------------------------------------------------------------------
// Planning

/**
 * A preset's (or variant's) config under the sweep's --config and a seed, exactly as
 * `train --preset P --config F --seed S` builds it.
 */
export function resolveRunConfig(preset: string, config: RunConfigInput | null, seed: number, variants: Record<string, Variant> | null = null, rung: RungName | null = null): RunConfig {
  const variant = variants !== null && Object.prototype.hasOwnProperty.call(variants, preset) ? variants[preset] : undefined;
  let base: RunConfig;
  try {
    base = getPreset(variant ? variant.preset : preset, rung ?? DEFAULT_RUNG);
  } catch (e) {
    if (variant) throw new SweepError(`--variants: ${preset}: ${(e as Error).message}`);
    const known = variants ? ` (variants: ${Object.keys(variants).join(', ')})` : '';
    throw new SweepError(`--presets: ${(e as Error).message}${known}`);
  }
  if (variant) {
    try {
      base = validateRunConfig(variant.config, base);
    } catch (e) {
      if (e instanceof ConfigError) throw new SweepError(`--variants: ${preset}: ${e.message}`);
      throw e;
    }
  }
  try {
    return validateRunConfig({ seed }, validateRunConfig(config ?? {}, base));
  } catch (e) {
    if (e instanceof ConfigError) throw new SweepError(`--config: ${e.message}`);
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

/** The start weights of a run: --base, or train's default rule (the shipped base of the config's rung when its model matches). */
function resolveBase(spec: SweepSpec, cfg: RunConfig, preset: string): BaseRef | null {
  const model = JSON.stringify(cfg.model);
  if (spec.base !== null) {
    if (!existsSync(spec.base)) throw new SweepError(`--base: ${spec.base} does not exist`);
    const b = baseInfo(spec.base);
    if (b.model !== model) throw new SweepError(`--base: ${spec.base} holds a different model than preset ${preset}'s`);
    return { file: spec.base, crc: b.crc };
  }
  const file = defaultBaseFor(cfg);
  if (!existsSync(file)) {
    // As train: an explicit rung starts from its base, so its absence is said before anything runs.
    if (spec.rung && file === rungBasePath(spec.rung)) throw new SweepError(`--rung ${spec.rung}: ${missingRungBase(spec.rung)}`);
    return null;
  }
  const b = baseInfo(file);
  return b.model === model ? { file, crc: b.crc } : null;
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
      const config = resolveRunConfig(preset, o.config, seed, o.variants, o.rung ?? null);
      const variant = variantOf(o, preset);
      if (o.evalProblems > config.data.testSize) {
        throw new SweepError(`--eval-problems: preset ${preset}'s test set has ${config.data.testSize} problems, asked for ${o.evalProblems}`);
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
        identity: { schema: RUN_SCHEMA, preset, seed, steps: o.steps, minutes: o.minutes, config: o.config, backend: o.backend, threads: o.threads, base, ...(variant ? { variant } : {}), ...rungField(o) },
      });
    }
  }
  return out;
}

/** What identifies a sweep: its presets, seeds, schedule, engine, evaluation, base and pool (sweep.json and the summary's spec). */
export function sweepSpec(o: SweepOptions): Omit<SweepSpec, 'variants'> & { variants?: SweepSpec['variants']; runs: string } {
  return {
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
    ...rungField(o),
    runs: relative(o.out, runsRoot(o)) || '.',
    // Only when given, so the identity files of sweeps made before variants existed still match.
    ...(o.variants !== null ? { variants: o.variants } : {}),
  };
}

/** `rung` for a sweep at a rung other than tiny; nothing for tiny, so older sweeps, pools and summaries read and match as before. */
export function rungField(o: { rung?: RungName | null }): { rung?: RungName } {
  return o.rung && o.rung !== DEFAULT_RUNG ? { rung: o.rung } : {};
}
