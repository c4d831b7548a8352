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

/** Packed batches round T (their longest row) up to a multiple of this: fewer buffer layouts to lay out. */
export const PACKED_T_MULTIPLE = 8;

/** Options of packUpdateBatch. */
export interface PackOptions {
  /** Positions per row when padded: the longest prompt + the stage's response limit. */
  T: number;
  groupSize: number;
  aggregation: LossAggregation;
  temperature: number;
  /**
   * true (an engine with PolicyEngine.packedRows): one row per response, each exactly its prompt +
   * response long, back to back (UpdateBatch.lengths), and T the longest rounded up to
   * PACKED_T_MULTIPLE (at most `T`). false: rows padded to G × a power of two and every row `T`
   * long, so only a few batch shapes are ever built. Padding holds no loss token, so both give the
   * same gradient (bit for bit on the CPU engine: tests/rl/update-batch.test.ts).
   */
  packed?: boolean;
}

/**
 * The update batch of kept responses `mb` (indices into `kept`), laid out per `packed`. `old` holds
 * π_old (the sampling log-probs), for the caller to set as batch.oldLogp off-policy; `tokens`
 * counts prompt + response tokens trained on.
 */
export function packUpdateBatch(
  kept: readonly KeptResponse[],
  mb: readonly number[],
  { T: maxT, groupSize: G, aggregation, temperature, packed = false }: PackOptions,
): { batch: UpdateBatch; old: Float32Array; tokens: number } {
  let tokens = 0;
  const seqLength = (i: number) => Math.min(maxT, kept[i].roll.prompt.length + kept[i].roll.response.length);
  const longest = Math.max(1, ...mb.map(seqLength));
  const T = packed ? Math.min(maxT, Math.ceil(longest / PACKED_T_MULTIPLE) * PACKED_T_MULTIPLE) : maxT;
  const rows = packed ? mb.length : G * (1 << Math.ceil(Math.log2(Math.max(1, Math.ceil(mb.length / G)))));
  const rowLengths = packed ? Uint32Array.from(mb, seqLength) : undefined;
  // Token offset of each row: r·T padded, the running sum of lengths packed.
  const starts: number[] = [];
  let N = 0;
  for (let r = 0; r < rows; r++) {
    starts.push(N);
    N += rowLengths ? rowLengths[r] : T;
  }
  const tok = new Uint32Array(N).fill(PAD_ID);
  const tgt = new Uint32Array(N).fill(PAD_ID);
  const mask = new Float32Array(N);
  const adv = new Float32Array(N);
  const old = new Float32Array(N);
  const lengths = mb.map((i) => kept[i].roll.response.length);
  const perRow = tokenWeights(lengths, aggregation);
  const weights = new Float32Array(N);
  let off = 0;
  mb.forEach((i, r) => {
    const { roll, adv: a } = kept[i];
    const seq = [...roll.prompt, ...roll.response];
    tok.set(seq.slice(0, T), starts[r]);
    const P = roll.prompt.length;
    for (let j = 0; j < roll.response.length; j++) {
      const t = starts[r] + P - 1 + j;
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
  if (rowLengths) batch.lengths = rowLengths;
  return { batch, old, tokens };
}
