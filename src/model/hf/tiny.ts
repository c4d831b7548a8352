/**
 * Tiny random checkpoints of both architectures, with a byte-level BPE tokenizer.json trained in
 * the repo: the fixtures the real-model tests load and check against an independent float64
 * forward (scripts/hf_reference.py). Deterministic from (architecture, seed); a few tens of kB.
 *
 *   llama: 2 layers, d = 32, 4 query heads over 1 kv head (GQA), MLP 48, θ = 1e5, tied head, stored BF16, one file
 *   qwen2: 2 layers, d = 32, 4 query heads over 2 kv heads, MLP 48, θ = 1e6, q/k/v biases, separate head, stored F32, 3 shards
 */
import { Rng } from '../../util/rng';
import type { HfDecoderConfig, HfModelType } from './config';
import { trainByteLevelBpe } from './bpe-train';
import { encodeHfFolder, expectedTensors, type HfWeights } from './weights';
import { TOKENIZER_FILE } from './tokenizer';

/** The tokenizer's training text: a few sentences in the lab's task style and some mixed script. */
export const TINY_CORPUS: readonly string[] = [
  'The answer is 42. Add 17 and 25 to get 42.',
  'Reverse the list [3, 1, 4, 1, 5] and then sort it: [1, 1, 3, 4, 5].',
  "Let's think step by step. First, count the letters; then check the answer.",
  'Solve: 12 * 7 = 84, and 84 - 4 = 80. The final answer is 80.',
  'def add(a, b):\n    return a + b\n\nprint(add(2, 3))',
  'Über naïve café — 数学 is math; مرحبا means hello.',
  'the the the answer answer is is correct correct.',
];

export const TINY_SPECIAL = '<|endoftext|>';

export function tinyHfConfig(arch: HfModelType): HfDecoderConfig {
  const common = { vocabSize: 320, hiddenSize: 32, intermediateSize: 48, numLayers: 2, numHeads: 4, headDim: 8, rmsNormEps: 1e-5, maxPositions: 256 };
  return arch === 'llama'
    ? { ...common, modelType: 'llama', numKvHeads: 1, ropeTheta: 1e5, tieWordEmbeddings: true, qkvBias: false }
    : { ...common, modelType: 'qwen2', numKvHeads: 2, ropeTheta: 1e6, rmsNormEps: 1e-6, tieWordEmbeddings: false, qkvBias: true };
}

/** Random weights: embedding and head N(0, 0.3²) (logits of a few nats, entropies well above 0), projections N(0, 1/in), norms 1 + N(0, 0.1²), biases N(0, 0.1²). */
export function tinyHfWeights(config: HfDecoderConfig, seed: number): HfWeights {
  const rng = new Rng(seed);
  const w: HfWeights = { config, embed: new Float32Array(0), layers: [], norm: new Float32Array(0), lmHead: null };
  for (let i = 0; i < config.numLayers; i++)
    w.layers.push({ inputNorm: null!, q: null!, k: null!, v: null!, o: null!, qBias: null, kBias: null, vBias: null, postNorm: null!, gate: null!, up: null!, down: null! });
  for (const t of expectedTensors(config)) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    const isNorm = t.key.endsWith('Norm') || t.key === 'norm';
    const sd = t.key === 'embed' || t.key === 'lmHead' ? 0.3 : isNorm || t.key.endsWith('Bias') ? 0.1 : 1 / Math.sqrt(t.shape[1]);
    for (let i = 0; i < n; i++) data[i] = (isNorm ? 1 : 0) + sd * rng.normal();
    if (t.layer >= 0) (w.layers[t.layer] as unknown as Record<string, Float32Array>)[t.key] = data;
    else (w as unknown as Record<string, Float32Array>)[t.key] = data;
  }
  return w;
}

/** The tiny model of `arch` as a model folder: config.json, weights (llama BF16 single file; qwen2 F32 in 3 shards), tokenizer.json. */
export function tinyHfFolder(arch: HfModelType, seed = 1): Map<string, Uint8Array | string> {
  const config = tinyHfConfig(arch);
  const files = encodeHfFolder(tinyHfWeights(config, seed), arch === 'llama' ? { dtype: 'BF16', shards: 1 } : { dtype: 'F32', shards: 3 });
  files.set(TOKENIZER_FILE, JSON.stringify(trainByteLevelBpe(TINY_CORPUS, { vocabSize: 300, specialTokens: [TINY_SPECIAL] })) + '\n');
  return files;
}
