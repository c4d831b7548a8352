/**
 * The arithmetic of training a real model with GRPO, before any kernel exists: parameters, LoRA's
 * trainable count, optimizer memory, compute per step and what full logits would cost. The
 * resource check (what fits on which device, for a model, batch and mode) will be built on this;
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
