/**
 * `magic-lab data build|inspect|filter`: the datasets a run would use.
 *   build   writes train.jsonl, test.jsonl and report.json to --out
 *   inspect prints the dedup/decontamination report and examples
 *   filter  runs the offline filter (N samples per prompt from --checkpoint) and reports what remains;
 *           --write stores the result in that checkpoint so runs with the same data config skip it
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { join } from 'node:path';
import { ConfigError } from '../model/config';
import { decodeCheckpoint, encodeCheckpoint } from '../model/checkpoint';
import { buildRunDataset, getPreset, validateRunConfig, type RunConfig } from '../rl/config';
import { MagicTrainer } from '../rl/trainer';
import { problemsToJsonl } from '../tasks';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { acquireBackend, BACKEND_FLAG, parseBackendChoice, THREADS_FLAG } from './backend';
import { readJsonFile } from './sft';
import { DEFAULT_BASE, defaultBaseFor } from '../run/rung-base';
import { parseRungFlag, RUNG_FLAG } from './rung';

export const DATA_FLAGS: Record<string, FlagSpec> = {
  preset: { type: 'string', help: 'run preset whose data section is used (default magic)' },
  rung: RUNG_FLAG,
  config: { type: 'string', help: 'JSON file: a partial RunConfig merged over the preset' },
  out: { type: 'string', help: 'build: directory for train.jsonl, test.jsonl, report.json' },
  checkpoint: { type: 'string', help: `filter: policy to sample from (default: the rung\'s base, ${DEFAULT_BASE} for tiny)` },
  samples: { type: 'int', min: 2, help: 'filter: N samples per prompt (default: the config\'s)' },
  write: { type: 'bool', help: 'filter: store the result in the checkpoint so runs skip the sampling' },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
  help: { type: 'bool', help: 'show this help' },
};

function loadConfig(flags: Record<string, unknown>): RunConfig {
  const rung = parseRungFlag(flags.rung);
  let preset: RunConfig;
  try {
    preset = getPreset(String(flags.preset ?? 'magic'), rung);
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
  const ds = buildRunDataset(cfg);
  const r = ds.report;
  const summary = `generated ${r.generated}: train ${r.trainSize}, test ${r.testSize}; removed ${r.exactDuplicatesRemoved} exact duplicates, ${r.nearDuplicatesRemoved} near duplicates, ${r.decontaminatedRemoved} overlapping the test set`;
  if (sub === 'build') {
    const out = String(flags.out);
    mkdirSync(out, { recursive: true });
    replaceFileWhole(join(out, 'train.jsonl'), problemsToJsonl(ds.train));
    replaceFileWhole(join(out, 'test.jsonl'), problemsToJsonl(ds.test));
    replaceFileWhole(join(out, 'report.json'), JSON.stringify(r, null, 2) + '\n');
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
  const file = String(flags.checkpoint ?? defaultBaseFor(cfg));
  if (!existsSync(file)) throw new UsageError(`--checkpoint: ${file} does not exist`);
  const bytes = new Uint8Array(readFileSync(file));
  const ck = decodeCheckpoint(bytes, file);
  if (ck.meta.kind === 'magic-lab-run') throw new UsageError(`--checkpoint: ${file} is a run checkpoint; the offline filter applies to starting weights`);
  const filterCfg = validateRunConfig(
    { model: ck.model, data: { ...cfg.data, offlineFilter: { enabled: true, samples: (flags.samples as number | undefined) ?? d.offlineFilter.samples } } },
    cfg,
  );
  const backend = await acquireBackend(parseBackendChoice(flags.backend), { threads: flags.threads as number | undefined });
  try {
    // The trainer's own offline filter, so the result is exactly what a run would compute.
    const trainer = await MagicTrainer.create(backend, filterCfg, { checkpoint: bytes, onProgress: (m) => log(m) });
    log(`${summary}\noffline filter with ${file}: ${trainer.offlineReport!.summary}`);
    if (flags.write) {
      const meta = { ...ck.meta, offlineFilter: { key: trainer.offlineFilterKey(), correct: trainer.offlineCorrect } };
      // Stored as it came (f16 weights stay f16, bit for bit): only the meta changes.
      replaceFileWhole(file, encodeCheckpoint({ model: ck.model, params: ck.params, adam: ck.adam, meta, weightsDtype: ck.weightsDtype }));
      log(`stored the result in ${file} (meta.offlineFilter): runs with this data config start without re-sampling`);
    }
    trainer.destroy();
  } finally {
    backend.destroy();
  }
}
