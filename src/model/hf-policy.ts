/**
 * The engine interface for a real (Hugging Face Llama / Qwen2) policy: what the real-model trainer
 * (src/rl/hf-trainer.ts) and the CLI use, whichever engine runs it (today the CPU engine,
 * src/model/hf-cpu/). It is the model-generic sibling of PolicyEngine (./engine.ts): the same
 * GenerateRequest / GenerateResult and StepStats, but variable-length rows of token ids over the
 * model's own vocabulary instead of the lab's fixed-shape batches, and weights as HfWeights.
 */
import type { GenerateRequest, GenerateResult, GrpoLossOptions, AdamWOptions } from './engine-types';
import type { StepStats } from './engine';
import type { HfDecoderConfig } from './hf/config';
import type { HfWeights } from './hf/weights';

/** Full fine-tuning, or LoRA of rank r with scale α/r on q, k, v, o, gate, up and down (base frozen). */
export type HfTrainMode = { kind: 'full' } | { kind: 'lora'; rank: number; alpha: number };

/** One sequence of an update: its tokens and, per predicted position t = 0 … T−2 (the token t+1), the loss inputs. */
export interface HfUpdateRow {
  tokens: readonly number[];
  /** 1 where the predicted token is a response token in the loss, else 0 (length T−1). */
  mask: Float64Array;
  /** Aggregation weights (src/rl/aggregation.ts), 0 where mask is 0. */
  weights: Float64Array;
  /** Â per position. */
  advantages: Float64Array;
  /** log π_old per position; absent: on-policy (ρ ≡ 1). */
  oldLogp?: Float64Array;
}

export interface HfUpdateOptions {
  /** AdamW step t, 1-based. */
  step: number;
  adamw: AdamWOptions;
  /** τ of the log-probs and entropies (the rollout temperature). */
  temperature: number;
  /** false: gradients and statistics only (no AdamW step). Default true. */
  update?: boolean;
}

export interface HfPolicyEngine {
  /** Which engine runs it: today only the CPU engine for real models (TypeScript kernels, src/model/hf-cpu/). */
  readonly engine: 'cpu';
  readonly config: HfDecoderConfig;
  readonly mode: HfTrainMode;
  /** Parameters AdamW updates (all of them, or the adapters'). */
  readonly trainableParams: number;
  /** Vocabulary rows per log-softmax chunk. */
  readonly vocabChunk: number;
  /** Batched sampling (KV cache) with the counter-based PRNG: same seed → same tokens. */
  generate(req: GenerateRequest): Promise<GenerateResult>;
  /** Forward, GRPO loss with the entropy bonus α, backward, clipped AdamW (unless update: false). */
  update(rows: readonly HfUpdateRow[], loss: GrpoLossOptions, o: HfUpdateOptions): Promise<StepStats>;
  /** The model as it is now, LoRA merged into the base: what `encodeHfFolder` exports. */
  exportWeights(): HfWeights;
  destroy(): void;
}
