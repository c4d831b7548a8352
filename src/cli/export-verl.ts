/**
 * `magic-lab export-verl (--run DIR | --preset NAME [--config F] [--seed N] [--base F]) [--scale 1.5b|7b|32b] --out DIR2`:
 * a lab recipe and its problems as a verl launch (src/verl/export.ts). Every flag, file and
 * config field is checked before anything is written.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { CheckpointError, decodeCheckpoint, type CheckpointContents } from '../model/checkpoint';
import { ConfigError } from '../model/config';
import { getPreset, presetNames, validateRunConfig, type RunConfig } from '../rl/config';
import { baseCheckpointSelection, buildExport, ExportInputError, runCheckpointSelection, writeExport, type ProblemSelection } from '../verl/export';
import { isScaleName, SCALE_NAMES } from '../verl/scale';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { loadHfConfig } from '../model/hf/weights';
import { nodeModelFolder } from '../run/model-folder';
import { readJsonFile } from './sft';
import { replaceFileWhole } from '../run/write-file';
import { DEFAULT_BASE, defaultBaseFor } from '../run/rung-base';
import { parseRungFlag, RUNG_FLAG } from './rung';

export const EXPORT_VERL_FLAGS: Record<string, FlagSpec> = {
  run: { type: 'string', help: 'a run folder (magic-lab train --out): its config and the problems it trained on' },
  preset: { type: 'string', help: `or a preset: ${presetNames().join(', ')}` },
  rung: { ...RUNG_FLAG, help: `with --preset: ${RUNG_FLAG.help}` },
  config: { type: 'string', help: 'with --preset: JSON file, a partial RunConfig merged over it' },
  seed: { type: 'int', min: 0, help: 'with --preset: run seed (decides the problems)' },
  base: { type: 'string', help: `with --preset: base checkpoint whose stored offline-filter result is used (default: the rung\'s, ${DEFAULT_BASE} for tiny)` },
  scale: { type: 'string', help: `launch a real model: ${SCALE_NAMES.join(', ')} (DeepSeek-R1-Distill-Qwen of that size, Skywork-OR1's released settings; NOTES.md)` },
  model: { type: 'string', help: 'a Llama / Qwen2 model folder (checked as train --model reads it): MODEL_PATH defaults to it, with the same recipe' },
  out: { type: 'string', help: 'output folder: train/val/test.parquet, reward.py, run_stageK.sh, NOTES.md' },
  help: { type: 'bool', help: 'show this help' },
};

function readCheckpoint(file: string, flag: string): CheckpointContents {
  try {
    return decodeCheckpoint(new Uint8Array(readFileSync(file)), file);
  } catch (e) {
    if (e instanceof CheckpointError) throw new UsageError(`${flag}: ${e.message}`);
    throw new UsageError(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function configError<T>(flag: string, build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`${flag}: ${e.message}`);
    throw e;
  }
}

interface Resolved {
  config: RunConfig;
  selection: ProblemSelection;
  name: string;
  source: string;
}

/** A run folder: its checkpoint when there is one (config + filtered pool), else its config.json. */
function fromRun(dir: string): Resolved {
  if (!existsSync(dir)) throw new UsageError(`--run: ${dir} does not exist`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`--run: ${dir} is not a folder`);
  const name = basename(resolve(dir));
  const ckFile = join(dir, 'checkpoint.mlck');
  if (existsSync(ckFile)) {
    try {
      const r = runCheckpointSelection(readCheckpoint(ckFile, '--run'), ckFile);
      return { config: r.config, selection: r.selection, name, source: `run ${dir} (checkpoint at step ${r.step})` };
    } catch (e) {
      if (e instanceof ExportInputError) throw new UsageError(`--run: ${e.message}`);
      throw e;
    }
  }
  const cfgFile = join(dir, 'config.json');
  if (!existsSync(cfgFile)) throw new UsageError(`--run: ${dir} holds neither checkpoint.mlck nor config.json`);
  const config = configError(`--run: ${cfgFile}`, () => validateRunConfig(readJsonFile(cfgFile, '--run')));
  // No checkpoint: the filter result is only known if the default base stores it for this config.
  return { config, selection: selectionFromBase(config, undefined), name, source: `run ${dir} (config.json; no checkpoint)` };
}

