/**
 * What a checkpoint's `meta` holds, checked before anything uses it. decodeCheckpoint
 * (src/model/checkpoint.ts) checks the file: its checksum, tensor table and values. This checks
 * the JSON the trainer and the SFT warm start restore from it:
 *
 * - a run checkpoint (meta.kind "magic-lab-run"): its run config (meta.config, whose model must be
 *   the file's), every field of its run state (meta.state: counters, score history, entropy
 *   controller, data cursor, pool, online-filter tallies, offline-filter report, stage, clock)
 *   on its own and against the others, and the frozen reference policy (meta.refParams);
 * - a base checkpoint: the offline-filter result it caches (meta.offlineFilter) and the SFT state
 *   a warm start continues from (meta.sftState: step and RNG state; meta.step of older snapshots).
 *
 * A file that is edited on purpose and re-checksummed, or written by a buggy build, must be one
 * CheckpointError naming the file and the field — never a garbled run, a TypeError mid-step, or a
 * resume that silently restarts part of the state.
 */
import { CheckpointError, decodeCheckpoint, type CheckpointContents } from '../model/checkpoint';
import { ConfigError, layoutParams } from '../model/config';
import { MATMUL_VARIANTS, type MatmulVariant, type PolicyEngine, type PolicyOptions } from '../model/engine';
import { validateRunConfig, type RunConfig } from './config';
import type { EntropyControllerState } from './entropy';
import type { OfflineFilterReport } from './filters';
import { trackStages } from './stages';
import type { TrainerState } from './trainer-state';

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A short rendering of a bad value for a message. */
const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  if (s === undefined) return String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

/** Indices below `n`, strictly ascending (so unique) when `ascending`, else just unique. */
function badIndexList(v: unknown, n: number, ascending: boolean): string | null {
  if (!Array.isArray(v)) return `must be an array, got ${show(v)}`;
  const seen = new Set<number>();
  for (let j = 0; j < v.length; j++) {
    const i = v[j];
    if (!isCount(i) || i >= n) return `[${j}] must be a training-prompt index below ${n}, got ${show(i)}`;
    if (ascending ? j > 0 && i <= v[j - 1] : seen.has(i)) return `[${j}] (${i}) is ${ascending ? 'out of ascending order or repeated' : 'repeated'}`;
    seen.add(i);
  }
  return null;
}

/**
 * One checker per TrainerState field: the Record type makes a field added to TrainerState a
 * compile error here until it is validated too. Each returns what is wrong, or null.
 */
