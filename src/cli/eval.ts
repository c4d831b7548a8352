/** `magic-lab eval --checkpoint FILE --k 8`: held-out avg@k / pass@k / maj@k of a checkpoint. */
import { existsSync } from 'node:fs';
import { readCheckpointFile } from '../run/read-file';
import { MAX_TEMPERATURE, MIN_TEMPERATURE } from '../rl/config/rules';
import { ConfigError } from '../model/config';
import { buildRunDataset, getPreset, rungOf, longestResponseLength, validateRunConfig, type RunConfig } from '../rl/config';
import { batchSeed, evaluatePolicy } from '../rl/rollout';
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
  const backend = await acquireBackend(backendChoice, { threads: flags.threads as number | undefined });
  try {
    checkEvalResources(cfg, { problems: problemsN, k, batch }, { host: nodeHostLimits(), engine: engineLimitsOf(backend) });
    const policy = await backend.createPolicy(ck.model, 'eval');
    policy.setParams(ck.params);
    const rec = await evaluatePolicy(policy, ds.test.slice(0, problemsN), {
      k,
      temperatures: temps,
      maxResponseLength: longestResponseLength(cfg),
      topP: cfg.rollout.topP,
      batch,
      seed: batchSeed((flags.seed as number | undefined) ?? 0, 4),
    });
    log(`${file}: ${problemsN} test problems × ${k} samples`);
    for (const [key, v] of Object.entries(rec)) log(`  ${key.padEnd(34)} ${v.toFixed(4)}`);
    return rec;
  } finally {
    backend.destroy();
  }
}
