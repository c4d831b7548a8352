/**
 * `magic-lab export-verl`'s work: which training problems a recipe trains on, and the files of
 * the export (parquet data, reward.py, one launch script per stage, NOTES.md).
 *
 * The problems are the lab's own dataset (buildRunDataset: deduplicated, decontaminated), minus
 * what the offline filter dropped when that result is known without sampling a policy:
 *   a run checkpoint   its stored filter report (meta.state.offline.keep), the run's exact pool
 *                      before any online filtering
 *   a preset / config  the result a base checkpoint stores (meta.offlineFilter), used only when its
 *                      key matches — the same rule the trainer applies (offlineFilterKey)
 * Otherwise every problem is exported and the notes and stdout say why.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointContents } from '../model/checkpoint';
import { ConfigError } from '../model/config';
import { buildRunDataset, validateRunConfig, type RunConfig } from '../rl/config';
import { offlineFilter } from '../rl/filters';
import { offlineFilterKey, storedOfflineCorrect, weightsChecksum } from '../rl/offline-sampling';
import { verlParquet } from './parquet';
import { toVerlRows } from './rows';
import { planStages } from './mapping';
import { notesMarkdown, stageScript, type ExportInfo } from './scripts';
import { scaledConfig, SCALES, type ScaleName } from './scale';

/** A problem with the user's input (a run folder, a checkpoint): the message names the file or field. */
export class ExportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportInputError';
  }
}

/** Which training problems to export. keep = indices into the run's training set, or null for all. */
export interface ProblemSelection {
  keep: number[] | null;
  /** One sentence for NOTES.md and stdout. */
  filter: string;
}

const REWARD_PY = new URL('./reward.py', import.meta.url);
const FORK_REWARD_PY = new URL('./fork_reward.py', import.meta.url);

/** The config and problem selection stored in a run checkpoint (meta.kind "magic-lab-run"). */
export function runCheckpointSelection(ck: CheckpointContents, file: string): { config: RunConfig; selection: ProblemSelection; step: number } {
  if (ck.meta.kind !== 'magic-lab-run') throw new ExportInputError(`${file} is not a run checkpoint (meta.kind ${JSON.stringify(ck.meta.kind)})`);
  let config: RunConfig;
  try {
    config = validateRunConfig(ck.meta.config);
  } catch (e) {
    if (e instanceof ConfigError) throw new ExportInputError(`${file}: meta.config.${e.message}`);
    throw e;
  }
  const state = (ck.meta.state ?? {}) as { step?: unknown; offline?: { keep?: unknown; summary?: unknown } | null };
  const step = typeof state.step === 'number' ? state.step : 0;
  if (!config.data.offlineFilter.enabled) return { config, step, selection: { keep: null, filter: 'The run did not filter offline: every training problem is here.' } };
  const keep = state.offline?.keep;
  const trainSize = config.data.trainSize;
  if (!Array.isArray(keep) || keep.length === 0 || !keep.every((i, j) => Number.isInteger(i) && i >= 0 && i < trainSize && (j === 0 || i > keep[j - 1]))) {
    throw new ExportInputError(`${file}: meta.state.offline.keep must be the run's ascending training-prompt indices in [0, ${trainSize})`);
  }
  const summary = typeof state.offline?.summary === 'string' ? ` (${state.offline.summary})` : '';
  return { config, step, selection: { keep: keep as number[], filter: `The run's offline filter result${summary}: the ${keep.length} problems it trained on, before any online filtering.` } };
}

/**
 * The offline-filter result a base checkpoint stores for this config, if it is current (same key
 * as the trainer would compute from those weights). `base` null: no usable starting weights.
 */
export function baseCheckpointSelection(cfg: RunConfig, base: { file: string; contents: CheckpointContents } | null, noBaseReason: string): ProblemSelection {
  const all = `every one of the ${cfg.data.trainSize} training problems is exported`;
  if (!cfg.data.offlineFilter.enabled) return { keep: null, filter: `The config does not filter offline: ${all}.` };
  const N = cfg.data.offlineFilter.samples;
  const notApplied = (why: string) => ({
    keep: null,
    filter: `Offline filter NOT applied: ${why}; ${all}. Store a result with \`magic-lab data filter --checkpoint F --write\` (the config's data section) and export again, or filter for your model (NOTES.md).`,
  });
  if (base === null) return notApplied(noBaseReason);
  const key = offlineFilterKey(cfg, weightsChecksum(base.contents.params));
  const correct = storedOfflineCorrect(base.contents.meta, key, cfg.data.trainSize);
  if (!correct) return notApplied(`${base.file} stores no offline-filter result for this config and seed (the trainer would sample ${N} responses per prompt)`);
  const report = offlineFilter(correct, N);
  return { keep: report.keep, filter: `Offline filter from the result stored in ${base.file}: ${report.summary}.` };
}

export interface ExportFile {
  name: string;
  contents: Uint8Array | string;
  executable?: boolean;
}

/**
 * Every file of the export, in memory (nothing is written until all of them are built). With a
 * scale, the problems and lab-config.json stay the lab's; the scripts and notes carry the recipe
 * at that model size (scale.ts).
 */
export function buildExport(cfg: RunConfig, selection: ProblemSelection, origin: { name: string; source: string; modelPath?: string }, scale?: ScaleName): { files: ExportFile[]; info: ExportInfo; warnings: string[] } {
  const ds = buildRunDataset(cfg);
  const train = selection.keep ? selection.keep.map((i) => ds.train[i]) : ds.train;
  const val = ds.test.slice(0, cfg.eval.testProblems);
  const info: ExportInfo = { ...origin, filter: selection.filter, rows: { train: train.length, val: val.length, test: ds.test.length } };
  if (scale) info.scale = { spec: SCALES[scale], lab: cfg };
  const launch = scale ? scaledConfig(cfg) : cfg;
  const warnings: string[] = [];
  const plans = planStages(launch);
  const largest = Math.max(...plans.map((p) => p.stage.batchPrompts));
  if (train.length < largest) warnings.push(`train.parquet has ${train.length} problems, fewer than a rollout batch (D_R ${largest}): verl drops incomplete batches and would have nothing to train on`);
  const files: ExportFile[] = [
    { name: 'train.parquet', contents: verlParquet(toVerlRows(train, 'train')) },
    { name: 'val.parquet', contents: verlParquet(toVerlRows(val, 'val')) },
    { name: 'test.parquet', contents: verlParquet(toVerlRows(ds.test, 'test')) },
    { name: 'reward.py', contents: readFileSync(REWARD_PY, 'utf8') },
    { name: 'fork_reward.py', contents: readFileSync(FORK_REWARD_PY, 'utf8') },
    ...plans.map((p) => ({ name: `run_stage${p.number}.sh`, contents: stageScript(launch, p, info), executable: true })),
    { name: 'NOTES.md', contents: notesMarkdown(launch, info) + (warnings.length ? `\n## Warnings\n\n${warnings.map((w) => `- ${w}`).join('\n')}\n` : '') },
    { name: 'lab-config.json', contents: JSON.stringify(cfg, null, 2) + '\n' },
  ];
  return { files, info, warnings };
}

/** Writes one file whole. The CLI passes its checked temp-file-and-rename writer (src/run/write-file.ts, a room above this one). */
export type WholeFileWriter = (path: string, contents: string | Uint8Array) => void;

export function writeExport(dir: string, files: readonly ExportFile[], writeWhole: WholeFileWriter = writeFileSync): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    const path = join(dir, f.name);
    writeWhole(path, f.contents);
    if (f.executable) chmodSync(path, 0o755);
  }
}
