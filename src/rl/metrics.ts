/**
 * Metric names (as verl / Skywork-OR1 users know them), the batch statistics the trainer
 * logs every step, and the evaluation metrics avg@k, unbiased pass@k and maj@k.
 */
import { checkGroupLayout } from './advantage';

/**
 * Per-step metric keys. The rollout batch's entropy under π_old, before the update, over the
 * post-rejection batch's response tokens (src/rl/entropy.ts batchEntropy): `actor/entropy` =
 * exact mean entropy H_t of the sampling distribution (as verl logs it), `actor/entropy_sampled` =
 * −mean log-prob of the sampled tokens. The controller's e_k is the one loss.entropy.estimator picks.
 */
export const STEP_METRIC_KEYS = {
  entropy: 'actor/entropy',
  entropySampled: 'actor/entropy_sampled',
  entropyCoeff: 'actor/entropy_coeff',
  entropyCoeffRealized: 'actor/entropy_coeff_realized',
  pgLoss: 'actor/pg_loss',
  pgClipfrac: 'actor/pg_clipfrac',
  pgClipfracLower: 'actor/pg_clipfrac_lower',
  ppoKl: 'actor/ppo_kl',
  gradNorm: 'actor/grad_norm',
  /** η this step: update.lr times its schedule's factor (verl logs actor/lr). */
  lr: 'actor/lr',
  /**
   * Optimizer steps of this RL step (0 … N_SGD) rejected because their loss or global gradient
   * norm was not finite: not applied (weights and AdamW state untouched); per step, not
   * cumulative. Their loss and grad norm still enter the step's actor/* means (a non-finite mean
   * there is the sign). update.maxNonfiniteSteps in a row stop the run.
   */
  nonfiniteSteps: 'actor/nonfinite_steps',
  scoreMean: 'critic/score/mean',
  responseLengthMean: 'response_length/mean',
  responseLengthClipRatio: 'response_length/clip_ratio',
  solveNone: 'batch/solve_none',
  solveAll: 'batch/solve_all',
  keptGroups: 'batch/kept_groups',
  stage: 'stage',
  tokensPerS: 'perf/tokens_per_s',
  stepS: 'perf/step_s',
  /** Groups sampled this step (D_R, plus any refill rounds), before rejection. */
  groups: 'batch/groups',
  /** Training prompts in the active pool this step, after the offline filter and any online-filter drop at this step's stage start. */
  poolSize: 'data/pool_size',
} as const;

export type StepMetricKey = (typeof STEP_METRIC_KEYS)[keyof typeof STEP_METRIC_KEYS];
/** One training step's record. A value that does not exist this step (e.g. no update) is NaN. */
export type StepMetrics = Record<StepMetricKey, number>;
export const STEP_METRIC_KEY_LIST: readonly StepMetricKey[] = Object.values(STEP_METRIC_KEYS);
/**
 * Keys added after step records were first written (metrics.jsonl, run files): a reader fills
 * them with NaN when an older record lacks them. (Before actor/entropy_sampled existed,
 * actor/entropy held the sampled estimate.)
 */
export const LATER_STEP_METRIC_KEYS: readonly StepMetricKey[] = [STEP_METRIC_KEYS.entropySampled, STEP_METRIC_KEYS.nonfiniteSteps, STEP_METRIC_KEYS.groups, STEP_METRIC_KEYS.poolSize, STEP_METRIC_KEYS.lr];

export type EvalMetricKind = 'avg' | 'pass' | 'maj';

/** 1 → "1.0", 0.6 → "0.6": a temperature as it appears in eval keys. */
export function formatTemperature(t: number): string {
  return Number.isInteger(t) ? t.toFixed(1) : String(t);
}

/** e.g. evalKey('avg', 8, 1) === 'val/avg@8/t1.0'. */
export function evalKey(kind: EvalMetricKind, k: number, temperature: number): string {
  return `val/${kind}@${k}/t${formatTemperature(temperature)}`;
}

/** Eval response-length keys: 'val/response_length/mean/t1.0', 'val/response_length/clip_ratio/t1.0'. */
export function evalLengthKey(which: 'mean' | 'clip_ratio', temperature: number): string {
  return `val/response_length/${which}/t${formatTemperature(temperature)}`;
}

/**
 * Eval entropy key, 'val/entropy/t1.0': the exact mean entropy H_t of the policy's next-token
 * distribution at that temperature over every response token of the evaluation's samples (token
 * mean, as actor/entropy). Logged at each eval temperature, so runs whose rollouts sample at another
 * temperature (temp-0.6) still have their entropy at τ = 1.0, on one scale with every other run.
 */
export function evalEntropyKey(temperature: number): string {
  return `val/entropy/t${formatTemperature(temperature)}`;
}

export type BatchMetricKey =
  | 'critic/score/mean'
  | 'response_length/mean'
  | 'response_length/clip_ratio'
  | 'batch/solve_none'
  | 'batch/solve_all'
  | 'batch/kept_groups';

export interface BatchMetricsInput {
  /** One reward per response, groups contiguous; a response counts as solved when reward > 0. */
  rewards: ArrayLike<number>;
  /** Response lengths in tokens. */
  lengths: ArrayLike<number>;
  /** Hit the max response length without EOS. */
  truncated: ArrayLike<boolean | number>;
  groupSize: number;
  /** Groups kept for training (from the rejection plan); default: groups with mixed rewards. */
  keptGroups?: number;
}

/**
 * Batch statistics over every generated response (before rejection, as Skywork logs them):
 * mean score, mean length, truncation rate, and counts of groups solved by none / by all.
 */
