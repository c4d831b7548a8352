/**
 * The sweep runner: every preset × seed, one after another (the machine has 2 cores), each in
 * its own run directory, by calling training through its typed entry point (`runTraining(options, log)`, src/run/train-options.ts); then two precise evaluations
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
 *   RUNS/offline-filters/<crc>.json     the offline filter's counts, shared by runs with its key (src/run/filter-cache.ts)
 * A pool run whose config.json differs from what its preset resolves to now (the defaults
 * changed since it trained) is refused, never silently reused.
 *
 * Variants (--variants FILE) are named configs that take a preset's place in the sweep: a label,
 * the preset it starts from and a partial RunConfig over it. They exist for tuning: a baseline
 * and its candidates in one sweep get paired differences over the same seeds like presets do.
 * A re-run of the same command skips finished runs, resumes the interrupted one (bit for bit on
 * one backend) and recomputes the summary from the files.
 */
import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { BackendChoice } from '../model/engine';
import { validateRunConfig, type RunConfigInput } from '../rl/config';
import { trainRunArgv, type TrainRunOptions } from '../run/train-options';
import { formatTemperature } from '../rl/metrics';
import { compressFile, existsStored, readStoredText } from './gz-file';
import { checkRunIdentity, checkSweepIdentity, lock, readJson, writeJson } from './pool-files';
import { planSweep, runsRoot, type PlannedRun, type RunResult, type SweepDeps, type SweepOptions, type SweepSpec } from './plan';
import { evalTag, finalEval, keyName, readCoverage, startEval, startEvalKey, type CachedEval } from './precise-eval';
import { parseMetricsJsonl, type CoverageProblems, type PreciseEval, TEMPERATURES, formatValue } from './run-metrics';
import { avgAtKSamplingSE } from './stats';
import { shardRuns } from './shard';

export * from './plan';
export { firstDifferentField } from './pool-files';
export { startEvalKey } from './precise-eval';

// ---------------------------------------------------------------------------------------------
// Training one run

function lastStepRecord(dir: string): { step: number; time_ms: number } | null {
  const f = join(dir, 'metrics.jsonl');
  if (!existsStored(f)) return null;
  const steps = parseMetricsJsonl(readStoredText(f)).steps;
  return steps.length ? { step: steps[steps.length - 1].step, time_ms: steps[steps.length - 1].time_ms } : null;
}

/** The engine options of train (and eval): --backend and --threads when the sweep sets them. */
function engineOptions(o: SweepSpec): { backend?: BackendChoice; threads?: number } {
  return { ...(o.backend ? { backend: o.backend as BackendChoice } : {}), ...(o.threads !== null ? { threads: o.threads } : {}) };
}

/** What train is asked for this run: a fresh start, or a resume when the directory holds a checkpoint. */
export function trainRequest(run: PlannedRun, o: SweepSpec): TrainRunOptions {
  const engine = engineOptions(o);
  if (existsSync(join(run.dir, 'checkpoint.mlck'))) {
    const req: TrainRunOptions = { kind: 'resume', dir: run.dir };
    if (o.steps !== null) req.steps = o.steps;
    if (o.minutes !== null) {
      // --minutes counts from the resume; give the run what is left of its budget (time_ms is the trainer's own clock).
      const last = lastStepRecord(run.dir);
      const left = o.minutes - (last ? last.time_ms / 60000 : 0);
      if (left > 0) req.minutes = +left.toFixed(4);
      else if (o.steps === null) req.steps = last?.step ?? 1; // the budget ran out: finish at the step it had reached
    }
    return { ...req, ...engine };
  }
  const variant = run.identity.variant;
  const req: TrainRunOptions = { kind: 'start', preset: variant ? variant.preset : run.preset, seed: run.seed, out: run.dir };
  if (o.config !== null || variant) req.configFile = join(run.dir, 'sweep-config.json');
  if (run.identity.rung) req.rung = run.identity.rung;
  if (run.base) req.base = run.base.file;
  req.filterCache = join(run.dir, '..', '..', 'offline-filters'); // RUNS/offline-filters: presets at one seed sample the filter once
  if (o.steps !== null) req.steps = o.steps;
  if (o.minutes !== null) req.minutes = o.minutes;
  return { ...req, ...engine };
}

/** The `magic-lab train` command line of this run's request (train.log's first line). */
export function trainArgs(run: PlannedRun, o: SweepSpec): string[] {
  return trainRunArgv(trainRequest(run, o));
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
  let startCoverage: CoverageProblems | null = null;
  if (run.base) {
    const key = startEvalKey(run, o);
    const f = join(runsRoot(o), 'start-evals', `${keyName(key)}.json`);
    if (!existsSync(f)) return null;
    const c = readJson<CachedEval>(f);
    start = { record: c.record, problems: c.problems, k: c.k, seed: c.seed };
    startCoverage = readCoverage(f);
  }
  const finalCoverage = readCoverage(finalFile);
  const fe = readJson<CachedEval>(finalFile);
  const config = existsSync(join(run.dir, 'config.json')) ? validateRunConfig(readJson<RunConfigInput>(join(run.dir, 'config.json'))) : run.config;
  const dn = readJson<{ device?: string | null }>(done);
  return {
    preset: run.preset,
    seed: run.seed,
    dir: relative(o.out, run.dir) || '.',
    config,
    metricsText: readStoredText(join(run.dir, 'metrics.jsonl')),
    start,
    final: { record: fe.record, problems: fe.problems, k: fe.k, seed: fe.seed },
    device: dn.device ?? null,
    ...(finalCoverage ? { coverage: { start: startCoverage, final: finalCoverage } } : {}),
  };
}

/**
 * Runs (or continues) the sweep. Throws SweepError for a mismatching OUT or run pool; any error
 * of a run propagates (the sweep stops; the same command continues it). `onRunDone` sees the
 * finished runs so far (the CLI rewrites the summary there).
 */
export async function runSweep(
  o: SweepOptions,
  deps: SweepDeps,
  log: (s: string) => void,
  onRunDone?: (results: RunResult[]) => void | Promise<void>,
): Promise<SweepOutcome> {
  const planned = shardRuns(planSweep(o), o.shard);
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
        const request = trainRequest(run, o);
        const resuming = request.kind === 'resume';
        // Killed before its first checkpoint: nothing to resume, and train refuses to overwrite records.
        if (!resuming) for (const f of ['metrics.jsonl', 'samples.jsonl']) rmSync(join(run.dir, f), { force: true });
        log(`${head}: ${resuming ? 'resuming' : 'training'} in ${run.dir}`);
        const logFile = join(run.dir, 'train.log');
        appendFileSync(logFile, `# magic-lab train ${trainRunArgv(request).join(' ')}\n`);
        let device: string | null = null;
        let lastPrint = 0;
        let lastStepAt = now();
        let lastStep = -1;
        await deps.train(request, (line) => {
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
      // Trained: its per-step records are only read from now on, so they are kept gzipped (~7× smaller).
      compressFile(join(run.dir, 'metrics.jsonl'));
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

