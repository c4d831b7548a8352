/**
 * Policy collapse: a policy whose token entropy has fallen to (almost) zero and whose reward is zero
 * samples the same wrong response every time, so GRPO's advantages are all zero and it cannot learn
 * its way out (a learning rate of 1 without gradient clipping gets there in a few steps). Unlike a
 * divergence nothing is non-finite, so nothing else stops it: `magic-lab train` warns after
 * COLLAPSE_STEPS such steps in a row, and `--stop-on-collapse` stops the run there.
 */

/** Steps in a row with entropy and reward at zero before a run counts as collapsed. */
export const COLLAPSE_STEPS = 5;
/**
 * actor/entropy at or below this fraction of the uniform policy's (ln V nats per token) counts as
 * "at zero". With reward 0 in every group every GRPO advantage is zero, so only a near-deterministic
 * policy is flagged: a random init (entropy ln V, reward 0) is not a collapse, it has not started.
 * The tiny rung's base at lr 1 without a gradient clip sits at 0.11–0.14 nats (5% of ln 24 = 0.159)
 * with reward 0 from step 2 on.
 */
export const COLLAPSE_ENTROPY_FRACTION = 0.05;

/** The entropy (nats per token) at or below which a policy over `vocabSize` tokens counts as collapsed. */
export function collapseEntropy(vocabSize: number): number {
  return COLLAPSE_ENTROPY_FRACTION * Math.log(vocabSize);
}

/** The streak after a step with this entropy and mean reward (critic/score/mean): one more, or 0. */
export function collapseStreak(streak: number, entropy: number, reward: number, vocabSize: number): number {
  return Number.isFinite(entropy) && entropy <= collapseEntropy(vocabSize) && reward === 0 ? streak + 1 : 0;
}

/** The warning's text for a streak that just reached `steps` at `step`. */
export function collapseText(step: number, vocabSize: number, steps: number = COLLAPSE_STEPS): string {
  return `the policy collapsed by step ${step}: entropy at most ${collapseEntropy(vocabSize).toFixed(3)} nats (5% of ln ${vocabSize}) and reward 0 for ${steps} steps in a row (every advantage zero: it will not learn its way out; a lower update.lr or a gradient clip avoids it)`;
}
