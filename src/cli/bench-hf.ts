/**
 * `magic-lab bench --hf SHAPE [--lora R]`: the CPU engine for real models (src/model/hf-cpu/) on a model of a
 * published shape with random weights — sampling tokens/s (KV cache), GRPO training tokens/s (forward,
 * vocabulary-chunked loss, backward, AdamW) and memory. A benchmark, not a test: BENCHMARKS.md records its
 * output with the command and date.
 */
import { parseHfConfig, type HfDecoderConfig } from '../model/hf/config';
import { hfBudget, hfCpuTrainBytes } from '../model/hf/budget';
import { tinyHfConfig, tinyHfWeights } from '../model/hf/tiny';
import { HfCpuPolicy } from '../model/hf-cpu/policy';
import { Rng } from '../util/rng';
import { parseFlags, UsageError, type FlagSpec } from './args';

/** Published config.json fields of the shapes the bench knows. */
const SHAPES: Record<string, () => HfDecoderConfig> = {
  'smollm2-135m': () =>
    parseHfConfig({ model_type: 'llama', hidden_act: 'silu', hidden_size: 576, intermediate_size: 1536, num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true, vocab_size: 49152, max_position_embeddings: 8192 }, 'smollm2-135m'),
  'tiny-llama': () => tinyHfConfig('llama'),
  'tiny-qwen2': () => tinyHfConfig('qwen2'),
};

export const BENCH_HF_FLAGS: Record<string, FlagSpec> = {
  hf: { type: 'string', help: `model shape, random weights: ${Object.keys(SHAPES).join(', ')}` },
  lora: { type: 'int', min: 1, help: 'LoRA rank (default: full fine-tuning)' },
  prompt: { type: 'int', min: 1, help: 'prompt tokens of the sampled sequence and of the trained rows (default 32)' },
  response: { type: 'int', min: 1, help: 'response tokens sampled and trained per row (default 32)' },
  rows: { type: 'int', min: 1, help: 'rows per training update (default 2)' },
  json: { type: 'bool', help: 'print the result as one JSON line' },
};

export interface HfBenchResult {
  shape: string;
  mode: string;
  params: number;
  trainable: number;
  promptTokens: number;
  responseTokens: number;
  rows: number;
  /** Response tokens sampled per second (one sequence, KV cache, after its prompt's prefill). */
  sampleTokensPerS: number;
  /** Prefill of the prompt, tokens per second. */
  prefillTokensPerS: number;
  /** Tokens trained per second (rows × (prompt + response)), one update. */
  trainTokensPerS: number;
  trainStepS: number;
  /** process.memoryUsage() after the update: resident set and typed-array bytes, MiB. */
  rssMiB: number;
  arrayBuffersMiB: number;
  /** hfCpuTrainBytes, the resource check's estimate, MiB. */
  estimateMiB: number;
}

export async function benchHf(argv: string[], log: (s: string) => void): Promise<HfBenchResult> {
  const flags = parseFlags(argv, BENCH_HF_FLAGS, 'bench');
  const shape = String(flags.hf);
  if (!(shape in SHAPES)) throw new UsageError(`--hf: unknown shape ${JSON.stringify(shape)} (${Object.keys(SHAPES).join(', ')})`);
  const c = SHAPES[shape]();
  const rank = flags.lora as number | undefined;
  const P = (flags.prompt as number | undefined) ?? 32, R = (flags.response as number | undefined) ?? 32, rows = (flags.rows as number | undefined) ?? 2;
  const policy = new HfCpuPolicy(tinyHfWeights(c, 1), { mode: rank ? { kind: 'lora', rank, alpha: rank } : { kind: 'full' }, ownWeights: true });
  const rng = new Rng(2);
  const prompt = Array.from({ length: P }, () => rng.int(0, c.vocabSize - 1));
  // Prefill alone, then prefill + R sampled tokens (no EOS can stop it: −1 is never sampled).
  let t = performance.now();
  await policy.generate({ prompts: [prompt], maxResponseLength: 1, temperature: 1, topP: 1, seed: 1, eosId: -1, padId: 0 });
  const prefillS = (performance.now() - t) / 1000;
  t = performance.now();
  await policy.generate({ prompts: [prompt], maxResponseLength: R, temperature: 1, topP: 1, seed: 1, eosId: -1, padId: 0 });
  const genS = (performance.now() - t) / 1000;
  const T = P + R;
  const batch = Array.from({ length: rows }, () => {
    const mask = Float64Array.from({ length: T - 1 }, (_, i) => (i >= P - 1 ? 1 : 0));
    return { tokens: Array.from({ length: T }, () => rng.int(0, c.vocabSize - 1)), mask, weights: mask.map((m) => m / (rows * R)), advantages: mask.map((m) => m * rng.normal()) };
  });
  t = performance.now();
  const st = await policy.update(batch, { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0.01, klCoef: 0, klType: 'k3' }, { step: 1, temperature: 1, adamw: { lr: 1e-5, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 } });
  const trainS = (performance.now() - t) / 1000;
  if (!st.applied) throw new Error(`bench: the update was not applied (loss ${st.loss}, grad norm ${st.gradNorm})`);
  const mem = process.memoryUsage();
  const b = hfBudget(c, { sequences: rows, tokens: T }, rank ?? 0);
  const res: HfBenchResult = {
    shape,
    mode: rank ? `lora r=${rank}` : 'full',
    params: b.params,
    trainable: policy.trainableParams,
    promptTokens: P,
    responseTokens: R,
    rows,
    sampleTokensPerS: R / Math.max(1e-9, genS - prefillS),
    prefillTokensPerS: P / prefillS,
    trainTokensPerS: (rows * T) / trainS,
    trainStepS: trainS,
    rssMiB: mem.rss / 2 ** 20,
    arrayBuffersMiB: mem.arrayBuffers / 2 ** 20,
    estimateMiB: hfCpuTrainBytes(c, T, rank ?? 0) / 2 ** 20,
  };
  if (flags.json) log(JSON.stringify(res));
  else
    log(
      `${shape} (${res.params.toLocaleString('en-US')} params, ${res.mode}, ${res.trainable.toLocaleString('en-US')} trainable), CPU engine (TypeScript kernels, 1 thread): ` +
        `prefill ${res.prefillTokensPerS.toFixed(1)} tok/s, sampling ${res.sampleTokensPerS.toFixed(2)} tok/s, ` +
        `training ${res.trainTokensPerS.toFixed(2)} tok/s (${rows} × ${T} tokens in ${trainS.toFixed(1)} s), ` +
        `memory: rss ${res.rssMiB.toFixed(0)} MiB, typed arrays ${res.arrayBuffersMiB.toFixed(0)} MiB (estimate ${res.estimateMiB.toFixed(0)} MiB)`,
    );
  policy.destroy();
  return res;
}
