/**
 * Gradient accumulation over micro-batches (update.microBatchRows, verl's
 * ppo_micro_batch_size_per_gpu): one mini-batch's packed rows are trained in several engine calls
 * of at most `microRows` rows each, the gradients adding up (PolicyEngine.update's `accumulate`)
 * into ONE optimizer step. The loss stays normalised over the whole mini-batch because each
 * token's aggregation weight (packUpdateBatch → src/rl/aggregation.ts) is computed over the
 * mini-batch before the split, so the micro-batches' gradients sum to the unsplit one.
 *
 * Every micro-batch has the same shape [microRows × T] (the last one padded with empty rows:
 * PAD tokens, mask and weight 0, so they add nothing), so the engines build one plan and reuse it.
 * Micro-batches that hold only padding rows are left out. A packed batch (UpdateBatch.lengths) is
 * cut into its rows as they are: its engine takes any shape, so nothing is padded.
 */
import { combineStepStats, rowOffsets, type Accumulate, type PolicyEngine, type StepStats, type UpdateBatch, type UpdateLoss, type UpdateOptions } from '../model/engine';
import { PAD_ID } from '../tasks';

/**
 * Rows [from, from + size) of `batch` (rows past its end: PAD tokens, mask, weight and advantage 0;
 * a packed batch's slice just ends with its last row).
 */
export function sliceRows(batch: UpdateBatch, from: number, size: number): UpdateBatch {
  const { T } = batch;
  const have = Math.max(0, Math.min(size, batch.rows - from));
  const offsets = rowOffsets(batch);
  const a = offsets[from];
  const packed = batch.lengths !== undefined;
  const n = packed ? offsets[from + have] - a : size * T;
  const part = <A extends Uint32Array | Float32Array>(x: A, fill: number): A => {
    const out = new (x.constructor as { new (n: number): A })(n);
    if (fill !== 0) out.fill(fill);
    out.set(x.subarray(a, a + (packed ? n : have * T)));
    return out;
  };
  const out: UpdateBatch = {
    rows: packed ? have : size,
    T,
    temperature: batch.temperature,
    tokens: part(batch.tokens, PAD_ID),
    targets: part(batch.targets, PAD_ID),
    mask: part(batch.mask, 0),
    weights: part(batch.weights, 0),
  };
  if (batch.advantages) out.advantages = part(batch.advantages, 0);
  if (batch.oldLogp) out.oldLogp = part(batch.oldLogp, 0);
  if (batch.refLogp) out.refLogp = part(batch.refLogp, 0);
  if (batch.lengths) out.lengths = batch.lengths.slice(from, from + have);
  return out;
}

/** Whether rows [from, from + size) hold a token that enters the loss. */
function hasLoss(batch: UpdateBatch, from: number, size: number): boolean {
  const offsets = rowOffsets(batch);
  const end = offsets[Math.min(batch.rows, from + size)];
  for (let i = offsets[Math.min(batch.rows, from)]; i < end; i++) if (batch.mask[i] !== 0) return true;
  return false;
}

/**
 * The row offsets of a batch's micro-batches of `microRows` rows: [0] (the whole batch in one
 * call) when microRows is null or covers every row; otherwise every chunk that holds a loss token
 * (at least the first).
 */
export function microBatchStarts(batch: UpdateBatch, microRows: number | null): number[] {
  if (microRows === null || microRows >= batch.rows) return [0];
  if (!Number.isInteger(microRows) || microRows < 1) throw new RangeError(`update.microBatchRows must be an integer ≥ 1 or null, got ${microRows}`);
  const starts: number[] = [];
  for (let r = 0; r < batch.rows; r += microRows) if (hasLoss(batch, r, microRows)) starts.push(r);
  return starts.length > 0 ? starts : [0];
}

/** The accumulate mode of call i of n. */
export function accumulateMode(i: number, n: number): Accumulate {
  if (n === 1) return 'only';
  return i === 0 ? 'first' : i === n - 1 ? 'last' : 'middle';
}

/**
 * One optimizer step on `batch`, in micro-batches of at most `microRows` rows (null: one call,
 * exactly PolicyEngine.update). Returns the mini-batch's statistics (combineStepStats).
 */
export async function accumulatedUpdate(policy: PolicyEngine, batch: UpdateBatch, loss: UpdateLoss, o: UpdateOptions, microRows: number | null): Promise<StepStats> {
  if (microRows === null || microRows >= batch.rows) return policy.update(batch, loss, o);
  const starts = microBatchStarts(batch, microRows);
  const parts: StepStats[] = [];
  for (let i = 0; i < starts.length; i++) {
    parts.push(await policy.update(sliceRows(batch, starts[i], microRows), loss, { ...o, accumulate: accumulateMode(i, starts.length) }));
  }
  return combineStepStats(parts);
}

/**
 * Rows per π_ref forward: at most REF_FORWARD_ROWS, and at most update.microBatchRows when set.
 * π_ref only forwards (no gradient to accumulate) and a row's log-probs do not depend on the rows
 * beside it, so its forwards can be small without changing a value (tests/rl/micro-batch.test.ts
 * checks bit-equality on both engines). Whole mini-batches would give π_ref training buffers as
 * large as the actor's: at the small rung 1.1 GiB more, over the CPU engine's 2 GiB for grpo and kl-on.
 */
export const REF_FORWARD_ROWS = 32;
export function refForwardRows(microBatchRows: number | null): number {
  return microBatchRows === null ? REF_FORWARD_ROWS : Math.min(microBatchRows, REF_FORWARD_ROWS);
}

/**
 * The reference log-probs of `batch` ([rows × T], or Σ lengths packed), by forwards of at most `microRows` rows
 * (null: one forward, as PolicyEngine.forward); the trainer passes refForwardRows.
 */
export async function microForwardLogp(policy: PolicyEngine, batch: UpdateBatch, microRows: number | null): Promise<Float32Array> {
  const { rows, T, temperature, lengths } = batch;
  if (microRows === null || microRows >= rows) return (await policy.forward(batch.tokens, batch.targets, rows, T, temperature, lengths)).logp;
  const offsets = rowOffsets(batch);
  const out = new Float32Array(offsets[rows]);
  for (const r of microBatchStarts(batch, microRows)) {
    const part = sliceRows(batch, r, microRows);
    const { logp } = await policy.forward(part.tokens, part.targets, part.rows, T, temperature, part.lengths);
    const end = Math.min(rows, r + microRows);
    out.set(logp.subarray(0, offsets[end] - offsets[r]), offsets[r]);
  }
  return out;
}
