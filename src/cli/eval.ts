/**
 * `magic-lab eval --checkpoint FILE --k 8`: held-out avg@k / pass@k / maj@k of a checkpoint; with
 * --json the coverage report (pass@k curve overall, per family, level and base class, and every
 * problem's counts); --write-solvability measures a base's classes, --solvability reads them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { crc32Label } from '../model/checkpoint';
import { buildEvalReport, buildSolvability, solvabilityClasses, type TestSetDefinition } from '../rl/eval-report';
import type { SolvabilityClass } from '../rl/coverage';
import { readCheckpointFile } from '../run/read-file';
import { MAX_TEMPERATURE, MIN_TEMPERATURE } from '../rl/config/rules';
import { ConfigError } from '../model/config';
import { buildRunDataset, getPreset, rungOf, longestResponseLength, validateRunConfig, type RunConfig } from '../rl/config';
import { batchSeed, evaluatePolicyDetailed } from '../rl/rollout';
import { loadCheckpoint } from '../rl/run-checkpoint';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { acquireBackend, BACKEND_FLAG, parseBackendChoice, THREADS_FLAG } from './backend';
import { nodeHostLimits } from './resources';
import { parseRungFlag, RUNG_FLAG } from './rung';
import { checkEvalResources, engineLimitsOf } from '../rl/resources';

export const EVAL_FLAGS: Record<string, FlagSpec> = {
  checkpoint: { type: 'string', help: 'the .mlck file to evaluate (required)' },
  k: { type: 'int', min: 1, help: 'samples per problem (default 8)' },
  problems: { type: 'int', min: 1, help: 'test problems (default: the config\'s eval.testProblems)' },
  temperatures: { type: 'string', help: 'comma-separated, default 1,0.6' },
  preset: { type: 'string', help: 'data/stage config for a base checkpoint (default magic); run checkpoints use their own' },
  rung: { ...RUNG_FLAG, help: `with --preset: ${RUNG_FLAG.help}` },
  families: { type: 'string', help: 'with a base checkpoint: comma-separated task families to test on instead of the preset\'s, e.g. multiply' },
  difficulty: { type: 'int', min: 1, help: 'with a base checkpoint: the task level instead of the preset\'s (at most the families\' hardest)' },
  seed: { type: 'int', min: 0, help: 'sampling seed (default 0)' },
  json: { type: 'string', help: 'write the coverage report here: per temperature pass@k for k = 1, 2, 4, … up to --k, per family, level and base class, and each problem\'s counts' },
  solvability: { type: 'string', help: 'a base\'s solvability file (--write-solvability): split pass@k by base class (unsolved / rare / often) in --json' },
  'write-solvability': { type: 'string', help: 'measure this checkpoint\'s solvability classes at the first temperature (0 of k: unsolved, 1..max(1, k/8): rare, more: often) and write them here' },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
  help: { type: 'bool', help: 'show this help' },
};

export async function evalCommand(argv: string[], log: (s: string) => void = console.log): Promise<Record<string, number>> {
  const flags = parseFlags(argv, EVAL_FLAGS, 'eval');
  const backendChoice = parseBackendChoice(flags.backend);
  if (!flags.checkpoint) throw new UsageError('eval: --checkpoint FILE is required');
  const file = String(flags.checkpoint);
  if (!existsSync(file)) throw new UsageError(`--checkpoint: ${file} does not exist`);
  // Stat'ed first (a directory or /dev/zero is one line, nothing read); then the whole file is
  // checked, a run checkpoint's config and state too: an inconsistent file is refused here as by train.
  const { contents: ck, meta } = loadCheckpoint(readCheckpointFile(file, '--checkpoint'), file);
  // A base checkpoint of a ladder rung is evaluated on that rung's data and lengths unless --rung says otherwise.
  const rung = parseRungFlag(flags.rung) ?? rungOf({ model: ck.model }) ?? undefined;
  let cfg: RunConfig;
  try {
    const data: Record<string, unknown> = {};
    if (flags.families !== undefined) data.families = String(flags.families).split(',');
    if (flags.difficulty !== undefined) data.difficulty = flags.difficulty;
    if (meta.kind === 'run' && Object.keys(data).length > 0) throw new UsageError('--families/--difficulty: a run checkpoint is evaluated on its own data; give a base checkpoint');
    cfg = meta.kind === 'run' ? meta.config : validateRunConfig({ model: ck.model, data }, getPreset(String(flags.preset ?? 'magic'), rung));
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if (e instanceof ConfigError) throw new UsageError(`config: ${e.message}`);
    throw new UsageError(`--preset: ${(e as Error).message}`);
  }
  const temps = flags.temperatures === undefined ? cfg.eval.temperatures : String(flags.temperatures).split(',').map(Number);
  if (temps.some((t) => !(t >= MIN_TEMPERATURE && t <= MAX_TEMPERATURE))) throw new UsageError(`--temperatures: expected numbers in [${MIN_TEMPERATURE}, ${MAX_TEMPERATURE}] (the range where sampling stays finite), got ${JSON.stringify(flags.temperatures)}`);
  const k = (flags.k as number | undefined) ?? 8;
  const problemsN = (flags.problems as number | undefined) ?? cfg.eval.testProblems;
  if (problemsN > cfg.data.testSize) throw new UsageError(`--problems: the test set has ${cfg.data.testSize} problems, asked for ${problemsN}`);
  const batch = 128;
  // Data and JS heap before the test set is built; the engine's limits once it is open (nothing allocated yet).
  checkEvalResources(cfg, { problems: problemsN, k, batch }, { host: nodeHostLimits() });
  const ds = buildRunDataset(cfg);
  if (problemsN > ds.test.length) throw new UsageError(`--problems: the test set has ${ds.test.length} problems, asked for ${problemsN}`);
  const problems = ds.test.slice(0, problemsN);
  const testSet: TestSetDefinition = { seed: cfg.seed, families: [...cfg.data.families], difficulty: cfg.data.testDifficulty ?? cfg.data.difficulty, testSize: cfg.data.testSize };
  let classes: { file: string; classes: SolvabilityClass[] } | null = null;
  if (flags.solvability !== undefined) {
    const sf = String(flags.solvability);
    if (!existsSync(sf)) throw new UsageError(`--solvability: ${sf} does not exist`);
    try {
      classes = { file: sf, classes: solvabilityClasses(JSON.parse(readFileSync(sf, 'utf8')), testSet, problems) };
    } catch (e) {
      throw new UsageError(`--solvability: ${sf}: ${(e as Error).message}`);
    }
  }
  for (const flag of ['json', 'write-solvability'] as const) {
    if (flags[flag] !== undefined && !existsSync(dirname(resolve(String(flags[flag]))))) throw new UsageError(`--${flag}: the folder of ${String(flags[flag])} does not exist`);
  }
  const backend = await acquireBackend(backendChoice, { threads: flags.threads as number | undefined });
  try {
    checkEvalResources(cfg, { problems: problemsN, k, batch }, { host: nodeHostLimits(), engine: engineLimitsOf(backend) });
    const policy = await backend.createPolicy(ck.model, 'eval');
    policy.setParams(ck.params);
    const res = await evaluatePolicyDetailed(policy, problems, {
      k,
      temperatures: temps,
      maxResponseLength: longestResponseLength(cfg),
      topP: cfg.rollout.topP,
      batch,
      seed: batchSeed((flags.seed as number | undefined) ?? 0, 4),
    });
    const rec = res.record;
    log(`${file}: ${problemsN} test problems × ${k} samples`);
    for (const [key, v] of Object.entries(rec)) log(`  ${key.padEnd(34)} ${v.toFixed(4)}`);
    if (flags.json !== undefined || flags['write-solvability'] !== undefined) {
      const report = buildEvalReport({ checkpoint: file, testSet, problems, n: k, seed: (flags.seed as number | undefined) ?? 0, maxResponseLength: longestResponseLength(cfg), topP: cfg.rollout.topP, temperatures: temps, record: rec, results: res.problems, solvability: classes });
      if (flags.json !== undefined) {
        writeFileSync(String(flags.json), JSON.stringify(report, null, 1) + '\n');
        log(`coverage report: ${String(flags.json)}`);
      }
      if (flags['write-solvability'] !== undefined) {
        const sol = buildSolvability(report, crc32Label(readFileSync(file)));
        writeFileSync(String(flags['write-solvability']), JSON.stringify(sol, null, 1) + '\n');
        const count = (c: string) => sol.problems.filter((p) => p.class === c).length;
        log(`solvability at τ = ${sol.sampling.temperature}, ${k} samples: ${count('unsolved')} unsolved, ${count('rare')} rare, ${count('often')} often of ${sol.problems.length} → ${String(flags['write-solvability'])}`);
      }
    }
    return rec;
  } finally {
    backend.destroy();
  }
}
