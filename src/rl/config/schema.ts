/**
 * The RunConfig schema: every knob of a MAGIC Lab training run in ONE documented type, its
 * defaults (the MAGIC recipe at lab scale) and the overlay that shrinks a config for fast tests.
 * Bounds live in rules.ts, presets in presets.ts.
 *
 * Symbols follow the Skywork-OR1 report (see shared/MAGIC-RECIPE.md).
 * Values marked "provisional" must be tuned at this tiny scale: tuned by measurement in
 * BENCHMARKS.md.
 */
import { DEFAULT_MODEL_CONFIG, type ModelConfig } from '../../model/config';
import type { TruncationMode } from '../advantage';
import type { LossAggregation } from '../aggregation';
import type { EntropyControlConfig } from '../entropy';
import { CONSTANT_LR, type LrScheduleConfig } from '../lr-schedule';
import type { KlType } from '../../model/engine-types';
import type { RejectionMode } from '../rejection';
import type { ConvergenceRule } from '../stages';
import { VOCAB_SIZE } from '../../tasks';

export type TaskFamily = 'addition' | 'countdown' | 'arith' | 'multiply' | 'sort';
export const TASK_FAMILIES: readonly TaskFamily[] = ['addition', 'countdown', 'arith', 'multiply', 'sort'];

/** One stage of the multi-stage schedule. null fields inherit the `rollout` defaults. */
export interface StageConfig {
  /** Max response length in tokens for this stage (raised stage by stage). */
  maxResponseLength: number;
  /** Fixed stage length in steps; exactly one of `steps` / `convergence` is set. */
  steps: number | null;
  /** End the stage when train accuracy plateaus (see stages.ts). */
  convergence: ConvergenceRule | null;
  /** D_R for this stage (prompts per rollout batch), or null = rollout.batchPrompts. */
  batchPrompts: number | null;
  /** G (M in Eq. 3.1) for this stage, or null = rollout.groupSize. */
  groupSize: number | null;
  /** τ for this stage, or null = rollout.temperature. */
  temperature: number | null;
  /**
   * β (KL penalty weight) for this stage; absent = loss.kl.beta (a validated config leaves it
   * out unless a number is given, so configs written before it existed stay equal). The reference policy π_ref is
   * the policy at the start of the first stage whose β is > 0 (the initial policy when that is
   * stage 0, as in vanilla GRPO), kept for the rest of the run. The paper does not say which π_ref
   * its later-stage KL ablation used; the stage start isolates what the finding is about: the run
   * replays the β = 0 run up to that stage, the KL term is 0 at its first step, and from there it
   * only restrains how far the later stage moves (π_ref = the initial policy would instead pull
   * the policy back toward the SFT base and undo earlier stages' gains).
   */
  klBeta?: number;
}