const FIELD_CHECKS: Record<keyof TrainerState, (v: unknown, cfg: RunConfig) => string | null> = {
  step: (v) => (isCount(v) ? null : `must be a non-negative integer, got ${show(v)}`),
  adamStep: (v) => (isCount(v) ? null : `must be a non-negative integer, got ${show(v)}`),
  scoreHistory: (v) => {
    if (!Array.isArray(v)) return `must be an array of scores, got ${show(v)}`;
    const j = v.findIndex((x) => typeof x !== 'number' || !(x >= 0 && x <= 1));
    return j < 0 ? null : `[${j}] must be a mean reward in [0, 1], got ${show(v[j])}`;
  },
  entropy: (v, cfg) => {
    if (!isObject(v)) return `must be the entropy controller's state { c, lastBelowTarget, updates }, got ${show(v)}`;
    const extra = Object.keys(v).find((k) => !['c', 'lastBelowTarget', 'updates'].includes(k));
    if (extra !== undefined) return `has an unknown field ${show(extra)}`;
    const e = cfg.loss.entropy;
    if (typeof v.c !== 'number' || !Number.isFinite(v.c)) return `.c must be a finite number, got ${show(v.c)}`;
    // c is clamped to [c_min, c_max] at the start and at every update; outside adaptive mode it stays 0.
    if (e.mode === 'adaptive' ? v.c < e.cMin || v.c > e.cMax : v.c !== 0) {
      return `.c (${v.c}) is outside ${e.mode === 'adaptive' ? `[c_min, c_max] = [${e.cMin}, ${e.cMax}] of the run config` : `the run config's ${e.mode} mode, where it stays 0`}`;
    }
    if (typeof v.lastBelowTarget !== 'boolean') return `.lastBelowTarget must be true or false, got ${show(v.lastBelowTarget)}`;
    if (!isCount(v.updates)) return `.updates must be a non-negative integer, got ${show(v.updates)}`;
    return null;
  },
  pool: (v, cfg) => {
    const bad = badIndexList(v, cfg.data.trainSize, false);
    if (bad) return bad;
    return (v as number[]).length === 0 ? 'is empty (a run always keeps at least one training prompt)' : null;
  },
  epoch: (v) => (isCount(v) ? null : `must be a non-negative integer, got ${show(v)}`),
  position: (v) => (isCount(v) ? null : `must be a non-negative integer, got ${show(v)}`),
  attempts: (v, cfg) => countsPerPrompt(v, cfg.data.trainSize),
  solves: (v, cfg) => countsPerPrompt(v, cfg.data.trainSize),
  stageStarted: (v, cfg) => (isCount(v) && v < cfg.stages.length ? null : `must be a stage index below ${cfg.stages.length}, got ${show(v)}`),
  offline: (v, cfg) => {
    const enabled = cfg.data.offlineFilter.enabled;
    if (v === null) return enabled ? 'is missing: the run config filters offline, so the run started from a filter report' : null;
    if (!enabled) return 'is present, but the run config does not filter offline';
    if (!isObject(v)) return `must be the offline filter's report, got ${show(v)}`;
    const r = v as Partial<OfflineFilterReport> & Record<string, unknown>;
    const extra = Object.keys(r).find((k) => !['keep', 'droppedUnsolved', 'droppedSolved', 'total', 'summary'].includes(k));
    if (extra !== undefined) return `has an unknown field ${show(extra)}`;
    const keep = badIndexList(r.keep, cfg.data.trainSize, true);
    if (keep) return `.keep${keep}`;
    if ((r.keep as number[]).length === 0) return '.keep is empty (the filter refuses to keep no prompt)';
    for (const k of ['droppedUnsolved', 'droppedSolved', 'total'] as const) if (!isCount(r[k])) return `.${k} must be a non-negative integer, got ${show(r[k])}`;
    if (r.total !== cfg.data.trainSize) return `.total (${r.total}) is not the run's ${cfg.data.trainSize} training prompts`;
    if (r.keep!.length + r.droppedUnsolved! + r.droppedSolved! !== r.total) return `kept ${r.keep!.length} + dropped ${r.droppedUnsolved} + ${r.droppedSolved} is not its total ${r.total}`;
    if (typeof r.summary !== 'string') return `.summary must be a string, got ${show(r.summary)}`;
    return null;
  },
  elapsedMs: (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? null : `must be a non-negative number, got ${show(v)}`),
  // Written only while a streak runs (1 … K−1: at K the run stopped and saved nothing).
  nonfiniteStreak: (v, cfg) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) < cfg.update.maxNonfiniteSteps ? null : `must be an integer from 1 to ${cfg.update.maxNonfiniteSteps - 1} (update.maxNonfiniteSteps − 1), got ${show(v)}`,
};

/** Fields a state may leave out (absent = their zero). */
const OPTIONAL_FIELDS = new Set<string>(['nonfiniteStreak']);

function countsPerPrompt(v: unknown, n: number): string | null {
  if (!Array.isArray(v) || v.length !== n) return `must hold a count per training prompt (${n}), got ${Array.isArray(v) ? `${v.length} values` : show(v)}`;
  const j = v.findIndex((x) => !isCount(x));
  return j < 0 ? null : `[${j}] must be a non-negative integer, got ${show(v[j])}`;
}

/**
 * A run checkpoint's state, checked field by field and across fields before anything uses it: a
 * tampered or truncated state must be one clear error naming the field, not a garbled run (or a
 * resume that cuts the journal to nothing). `cfg` is the run's own (validated) config.
 */
