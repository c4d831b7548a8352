/**
 * Rejection sampling of zero-advantage groups, and DAPO-style refilling, as a pure planner.
 *
 * A group whose responses all got the same reward (all solved or all failed, or — under
 * Adv-Mask-Before — every counted response equal) has zero advantage: it adds no policy
 * gradient but would still weigh on the entropy/KL terms and dilute the token mean.
 * Skywork-OR1 drops such groups ('drop'); DAPO's dynamic sampling keeps rolling out fresh
 * prompts until the batch is full ('refill'); 'off' trains on every group (vanilla GRPO).
 */
import { computeAdvantages, hasSignal, type AdvantageOptions } from './advantage';

export type RejectionMode = 'drop' | 'refill' | 'off';

/** Per-group flag: does the group carry a nonzero advantage? */
export function groupSignals(
  rewards: ArrayLike<number>,
  groupSize: number,
  truncated: ArrayLike<boolean | number> | undefined,
  opts: AdvantageOptions,
): boolean[] {
  const adv = computeAdvantages(rewards, groupSize, truncated, opts);
  const out: boolean[] = [];
  for (let s = 0; s < adv.length; s += groupSize) out.push(hasSignal(adv, s, groupSize));
  return out;
}

export interface RejectionPlanInput {
  mode: RejectionMode;
  /** Signal flag of every group rolled out so far for this step, in rollout order. */
  signals: readonly boolean[];
  /** D_R: groups (prompts) the training batch should hold. */
  targetGroups: number;
  /** Rollout rounds done so far for this step, the first one included (≥ 1). */
  rounds: number;
  /** Cap on extra rounds in 'refill' mode (0 = behave like 'drop'). */
  maxRefillRounds: number;
}

export interface RejectionPlan {
  /** Indices into `signals` of the groups to train on, ascending. May be empty: skip the step. */
  keep: number[];
  /** Prompts to roll out in one more round; 0 when the plan is final. */
  requestPrompts: number;
  /** True when no more rollouts are needed (`requestPrompts === 0`). */
  done: boolean;
  /** Groups rejected for zero advantage (not counting surplus groups left out by the cap). */
  rejected: number;
}

/**
 * Decides which groups to keep and whether to roll out more.
 *
 * Refill requests `ceil(missing / keepRate)` prompts (keepRate observed so far; a full batch
 * when nothing was kept yet), never more than one batch, so the rollout buffers sized for D_R
 * always suffice; surplus signal groups beyond D_R are left out (as DAPO truncates).
 * When the cap is reached the step trains on the partial batch.
 */
export function planRejection(input: RejectionPlanInput): RejectionPlan {
  const { mode, signals, targetGroups, rounds, maxRefillRounds } = input;
  if (!Number.isInteger(targetGroups) || targetGroups < 1) throw new RangeError(`targetGroups must be a positive integer, got ${targetGroups}`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be an integer ≥ 1, got ${rounds}`);
  const rejected = signals.filter((s) => !s).length;
  if (mode === 'off') {
    const keep = signals.map((_, i) => i).slice(0, targetGroups);
    return { keep, requestPrompts: 0, done: true, rejected: 0 };
  }
  const withSignal: number[] = [];
  signals.forEach((s, i) => {
    if (s) withSignal.push(i);
  });
  const keep = withSignal.slice(0, targetGroups);
  const missing = targetGroups - keep.length;
  const canRefill = mode === 'refill' && rounds - 1 < maxRefillRounds;
  if (missing === 0 || !canRefill) return { keep, requestPrompts: 0, done: true, rejected };
  const rate = signals.length > 0 ? withSignal.length / signals.length : 0;
  const want = rate > 0 ? Math.ceil(missing / rate) : targetGroups;
  return { keep, requestPrompts: Math.min(targetGroups, want), done: false, rejected };
}
