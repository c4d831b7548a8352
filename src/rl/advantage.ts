/**
 * GRPO group-relative advantages (paper Eq. 3.1) with the truncation-mask variants of the
 * Skywork-OR1 ablation. Pure: rewards in, one advantage per response out; the trainer
 * broadcasts each response's advantage to all of its tokens.
 *
 * Layout convention shared by every rule in src/rl: a batch is `numGroups · G` responses stored
 * group by group (responses i·G … i·G+G−1 answer prompt i).
 */

/** How truncated responses (hit max response length without EOS) enter the advantage. */
export type TruncationMode = 'none' | 'adv-mask-before' | 'adv-mask-after';

export interface AdvantageOptions {
  /** Divide by the group's unbiased std (GRPO); false = Dr. GRPO (centre only). */
  normalizeStd: boolean;
  /** Default 'none': a truncated response keeps its reward 0 and gets a negative advantage. */
  truncation: TruncationMode;
  /** Added to the std; verl uses 1e-6. */
  eps?: number;
}

export const ADVANTAGE_EPS = 1e-6;

/**
 * Advantages of ONE group. `truncated[i]` true/nonzero marks a truncated response.
 *
 * - 'none': A_i = (r_i − mean) / (std + eps) over all G responses.
 * - 'adv-mask-before': truncated responses are left out of mean/std and get A = 0.
 * - 'adv-mask-after': statistics over all G, then truncated responses get A = 0.
 *
 * Groups whose counted rewards are all equal get exactly 0 (not r−mean in floating point),
 * so the rejection rule can test for zero advantage exactly. With fewer than 2 counted
 * responses there is no baseline and every advantage is 0 — verl instead uses mean 0,
 * std 1 for a singleton group, which would turn a lone reward into a full-size advantage;
 * only mask-before can produce such a group here.
 */
export function groupAdvantages(
  rewards: ArrayLike<number>,
  truncated: ArrayLike<boolean | number> | undefined,
  opts: AdvantageOptions,
): Float64Array {
  const n = rewards.length;
  const eps = opts.eps ?? ADVANTAGE_EPS;
  const out = new Float64Array(n);
  const isTrunc = (i: number) => truncated !== undefined && !!truncated[i];
  const counted = (i: number) => opts.truncation !== 'adv-mask-before' || !isTrunc(i);

  let m = 0;
  let sum = 0;
  let first = NaN;
  let allEqual = true;
  for (let i = 0; i < n; i++) {
    if (!counted(i)) continue;
    const r = rewards[i];
    if (m === 0) first = r;
    else if (r !== first) allEqual = false;
    sum += r;
    m++;
  }
  if (m < 2 || allEqual) return out;
  const mean = sum / m;
  let ss = 0;
  for (let i = 0; i < n; i++) if (counted(i)) ss += (rewards[i] - mean) ** 2;
  const std = Math.sqrt(ss / (m - 1)); // unbiased (N−1), as torch.std in verl
  const denom = opts.normalizeStd ? std + eps : 1;
  for (let i = 0; i < n; i++) {
    if (opts.truncation !== 'none' && isTrunc(i)) continue; // both mask modes zero it
    out[i] = (rewards[i] - mean) / denom;
  }
  return out;
}

/** Advantages for a whole batch of `rewards.length / groupSize` contiguous groups. */
export function computeAdvantages(
  rewards: ArrayLike<number>,
  groupSize: number,
  truncated: ArrayLike<boolean | number> | undefined,
  opts: AdvantageOptions,
): Float64Array {
  checkGroupLayout(rewards.length, groupSize);
  const out = new Float64Array(rewards.length);
  for (let start = 0; start < rewards.length; start += groupSize) {
    const r = sliceOf(rewards, start, groupSize);
    const t = truncated === undefined ? undefined : sliceOf(truncated, start, groupSize);
    out.set(groupAdvantages(r, t, opts), start);
  }
  return out;
}

/** True when a group's advantages carry a policy-gradient signal (any nonzero). */
export function hasSignal(advantages: ArrayLike<number>, start = 0, count = advantages.length): boolean {
  for (let i = start; i < start + count; i++) if (advantages[i] !== 0) return true;
  return false;
}

/** Throws unless `n` responses split into whole groups of `groupSize` (≥ 1). */
export function checkGroupLayout(n: number, groupSize: number): void {
  if (!Number.isInteger(groupSize) || groupSize < 1) throw new RangeError(`groupSize must be a positive integer, got ${groupSize}`);
  if (n % groupSize !== 0) throw new RangeError(`${n} responses do not split into groups of ${groupSize}`);
}

function sliceOf<T>(a: ArrayLike<T>, start: number, count: number): T[] {
  const out: T[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = a[start + i];
  return out;
}
