/**
 * The sweep's precise evaluations through `magic-lab eval`: the start weights (cached in
 * RUNS/start-evals by everything they depend on, so presets sharing a test set evaluate it once)
 * and each run's final checkpoint (its marker file in the run directory).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { join } from 'node:path';
import { crc32Label, decodeCheckpoint, encodeCheckpoint } from '../model/checkpoint';
import { longestResponseLength } from '../rl/config';
import type { EvalReport } from '../rl/eval-report';
import { compressFile, existsStored, readStoredText } from './gz-file';
import { readJson, writeJson } from './pool-files';
import { runsRoot, type PlannedRun, type SweepDeps, type SweepOptions, type SweepSpec } from './plan';
import type { CoverageProblems, PreciseEval } from './run-metrics';

// ---------------------------------------------------------------------------------------------
// Precise evaluations

export function evalTag(problems: number, k: number, seed: number): string {
  return `${problems}x${k}-s${seed}`;
}

export function backendArgs(o: SweepSpec): string[] {
  return [...(o.backend ? ['--backend', o.backend] : []), ...(o.threads !== null ? ['--threads', String(o.threads)] : [])];
}

/** Where an evaluation's coverage report goes (`eval --json`; gzipped once written). */
export function coverageFile(evalFile: string): string {
  return evalFile.replace(/\.json$/, '.coverage.json');
}

/** The per-problem counts of a coverage report (null when the evaluation wrote none). */
export function readCoverage(evalFile: string): CoverageProblems | null {
  const f = coverageFile(evalFile);
  if (!existsStored(f)) return null;
  const rep = JSON.parse(readStoredText(f)) as EvalReport;
  return Object.fromEntries(Object.entries(rep.temperatures).map(([t, r]) => [t, r.problems.map((p) => ({ id: p.id, n: p.n, correct: p.correct }))]));
}

/** Keeps a written coverage report gzipped (it lists every problem). */
function storeCoverage(evalFile: string): void {
  if (existsSync(coverageFile(evalFile))) compressFile(coverageFile(evalFile));
}

function evalArgs(file: string, o: SweepSpec, seed: number, coverage: string): string[] {
  return [
    '--checkpoint',
    file,
    '--json',
    coverage,
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

export interface CachedEval extends PreciseEval {
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
    data: { seed: c.seed, families: d.families, difficulty: d.difficulty, ...(d.testDifficulty !== undefined ? { testDifficulty: d.testDifficulty } : {}), trainSize: d.trainSize, testSize: d.testSize },
    maxResponseLength: longestResponseLength(c),
    topP: c.rollout.topP,
    problems: o.evalProblems,
    k: o.evalK,
    temperatures: o.evalTemperatures,
    seed: run.seed,
    backend: o.evalBackend || o.backend,
  };
}

export function keyName(key: unknown): string {
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
  replaceFileWhole(file, bytes);
}

export async function startEval(run: PlannedRun, o: SweepOptions, deps: SweepDeps, log: (s: string) => void): Promise<PreciseEval | null> {
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
    const argv = evalArgs(ckFile, o, run.seed, coverageFile(file));
    const record = await deps.evaluate(argv, log);
    const res: CachedEval = { key, argv, record, problems: o.evalProblems, k: o.evalK, seed: run.seed };
    storeCoverage(file);
    writeJson(file, res);
    return { record, problems: o.evalProblems, k: o.evalK, seed: run.seed };
  } finally {
    rmSync(ckFile, { force: true });
  }
}

export async function finalEval(run: PlannedRun, o: SweepOptions, deps: SweepDeps, log: (s: string) => void): Promise<PreciseEval> {
  const file = join(run.dir, `eval-final-${evalTag(o.evalProblems, o.evalK, run.seed)}.json`);
  if (existsSync(file)) {
    const hit = readJson<CachedEval>(file);
    return { record: hit.record, problems: hit.problems, k: hit.k, seed: hit.seed };
  }
  const argv = evalArgs(join(run.dir, 'checkpoint.mlck'), o, run.seed, coverageFile(file));
  const record = await deps.evaluate(argv, log);
  storeCoverage(file);
  writeJson(file, { argv, record, problems: o.evalProblems, k: o.evalK, seed: run.seed, temperatures: o.evalTemperatures });
  return { record, problems: o.evalProblems, k: o.evalK, seed: run.seed };
}

