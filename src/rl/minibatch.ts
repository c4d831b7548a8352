/**
 * Mini-batch plan of one update: which responses each optimizer step trains on.
 *
 * On-policy MAGIC default: miniBatches = 1, reuseEpochs = 1 → one step on the whole rollout
 * batch (D_T = D_R, N_SGD = 1). Off-policy ablations: N_SGD = miniBatches · reuseEpochs;
 * every step after the first sees a policy that moved (ρ ≠ 1, clipping becomes active).
 */
import { Rng } from '../util/rng';

export interface MiniBatchPlanInput {
  /** Responses in the (post-rejection) batch. */
  count: number;
  /** Mini-batches per epoch (D_R / D_T). */
  miniBatches: number;
  /** N_reuse: passes over the rollout batch. */
  reuseEpochs: number;
  /** Seed of the shuffle (derive it from the run seed and step for replay). */
  seed: number;
  /** Keep each group of this many consecutive responses in one mini-batch (default 1). */
  groupSize?: number;
}

/**
 * Returns `reuseEpochs · m` index lists (epoch-major), m = min(miniBatches, units): each epoch
 * partitions 0…count−1 exactly once; sizes differ by at most one unit, since rejection can
 * leave a batch that miniBatches does not divide. Indices are sorted within a mini-batch
 * (contiguous gathers). The single-mini-batch, single-epoch plan consumes no randomness.
 */
export function planMiniBatches(input: MiniBatchPlanInput): number[][] {
  const { count, miniBatches, reuseEpochs, seed } = input;
  const g = input.groupSize ?? 1;
  for (const [name, v, min] of [['count', count, 0], ['miniBatches', miniBatches, 1], ['reuseEpochs', reuseEpochs, 1], ['groupSize', g, 1]] as const) {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${v}`);
  }
  if (count % g !== 0) throw new RangeError(`count ${count} is not a multiple of groupSize ${g}`);
  const units = count / g;
  if (units === 0) return [];
  const m = Math.min(miniBatches, units);
  const rng = new Rng(seed);
  const plan: number[][] = [];
  for (let e = 0; e < reuseEpochs; e++) {
    const order = Array.from({ length: units }, (_, i) => i);
    if (m > 1 || reuseEpochs > 1) rng.shuffle(order);
    const base = Math.floor(units / m);
    const extra = units % m;
    let pos = 0;
    for (let b = 0; b < m; b++) {
      const size = base + (b < extra ? 1 : 0);
      const idx: number[] = [];
      for (const u of order.slice(pos, pos + size)) for (let j = 0; j < g; j++) idx.push(u * g + j);
      idx.sort((a, c) => a - c);
      plan.push(idx);
      pos += size;
    }
  }
  return plan;
}
