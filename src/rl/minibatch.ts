/**
 * Mini-batch plan of one update: which responses each optimizer step trains on (how D_T is formed).
 *
 * On-policy MAGIC default: miniBatches = 1, reuseEpochs = 1 → one step on the whole rollout
 * batch (D_T = D_R, N_SGD = 1). Off-policy ablations: N_SGD = miniBatches · reuseEpochs;
 * every step after the first sees a policy that moved (ρ ≠ 1, clipping becomes active).
 *
 * D_T rule: each epoch shuffles the kept (post-rejection) RESPONSES — not whole groups — and cuts
 * them into exactly `miniBatches` mini-batches whose sizes differ by at most one. So an RL step
 * always takes exactly miniBatches · reuseEpochs optimizer steps when anything is kept, however
 * many groups rejection sampling left (config validation keeps miniBatches ≤ G, so one kept group
 * still fills every mini-batch). Advantages are computed per group before the split, so a group
 * may span mini-batches; with a full batch D_T = D_R·G / miniBatches responses, as in the paper.
 * The shuffle is seeded from (run seed, step), so a run replays exactly.
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
}

/**
 * Returns `reuseEpochs · miniBatches` index lists (epoch-major) when count > 0, none when the
 * batch is empty. Each epoch partitions 0…count−1 exactly once into mini-batches whose sizes
 * differ by at most one (the larger ones first); indices are sorted within a mini-batch
 * (contiguous gathers). Throws when count < miniBatches (a mini-batch would be empty). The
 * single-mini-batch, single-epoch plan consumes no randomness and keeps the batch in order.
 */
export function planMiniBatches(input: MiniBatchPlanInput): number[][] {
  const { count, miniBatches: m, reuseEpochs, seed } = input;
  for (const [name, v, min] of [['count', count, 0], ['miniBatches', m, 1], ['reuseEpochs', reuseEpochs, 1]] as const) {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${v}`);
  }
  if (count === 0) return [];
  if (count < m) throw new RangeError(`${count} responses cannot fill ${m} mini-batches (keep miniBatches ≤ the group size G)`);
  const rng = new Rng(seed);
  const plan: number[][] = [];
  const base = Math.floor(count / m);
  const extra = count % m;
  for (let e = 0; e < reuseEpochs; e++) {
    const order = Array.from({ length: count }, (_, i) => i);
    if (m > 1 || reuseEpochs > 1) rng.shuffle(order);
    let pos = 0;
    for (let b = 0; b < m; b++) {
      const size = base + (b < extra ? 1 : 0);
      plan.push(order.slice(pos, pos + size).sort((a, c) => a - c));
      pos += size;
    }
  }
  return plan;
}