export interface RunConfig {
  /** Seed of every random stream of the run (data, init, sampling, shuffles). uint32. */
  seed: number;
  /** Policy architecture. */
  model: ModelConfig;
  data: {
    /** Task families mixed into the training and test sets (mixing helps stability). */
    families: TaskFamily[];
    /** Task difficulty level, 1 (easiest) … 5, mapped to operand sizes by the generators. */
    difficulty: number;
    /**
     * The held-out split's level, above `difficulty`: the test set (every evaluation, the offline
     * filter's decontamination) is built at this level, so evaluations measure whether training
     * reaches problems harder than any it saw. Absent (or null): the test set is at `difficulty`
     * (a validated config leaves it out unless a number is given, so configs written before it
     * existed stay equal).
     */
    testDifficulty?: number;
    /** Training prompts generated before filtering. */
    trainSize: number;
    /** Held-out test prompts. */
    testSize: number;
    /** Offline filter: N samples per prompt from the base model at τ = 1; drop 0/N and N/N. */
    offlineFilter: { enabled: boolean; /** N */ samples: number };
    /** Online filter: at each stage start drop prompts solved in every rollout of the previous stage. */
    onlineFilter: boolean;
  };
  /** Rollout defaults; stages may override batchPrompts, groupSize and temperature. */
  rollout: {
    /** τ: sampling temperature (MAGIC: 1.0; 0.6 collapses entropy). */
    temperature: number;
    /** Nucleus sampling mass (1.0 = off). */
    topP: number;
    /** G: responses sampled per prompt (group size). */
    groupSize: number;
    /** D_R: prompts per rollout batch. */
    batchPrompts: number;
  };
  /** Multi-stage schedule, run in order. */
  stages: StageConfig[];
  loss: {
    /** ε_low: ρ is clipped below at 1 − ε_low. */
    epsLow: number;
    /** ε_high: ρ is clipped above at 1 + ε_high ("clip-higher" when > ε_low). */
    epsHigh: number;
    /** Dual-clip constant c > 1 bounding negative-advantage losses, or null (off, as released). */
    dualClip: number | null;
    /** Aggregation: 'token-mean' over all batch tokens (1/T_k, MAGIC) or per-sequence mean (GRPO). */
    aggregation: LossAggregation;
    /**
     * Entropy term α_k·H_t (Eq. 3.2): target = tgt-ent, delta = Δ, cMin/cMax = c_min/c_max, c0 = c_0,
     * constantCoef = α in 'constant' mode, gate = which e the on/off gate reads, and estimator =
     * which e_k the controller sees, both measured on the post-rejection batch's response tokens
     * before the update: 'exact' = mean entropy H_t of the rollout distribution (Rollout.entropy;
     * logged as actor/entropy, as verl does) or 'sampled' = −mean log π_old(sampled token) (the
     * paper text's estimate; logged as actor/entropy_sampled). Default 'exact' for now: same
     * expectation, no sampling noise (BENCHMARKS.md: the sampled e_k of one batch has a std of
     * ≈ 0.05 step to step); the multi-seed sweep that measures which holds the target better may
     * change it.
     */
    entropy: EntropyControlConfig;
    /**
     * KL(π_θ‖π_ref) penalty: β (0 = off, no reference model) and estimator. A stage may override
     * β (StageConfig.klBeta); π_ref is the policy at the start of the first stage with β > 0.
     */
    kl: { beta: number; type: KlType };
    /** Divide advantages by the group std (GRPO); false = Dr. GRPO centring only. */
    advantageStd: boolean;
  };
  /** Zero-advantage groups: drop (MAGIC), refill with fresh rollouts (DAPO), or keep ('off'). */
  rejection: { mode: RejectionMode; /** Cap on extra rollout rounds per step in 'refill' mode. */ maxRefillRounds: number };
  /** Truncated responses: 'none' (reward 0 counts, MAGIC) or the Adv-Mask variants. */
  truncation: { mode: TruncationMode };
  update: {
    /**
     * D_R / D_T: mini-batches (optimizer steps) per rollout batch per epoch. D_T is formed from
     * the kept (post-rejection) responses, not whole groups: each epoch shuffles them (seeded by
     * run seed and step) and cuts them into exactly this many mini-batches of sizes differing by
     * at most one (advantages are computed per group first, so a group may span mini-batches).
     * So an RL step that keeps anything takes exactly N_SGD optimizer steps, whatever rejection
     * keeps. At most G of every stage, so that one kept group still fills every mini-batch.
     */
    miniBatches: number;
    /** N_reuse: passes over each rollout batch. N_SGD = miniBatches · reuseEpochs. */
    reuseEpochs: number;
    /**
     * Rows per engine call (verl's ppo_micro_batch_size_per_gpu): each mini-batch's packed rows are
     * trained in micro-batches of at most this many, their gradients accumulated into ONE optimizer
     * step (src/rl/micro-batch.ts). Only memory changes: each token keeps the whole mini-batch's
     * aggregation weight, so the step is the unsplit one up to float summation order. null: the
     * whole mini-batch in one call. Rows are G × a power of two, so a value of that form pads no rows.
     */
    microBatchRows: number | null;
    /** η: AdamW peak learning rate; the schedule below scales it step by step (constant by default). */
    lr: number;
    /**
     * η's schedule over the run's RL steps, as verl's actor.optim (warmup_style / lr_scheduler_type,
     * lr_warmup_steps, min_lr_ratio): 'constant' (η after an optional linear warmup of warmupSteps)
     * or 'cosine' (half a cosine from η to minRatio·η at the last step; every stage needs a fixed
     * step count). The effective rate is logged per step as actor/lr. See lr-schedule.ts.
     */
    lrSchedule: LrScheduleConfig;
    /** AdamW β1, β2. */
    beta1: number;
    beta2: number;
    /** AdamW decoupled weight decay. */
    weightDecay: number;
    /** Max global grad norm, or null for no clipping. */
    gradClip: number | null;
    /**
     * K: stop the run after this many optimizer steps in a row were rejected as non-finite. A
     * step whose loss or global gradient norm is ±Inf or NaN is never applied (weights, AdamW
     * moments and AdamW's step count stay as they were; counted in actor/nonfinite_steps), so
     * one bad mini-batch is skipped; K in a row means the weights themselves now give non-finite
     * values and every later step would too: the run stops with an error naming the quantity,
     * the step and its last good checkpoint. Inert in a run whose steps are all finite. The
     * count is kept in memory: a resumed run counts from 0.
     */
    maxNonfiniteSteps: number;
  };
  eval: {
    /** Evaluate every this many steps (0 = never during training). */
    everySteps: number;
    /** k: samples per test problem (avg@k, pass@k, maj@k). */
    k: number;
    /** Sampling temperatures to evaluate at (paper: 1.0 and 0.6). */
    temperatures: number[];
    /** Test problems per evaluation (≤ data.testSize). */
    testProblems: number;
  };
  checkpoint: { /** Save every this many steps (0 = never). */ everySteps: number };
}

