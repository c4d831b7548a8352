/**
 * The arithmetic of training a real model with GRPO: parameters, LoRA's
 * trainable count, optimizer memory, compute per step and what full logits would cost. The
 * resource check of `train --model` (src/cli/train-model.ts) is built on this;
 * docs/real-models.md quotes its figures for SmolLM2-135M and Qwen2.5-0.5B.
 */
import { hfParamCount, type HfDecoderConfig } from './config';

export interface StepShape {
  /** Sequences per step (GRPO: prompts × samples per prompt). */
  sequences: number;
  /** Tokens per sequence (prompt + response). */
  tokens: number;
}

export interface HfBudget {
  params: number;
  /** Trainable parameters of LoRA rank r on q, k, v, o, gate, up, down of every layer: r·(in + out) each. */
  loraParams: number;
  /** Full fine-tuning with AdamW in f32: weights, gradients and two moments, 16 bytes per parameter. */
  fullAdamBytes: number;
  /** LoRA over a frozen f16 base: 2 bytes per base parameter + 16 per LoRA parameter. */
  loraBytes: number;
  /** ≈ 2N FLOP per token to roll out and 6N to train (forward + backward): 8N per token of the step. */
  stepFlop: number;
  /** The [tokens, V] logits of the whole step in f32 — what vocabulary chunking avoids. */
  fullLogitsBytes: number;
}

export function hfBudget(c: HfDecoderConfig, step: StepShape, loraRank: number): HfBudget {
  const params = hfParamCount(c);
  const d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim, m = c.intermediateSize;
  const perLayer = (d + q) + 2 * (d + kv) + (q + d) + 2 * (d + m) + (m + d);
  const loraParams = loraRank * perLayer * c.numLayers;
  const tokens = step.sequences * step.tokens;
  return {
    params,
    loraParams,
    fullAdamBytes: 16 * params,
    loraBytes: 2 * params + 16 * loraParams,
    stepFlop: 8 * params * tokens,
    fullLogitsBytes: 4 * tokens * c.vocabSize,
  };
}

/**
 * Bytes the CPU engine holds to train with GRPO on rows of up to `rowTokens` tokens (src/model/hf-cpu/):
 * the weights in f32 (4N); full training adds gradients and two AdamW moments (12N), LoRA adds 16 bytes per
 * adapter parameter; plus one row's kept activations (the engine runs rows one at a time): per layer about
 * 6·d + 2·(H + H_kv)·d_head + 4·intermediate floats per token and H·T² attention probabilities, and the
 * KV cache of one sampled sequence. The resource check compares it with the memory the machine has.
 */
export function hfCpuTrainBytes(c: HfDecoderConfig, rowTokens: number, loraRank: number): number {
  const b = hfBudget(c, { sequences: 1, tokens: rowTokens }, loraRank);
  const d = c.hiddenSize, qd = c.numHeads * c.headDim, kvd = c.numKvHeads * c.headDim, T = rowTokens;
  const perLayer = T * (6 * d + 2 * qd + 2 * kvd + 4 * c.intermediateSize) + c.numHeads * T * T;
  const activations = 4 * c.numLayers * perLayer + 4 * T * d * 4;
  const kvCache = 4 * 2 * c.numLayers * T * kvd;
  const optimizer = loraRank > 0 ? 16 * b.loraParams : 12 * b.params;
  return 4 * b.params + optimizer + activations + kvCache;
}
