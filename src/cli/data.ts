/**
 * `magic-lab data build|inspect|filter`: the datasets a run would use.
 *   build   writes train.jsonl, test.jsonl and report.json to --out
 *   inspect prints the dedup/decontamination report and examples
 *   filter  runs the offline filter (N samples per prompt from --checkpoint) and reports what remains
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireNodeRuntime } from '../gpu/node';
import { ConfigError } from '../model/config';
import { decodeCheckpoint } from '../model/checkpoint';
import { getPreset, validateRunConfig, type RunConfig } from '../rl/config';
import { offlineFilter } from '../rl/filters';
import { batchSeed, rollout } from '../rl/rollout';
import { GpuPolicy } from '../model/policy';
import { buildDataset, problemsToJsonl } from '../tasks';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { readJsonFile } from './sft';
import { DEFAULT_BASE } from './train';

export const DATA_FLAGS: Record<string, FlagSpec> = {
  preset: { type: 'string', help: 'run preset whose data section is used (default magic)' },
  config: { type: 'string', help: 'JSON file: a partial RunConfig merged over the preset' },
  out: { type: 'string', help: 'build: directory for train.jsonl, test.jsonl, report.json' },
  checkpoint: { type: 'string', help: `filter: policy to sample from (default ${DEFAULT_BASE})` },
  samples: { type: 'int', min: 2, help: 'filter: N samples per prompt (default: the config\'s)' },
  help: { type: 'bool', help: 'show this help' },
};

function loadConfig(flags: Record<string, unknown>): RunConfig {
  let preset: RunConfig;
  try {
    preset = getPreset(String(flags.preset ?? 'magic'));
  } catch (e) {
    throw new UsageError(`--preset: ${(e as Error).message}`);
  }
  try {
    return validateRunConfig(flags.config ? readJsonFile(String(flags.config), '--config') : {}, preset);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`config: ${e.message}`);
    throw e;
  }
}

export async function data(argv: string[], log: (s: string) => void = console.log): Promise<void> {
  const [sub, ...rest] = argv;
  if (!['build', 'inspect', 'filter'].includes(sub)) throw new UsageError(`data: expected build, inspect or filter, got ${JSON.stringify(sub ?? '')}`);
  const flags = parseFlags(rest, DATA_FLAGS, `data ${sub}`);
  const cfg = loadConfig(flags);
  if (sub === 'build' && !flags.out) throw new UsageError('data build: --out DIR is required');
  const d = cfg.data;
  const ds = buildDataset({ seed: cfg.seed, families: d.families, difficulty: d.difficulty, trainSize: d.trainSize, testSize: d.testSize });
  const r = ds.report;
  const summary = `generated ${r.generated}: train ${r.trainSize}, test ${r.testSize}; removed ${r.exactDuplicatesRemoved} exact duplicates, ${r.nearDuplicatesRemoved} near duplicates, ${r.decontaminatedRemoved} overlapping the test set`;
  if (sub === 'build') {
    const out = String(flags.out);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'train.jsonl'), problemsToJsonl(ds.train));
    writeFileSync(join(out, 'test.jsonl'), problemsToJsonl(ds.test));
    writeFileSync(join(out, 'report.json'), JSON.stringify(r, null, 2) + '\n');
    log(`${summary}\nwrote ${out}/train.jsonl, test.jsonl, report.json`);
    return;
  }
  if (sub === 'inspect') {
    log(summary);
    for (const f of d.families) {
      const ex = ds.train.filter((p) => p.family === f).slice(0, 3);
      log(`${f}: ${ds.train.filter((p) => p.family === f).length} train, ${ds.test.filter((p) => p.family === f).length} test; e.g. ${ex.map((p) => `${p.prompt} → ${p.answer}`).join('   ')}`);
    }
    return;
  }
  const file = String(flags.checkpoint ?? DEFAULT_BASE);
  if (!existsSync(file)) throw new UsageError(`--checkpoint: ${file} does not exist`);
  const ck = decodeCheckpoint(new Uint8Array(readFileSync(file)), file);
  const N = (flags.samples as number | undefined) ?? d.offlineFilter.samples;
  const rt = await acquireNodeRuntime();
  try {
    const policy = new GpuPolicy(rt, ck.model, 'filter');
    policy.setParams(ck.params);
    const rolls = await rollout(policy, ds.train, ds.train.flatMap((_, i) => new Array<number>(N).fill(i)), {
      batch: 128,
      maxResponseLength: Math.max(...cfg.stages.map((s) => s.maxResponseLength)),
      temperature: 1,
      topP: 1,
      seed: batchSeed(cfg.seed, 5),
    });
    const correct = new Array(ds.train.length).fill(0);
    for (const x of rolls) correct[x.problem] += x.reward;
    log(`${summary}\noffline filter with ${file}: ${offlineFilter(correct, N).summary}`);
  } finally {
    rt.destroy();
  }
}
