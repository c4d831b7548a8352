/**
 * `magic-lab eval --model DIR`: a Hugging Face Llama / Qwen2 folder (a base, or a `train --model` run's RUN/model/)
 * on the held-out problems of a preset, with the CPU engine for real models: val/avg@k, val/pass@k, val/maj@k,
 * lengths and val/entropy per temperature (src/rl/hf-eval.ts), printed as JSON.
 */
import { getPreset, presetNames, resolveStage, validateRunConfig, buildRunDataset, longestResponseLength } from '../rl/config';
import { evaluateHf } from '../rl/hf-eval';
import { HfCpuPolicy } from '../model/hf-cpu/policy';
import { readJsonObject } from '../model/hf/files';
import { loadHfTokenizer, resolveEosId } from '../model/hf/tokenizer';
import { CONFIG_FILE, loadHfWeights } from '../model/hf/weights';
import { nodeModelFolder } from '../run/model-folder';
import { readJsonFile } from './sft';
import { parseFlags, UsageError, type FlagSpec } from './args';

export const EVAL_MODEL_FLAGS: Record<string, FlagSpec> = {
  model: { type: 'string', help: 'a Llama / Qwen2 model folder (config.json, safetensors, tokenizer.json)' },
  preset: { type: 'string', help: `whose test problems and response length (default magic): ${presetNames().join(', ')}` },
  config: { type: 'string', help: 'JSON file: a partial RunConfig merged over the preset' },
  k: { type: 'int', min: 1, help: 'samples per problem (default 8)' },
  problems: { type: 'int', min: 1, help: 'test problems (default: the config\'s eval.testProblems)' },
  temperatures: { type: 'string', help: 'comma-separated, default 1,0.6' },
  seed: { type: 'int', min: 0, help: 'sampling seed (default 0)' },
  help: { type: 'bool', help: 'show this help' },
};

export async function evalModel(argv: string[], log: (s: string) => void): Promise<void> {
  const flags = parseFlags(argv, EVAL_MODEL_FLAGS, 'eval');
  const preset = flags.preset !== undefined ? String(flags.preset) : 'magic';
  if (!presetNames().includes(preset)) throw new UsageError(`--preset: unknown preset ${JSON.stringify(preset)} (${presetNames().join(', ')})`);
  const cfg = validateRunConfig(flags.config !== undefined ? readJsonFile(String(flags.config), '--config') : {}, getPreset(preset));
  const temperatures = flags.temperatures !== undefined ? String(flags.temperatures).split(',').map((s) => Number(s.trim())) : [1, 0.6];
  if (temperatures.some((t) => !(t > 0) || !Number.isFinite(t))) throw new UsageError(`--temperatures: expected comma-separated positive numbers, got ${JSON.stringify(flags.temperatures)}`);
  const files = nodeModelFolder(String(flags.model));
  const weights = await loadHfWeights(files);
  const tok = await loadHfTokenizer(files);
  const eosId = resolveEosId(await readJsonObject(files, CONFIG_FILE, 1 << 20), tok, weights.config.vocabSize, files.name);
  const k = (flags.k as number | undefined) ?? 8;
  const problems = buildRunDataset(cfg).test.slice(0, (flags.problems as number | undefined) ?? cfg.eval.testProblems);
  const policy = new HfCpuPolicy(weights, { mode: { kind: 'full' }, ownWeights: true });
  let record: Record<string, number>;
  try {
    record = await evaluateHf(policy, tok, eosId, problems, { k, temperatures, maxResponseLength: longestResponseLength(cfg), topP: cfg.rollout.topP, seed: (flags.seed as number | undefined) ?? 0, batch: resolveStage(cfg, 0).groupSize });
  } catch (e) {
    if (e instanceof RangeError && /max_position_embeddings/.test(e.message)) throw new UsageError(e.message);
    throw e;
  }
  log(JSON.stringify({ model: String(flags.model), problems: problems.length, k, ...record }));
}