export function batchMetrics(input: BatchMetricsInput): Record<BatchMetricKey, number> {
  const { rewards, lengths, truncated, groupSize } = input;
  const n = rewards.length;
  if (lengths.length !== n || truncated.length !== n) throw new RangeError('rewards, lengths and truncated must have the same length');
  checkGroupLayout(n, groupSize);
  let score = 0;
  let len = 0;
  let trunc = 0;
  let solveNone = 0;
  let solveAll = 0;
  for (let s = 0; s < n; s += groupSize) {
    let solved = 0;
    for (let i = s; i < s + groupSize; i++) {
      score += rewards[i];
      len += lengths[i];
      if (truncated[i]) trunc++;
      if (rewards[i] > 0) solved++;
    }
    if (solved === 0) solveNone++;
    else if (solved === groupSize) solveAll++;
  }
  const groups = n / groupSize;
  return {
    'critic/score/mean': n ? score / n : NaN,
    'response_length/mean': n ? len / n : NaN,
    'response_length/clip_ratio': n ? trunc / n : NaN,
    'batch/solve_none': solveNone,
    'batch/solve_all': solveAll,
    'batch/kept_groups': input.keptGroups ?? groups - solveNone - solveAll,
  };
}

/**
 * Unbiased pass@k from n samples with c correct: 1 − C(n−c, k)/C(n, k), computed as
 * 1 − Π_{i=n−c+1..n} (1 − k/i) so no factorial overflows (Codex paper, Chen et al. 2021).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || k < 1 || c < 0 || c > n || k > n) {
    throw new RangeError(`passAtK needs integers 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n=${n} c=${c} k=${k}`);
  }
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/** avg@k: mean over problems of the fraction of correct samples. */
export function avgAtK(perProblem: readonly (readonly (boolean | number)[])[]): number {
  if (perProblem.length === 0) return NaN;
  let s = 0;
  for (const samples of perProblem) {
    if (samples.length === 0) throw new RangeError('a problem has no samples');
    s += samples.filter((x) => !!x).length / samples.length;
  }
  return s / perProblem.length;
}

/** Mean unbiased pass@k over problems (each problem's n = its sample count ≥ k). */
export function meanPassAtK(perProblem: readonly (readonly (boolean | number)[])[], k: number): number {
  if (perProblem.length === 0) return NaN;
  let s = 0;
  for (const samples of perProblem) s += passAtK(samples.length, samples.filter((x) => !!x).length, k);
  return s / perProblem.length;
}

/**
 * Canonical form of an answer for voting: whitespace removed, lower case, a leading '+'
 * dropped, integers without leading zeros ("007" → "7", "-0" → "0").
 */
export function normalizeAnswer(answer: string): string {
  let s = answer.replace(/\s+/g, '').toLowerCase();
  if (s.startsWith('+')) s = s.slice(1);
  const m = /^(-?)0*(\d+)$/.exec(s);
  if (m) s = m[2] === '0' ? '0' : m[1] + m[2];
  return s;
}

export interface VoteSample {
  /** Extracted final answer, or null when none could be parsed (it does not vote). */
  answer: string | null;
  /** Verifier's verdict on this sample. */
  correct: boolean;
}

/**
 * maj@k for one problem: the most frequent normalised answer wins; a tie goes to the answer
 * whose first sample came earliest (deterministic, independent of how answers sort);
 * correct iff that answer's first sample was judged correct. No parsable answer → incorrect.
 */
export function majorityVote(
  samples: readonly VoteSample[],
  normalize: (a: string) => string = normalizeAnswer,
): { answer: string | null; count: number; correct: boolean } {
  const count = new Map<string, number>(); // Map iterates in first-insertion order
  const firstCorrect = new Map<string, boolean>();
  for (const s of samples) {
    if (s.answer === null) continue;
    const a = normalize(s.answer);
    count.set(a, (count.get(a) ?? 0) + 1);
    if (!firstCorrect.has(a)) firstCorrect.set(a, s.correct);
  }
  let best: string | null = null;
  let bestCount = 0;
  for (const [a, c] of count) {
    if (c > bestCount) {
      best = a;
      bestCount = c;
    }
  }
  return { answer: best, count: bestCount, correct: best !== null && firstCorrect.get(best) === true };
}

/** One evaluation sample. */
export interface EvalSample extends VoteSample {
  /** Response length in tokens. */
  length: number;
  /** Hit the max response length without EOS. */
  truncated: boolean;
}

/**
 * Evaluation record for one temperature: val/avg@k, val/pass@k, val/maj@k and the response
 * length stats, keyed with the temperature (e.g. 'val/avg@8/t1.0'). Every problem needs ≥ k
 * samples: avg@k and pass@k use all n of them (unbiased), maj@k votes over the first k.
 */
export function evalMetrics(perProblem: readonly (readonly EvalSample[])[], k: number, temperature: number): Record<string, number> {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  for (const [i, p] of perProblem.entries()) {
    if (p.length < k) throw new RangeError(`problem ${i} has ${p.length} samples, fewer than k=${k}`);
  }
  const correct = perProblem.map((p) => p.map((s) => s.correct));
  let maj = 0;
  let len = 0;
  let trunc = 0;
  let n = 0;
  for (const p of perProblem) {
    if (majorityVote(p.slice(0, k)).correct) maj++;
    for (const s of p) {
      len += s.length;
      if (s.truncated) trunc++;
      n++;
    }
  }
  const P = perProblem.length;
  return {
    [evalKey('avg', k, temperature)]: avgAtK(correct),
    [evalKey('pass', k, temperature)]: meanPassAtK(correct, k),
    [evalKey('maj', k, temperature)]: P ? maj / P : NaN,
    [evalLengthKey('mean', temperature)]: n ? len / n : NaN,
    [evalLengthKey('clip_ratio', temperature)]: n ? trunc / n : NaN,
  };
}
