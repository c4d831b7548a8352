/**
 * `magic-lab logprobs` and `magic-lab tokenize`: a Hugging Face Llama / Qwen2 model folder
 * (config.json, safetensors, tokenizer.json) read by src/model/hf, its per-token log-probs from
 * the float64 reference forward (or, with --backend webgpu, the WGSL forward), its tokenizer's ids. A folder or file that cannot be used is one
 * line and exit 2 (ModelFolderError, mapped in main.ts).
 */
import { parseFlags, UsageError, type FlagSpec } from './args';
import { nodeModelFolder } from '../run/model-folder';
import { loadHfWeights } from '../model/hf/weights';
import { loadHfTokenizer } from '../model/hf/tokenizer';
import { DEFAULT_VOCAB_CHUNK, hfTokenLogprobs, type TokenLogprobs } from '../model/hf/reference-forward';
import { hfGpuTokenLogprobs, uploadHfWeights } from '../model/hf/gpu-forward';
import { acquireNodeRuntime } from '../gpu/node';
import type { HfWeights } from '../model/hf/weights';

/** Who computes `logprobs`: the float64 reference forward, or the WGSL kernels on a WebGPU adapter (f32). */
export const LOGPROBS_BACKENDS = ['reference', 'webgpu'] as const;

export const LOGPROBS_FLAGS: Record<string, FlagSpec> = {
  model: { type: 'string', help: 'model folder: config.json, model.safetensors (or shards + index), tokenizer.json for --text' },
  tokens: { type: 'string', help: 'token ids, comma-separated (e.g. 1,2,3)' },
  text: { type: 'string', help: "text, tokenized by the folder's tokenizer.json (its special tokens added, as transformers does)" },
  chunk: { type: 'int', min: 1, help: `vocabulary rows per log-softmax chunk (default ${DEFAULT_VOCAB_CHUNK}; WebGPU rounds it up to whole 256-byte rows)` },
  backend: { type: 'string', help: 'reference (the float64 forward, default) or webgpu (the WGSL kernels, f32)' },
};

export const TOKENIZE_FLAGS: Record<string, FlagSpec> = {
  model: { type: 'string', help: 'model folder holding tokenizer.json (and tokenizer_config.json if any)' },
  text: { type: 'string', help: 'the text to tokenize' },
};

function modelFlag(flags: Record<string, unknown>, command: string): string {
  if (typeof flags.model !== 'string' || flags.model === '') throw new UsageError(`${command}: --model DIR is required`);
  return flags.model;
}

function parseTokenList(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) throw new UsageError(`--tokens: expected comma-separated non-negative integers, got ${JSON.stringify(text)}`);
  return parts.map(Number);
}

/** Prints {"tokens": [...], "logprobs": [...], "entropies": [...]}: log p of each token after the first given its prefix, and the entropy of that prediction (nats). */
export async function logprobs(argv: string[], log: (s: string) => void): Promise<void> {
  const flags = parseFlags(argv, LOGPROBS_FLAGS, 'logprobs');
  const dir = modelFlag(flags, 'logprobs');
  const backend = flags.backend === undefined ? 'reference' : String(flags.backend);
  if (!(LOGPROBS_BACKENDS as readonly string[]).includes(backend)) throw new UsageError(`--backend: expected one of ${LOGPROBS_BACKENDS.join(', ')}, got ${JSON.stringify(backend)}`);
  if ((flags.tokens === undefined) === (flags.text === undefined)) throw new UsageError('logprobs: give exactly one of --tokens and --text');
  const files = nodeModelFolder(dir);
  const weights = await loadHfWeights(files);
  const c = weights.config;
  const tokens = flags.tokens !== undefined ? parseTokenList(String(flags.tokens)) : (await loadHfTokenizer(files)).encode(String(flags.text));
  const source = flags.tokens !== undefined ? '--tokens' : '--text';
  if (tokens.length === 0) throw new UsageError(`${source}: no tokens`);
  const bad = tokens.find((t) => t >= c.vocabSize);
  if (bad !== undefined) throw new UsageError(`${source}: token ${bad} is outside the model's vocabulary [0, ${c.vocabSize}) (config.json vocab_size)`);
  if (tokens.length > c.maxPositions) throw new UsageError(`${source}: ${tokens.length} tokens, more than the model's max_position_embeddings ${c.maxPositions}`);
  const chunk = (flags.chunk as number | undefined) ?? DEFAULT_VOCAB_CHUNK;
  const out = backend === 'webgpu' ? await webgpuLogprobs(weights, tokens, chunk) : hfTokenLogprobs(weights, tokens, chunk);
  log(JSON.stringify({ tokens, logprobs: out.logprobs, entropies: out.entropies }));
}

async function webgpuLogprobs(weights: HfWeights, tokens: number[], chunk: number): Promise<TokenLogprobs> {
  const rt = await acquireNodeRuntime();
  try {
    return (await hfGpuTokenLogprobs(rt, uploadHfWeights(rt, weights), [tokens], chunk))[0];
  } finally {
    rt.destroy();
  }
}

/** Prints {"ids": [...]}. */
export async function tokenize(argv: string[], log: (s: string) => void): Promise<void> {
  const flags = parseFlags(argv, TOKENIZE_FLAGS, 'tokenize');
  const dir = modelFlag(flags, 'tokenize');
  if (typeof flags.text !== 'string') throw new UsageError('tokenize: --text "…" is required');
  const tok = await loadHfTokenizer(nodeModelFolder(dir));
  log(JSON.stringify({ ids: tok.encode(flags.text) }));
}
