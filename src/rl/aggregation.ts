/**
 * Loss aggregation as per-token weights: loss = Σ_tokens w · ℓ_token, so the GPU kernel only
 * multiplies and sums, and the same weights serve the policy, entropy and KL terms.
 *
 * - 'token-mean' (MAGIC, Eq. 3.1): every response token of the (mini-)batch weighs 1/T_k.
 *   Long responses count in proportion to their length; no per-response 1/|y| length bias.
 * - 'seq-mean-token-mean' (original GRPO): each kept response weighs 1/numSeqs in total,
 *   spread evenly over its own tokens (1 / (numSeqs · |y_i|) per token).
 *
 * Compute the weights per mini-batch (each optimizer step normalises by its own tokens).
 */

export type LossAggregation = 'token-mean' | 'seq-mean-token-mean';

/**
 * Weight of each token of response i (the same for all its tokens). Responses with
 * `included[i]` false or length 0 get 0 and do not count in T_k or numSeqs.
 * An empty batch yields all zeros (no NaN).
 */
export function perSequenceTokenWeight(
  lengths: ArrayLike<number>,
  mode: LossAggregation,
  included?: ArrayLike<boolean | number>,
): Float64Array {
  const n = lengths.length;
  const out = new Float64Array(n);
  const counts = (i: number) => lengths[i] > 0 && (included === undefined || !!included[i]);
  let tokens = 0;
  let seqs = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isInteger(lengths[i]) || lengths[i] < 0) throw new RangeError(`lengths[${i}] must be a non-negative integer, got ${lengths[i]}`);
    if (!counts(i)) continue;
    tokens += lengths[i];
    seqs++;
  }
  if (seqs === 0) return out;
  for (let i = 0; i < n; i++) {
    if (!counts(i)) continue;
    out[i] = mode === 'token-mean' ? 1 / tokens : 1 / (seqs * lengths[i]);
  }
  return out;
}

/**
 * Flat per-token weights, responses concatenated in order (Σ lengths entries), or, with
 * `rowStride`, a padded [n, rowStride] layout whose padding positions are 0.
 */
export function tokenWeights(
  lengths: ArrayLike<number>,
  mode: LossAggregation,
  included?: ArrayLike<boolean | number>,
  rowStride?: number,
): Float32Array {
  const w = perSequenceTokenWeight(lengths, mode, included);
  let total = 0;
  for (let i = 0; i < lengths.length; i++) {
    if (rowStride !== undefined && lengths[i] > rowStride) throw new RangeError(`lengths[${i}]=${lengths[i]} exceeds rowStride ${rowStride}`);
    total += lengths[i];
  }
  const out = new Float32Array(rowStride === undefined ? total : rowStride * lengths.length);
  let off = 0;
  for (let i = 0; i < lengths.length; i++) {
    const start = rowStride === undefined ? off : i * rowStride;
    out.fill(w[i], start, start + lengths[i]);
    off += lengths[i];
  }
  return out;
}
