/**
 * Packing one mini-batch of kept responses into the engine's update batch: prompt + response per
 * row, PAD after; the response's targets, mask, advantage, sampling log-prob and aggregation
 * weight at positions P − 1 + j.
 */
import type { UpdateBatch } from '../model/engine';
import { PAD_ID } from '../tasks';
import { tokenWeights, type LossAggregation } from './aggregation';
import type { Rollout } from './rollout';

/** A kept response and its group advantage. */
export interface KeptResponse {
  roll: Rollout;
  adv: number;
}

/** Exact packing rounds the longest sequence up to a multiple of this (fewer shapes to record). */
export const EXACT_T_MULTIPLE = 8;

/** Options of packUpdateBatch. */
export interface PackOptions {
  /** Positions per row when padded: the longest prompt + the stage's response limit. */
  T: number;
  groupSize: number;
  aggregation: LossAggregation;
  temperature: number;
  /**
   * true (an engine with PolicyEngine.exactShapes): one row per response and T the longest
   * sequence rounded up to EXACT_T_MULTIPLE (at most `T`); false: rows padded to G × a power of two
   * and the full `T`, so only a few batch shapes are ever built. Padding holds no loss token, so
   * both give the same gradient (bit for bit on the CPU engine: tests/rl/update-batch.test.ts).
   */
  exact?: boolean;
}

/**
 * The update batch of kept responses `mb` (indices into `kept`), shaped per `exact`. `old` holds
 * π_old (the sampling log-probs), for the caller to set as batch.oldLogp off-policy; `tokens`
 * counts prompt + response tokens trained on.
 */
export function packUpdateBatch(
  kept: readonly KeptResponse[],
  mb: readonly number[],
  { T: maxT, groupSize: G, aggregation, temperature, exact = false }: PackOptions,
): { batch: UpdateBatch; old: Float32Array; tokens: number } {
  let tokens = 0;
  const longest = Math.max(1, ...mb.map((i) => kept[i].roll.prompt.length + kept[i].roll.response.length));
  const T = exact ? Math.min(maxT, Math.ceil(longest / EXACT_T_MULTIPLE) * EXACT_T_MULTIPLE) : maxT;
  const rows = exact ? Math.max(1, mb.length) : G * (1 << Math.ceil(Math.log2(Math.max(1, Math.ceil(mb.length / G)))));
  const tok = new Uint32Array(rows * T).fill(PAD_ID);
  const tgt = new Uint32Array(rows * T).fill(PAD_ID);
  const mask = new Float32Array(rows * T);
  const adv = new Float32Array(rows * T);
  const old = new Float32Array(rows * T);
  const lengths = mb.map((i) => kept[i].roll.response.length);
  const perRow = tokenWeights(lengths, aggregation);
  const weights = new Float32Array(rows * T);
  let off = 0;
  mb.forEach((i, r) => {
    const { roll, adv: a } = kept[i];
    const seq = [...roll.prompt, ...roll.response];
    tok.set(seq.slice(0, T), r * T);
    const P = roll.prompt.length;
    for (let j = 0; j < roll.response.length; j++) {
      const t = r * T + P - 1 + j;
      tgt[t] = roll.response[j];
      mask[t] = 1;
      adv[t] = a;
      old[t] = roll.logp[j];
      weights[t] = perRow[off + j];
    }
    off += roll.response.length;
    tokens += seq.length;
  });
  const batch: UpdateBatch = { rows, T, temperature, tokens: tok, targets: tgt, mask, weights, advantages: adv };
  return { batch, old, tokens };
}
