/**
 * `magic-lab train --model DIR [--lora R] --steps N`: the MAGIC trainer (src/rl/hf-trainer.ts) on a Hugging
 * Face Llama / Qwen2 folder, in the CPU engine for real models (src/model/hf-cpu/). Writes OUT/config.json
 * (the run config), OUT/metrics.jsonl (one step record per line: actor/entropy and the rest; eval records,
 * "type":"eval", every eval.everySteps steps and after the last),
 * OUT/samples.jsonl, and at the end OUT/model/ — the trained model (LoRA merged) as config.json +
 * model.safetensors (F32) + the tokenizer files, a folder `--model` loads again. Everything is checked
 * before anything is written; the resource check's verdict is printed before the run.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { buildRunDataset, getPreset, longestResponseLength, presetNames, resolveStage, validateRunConfig, type RunConfig } from '../rl/config';
import { evaluateHf } from '../rl/hf-eval';
import { batchSeed } from '../rl/rollout';
import type { EvalRecord } from '../rl/trainer';
import { HfMagicTrainer, unsupportedForHf } from '../rl/hf-trainer';
import { renderHfPrompt } from '../rl/hf-prompts';
import { HfCpuPolicy } from '../model/hf-cpu/policy';
import { hfBudget, hfCpuTrainBytes } from '../model/hf/budget';
import { readJsonObject } from '../model/hf/files';
import { loadHfTokenizer, resolveEosId, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE } from '../model/hf/tokenizer';
import { CONFIG_FILE, encodeHfFolder, loadHfWeights } from '../model/hf/weights';
import { nodeModelFolder } from '../run/model-folder';
import { appendAll, replaceFileWhole } from '../run/write-file';
import { readJsonFile } from './sft';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { progressLine } from './train';

export const TRAIN_MODEL_FLAGS: Record<string, FlagSpec> = {
  model: { type: 'string', help: 'a Llama / Qwen2 model folder (config.json, safetensors, tokenizer.json): train it instead of a lab policy' },
  lora: { type: 'int', min: 1, help: 'with --model: LoRA of rank R on q, k, v, o, gate, up, down (base frozen); default full fine-tuning' },
  'lora-alpha': { type: 'number', min: 0, help: 'with --lora: α, the adapters scaled by α/R (default R: scale 1)' },
  preset: { type: 'string', help: `run preset (default magic): ${presetNames().join(', ')}` },
  config: { type: 'string', help: 'JSON file: a partial RunConfig merged over the preset' },
  seed: { type: 'int', min: 0, help: 'run seed (overrides the config)' },
  steps: { type: 'int', min: 1, help: 'stop after this many steps' },
  out: { type: 'string', help: 'output directory (default runs/model-<time>)' },
  'memory-gib': { type: 'number', min: 0, help: 'memory the resource check may plan for (default: this machine\'s RAM less 1 GiB)' },
  quiet: { type: 'bool', help: 'no progress line' },
  help: { type: 'bool', help: 'show this help' },
};

const GiB = 1024 ** 3;

/** A run directory that does not exist or is empty (a real-model run cannot resume yet). */
function checkFreshDir(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new UsageError(`--out: ${dir} is a file, not a directory`);
  if (readdirSync(dir).length > 0) throw new UsageError(`--out: ${dir} is not empty (a --model run cannot resume yet; choose a new directory)`);
}