/** A partial RunConfig as accepted by validateRunConfig (arrays are given whole). */
export type DeepPartial<T> = T extends readonly (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;
export type RunConfigInput = DeepPartial<RunConfig>;

/** Convergence rule defaults, merged under a partial `convergence` object. */
export const DEFAULT_CONVERGENCE: ConvergenceRule = { window: 20, minImprovement: 0.01, maxSteps: 400 };

/** Fields a partial stage does not give; maxResponseLength has no default (required), klBeta is optional. */
export const STAGE_TEMPLATE = {
  maxResponseLength: undefined,
  steps: null,
  convergence: null,
  batchPrompts: null,
  groupSize: null,
  temperature: null,
  klBeta: undefined,
} as unknown as StageConfig;

/** The MAGIC recipe at lab scale; the base every other preset and every partial config merges over. */
export const DEFAULT_RUN_CONFIG: RunConfig = {
  seed: 1,
  // vocabSize is the character tokenizer's (24 tokens).
  model: { ...DEFAULT_MODEL_CONFIG, vocabSize: VOCAB_SIZE },
  data: {
    families: ['addition', 'countdown', 'arith'],
    difficulty: 2,
    testDifficulty: undefined,
    // Lab scale: a step (16 prompts × 8 responses) takes seconds on a laptop GPU and ~10 s on a CPU.
    trainSize: 1024,
    testSize: 256,
    // N = 16 as the paper's math filter. Tuned (reports/tuning/, seeds 201–204): N = 4 dropped 500 of
    // 1024 prompts as solved 0/4, many of them learnable; N = 16 gained +2.2 [−0.2, +4.6] points of
    // held-out avg@8 over N = 4, and +3.4 [+2.1, +4.8] together with the 0.1 target below.
    offlineFilter: { enabled: true, samples: 16 },
    onlineFilter: true,
  },
  rollout: { temperature: 1.0, topP: 1.0, groupSize: 8, batchPrompts: 16 }, // paper: 256 × 16
  // Two stages with a raised length, as 8K → 16K in the paper; prompt + response must fit 64.
  // Fixed step counts keep ablations at equal compute. Tuned with sweeps (reports/tuning/ round 12,
  // seeds 201–212): 200 + 200 steps gain +1.3 [+0.6, +2.0] points of held-out avg@8 at τ = 1.0 over
  // 100 + 100 (n = 12; within noise at τ = 0.6); a shorter first stage (50 + 150) lost −0.6 [−1.2, −0.1].
  stages: [
    { ...STAGE_TEMPLATE, maxResponseLength: 24, steps: 200 },
    { ...STAGE_TEMPLATE, maxResponseLength: 40, steps: 200 },
  ],
  loss: {
    epsLow: 0.2,
    epsHigh: 0.2,
    dualClip: null,
    aggregation: 'token-mean',
    entropy: {
      mode: 'adaptive',
      // Tuned with sweeps (reports/tuning/, seeds 201–204, 200-step runs): held-out gain fell with a
      // higher target — 0.2: −5.5 [−6.7, −4.4] points vs 0.15; 0.1: +2.3 [+0.7, +4.0]; 0.05: +3.3
      // [+0.9, +5.6] — and with the 16-sample filter 0.1 and 0.05 end equal; 0.1 keeps the controller
      // acting (this base starts at 0.21–0.24 nats at τ = 1; the paper's 0.2 is for its models).
      target: 0.1,
      // The paper text's Δ. The released 1e-4 moves c by 0.04 in a 400-step run: nothing at this scale.
      delta: 5e-3,
      cMin: 0,
      // c ≈ 0.3 still let e_k sink to 0.8·target (10-step mean); c ≈ 0.5–1 holds it at the target.
      cMax: 2,
      // Starts where holding needs it (paper: c_0 = 0): ramping from 0 by Δ takes ~150 steps, most
      // of a stage. While e_k ≥ target α = 0 and c decays by Δ, so c_0 only matters at the first dip.
      c0: 1,
      // α of 'constant' mode; inert here (adaptive). The const-entropy-small/-large presets set their own.
      constantCoef: 0.01,
      gate: 'current',
      // Exact mean H_t over the kept batch (see RunConfig.loss.entropy), as verl logs actor/entropy.
      // Compared by sweep (reports/tuning/round-5, seeds 201–204): the sampled estimate holds the target
      // no better (sampled − exact RMS distance −0.002 [−0.009, +0.005] nats: within noise) nor gains more (−0.5 [−1.4, +0.5] points).
      // Caveat: with target 0.1 entropy sits near 0.2 and drops below the target on ~3% of steps.
      estimator: 'exact',
    },
    kl: { beta: 0, type: 'k3' },
    advantageStd: true,
  },
  rejection: { mode: 'drop', maxRefillRounds: 3 },
  truncation: { mode: 'none' },
  update: {
    miniBatches: 1,
    reuseEpochs: 1,
    microBatchRows: null,
    // Tuned with sweeps (reports/tuning/ rounds 6–7, seeds 201–208, 200-step runs; the paper's 1e-6 is
    // for 7B): 6e-4 − 3e-4 = +0.7 [+0.0, +1.4] points of held-out gain at τ = 1.0 (n = 8; the same
    // +0.7 [+0.0, +1.4] against recipe v1 in round 1), −0.6 [−1.6, +0.4] at τ = 0.6 (within noise);
    // 1e-3 is worse than 3e-4 (−2.0 [−2.8, −1.2], n = 4).
    lr: 6e-4,
    lrSchedule: { ...CONSTANT_LR },
    beta1: 0.9,
    beta2: 0.999,
    weightDecay: 0.01,
    gradClip: 1.0,
    // Skip one or two bad mini-batches; a third in a row stops the run (see RunConfig.update).
    maxNonfiniteSteps: 3,
  },
  eval: { everySteps: 20, k: 8, temperatures: [1.0, 0.6], testProblems: 64 },
  checkpoint: { everySteps: 20 },
};

/** Shrinks a config for fast tests: tiny model, 2 prompts × 4 responses, 2 stages of 2 steps. */
export const TINY_OVERLAY: RunConfigInput = {
  model: { vocabSize: VOCAB_SIZE, contextLength: 64, dModel: 16, nLayers: 1, nHeads: 2 },
  // The offline filter is off: a tiny untrained model solves nothing and it would empty the set.
  // Difficulty 1 keeps correct responses (~10-14 tokens) inside the tiny stage lengths, so a
  // warm-started tiny policy (public/checkpoints/base-tiny.mlck) earns non-zero rewards.
  data: { difficulty: 1, trainSize: 16, testSize: 8, offlineFilter: { enabled: false, samples: 4 } },
  rollout: { batchPrompts: 2, groupSize: 4 },
  stages: [
    { maxResponseLength: 16, steps: 2 },
    { maxResponseLength: 24, steps: 2 },
  ],
  eval: { everySteps: 2, k: 2, testProblems: 4 },
  checkpoint: { everySteps: 2 },
};
