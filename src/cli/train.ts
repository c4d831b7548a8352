/**
 * `magic-lab train`: a MAGIC run headless in Node. Writes DIR/config.json, DIR/metrics.jsonl
 * (one step record per line, and eval records with "type":"eval"), DIR/samples.jsonl and
 * DIR/checkpoint.mlck (the latest full run state). All flags and the config are validated
 * before anything is written.
 */
import { accessSync, constants as fsConstants, existsSync, mkdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../model/config';
import { decodeCheckpoint, NonFiniteWeightsError } from '../model/checkpoint';
import { getPreset, presetNames, validateRunConfig, type RunConfig } from '../rl/config';
import type { Backend } from '../model/engine';
import { DEVICE_RECOVERY, faultText, isDeviceFault, mayRecover, RecoveryFailed, recoveredNotice, reopenWithBackoff, type RecoveryPolicy } from '../rl/recovery';
import { runCheckpointConfig } from '../rl/run-checkpoint';
import { DivergenceError } from '../rl/divergence';
import { COLLAPSE_STEPS, collapseStreak, collapseText } from '../rl/collapse';
import { phaseSummary } from '../rl/phase-timer';
import { MagicTrainer, type EvalRecord, type StepRecord } from '../rl/trainer';
import { parseFlags, RunFailure, UsageError, type FlagSpec } from './args';
import { acquireBackend, BACKEND_FLAG, MATMUL_VARIANT_FLAG, parseBackendChoice, parseMatmulVariant, THREADS_FLAG } from './backend';
import { readJsonFile } from './sft';
import type { TrainRunOptions } from '../run/train-options';
import { checkRunFits } from './resources';
import { lockRunDir, removeDeadTempFiles } from '../run/dir-lock';
import { appendAll, explainFsCode, replaceFileWhole } from '../run/write-file';
import { FileReadError, readCheckpointFile } from '../run/read-file';
import { JournalDamageError, prepareJournalCut, type PendingJournal } from '../run/journal';
import { checkResumeIdentity, type ResumeState } from './run-identity';
import { parseRungFlag, RUNG_FLAG } from './rung';
import { DEFAULT_BASE, defaultBaseFor, missingRungBase, rungBasePath } from '../run/rung-base';
import { folderFilterCache } from '../run/filter-cache';


/**
 * A write to the run directory failed (full disk, quota, read-only or vanished file system): the
 * user's to fix, so a usage error (exit 2, one line); mid-run it also names the last checkpoint.
 */
class RunFileWriteError extends UsageError {
  constructor(
    readonly file: string,
    readonly cause: NodeJS.ErrnoException,
  ) {
    super(`writing ${file} failed: ${describeFsError(cause)}`);
  }
}

function describeFsError(e: NodeJS.ErrnoException): string {
  const why: Record<string, string> = {
    ENOSPC: 'no space left on the disk',
    EDQUOT: 'the disk quota is used up',
    EROFS: 'the file system is read-only',
    EACCES: 'permission denied',
    EPERM: 'not permitted',
    EIO: 'an I/O error',
    ENOENT: 'the directory is gone',
  };
  const code = explainFsCode(e); // ENOENT from mkdir on a read-only mount: EROFS
  return code ? `${why[code] ?? e.message} (${code})` : e.message;
}

/** Runs one write to `file`; a file-system failure becomes a RunFileWriteError naming it. */
function writing<T>(file: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e && typeof e === 'object' && typeof (e as NodeJS.ErrnoException).code === 'string') throw new RunFileWriteError(file, e as NodeJS.ErrnoException);
    throw e;
  }
}

/**
 * The run directory can be made and written: checked before an engine opens or anything is
 * written, so a path that is a file, under a file, or not writable is one line (exit 2).
 */