export function checkRunState(value: unknown, ckpt: CheckpointContents, cfg: RunConfig, source = 'checkpoint'): TrainerState {
  const bad = (field: string, what: string) => new CheckpointError(source, `run state ${field}${/^[[.]/.test(what) ? '' : ' '}${what}`);
  if (!isObject(value)) throw new CheckpointError(source, `run state (meta.state) must be an object, got ${show(value)}`);
  for (const k of Object.keys(value)) if (!Object.prototype.hasOwnProperty.call(FIELD_CHECKS, k)) throw bad(k, 'is not a field of the run state (a newer MAGIC Lab, or an edited file)');
  for (const [k, check] of Object.entries(FIELD_CHECKS)) {
    if (!(k in value)) {
      if (OPTIONAL_FIELDS.has(k)) continue;
      throw bad(k, 'is missing');
    }
    const what = check(value[k], cfg);
    if (what !== null) throw bad(k, what);
  }
  const st = value as unknown as TrainerState;
  // Across fields: what one trainStep / startStage does to several of them at once.
  if (st.scoreHistory.length !== st.step) throw bad('scoreHistory', `must hold one score per step (${st.step}), got ${st.scoreHistory.length}`);
  if (st.position > st.pool.length) throw bad('position', `(${st.position}) is past the pool (${st.pool.length} prompts)`);
  const j = st.solves.findIndex((s, i) => s > st.attempts[i]);
  if (j >= 0) throw bad('solves', `[${j}] (${st.solves[j]}) exceeds the attempts at that prompt (${st.attempts[j]})`);
  if (st.offline) {
    const keep = new Set(st.offline.keep);
    const out = st.pool.find((i) => !keep.has(i));
    if (out !== undefined) throw bad('pool', `holds prompt ${out}, which the offline filter dropped (pool ⊆ offline.keep)`);
  }
  if (st.entropy.updates > st.step) throw bad('entropy.updates', `(${st.entropy.updates}) exceeds the steps done (${st.step})`);
  const perUpdate = cfg.update.miniBatches * cfg.update.reuseEpochs;
  if (st.adamStep > st.entropy.updates * perUpdate) {
    throw bad('adamStep', `(${st.adamStep}) exceeds N_SGD = ${perUpdate} optimizer steps for each of the ${st.entropy.updates} steps that updated the policy`);
  }
  const current = trackStages(cfg.stages, st.scoreHistory).stage;
  if (st.stageStarted > current) throw bad('stageStarted', `(${st.stageStarted}) is past the stage its score history reaches (${current})`);
  if (st.epoch < st.stageStarted) throw bad('epoch', `(${st.epoch}) is below the stages started (${st.stageStarted}; each starts a new epoch)`);
  // A fresh Adam on a resumed run is a different optimizer: refuse rather than continue silently.
  if (st.adamStep > 0 && !ckpt.adam) throw new CheckpointError(source, `a run at optimizer step ${st.adamStep} without its AdamW moments (adam.m / adam.v): resuming it would restart Adam from zero`);
  return { ...st, entropy: { ...(st.entropy as EntropyControllerState) } };
}

/** A run checkpoint's config (meta.config), validated, its model the file's. */
export function runCheckpointConfig(ckpt: CheckpointContents, source = 'checkpoint'): RunConfig {
  let cfg: RunConfig;
  try {
    cfg = validateRunConfig(ckpt.meta.config);
  } catch (e) {
    if (e instanceof ConfigError) throw new CheckpointError(source, `meta.config.${e.message}`);
    throw new CheckpointError(source, `meta.config is not a run config (${(e as Error).message})`);
  }
  if (JSON.stringify(cfg.model) !== JSON.stringify(ckpt.model)) {
    throw new CheckpointError(source, `meta.config.model ${JSON.stringify(cfg.model)} is not the model the file holds (${JSON.stringify(ckpt.model)})`);
  }
  return cfg;
}

/** What a loader gets from a checked checkpoint's meta. */
export type CheckedMeta =
  /** A run checkpoint; `state` null for one without a run state (a sweep's start weights, for evaluation only). */
  | { kind: 'run'; config: RunConfig; state: TrainerState | null; refParams: Float32Array | null; engine: RunEngineMeta | null }
  | { kind: 'base' };

/** Checks a decoded checkpoint's meta (see the file comment); every problem is a CheckpointError naming `source`. */
export function checkCheckpointMeta(ckpt: CheckpointContents, source = 'checkpoint'): CheckedMeta {
  const meta = ckpt.meta;
  if (meta.kind === 'magic-lab-run') {
    const config = runCheckpointConfig(ckpt, source);
    const state = meta.state === undefined ? null : checkRunState(meta.state, ckpt, config, source);
    let refParams: Float32Array | null = null;
    if (meta.refParams !== undefined) {
      const n = layoutParams(ckpt.model).totalFloats;
      const r = meta.refParams;
      if (!Array.isArray(r) || r.length !== n) throw new CheckpointError(source, `meta.refParams (the KL reference policy) must hold ${n} numbers, got ${Array.isArray(r) ? r.length : show(r)}`);
      const j = r.findIndex((x) => typeof x !== 'number' || !Number.isFinite(x));
      if (j >= 0) throw new CheckpointError(source, `meta.refParams[${j}] must be a finite number, got ${show(r[j])}`);
      if (state === null) throw new CheckpointError(source, 'meta.refParams is present without a run state');
      refParams = Float32Array.from(r as number[]);
    }
    return { kind: 'run', config, state, refParams, engine: checkEngineMeta(meta.engine, source) };
  }
  if (meta.kind !== undefined && typeof meta.kind !== 'string') throw new CheckpointError(source, `meta.kind must be a string, got ${show(meta.kind)}`);
  checkBaseMeta(meta, source);
  return { kind: 'base' };
}

