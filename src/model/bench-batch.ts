/**
 * The benchmarks' train-step input, shared by `magic-lab bench`, scripts/bench-cpu.mjs and the
 * jax-js comparison page so that every figure in BENCHMARKS.md times the same work: random tokens
 * (seed 7), next-token targets, mask and token-mean weights over the T − 1 predicting positions,
 * one advantage per row; GRPO loss with a small entropy bonus and no KL; AdamW as in the bench.
 */
import type { ModelConfig } from './config';
import type { AdamWOptions, UpdateBatch, UpdateLoss } from './engine';
import { Rng } from '../util/rng';

export const BENCH_GRPO_LOSS: UpdateLoss = { kind: 'grpo', opts: { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0.01, klCoef: 0, klType: 'k3' } };
export const BENCH_ADAMW: AdamWOptions = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 };

/** B rows of the model's full context T. */
export function benchTrainBatch(cfg: ModelConfig, B: number): UpdateBatch {
  const T = cfg.contextLength;
  const rows = B * T;
  const rng = new Rng(7);
  const tokens = Uint32Array.from({ length: rows }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = new Uint32Array(rows);
  const weights = new Float32Array(rows);
  const mask = new Float32Array(rows);
  const advantages = new Float32Array(rows);
  for (let b = 0; b < B; b++) {
    const a = rng.normal();
    for (let t = 0; t < T - 1; t++) {
      targets[b * T + t] = tokens[b * T + t + 1];
      mask[b * T + t] = 1;
      weights[b * T + t] = 1 / (B * (T - 1));
      advantages[b * T + t] = a;
    }
  }
  return { rows: B, T, temperature: 1, tokens, targets, mask, weights, advantages };
}