function checkOutDir(dir: string, flag: string): void {
  let probe = resolve(dir);
  while (!existsSync(probe)) {
    const up = dirname(probe);
    if (up === probe) break;
    probe = up;
  }
  const st = statSync(probe);
  if (!st.isDirectory()) throw new UsageError(probe === resolve(dir) ? `${flag}: ${dir} is a file, not a directory` : `${flag}: cannot create ${dir}: ${probe} is a file`);
  try {
    accessSync(probe, fsConstants.W_OK | fsConstants.X_OK);
  } catch (e) {
    throw new UsageError(`${flag}: cannot write in ${probe} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** Replaces `file` whole (temp file + rename, every byte checked): a failed write leaves the old contents and no temp file. */
function replaceFile(file: string, text: string | Uint8Array): void {
  writing(file, () => replaceFileWhole(file, text));
}

export const TRAIN_FLAGS: Record<string, FlagSpec> = {
  preset: { type: 'string', help: `run preset (default magic): ${presetNames().join(', ')}` },
  rung: RUNG_FLAG,
  config: { type: 'string', help: 'JSON file: a partial RunConfig merged over the preset' },
  seed: { type: 'int', min: 0, help: 'run seed (overrides the config)' },
  steps: { type: 'int', min: 1, help: 'stop after this many steps in total' },
  minutes: { type: 'number', min: 0, help: 'stop cleanly after the step that crosses M minutes, then evaluate' },
  out: { type: 'string', help: 'output directory (default runs/<preset>-<time>)' },
  resume: { type: 'string', help: 'continue the run saved in this directory' },
  base: { type: 'string', help: 'starting weights: a .mlck file, or none for random init (default: the rung\'s public/checkpoints/base*.mlck when its model matches)' },
  'filter-cache': { type: 'string', help: 'folder of offline-filter results shared between runs: a result for this run\'s key is read instead of sampled, a new one written (a sweep uses RUNS/offline-filters)' },
  quiet: { type: 'bool', help: 'no progress line' },
  'stop-on-collapse': { type: 'bool', help: `stop (exit 1, like a divergence) when entropy (under 5% of ln V) and reward stay at zero for ${COLLAPSE_STEPS} steps in a row; by default a warning` },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
  'matmul-variant': MATMUL_VARIANT_FLAG,
  help: { type: 'bool', help: 'show this help' },
};

/** The tiny rung's base (public/checkpoints/base.mlck); other rungs' are rungBasePath(rung). */
export { DEFAULT_BASE };

function fmt(x: number | undefined, d = 3): string {
  return x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d);
}

export function progressLine(r: StepRecord, lastEval: EvalRecord | null): string {
  const phases = phaseSummary(r); // where the step's time went (timing_s/*)
  const acc = lastEval ? fmt(lastEval['val/avg@8/t1.0'] ?? Object.entries(lastEval).find(([k]) => k.startsWith('val/avg@'))?.[1]) : '-';
  return (
    `step ${r.step}  stage ${r.stage}  entropy ${fmt(r['actor/entropy'])}  α ${fmt(r['actor/entropy_coeff_realized'], 4)}  ` +
    `reward ${fmt(r['critic/score/mean'])}  kept ${r['batch/kept_groups']}  len ${fmt(r['response_length/mean'], 1)}  ` +
    `val ${acc}  ${fmt(r['perf/tokens_per_s'], 0)} tok/s  ${fmt(r['perf/step_s'], 1)} s/step` +
    (phases ? `  ${phases}` : '')
  );
}

/** For tests only (nothing on the command line sets them). */
export interface TrainHooks {
  /** Runs after each step's records are written (e.g. destroys the device to test recovery). */
  afterStep?(step: number, backend: Backend): void | Promise<void>;
  /** Retries and back-off when the GPU device is lost (default DEVICE_RECOVERY). */
  recovery?: RecoveryPolicy;
}

/** `magic-lab train`'s flags as the typed options of runTraining. */
export function trainOptionsFromFlags(argv: string[]): TrainRunOptions {
  const flags = parseFlags(argv, TRAIN_FLAGS, 'train');
  const rung = parseRungFlag(flags.rung);
  const common = {
    ...(flags.steps !== undefined ? { steps: flags.steps as number } : {}),
    ...(flags.minutes !== undefined ? { minutes: flags.minutes as number } : {}),
    ...(flags.quiet ? { quiet: true } : {}),
    ...(flags['stop-on-collapse'] ? { stopOnCollapse: true } : {}),
    backend: parseBackendChoice(flags.backend),
    ...(flags.threads !== undefined ? { threads: flags.threads as number } : {}),
    ...(flags['matmul-variant'] !== undefined ? { matmulVariant: parseMatmulVariant(flags['matmul-variant']) } : {}),
  };
  if (flags.resume) {
    if (flags.preset || flags.rung || flags.config || flags.seed !== undefined || flags.base || flags['filter-cache']) throw new UsageError('--resume continues a saved run as it was: it cannot be combined with --preset, --rung, --config, --seed, --base or --filter-cache');
    return { kind: 'resume', dir: String(flags.resume), ...common };
  }
  return {
    kind: 'start',
    ...(flags.preset !== undefined ? { preset: String(flags.preset) } : {}),
    ...(rung !== undefined ? { rung } : {}),
    ...(flags.config ? { configFile: String(flags.config) } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed as number } : {}),
    ...(flags.out !== undefined ? { out: String(flags.out) } : {}),
    ...(flags.base !== undefined ? { base: String(flags.base) } : {}),
    ...(flags['filter-cache'] !== undefined ? { filterCache: String(flags['filter-cache']) } : {}),
    ...common,
  };
}

/**
 * --matmul-variant is the WebGPU engine's, and a resumed run keeps the variant its checkpoint records
 * (the variants sum in different orders): asking for another one is an error, not a silent swap.
 */
export function checkMatmulVariant(o: TrainRunOptions, used: string | undefined, backend: Backend): void {
  const asked = o.matmulVariant;
  if (asked === undefined || asked === 'auto') return;
  if (backend.name !== 'webgpu') throw new UsageError(`--matmul-variant ${asked}: only the WebGPU engine has matmul variants (this run is on ${backend.description})`);
  if (o.kind === 'resume' && used !== undefined && used !== asked) throw new UsageError(`--matmul-variant ${asked}: the run in ${o.dir} was trained with ${used}, which a resume keeps to replay bit for bit; leave the flag out`);
}

export async function train(argv: string[], log: (s: string) => void = console.log, hooks: TrainHooks = {}): Promise<void> {
  await runTraining(trainOptionsFromFlags(argv), log, hooks);
}

/**
 * One training run from typed options (the CLI's train and the sweep runner both call it). The run
 * directory is locked (src/run/dir-lock.ts) before anything in it is read for writing, and
 * released when the run returns or fails: one writer per run.
 */
export async function runTraining(o: TrainRunOptions, log: (s: string) => void = console.log, hooks: TrainHooks = {}): Promise<void> {
  const releases: (() => void)[] = [];
  try {
    await runLocked(o, log, hooks, (dir, made) =>
      releases.push(
        lockRunDir(dir, log),
        // A directory this call made and a refusal left empty goes again: a refused run writes nothing.
        () => made && tryRemoveEmptyDir(dir),
      ),
    );
  } finally {
    for (const release of releases) release();
  }
}

function tryRemoveEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (the run wrote to it) or already gone
  }
}

async function runLocked(o: TrainRunOptions, log: (s: string) => void, hooks: TrainHooks, lock: (dir: string, made?: boolean) => void): Promise<void> {
  const backendChoice = o.backend ?? parseBackendChoice(undefined);
  let config: RunConfig;
  let checkpoint: Uint8Array | undefined;
  let checkpointName: string | undefined;
  let out: string;
  const resume = o.kind === 'resume' ? o.dir : undefined;
  if (o.kind === 'resume') {
    const file = join(o.dir, 'checkpoint.mlck');
    if (!existsSync(file)) throw new UsageError(`--resume: ${file} does not exist`);
    checkOutDir(o.dir, '--resume');
    lock(o.dir);
    checkpoint = readCheckpointFile(file, '--resume');
    checkpointName = file;
    const ck = decodeCheckpoint(checkpoint, file);
    if (ck.meta.kind !== 'magic-lab-run') throw new UsageError(`--resume: ${file} is not a run checkpoint`);
    config = runCheckpointConfig(ck, file); // a bad meta.config: one line naming the file and the field
    // Another run's checkpoint (seed, model, config) or a step past the schedule: refused before the journals are touched.
    const state = ck.meta.state as ResumeState | undefined;
    checkResumeIdentity(o.dir, file, config, state?.step, state);
    // A kill -9 mid-write leaves a temp file (a checkpoint's is full-size): the lock's holder clears them once the run is known to be this one.
    const gone = writing(o.dir, () => removeDeadTempFiles(o.dir));
    if (gone.length) log(`note: removed ${gone.length} temp file${gone.length > 1 ? 's' : ''} of processes no longer running from ${o.dir} (${gone.join(', ')})`);
    out = o.dir;
  } else {
    const presetName = o.preset ?? 'magic';
    let preset: RunConfig;
    try {
      preset = getPreset(presetName, o.rung);
    } catch (e) {
      throw new UsageError(`--preset: ${(e as Error).message}`);
    }
    const partial = o.configFile !== undefined ? readJsonFile(o.configFile, '--config') : {};
    try {
      config = validateRunConfig(partial, preset);
      if (o.seed !== undefined) config = validateRunConfig({ seed: o.seed }, config);
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(`config: ${e.message}`);
      throw e;
    }
    const base = o.base === 'none' ? undefined : o.base;
    // The default: the base of the rung whose model the config has (tiny: public/checkpoints/base.mlck), used only when its model matches.
    const baseFile = base ?? defaultBaseFor(config);
    if (o.base === 'none') {
      // random init, asked for
    } else if (existsSync(baseFile)) {
      const bytes = readCheckpointFile(baseFile, '--base');
      const c = decodeCheckpoint(bytes, baseFile);
      // A run checkpoint would bring its own config, seed and step along: that is --resume, not a base.
      if (c.meta.kind === 'magic-lab-run') throw new UsageError(`--base: ${baseFile} is a run checkpoint (step ${(c.meta.state as { step?: unknown } | undefined)?.step ?? '?'}); continue that run with --resume DIR, or give base weights`);
      if (JSON.stringify(c.model) === JSON.stringify(config.model)) {
        checkpoint = bytes;
        checkpointName = baseFile;
      }
      else if (base) throw new UsageError(`--base: ${baseFile} holds a different model (${JSON.stringify(c.model)}) than the config's`);
    } else if (base) {
      throw new UsageError(`--base: ${base} does not exist`);
    } else if (o.rung !== undefined && baseFile === rungBasePath(o.rung)) {
      // An explicit rung starts from its base: its absence is said, not silently replaced by random init.
      throw new UsageError(`--rung ${o.rung}: ${missingRungBase(o.rung)}, or start from random init with --base none`);
    }
    // A random-init policy solves next to no prompt, so the offline filter would keep none after
    // sampling them all (155 s at the medium rung): said before anything is sampled or written.
    if (checkpoint === undefined && config.data.offlineFilter.enabled) {
      throw new UsageError(`${o.base === 'none' ? '--base none' : 'random init (no base checkpoint matches this model)'}: the offline filter (data.offlineFilter.enabled) keeps the prompts the starting policy solves sometimes, and a random policy solves none; turn it off with {"data": {"offlineFilter": {"enabled": false}}} in --config, or start from a base checkpoint (--base F)`);
    }
    out = o.out ?? join('runs', `${presetName}${o.rung && o.rung !== 'tiny' ? `-${o.rung}` : ''}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    checkOutDir(out, o.out === undefined ? 'the run directory' : '--out');
    // Locked before the checks below: of two runs started on one --out, the second is refused here.
    const made = !existsSync(out);
    writing(out, () => mkdirSync(out, { recursive: true }));
    lock(out, made);
    if (existsSync(join(out, 'checkpoint.mlck'))) throw new UsageError(`--out: ${out} already holds a run; use --resume ${out} to continue it`);
    // Records without a checkpoint: a run that stopped before its first one. Never overwrite them silently.
    for (const f of ['metrics.jsonl', 'samples.jsonl']) {
      if (existsSync(join(out, f)) && readFileSync(join(out, f), 'utf8').trim() !== '') {
        throw new UsageError(`--out: ${join(out, f)} holds records of a run that has no checkpoint to resume; remove them or choose another --out`);
      }
    }
  }

  // Data, heap and machine memory before an engine opens; the engine's limits once it has (nothing written or allocated yet).
  checkRunFits(config);
  const engineOpts = { threads: o.threads, matmulVariant: o.matmulVariant };
  let backend = await acquireBackend(backendChoice, engineOpts);
  try {
    checkRunFits(config, backend);
    checkMatmulVariant(o, undefined, backend);
    const offlineFilterCache = o.kind === 'start' && o.filterCache !== undefined ? folderFilterCache(o.filterCache) : undefined;
    let trainer = await MagicTrainer.create(backend, config, { checkpoint, checkpointName, onProgress: (m) => log(m), offlineFilterCache });
    checkMatmulVariant(o, trainer.policy.matmulVariant, backend); // a resume: the recorded variant, now known
    if (trainer.policy.matmulVariant) engineOpts.matmulVariant = trainer.policy.matmulVariant; // a reopened device rebuilds with it
    writing(out, () => mkdirSync(out, { recursive: true }));
    const metricsFile = join(out, 'metrics.jsonl');
    const samplesFile = join(out, 'samples.jsonl');
    let evaluatedAt = -1;
    // Steps in a row with entropy and reward at zero (src/rl/collapse.ts); a resume rebuilds it from the journal's kept step records.
    let collapse = 0;
    // Drops records written after the checkpoint at `step` (a crash between the two, or a lost GPU device): they will be recomputed identically.
    const cutJournals = (step: number) => {
      collapse = 0;
      // Each journal is written whole beside itself first (src/run/journal.ts); only when every one
      // was written are they renamed into place, so a full disk or damage found late changes none.
      const pending: (PendingJournal & { file: string })[] = [];
      try {
        for (const f of [metricsFile, samplesFile]) {
          if (!existsSync(f)) continue;
          const keep = (r: Record<string, unknown>) => {
            if (((r.step as number | undefined) ?? 0) > step) return false;
            if (f === metricsFile && r.type === 'step') collapse = collapseStreak(collapse, r['actor/entropy'] as number, r['critic/score/mean'] as number, trainer.config.model.vocabSize);
            // A finished run resumed again already has its final evaluation: do not append a second one.
            if (f === metricsFile && r.type === 'eval' && r.step === step) evaluatedAt = step;
            return true;
          };
          try {
            pending.push({ file: f, ...writing(f, () => prepareJournalCut(f, keep, (line) => log(`warning: ${f}:${line}: dropped a partial last record (a crash or full disk while it was written)`))) });
          } catch (e) {
            if (e instanceof JournalDamageError || e instanceof FileReadError) throw new UsageError(e.message);
            throw e;
          }
        }
      } catch (e) {
        for (const p of pending) p.abort();
        throw e;
      }
      for (const p of pending) writing(p.file, () => p.commit());
    };
    if (resume) {
      cutJournals(trainer.step);
    } else {
      replaceFile(join(out, 'config.json'), JSON.stringify(trainer.config, null, 2) + '\n');
      replaceFile(metricsFile, '');
      replaceFile(samplesFile, '');
    }
    log(`training ${resume ? 'resumed' : 'started'} in ${out} on ${backend.description}${checkpoint && !resume ? ' from the base checkpoint' : resume ? ` at step ${trainer.step}` : ' from random init'}`);
    if (trainer.policy.matmulVariant) log(`matmul variant ${trainer.policy.matmulVariant} (${resume ? 'the run\'s own, from its checkpoint' : o.matmulVariant && o.matmulVariant !== 'auto' ? '--matmul-variant' : 'the fastest on this adapter, timed or cached'})`);
    const writeEval = (rec: EvalRecord) => {
      writing(metricsFile, () => appendAll(metricsFile, JSON.stringify({ type: 'eval', ...rec }) + '\n'));
      // The coverage curve (pass@1, @2, … and per family) is in metrics.jsonl; the line keeps the record's own keys.
      const curveOnly = (k: string) => /^val\/[a-z]+\/pass@/.test(k) || (/^val\/pass@\d+\//.test(k) && !(k.replace('pass@', 'avg@') in rec));
      log(`eval @${rec.step}: ${Object.entries(rec).filter(([k]) => k.startsWith('val/') && !curveOnly(k)).map(([k, v]) => `${k}=${fmt(v)}`).join('  ')}`);
    };
    let savedStep = resume ? trainer.step : -1;
    const saveCheckpoint = async () => {
      let bytes: Uint8Array;
      try {
        bytes = await trainer.saveCheckpoint();
      } catch (e) {
        if (!(e instanceof NonFiniteWeightsError)) throw e;
        const last = savedStep >= 0 ? `the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step ${savedStep})` : 'no checkpoint was written before it';
        throw new RunFailure(`the run diverged by step ${trainer.step} (${e.message}); not saved — ${last}`);
      }
      replaceFile(join(out, 'checkpoint.mlck'), bytes); // atomic: a crash or full disk never leaves a half-written checkpoint
      savedStep = trainer.step;
    };
    let lastEval: EvalRecord | null = null;
    const t0 = performance.now();
    const maxSteps = o.steps;
    const minutes = o.minutes;
    // A lost GPU device (WebGPU only) pauses the run: a new device is opened (bounded retries with
    // back-off) and the run resumes from its last checkpoint in DIR, re-running the steps since it.
    let losses = 0;
    let resumedAt = -1;
    const recover = async (fault: unknown) => {
      if (!isDeviceFault(fault)) throw fault;
      const lostAt = trainer.step;
      if (savedStep > resumedAt) losses = 0; // a checkpoint since the last recovery: progress
      losses++;
      const ckptFile = join(out, 'checkpoint.mlck');
      const last = savedStep >= 0 ? `the last good checkpoint is ${ckptFile} (step ${savedStep}): continue with magic-lab train --resume ${out}` : 'no checkpoint was written before it: start the run again';
      if (!mayRecover(fault, losses, hooks.recovery)) throw new RunFailure(`${faultText(fault)} after step ${lostAt}, ${losses} times since the last checkpoint; stopped — ${last}`);
      log(`warning: ${faultText(fault)} after step ${lostAt}; opening a new device…`);
      try {
        trainer.destroy();
      } catch {
        // buffers of a lost device may already be gone
      }
      backend.destroy();
      try {
        backend = (await reopenWithBackoff(() => acquireBackend(backendChoice, engineOpts), {
          policy: hooks.recovery ?? DEVICE_RECOVERY,
          onFailure: (n, e) => log(`warning: no new device (attempt ${n}): ${e instanceof Error ? e.message : String(e)}`),
        }))!;
      } catch (e) {
        if (!(e instanceof RecoveryFailed)) throw e;
        throw new RunFailure(`${faultText(fault)} after step ${lostAt}, and ${e.message}; ${last}`);
      }
      // The run's last checkpoint; before the first one, the run starts again from its starting weights.
      const fromFile = savedStep >= 0;
      trainer = await MagicTrainer.create(backend, config, fromFile ? { checkpoint: new Uint8Array(readFileSync(ckptFile)), checkpointName: ckptFile } : { checkpoint, checkpointName, onProgress: (m) => log(m) });
      resumedAt = trainer.step;
      evaluatedAt = -1;
      cutJournals(trainer.step);
      log(`warning: ${recoveredNotice(fault, lostAt, fromFile ? trainer.step : null, ckptFile)}`);
    };
    for (;;) {
      try {
        if (!resume && trainer.step === 0 && evaluatedAt !== 0) {
          lastEval = await trainer.evaluate();
          evaluatedAt = 0;
          writeEval(lastEval);
        }
        while (!trainer.done && (maxSteps === undefined || trainer.step < maxSteps)) {
          const stageBefore = trainer.stage;
          const res = await trainer.trainStep();
          writing(metricsFile, () => appendAll(metricsFile, JSON.stringify({ type: 'step', ...res.record }) + '\n'));
          writing(samplesFile, () => appendAll(samplesFile, res.samples.map((s) => JSON.stringify(s) + '\n').join('')));
          if (res.eval) {
            lastEval = res.eval;
            evaluatedAt = trainer.step;
            writeEval(res.eval);
          }
          if (!o.quiet) log(progressLine(res.record, lastEval));
          collapse = collapseStreak(collapse, res.record['actor/entropy'], res.record['critic/score/mean'], trainer.config.model.vocabSize);
          if (collapse === COLLAPSE_STEPS) {
            if (o.stopOnCollapse) {
              const last = savedStep >= 0 ? `the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step ${savedStep})` : 'no checkpoint was written before it';
              throw new RunFailure(`${collapseText(trainer.step, trainer.config.model.vocabSize)}; stopped (--stop-on-collapse) — ${last}`);
            }
            log(`warning: ${collapseText(trainer.step, trainer.config.model.vocabSize)}; --stop-on-collapse stops a run here`);
          }
          const skipped = res.record['actor/nonfinite_steps'];
          if (skipped > 0) log(`warning: step ${res.record.step}: ${skipped} optimizer step${skipped === 1 ? '' : 's'} rejected as non-finite (loss or grad norm) and skipped: weights untouched`);
          const every = trainer.config.checkpoint.everySteps;
          // Every N steps and at each stage boundary: a lost device loses at most the steps since.
          if ((every > 0 && trainer.step % every === 0) || (trainer.stage !== stageBefore && !trainer.done)) await saveCheckpoint();
          await hooks.afterStep?.(trainer.step, backend);
          if (minutes !== undefined && performance.now() - t0 >= minutes * 60000) {
            log(`--minutes ${minutes} reached after step ${trainer.step}`);
            break;
          }
        }
        if (evaluatedAt !== trainer.step) writeEval(await trainer.evaluate());
        await saveCheckpoint();
        break;
      } catch (e) {
        // Non-finite steps in a row (src/rl/divergence.ts): nothing from the failed step is saved.
        // A full disk (or any failed write to DIR) stops the run; the journals' partial last line, if
        // any, is dropped by --resume, and the checkpoint on disk is the last one written whole.
        if (e instanceof RunFileWriteError) {
          const last = savedStep >= 0 ? `the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step ${savedStep}): fix it and continue with magic-lab train --resume ${out}` : 'no checkpoint was written yet: fix it and start the run again';
          throw new UsageError(`${e.message}; the run stopped at step ${trainer.step} — ${last}`);
        }
        if (e instanceof DivergenceError) {
          const last = savedStep >= 0 ? `the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step ${savedStep})` : 'no checkpoint was written before it';
          throw new RunFailure(`${e.message}; stopped, not saved — ${last}`);
        }
        await recover(e);
      }
    }
    log(`done: ${trainer.step} steps in ${((performance.now() - t0) / 60000).toFixed(1)} min; run saved in ${out}`);
    trainer.destroy();
  } finally {
    backend.destroy();
  }
}