/**
 * meta.engine: what the run's engine was built with that changes its numbers — the WebGPU matmul
 * variant (the variants sum in different orders). Absent in CPU-engine runs and older files.
 */
export interface RunEngineMeta {
  matmulVariant: MatmulVariant;
}

function checkEngineMeta(v: unknown, source: string): RunEngineMeta | null {
  if (v === undefined) return null;
  if (!isObject(v)) throw new CheckpointError(source, `meta.engine must be { matmulVariant }, got ${show(v)}`);
  const extra = Object.keys(v).find((k) => k !== 'matmulVariant');
  if (extra !== undefined) throw new CheckpointError(source, `meta.engine has an unknown field ${show(extra)}`);
  if (!(MATMUL_VARIANTS as readonly unknown[]).includes(v.matmulVariant)) throw new CheckpointError(source, `meta.engine.matmulVariant must be one of ${MATMUL_VARIANTS.join(', ')}, got ${show(v.matmulVariant)}`);
  return { matmulVariant: v.matmulVariant as MatmulVariant };
}

/** What a run checkpoint records of its engine (nothing for an engine without a variant). */
export const engineMeta = (policy: PolicyEngine): RunEngineMeta | undefined => (policy.matmulVariant ? { matmulVariant: policy.matmulVariant } : undefined);

/**
 * How a run builds its policies: a resumed run with the variant it recorded, or — a file from before
 * the record — the rule runs used then (by adapter kind), so it replays bit for bit; a new run leaves
 * the choice to the backend.
 */
export function policyOptionsFor(meta: CheckedMeta | null): PolicyOptions {
  if (meta?.kind !== 'run' || meta.state === null) return {};
  return { matmulVariant: meta.engine?.matmulVariant ?? 'by-adapter-kind' };
}

/** A base checkpoint's cached offline-filter result and SFT state, the parts loaders use. */
function checkBaseMeta(meta: Record<string, unknown>, source: string): void {
  const fail = (field: string, what: string) => new CheckpointError(source, `meta.${field} ${what}`);
  const of = meta.offlineFilter;
  if (of !== undefined) {
    if (!isObject(of) || typeof of.key !== 'string' || !Array.isArray(of.correct)) throw fail('offlineFilter', `must be { key, correct } (a stored offline-filter result), got ${show(of)}`);
    let samples: unknown;
    try {
      samples = (JSON.parse(of.key) as { samples?: unknown } | null)?.samples;
    } catch {
      samples = undefined;
    }
    if (!isCount(samples) || samples < 1) throw fail('offlineFilter.key', `must name the samples per prompt it was computed with, got ${show(of.key)}`);
    const j = of.correct.findIndex((c) => !isCount(c) || c > samples);
    if (j >= 0) throw fail(`offlineFilter.correct[${j}]`, `must be a count of correct samples in [0, ${samples}], got ${show(of.correct[j])}`);
  }
  const st = meta.sftState;
  if (st !== undefined) {
    if (!isObject(st)) throw fail('sftState', `must be { step, rngState }, got ${show(st)}`);
    if (!isCount(st.step)) throw fail('sftState.step', `must be a non-negative integer, got ${show(st.step)}`);
    if (!isCount(st.rngState) || st.rngState > 0xffffffff) throw fail('sftState.rngState', `must be a uint32 RNG state, got ${show(st.rngState)}`);
  }
  if (meta.step !== undefined && !isCount(meta.step)) throw fail('step', `must be a non-negative integer, got ${show(meta.step)}`);
  checkEngineMeta(meta.engine, source); // an SFT snapshot's, for its exact continuation
}

/** decodeCheckpoint plus checkCheckpointMeta: a file fully checked, as every loader of run state reads it. */
export function loadCheckpoint(bytes: Uint8Array, source = 'checkpoint'): { contents: CheckpointContents; meta: CheckedMeta } {
  const contents = decodeCheckpoint(bytes, source);
  return { contents, meta: checkCheckpointMeta(contents, source) };
}