function selectionFromBase(config: RunConfig, baseFlag: string | undefined): ProblemSelection {
  const file = baseFlag ?? defaultBaseFor(config);
  if (!existsSync(file)) {
    if (baseFlag) throw new UsageError(`--base: ${file} does not exist`);
    return baseCheckpointSelection(config, null, `${file} is not here`);
  }
  const contents = readCheckpoint(file, '--base');
  if (JSON.stringify(contents.model) !== JSON.stringify(config.model)) {
    if (baseFlag) throw new UsageError(`--base: ${file} holds a different model (${JSON.stringify(contents.model)}) than the config's`);
    // As `magic-lab train`: another model starts from random weights, whose filter result nobody stored.
    return baseCheckpointSelection(config, null, `the config's model differs from ${file}'s, so a run starts from random weights`);
  }
  if (contents.meta.kind === 'magic-lab-run') throw new UsageError(`--base: ${file} is a run checkpoint; use --run with its folder`);
  return baseCheckpointSelection(config, { file, contents }, '');
}

function fromPreset(flags: Record<string, unknown>): Resolved {
  const name = String(flags.preset);
  const rung = parseRungFlag(flags.rung);
  let config: RunConfig;
  try {
    config = getPreset(name, rung);
  } catch (e) {
    throw new UsageError(`--preset: ${(e as Error).message}`);
  }
  if (flags.config) config = configError('--config', () => validateRunConfig(readJsonFile(String(flags.config), '--config'), config));
  if (flags.seed !== undefined) config = configError('--seed', () => validateRunConfig({ seed: flags.seed }, config));
  const changed = [flags.config ? `--config ${flags.config}` : '', flags.seed !== undefined ? `seed ${flags.seed}` : ''].filter(Boolean).join(', ');
  return { config, selection: selectionFromBase(config, flags.base as string | undefined), name, source: `preset ${name}${changed ? ` (${changed})` : ''}` };
}

/** A model folder verl can load (its config.json maps as train --model's does), as an absolute path the scripts can quote. */
async function checkedModelPath(dir: string): Promise<string> {
  await loadHfConfig(nodeModelFolder(dir));
  const abs = resolve(dir);
  if (!/^[A-Za-z0-9_.\/+-]+$/.test(abs)) throw new UsageError(`--model: ${abs}: the launch scripts take a path of letters, digits and _ . / + - only; move or link the folder`);
  return abs;
}

export async function exportVerl(argv: string[], log: (s: string) => void = console.log): Promise<void> {
  const flags = parseFlags(argv, EXPORT_VERL_FLAGS, 'export-verl');
  if ((flags.run === undefined) === (flags.preset === undefined)) throw new UsageError('export-verl: give exactly one of --run DIR and --preset NAME');
  if (flags.run !== undefined) {
    const extra = ['rung', 'config', 'seed', 'base'].filter((f) => flags[f] !== undefined);
    if (extra.length) throw new UsageError(`--run exports the run as it was: it cannot be combined with ${extra.map((f) => `--${f}`).join(', ')}`);
  }
  const scale = flags.scale === undefined ? undefined : String(flags.scale);
  if (scale !== undefined && !isScaleName(scale)) throw new UsageError(`--scale: unknown scale ${JSON.stringify(scale)} (one of ${SCALE_NAMES.join(', ')})`);
  if (flags.out === undefined) throw new UsageError('export-verl: --out DIR is required');
  const out = String(flags.out);
  if (existsSync(out) && !statSync(out).isDirectory()) throw new UsageError(`--out: ${out} is a file, not a folder`);

  const modelPath = flags.model !== undefined ? await checkedModelPath(String(flags.model)) : undefined;
  const r = flags.run !== undefined ? fromRun(String(flags.run)) : fromPreset(flags);
  const { files, info, warnings } = buildExport(r.config, r.selection, { name: r.name, source: r.source, ...(modelPath ? { modelPath } : {}) }, scale);
  // Each file through the checked writer: a full disk leaves every file whole or as it was, never cut.
  writeExport(out, files, (path, contents) => replaceFileWhole(path, contents));
  log(`${info.filter}`);
  for (const w of warnings) log(`warning: ${w}`);
  if (modelPath) log(`MODEL_PATH defaults to ${modelPath} (${(await loadHfConfig(nodeModelFolder(modelPath))).modelType})`);
  if (info.scale) log(`scale ${info.scale.spec.name}: ${info.scale.spec.model}, 3 stages (8K → 16K → 32K); GPUs, Ray layout and memory per GPU in NOTES.md`);
  log(`wrote ${out}: ${files.map((f) => f.name).join(', ')} (train ${info.rows.train}, val ${info.rows.val}, test ${info.rows.test} problems; NOTES.md says what verl does differently)`);
}
