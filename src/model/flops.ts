/**
 * Matmul FLOPs of the policy (2 per multiply-add), the numerator of the roofline's achieved
 * GFLOP/s (`magic-lab bench --roofline`, BENCHMARKS.md). Model FLOPs: the products the math needs,
 * counted once; norms, GELU, softmax, the loss and AdamW are not counted (they are not matmuls).
 *
 * Per token and layer, the four linear layers (C = dModel, F = mlpRatio·C):
 *   qkv C→3C, proj C→C, fc C→F, fcproj F→C:   2·C·(3C + C + F + F) = 2·C·(4C + 2F)
 * the head (tied or not) C→V:                   2·C·V per token
 * causal attention, per sequence of T and layer: every head scores the T(T+1)/2 pairs s ≤ t
 *   (QKᵀ) and mixes the values over them (A·V): 2 products × 2·C·T(T+1)/2 = 2·C·T(T+1)
 * A train step is forward + backward, the backward two products per forward one (input gradient
 * and weight gradient; dQ, dK, dV and dA for attention): 3 × forward.
 * A decode step at position p (attending to p + 1 keys) costs, per sequence, the linear layers and
 * head of one token plus 2 products × 2·C·(p + 1) per layer.
 */
import type { ModelConfig } from './config';

export interface FlopCount {
  linear: number;
  head: number;
  attention: number;
  total: number;
}

function sum(linear: number, head: number, attention: number): FlopCount {
  return { linear, head, attention, total: linear + head + attention };
}

const linearPerToken = (cfg: ModelConfig) => {
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  return cfg.nLayers * 2 * C * (4 * C + 2 * F);
};

/** Matmul FLOPs of one forward pass over `rows` sequences of T tokens. */
export function forwardFlops(cfg: ModelConfig, rows: number, T: number): FlopCount {
  const tokens = rows * T;
  const C = cfg.dModel;
  return sum(tokens * linearPerToken(cfg), tokens * 2 * C * cfg.vocabSize, rows * cfg.nLayers * 2 * C * T * (T + 1));
}

/** Matmul FLOPs of one train step (forward + backward) over `rows` sequences of T tokens. */
export function trainStepFlops(cfg: ModelConfig, rows: number, T: number): FlopCount {
  const f = forwardFlops(cfg, rows, T);
  return sum(3 * f.linear, 3 * f.head, 3 * f.attention);
}

/**
 * Matmul FLOPs of a decode whose step at position p decoded liveSlots[p] sequences (GenerateResult.liveSlots;
 * B at every step where nothing stops early): a sequence decoded at position p attends to p + 1 keys.
 */
export function decodeFlops(cfg: ModelConfig, liveSlots: readonly number[]): FlopCount {
  const C = cfg.dModel;
  let slots = 0;
  let keys = 0;
  liveSlots.forEach((n, p) => {
    slots += n;
    keys += n * (p + 1);
  });
  return sum(slots * linearPerToken(cfg), slots * 2 * C * cfg.vocabSize, cfg.nLayers * 4 * C * keys);
}