export async function trainModel(argv: string[], log: (s: string) => void = console.log): Promise<void> {
  const flags = parseFlags(argv, TRAIN_MODEL_FLAGS, 'train');
  const dir = String(flags.model ?? '');
  if (dir === '') throw new UsageError('train: --model DIR is required here');
  if (flags['lora-alpha'] !== undefined && flags.lora === undefined) throw new UsageError('--lora-alpha needs --lora R');
  const rank = flags.lora as number | undefined;
  // Config first: a bad flag or file is refused before the model is read.
  const preset = flags.preset !== undefined ? String(flags.preset) : 'magic';
  if (!presetNames().includes(preset)) throw new UsageError(`--preset: unknown preset ${JSON.stringify(preset)} (${presetNames().join(', ')})`);
  let cfg: RunConfig = validateRunConfig(flags.config !== undefined ? readJsonFile(String(flags.config), '--config') : {}, getPreset(preset));
  if (flags.seed !== undefined) cfg = validateRunConfig({ ...cfg, seed: flags.seed as number });
  const out = flags.out !== undefined ? String(flags.out) : join('runs', `model-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  checkFreshDir(out);

  const files = nodeModelFolder(dir);
  const weights = await loadHfWeights(files);
  const c = weights.config;
  const tok = await loadHfTokenizer(files);
  const eosId = resolveEosId(await readJsonObject(files, CONFIG_FILE, 1 << 20), tok, c.vocabSize, files.name);

  // Resource check: the longest row any stage trains, against the memory planned for.
  const stages = cfg.stages.map((_, i) => resolveStage(cfg, i));
  const maxResponse = longestResponseLength(cfg);
  const sequences = Math.max(...stages.map((s) => s.batchPrompts * s.groupSize));
  const mode = rank !== undefined ? ({ kind: 'lora', rank, alpha: (flags['lora-alpha'] as number | undefined) ?? rank } as const) : ({ kind: 'full' } as const);
  const data = buildRunDataset(cfg);
  const testProblems = cfg.eval.everySteps > 0 ? data.test.slice(0, cfg.eval.testProblems) : [];
  const longestPrompt = Math.max(...[...data.train, ...testProblems].map((p) => tok.encode(renderHfPrompt(p)).length));
  const rowTokens = longestPrompt + maxResponse;
  if (rowTokens > c.maxPositions) throw new UsageError(`a prompt of up to ${longestPrompt} tokens plus ${maxResponse} response tokens exceeds the model's max_position_embeddings ${c.maxPositions} (config.json)`);
  const need = hfCpuTrainBytes(c, rowTokens, rank ?? 0);
  const have = flags['memory-gib'] !== undefined ? (flags['memory-gib'] as number) * GiB : Math.max(0, totalmem() - GiB);
  const budget = hfBudget(c, { sequences, tokens: rowTokens }, rank ?? 0);
  const verdict = `${c.modelType}, ${budget.params.toLocaleString('en-US')} parameters, ${mode.kind === 'lora' ? `LoRA r = ${mode.rank} (${budget.loraParams.toLocaleString('en-US')} trainable)` : 'full fine-tuning'}; ` +
    `${sequences} sequences of up to ${rowTokens} tokens per step ≈ ${(budget.stepFlop / 1e12).toPrecision(3)} TFLOP; CPU engine memory ≈ ${(need / GiB).toFixed(2)} GiB of ${(have / GiB).toFixed(1)} GiB`;
  if (need > have) throw new UsageError(`resource check: does not fit: ${verdict} (use --lora, a smaller batch or shorter responses in --config, or --memory-gib)`);
  log(`resource check: fits: ${verdict}`);
  // The folder's arrays become the policy's own (full training updates them in place; nothing else holds them).
  const policy = new HfCpuPolicy(weights, { mode, seed: cfg.seed, ownWeights: true });
  const trainer = new HfMagicTrainer(policy, cfg, { tokenizer: tok, eosId });
  const skipped = unsupportedForHf(cfg);
  if (skipped.length) log(`not applied to a --model run yet: ${skipped.join('; ')}`);
  log(tok.hasChatTemplate ? 'prompts: plain text (the folder\'s chat template is not applied yet)' : 'prompts: plain text (the folder has no chat template)');
  if (!flags.quiet) log(`prompt example: ${JSON.stringify(renderHfPrompt(trainer.train[0]))}`);

  mkdirSync(out, { recursive: true });
  replaceFileWhole(join(out, 'config.json'), JSON.stringify({ model: dir, mode, config: cfg }, null, 2) + '\n');
  const metrics = join(out, 'metrics.jsonl'), samples = join(out, 'samples.jsonl');
  const steps = (flags.steps as number | undefined) ?? Infinity;
  // Held-out evaluation every eval.everySteps steps and after the last one (as the lab's runs do), eval.everySteps 0: none.
  const ev = cfg.eval;
  const evaluate = async (step: number) => {
    const rec = await evaluateHf(policy, tok, eosId, testProblems, { k: ev.k, temperatures: ev.temperatures, maxResponseLength: longestResponseLength(cfg), topP: cfg.rollout.topP, seed: batchSeed(cfg.seed, 4, step), batch: stages[0].groupSize });
    appendAll(metrics, JSON.stringify({ type: 'eval', step, ...rec }) + '\n');
    return { step, ...rec } as EvalRecord;
  };
  let lastEval: EvalRecord | null = null;
  for (let i = 0; i < steps && !trainer.done; i++) {
    const r = await trainer.trainStep();
    appendAll(metrics, JSON.stringify(r.record) + '\n');
    appendAll(samples, r.samples.map((s) => JSON.stringify({ step: r.record.step, ...s })).join('\n') + '\n');
    const last = i + 1 >= steps || trainer.done;
    if (ev.everySteps > 0 && (r.record.step % ev.everySteps === 0 || last)) lastEval = await evaluate(r.record.step);
    if (!flags.quiet) log(progressLine(r.record, lastEval));
  }
  const exported = join(out, 'model');
  mkdirSync(exported, { recursive: true });
  for (const [name, body] of encodeHfFolder(policy.exportWeights(), { dtype: 'F32', shards: 1 })) writeFileSync(join(exported, name), body);
  for (const name of [TOKENIZER_FILE, TOKENIZER_CONFIG_FILE])
    if (await files.has(name)) {
      const src = await files.open(name);
      writeFileSync(join(exported, name), await src.read(0, src.size));
    }
  log(`wrote ${out}/metrics.jsonl and the trained model ${exported}/ (${mode.kind === 'lora' ? 'LoRA merged, ' : ''}F32)`);
}
