/**
 * RunConfig: every knob of a MAGIC Lab training run in ONE documented type, its validation
 * (deep-merge over defaults, unknown fields rejected, one ConfigError naming the field path),
 * the presets (MAGIC recipe, vanilla GRPO, one per paper ablation, each with a -tiny twin for
 * fast tests), JSON round trip and a compact URL encoding of a config as a diff to its preset.
 *
 * Symbols follow the Skywork-OR1 report (see shared/MAGIC-RECIPE.md).
 * Values marked "provisional" must be tuned at this tiny scale: tuned by measurement in
 * BENCHMARKS.md.
 */
import { ConfigError, DEFAULT_MODEL_CONFIG, validateModelConfig, type ModelConfig } from '../model/config';
import type { TruncationMode } from './advantage';
import type { LossAggregation } from './aggregation';
import type { EntropyControlConfig } from './entropy';
import { CONSTANT_LR, type LrScheduleConfig } from './lr-schedule';
import type { KlType } from '../gpu/kernels/loss';
import type { RejectionMode } from './rejection';
import type { ConvergenceRule } from './stages';
import { buildDataset, maxPromptTokens, VOCAB_SIZE, type Dataset } from '../tasks';

export type TaskFamily = 'addition' | 'countdown' | 'arith';
export const TASK_FAMILIES: readonly TaskFamily[] = ['addition', 'countdown', 'arith'];

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
const STAGE_TEMPLATE = {
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
const TINY_OVERLAY: RunConfigInput = {
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

// ---------------------------------------------------------------------------------------------
// Validation

type Rec = Record<string, unknown>;
const isObj = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

// NaN is what an emptied number field in the page reports: say so, not "got NaN".
// Shortened (a field may hold a megabyte of junk: the message stays one readable line); a value JSON cannot write says its type.
const describe = (v: unknown): string => {
  if (v === undefined) return 'nothing';
  if (typeof v === 'number') return Number.isNaN(v) ? 'an empty field' : String(v);
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  // Too deeply nested for JSON.stringify's recursion, or a function / symbol / bigint.
  if (text === undefined) return Array.isArray(v) ? 'a deeply nested array' : `a ${typeof v === 'object' ? 'deeply nested object' : typeof v}`;
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (isObj(v)) {
    const out: Rec = {};
    for (const k of Object.keys(v)) out[k] = clone(v[k]);
    return out as T;
  }
  return v;
}

/** Path with array indices replaced by [] to look up templates: stages[2].convergence → stages[].convergence. */
const pattern = (path: string) => path.replace(/\[\d+\]/g, '[]');
const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

/** An unknown key as a field path: quoted when it is not a plain name (`loss[""]`, `["a b"]`), shortened when long. */
function unknownKey(path: string, k: string): string {
  if (/^[A-Za-z_$][\w$]{0,63}$/.test(k)) return join(path, k);
  const q = JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k);
  return `${path}[${q}]`;
}

/** Array elements merge over these (a partial stage gets the template's nulls). */
const ELEMENT_TEMPLATES: Record<string, unknown> = { 'stages[]': STAGE_TEMPLATE };
/** Fields that are null or an object; a partial object merges over the base's or this default. */
const NULLABLE_OBJECTS: Record<string, unknown> = { 'stages[].convergence': DEFAULT_CONVERGENCE };

/**
 * Deep merge: objects merge key by key (unknown keys rejected), arrays replace whole (their
 * elements merge over a template when there is one), nullable objects accept null or a
 * partial, leaves take the input as given (checked afterwards).
 */
function merge(base: unknown, input: unknown, path: string): unknown {
  if (input === undefined) return clone(base);
  const pat = pattern(path);
  if (pat in NULLABLE_OBJECTS) {
    if (input === null) return null;
    if (!isObj(base)) base = NULLABLE_OBJECTS[pat];
  }
  if (isObj(base)) {
    if (!isObj(input)) throw new ConfigError(path, `must be an object, got ${describe(input)}`);
    for (const k of Object.keys(input)) {
      if (!Object.prototype.hasOwnProperty.call(base, k)) throw new ConfigError(unknownKey(path, k), `unknown field (known: ${Object.keys(base).join(', ')})`);
    }
    const out: Rec = {};
    for (const k of Object.keys(base)) out[k] = merge(base[k], input[k], join(path, k));
    return out;
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(input)) throw new ConfigError(path, `must be an array, got ${describe(input)}`);
    const tpl = ELEMENT_TEMPLATES[`${pat}[]`];
    return input.map((el, i) => (tpl === undefined ? el : merge(tpl, el, `${path}[${i}]`)));
  }
  // Leaves (and the elements of template-less arrays) are numbers, strings, booleans or null: taken
  // as given, not cloned, so an object nested 100,000 deep where a number goes is refused by the
  // checks instead of overflowing the stack here.
  return input;
}

interface Range {
  min?: number;
  max?: number;
  /** Exclusive bounds. */
  minOpen?: boolean;
  maxOpen?: boolean;
  int?: boolean;
}

function rangeText(r: Range): string {
  const lo = r.min ?? -Infinity;
  const hi = r.max ?? Infinity;
  const kind = r.int ? 'an integer ' : '';
  if (hi === Infinity) return `must be ${kind}${r.minOpen ? '>' : '≥'} ${lo}`;
  if (lo === -Infinity) return `must be ${kind}${r.maxOpen ? '<' : '≤'} ${hi}`;
  return `must be ${kind}in ${r.minOpen ? '(' : '['}${lo}, ${hi}${r.maxOpen ? ')' : ']'}`;
}

function num(v: unknown, path: string, r: Range): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new ConfigError(path, `must be ${r.int ? 'an integer' : 'a finite number'}, got ${describe(v)}`);
  }
  const lo = r.min ?? -Infinity;
  const hi = r.max ?? Infinity;
  const bad = (r.int && !Number.isInteger(v)) || v < lo || v > hi || (r.minOpen && v === lo) || (r.maxOpen && v === hi);
  if (bad) throw new ConfigError(path, `${rangeText(r)}, got ${v}`);
  return v;
}

const int = (v: unknown, path: string, min: number, max = Infinity) => num(v, path, { min, max, int: true });
const nullable = <T>(v: unknown, check: (v: unknown) => T): T | null => (v === null ? null : check(v));

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new ConfigError(path, `must be true or false, got ${describe(v)}`);
  return v;
}

function oneOf<T extends string>(v: unknown, path: string, options: readonly T[]): T {
  if (typeof v !== 'string' || !options.includes(v as T)) {
    throw new ConfigError(path, `must be one of ${options.map((o) => `"${o}"`).join(', ')}, got ${describe(v)}`);
  }
  return v as T;
}

const MAX_TEMPERATURE = 10;
const temperature = (v: unknown, path: string) => num(v, path, { min: 0, max: MAX_TEMPERATURE, minOpen: true });

/** Field checks and cross-field constraints on a merged config (throws the first failure). */
function check(c: RunConfig): void {
  int(c.seed, 'seed', 0, 0xffffffff);

  try {
    c.model = validateModelConfig(c.model);
  } catch (e) {
    if (e instanceof ConfigError && !e.field.startsWith('model')) {
      throw new ConfigError(`model.${e.field}`, e.message.slice(e.field.length + 2));
    }
    throw e;
  }
  const ctx = c.model.contextLength;
  if (c.model.vocabSize !== VOCAB_SIZE) {
    throw new ConfigError('model.vocabSize', `must be ${VOCAB_SIZE}, the character tokenizer's vocabulary size, got ${c.model.vocabSize}`);
  }

  const d = c.data;
  if (!Array.isArray(d.families) || d.families.length === 0) throw new ConfigError('data.families', `must be a non-empty array, got ${describe(d.families)}`);
  d.families.forEach((f, i) => {
    oneOf(f, `data.families[${i}]`, TASK_FAMILIES);
    if (d.families.indexOf(f) !== i) throw new ConfigError(`data.families[${i}]`, `duplicate family "${f}"`);
  });
  // 5 is the hardest level every family supports (countdown's maximum).
  int(d.difficulty, 'data.difficulty', 1, 5);
  int(d.trainSize, 'data.trainSize', 1, 1_000_000);
  int(d.testSize, 'data.testSize', 1, 1_000_000);
  bool(d.offlineFilter.enabled, 'data.offlineFilter.enabled');
  int(d.offlineFilter.samples, 'data.offlineFilter.samples', 2, 1024);
  bool(d.onlineFilter, 'data.onlineFilter');

  const r = c.rollout;
  temperature(r.temperature, 'rollout.temperature');
  num(r.topP, 'rollout.topP', { min: 0, max: 1, minOpen: true });
  int(r.groupSize, 'rollout.groupSize', 2, 1024);
  int(r.batchPrompts, 'rollout.batchPrompts', 1, 100_000);

  if (!Array.isArray(c.stages) || c.stages.length === 0) throw new ConfigError('stages', `must be a non-empty array, got ${describe(c.stages)}`);
  if (c.stages.length > 16) throw new ConfigError('stages', `at most 16 stages, got ${c.stages.length}`);
  c.stages.forEach((s, i) => {
    const p = `stages[${i}]`;
    // A response needs at least one prompt token in front of it; the trainer checks the exact prompt length.
    int(s.maxResponseLength, `${p}.maxResponseLength`, 1, ctx - 1);
    const prompt = maxPromptTokens(d.families, d.difficulty);
    if (prompt + s.maxResponseLength > ctx) {
      throw new ConfigError(
        `${p}.maxResponseLength`,
        `${s.maxResponseLength} plus the longest prompt (${prompt} tokens at difficulty ${d.difficulty}) exceeds model.contextLength ${ctx}`,
      );
    }
    nullable(s.steps, (v) => int(v, `${p}.steps`, 1, 1_000_000));
    if (s.convergence !== null) {
      const cv = s.convergence;
      int(cv.window, `${p}.convergence.window`, 1, 10_000);
      num(cv.minImprovement, `${p}.convergence.minImprovement`, { min: 0, max: 1 });
      int(cv.maxSteps, `${p}.convergence.maxSteps`, 2 * cv.window, 1_000_000);
    }
    if ((s.steps === null) === (s.convergence === null)) {
      throw new ConfigError(p, 'set exactly one of "steps" and "convergence"');
    }
    nullable(s.batchPrompts, (v) => int(v, `${p}.batchPrompts`, 1, 100_000));
    nullable(s.groupSize, (v) => int(v, `${p}.groupSize`, 2, 1024));
    nullable(s.temperature, (v) => temperature(v, `${p}.temperature`));
    // Optional: absent (or null, normalised to absent) means loss.kl.beta.
    if (s.klBeta === undefined || s.klBeta === null) delete s.klBeta;
    else num(s.klBeta, `${p}.klBeta`, { min: 0, max: 100 });
  });

  const l = c.loss;
  num(l.epsLow, 'loss.epsLow', { min: 0, max: 1, maxOpen: true });
  num(l.epsHigh, 'loss.epsHigh', { min: 0, max: 10 });
  nullable(l.dualClip, (v) => num(v, 'loss.dualClip', { min: 1, max: 100, minOpen: true }));
  oneOf(l.aggregation, 'loss.aggregation', ['token-mean', 'seq-mean-token-mean'] as const);
  const e = l.entropy;
  oneOf(e.mode, 'loss.entropy.mode', ['adaptive', 'constant', 'off'] as const);
  num(e.target, 'loss.entropy.target', { min: 0, max: 100, minOpen: true });
  num(e.delta, 'loss.entropy.delta', { min: 0, max: 10 });
  num(e.cMin, 'loss.entropy.cMin', { min: 0, max: 10 });
  num(e.cMax, 'loss.entropy.cMax', { min: e.cMin, max: 10 });
  // c_0 outside [c_min, c_max] starts clamped (initialEntropyState), so lowering c_max alone stays valid.
  num(e.c0, 'loss.entropy.c0', { min: 0, max: 10 });
  num(e.constantCoef, 'loss.entropy.constantCoef', { min: 0, max: 10 });
  oneOf(e.gate, 'loss.entropy.gate', ['current', 'lagged'] as const);
  oneOf(e.estimator, 'loss.entropy.estimator', ['exact', 'sampled'] as const);
  num(l.kl.beta, 'loss.kl.beta', { min: 0, max: 100 });
  oneOf(l.kl.type, 'loss.kl.type', ['k1', 'k3', 'low_var_kl'] as const);
  bool(l.advantageStd, 'loss.advantageStd');

  oneOf(c.rejection.mode, 'rejection.mode', ['drop', 'refill', 'off'] as const);
  int(c.rejection.maxRefillRounds, 'rejection.maxRefillRounds', 0, 100);
  oneOf(c.truncation.mode, 'truncation.mode', ['none', 'adv-mask-before', 'adv-mask-after'] as const);

  const u = c.update;
  int(u.miniBatches, 'update.miniBatches', 1, 100_000);
  int(u.reuseEpochs, 'update.reuseEpochs', 1, 100);
  num(u.lr, 'update.lr', { min: 0, max: 1, minOpen: true });
  const ls = u.lrSchedule;
  oneOf(ls.mode, 'update.lrSchedule.mode', ['constant', 'cosine'] as const);
  int(ls.warmupSteps, 'update.lrSchedule.warmupSteps', 0, 1_000_000);
  num(ls.minRatio, 'update.lrSchedule.minRatio', { min: 0, max: 1 });
  if (ls.mode === 'cosine') {
    const open = c.stages.findIndex((s) => s.steps === null);
    if (open >= 0) throw new ConfigError('update.lrSchedule.mode', `'cosine' needs the run's length, but stages[${open}] ends by convergence, not after fixed steps; use 'constant' or give every stage "steps"`);
  }
  num(u.beta1, 'update.beta1', { min: 0, max: 1, maxOpen: true });
  num(u.beta2, 'update.beta2', { min: 0, max: 1, maxOpen: true });
  num(u.weightDecay, 'update.weightDecay', { min: 0, max: 10 });
  nullable(u.gradClip, (v) => num(v, 'update.gradClip', { min: 0, max: 1e6, minOpen: true }));
  int(u.maxNonfiniteSteps, 'update.maxNonfiniteSteps', 1, 1_000_000);
  c.stages.forEach((_, i) => {
    // Rejection may keep a single group: its G responses must still fill every mini-batch.
    const g = resolveStage(c, i).groupSize;
    if (u.miniBatches > g) {
      throw new ConfigError('update.miniBatches', `must be at most the group size G of every stage (one kept group must fill every mini-batch); stages[${i}] has ${g}, got ${u.miniBatches}`);
    }
  });

  const ev = c.eval;
  int(ev.everySteps, 'eval.everySteps', 0, 1_000_000);
  int(ev.k, 'eval.k', 1, 1024);
  if (!Array.isArray(ev.temperatures) || ev.temperatures.length === 0) throw new ConfigError('eval.temperatures', `must be a non-empty array, got ${describe(ev.temperatures)}`);
  ev.temperatures.forEach((t, i) => temperature(t, `eval.temperatures[${i}]`));
  int(ev.testProblems, 'eval.testProblems', 1, d.testSize);
  int(c.checkpoint.everySteps, 'checkpoint.everySteps', 0, 1_000_000);
}

/**
 * Validates a (partial, untrusted) config and returns a complete, fresh one: `input` is
 * deep-merged over `base` (default: the MAGIC recipe); neither is modified.
 * Throws ONE ConfigError naming the first bad field, e.g. `loss.epsLow: must be in [0, 1), got -1`.
 */
export function validateRunConfig(input: unknown, base: RunConfig = DEFAULT_RUN_CONFIG): RunConfig {
  if (input === undefined || input === null) input = {};
  if (!isObj(input)) throw new ConfigError('config', `must be an object, got ${describe(input)}`);
  const merged = merge(base, input, '') as RunConfig;
  check(merged);
  return merged;
}

/** Stage i with the rollout defaults filled in. */
export interface ResolvedStage {
  index: number;
  maxResponseLength: number;
  steps: number | null;
  convergence: ConvergenceRule | null;
  batchPrompts: number;
  groupSize: number;
  temperature: number;
  topP: number;
  /** β of this stage (StageConfig.klBeta, else loss.kl.beta). */
  klBeta: number;
}

export function resolveStage(cfg: RunConfig, index: number): ResolvedStage {
  const s = cfg.stages[index];
  if (s === undefined) throw new RangeError(`no stage ${index} (the run has ${cfg.stages.length})`);
  return {
    index,
    maxResponseLength: s.maxResponseLength,
    steps: s.steps,
    convergence: s.convergence,
    batchPrompts: s.batchPrompts ?? cfg.rollout.batchPrompts,
    groupSize: s.groupSize ?? cfg.rollout.groupSize,
    temperature: s.temperature ?? cfg.rollout.temperature,
    topP: cfg.rollout.topP,
    klBeta: s.klBeta ?? cfg.loss.kl.beta,
  };
}

// ---------------------------------------------------------------------------------------------
// Presets

/** α of const-entropy-small / -large (why these values: the comment in PRESET_DEFS and docs/presets.md). */
export const CONST_ENTROPY_SMALL = 0.02;
export const CONST_ENTROPY_LARGE = 0.5;

const TINY_BASE = validateRunConfig(TINY_OVERLAY, DEFAULT_RUN_CONFIG);

/**
 * A preset = its base preset (null: the MAGIC defaults) + the change its finding is about, and
 * nothing else (tests/rl/config.test.ts diffs every preset against its base, -tiny twins too).
 * `diff` gets the validated base (full-size or its -tiny twin) and returns the change as a partial
 * config merged over it.
 */
interface PresetDef {
  base: string | null;
  diff: (base: RunConfig) => RunConfigInput;
}

const PRESET_DEFS: Record<string, PresetDef> = {
  // Paper's final recipe.
  magic: { base: null, diff: () => ({}) },
  // Vanilla GRPO: per-sequence mean, k3 KL β = 1e-3 (π_ref = the initial policy), no filtering, no entropy term, no rejection.
  grpo: {
    base: 'magic',
    diff: () => ({
      data: { offlineFilter: { enabled: false }, onlineFilter: false },
      loss: { aggregation: 'seq-mean-token-mean', kl: { beta: 1e-3, type: 'k3' }, entropy: { mode: 'off' } },
      rejection: { mode: 'off' },
    }),
  },
  // Finding 2: τ = 0.6 collapses entropy, τ = 1.0 wins later.
  'temp-0.6': { base: 'magic', diff: () => ({ rollout: { temperature: 0.6 } }) },
  // Finding 3: 4 mini-batches per rollout batch → exactly N_SGD = 4 optimizer steps per RL step
  // (D_T = a quarter of the kept responses, see update.miniBatches), off-policy after the first.
  'off-policy-nsgd4': { base: 'magic', diff: () => ({ update: { miniBatches: 4 } }) },
  // Finding 5: KL (k3, β = 1e-3) in the later stage only, where the paper saw it stall gains;
  // π_ref = the policy at that stage's start (StageConfig.klBeta).
  'kl-on': { base: 'magic', diff: (b) => ({ stages: b.stages.map((s, i) => (i === 0 ? s : { ...s, klBeta: 1e-3 })) }) },
  'adv-mask-before': { base: 'magic', diff: () => ({ truncation: { mode: 'adv-mask-before' } }) },
  'adv-mask-after': { base: 'magic', diff: () => ({ truncation: { mode: 'adv-mask-after' } }) },
  'no-rejection': { base: 'magic', diff: () => ({ rejection: { mode: 'off' } }) },
  // Finding 6: one stage at the final length for the same total steps.
  'single-stage': {
    base: 'magic',
    diff: (b) => ({ stages: [{ maxResponseLength: b.stages[b.stages.length - 1].maxResponseLength, steps: b.stages.reduce((a, s) => a + (s.steps ?? 0), 0) }] }),
  },
  // Finding 4: a constant α instead of adaptive control; small still collapses, large explodes.
  // MAGIC's controller holds the target with c ≈ 0.5–0.9 applied on ~3 steps in 10 (BENCHMARKS.md).
  // Checked with runs from the shipped base (seed 1; figures in docs/presets.md): a constant 0.1
  // levels off near the target; 0.5 (the lowest c used while holding, on every step) explodes
  // (0.26 → 0.85 nats in 50 steps) and 2 faster; 0.02 falls below the target in stage 1 (0.143 over
  // steps 76–100) but the longer stage 2 raised it again (mean 0.175) in that one 200-step run.
  'const-entropy-small': { base: 'magic', diff: () => ({ loss: { entropy: { mode: 'constant', constantCoef: CONST_ENTROPY_SMALL } } }) },
  'const-entropy-large': { base: 'magic', diff: () => ({ loss: { entropy: { mode: 'constant', constantCoef: CONST_ENTROPY_LARGE } } }) },
  // Finding 7: clip-higher matters off-policy (on-policy ρ ≡ 1 and the clip never acts), so both
  // are off-policy-nsgd4 (ε_high 0.2) with a moderate (0.25) and DAPO's (0.28) ε_high.
  'clip-high-0.25': { base: 'off-policy-nsgd4', diff: () => ({ loss: { epsHigh: 0.25 } }) },
  'clip-high-0.28': { base: 'off-policy-nsgd4', diff: () => ({ loss: { epsHigh: 0.28 } }) },
};

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as Rec)[k]);
    Object.freeze(v);
  }
  return v;
}


function buildPresets(): Record<string, RunConfig> {
  const out: Record<string, RunConfig> = {};
  // Definition order puts every base before the presets built on it.
  for (const [name, def] of Object.entries(PRESET_DEFS)) {
    const full = def.base === null ? DEFAULT_RUN_CONFIG : out[def.base];
    const tiny = def.base === null ? TINY_BASE : out[`${def.base}-tiny`];
    out[name] = deepFreeze(validateRunConfig(def.diff(full), full));
    out[`${name}-tiny`] = deepFreeze(validateRunConfig(def.diff(tiny), tiny));
  }
  return out;
}

/** Every preset, validated and deep-frozen (use getPreset for a mutable copy). */
export const PRESETS: Readonly<Record<string, RunConfig>> = Object.freeze(buildPresets());

export const DEFAULT_PRESET = 'magic';

export function presetNames(): string[] {
  return Object.keys(PRESETS);
}

/** The preset `name` is built on (its -tiny twin for a -tiny preset), or null for magic / magic-tiny. */
export function presetBase(name: string): string | null {
  const tiny = name.endsWith('-tiny');
  const def = Object.prototype.hasOwnProperty.call(PRESET_DEFS, tiny ? name.slice(0, -5) : name) ? PRESET_DEFS[tiny ? name.slice(0, -5) : name] : undefined;
  if (def === undefined) throw new ConfigError('preset', `unknown preset ${JSON.stringify(name)} (valid: ${presetNames().join(', ')})`);
  return def.base === null ? null : tiny ? `${def.base}-tiny` : def.base;
}

/** A fresh, mutable copy of a preset; throws a ConfigError listing the valid names. */
export function getPreset(name: string): RunConfig {
  const p = Object.prototype.hasOwnProperty.call(PRESETS, name) ? PRESETS[name] : undefined;
  if (p === undefined) throw new ConfigError('preset', `unknown preset ${JSON.stringify(name)} (valid: ${presetNames().join(', ')})`);
  return clone(p);
}

// ---------------------------------------------------------------------------------------------
// Serialisation

export function runConfigToJSON(cfg: RunConfig): string {
  return JSON.stringify(cfg, null, 2);
}

/** Parses and validates (fields missing from an older file take today's defaults). */
export function runConfigFromJSON(text: string): RunConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('config', `not valid JSON (${(e as Error).message})`);
  }
  return validateRunConfig(parsed);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Stage without the fields equal to the template (keeps URLs short). */
function compactStage(s: StageConfig): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(s)) if (!jsonEqual(v, (STAGE_TEMPLATE as unknown as Rec)[k])) out[k] = v;
  return out;
}

function diffLeaves(base: unknown, cur: unknown, path: string, out: [string, string][]): void {
  if (isObj(base) && isObj(cur)) {
    for (const k of Object.keys(cur)) diffLeaves(base[k], cur[k], join(path, k), out);
    return;
  }
  if (jsonEqual(base, cur)) return;
  if (path === 'stages') cur = (cur as StageConfig[]).map(compactStage);
  out.push([path, typeof cur === 'string' ? cur : JSON.stringify(cur)]);
}

/** Reserved URL parameter naming the preset the diff applies to. */
export const PRESET_PARAM = 'preset';

/**
 * `preset=<name>` plus one `dotted.path=value` per field that differs from the preset
 * (strings raw, everything else JSON; arrays whole). A config equal to its preset is just
 * `preset=<name>`.
 */
export function encodeConfigToUrlParams(cfg: RunConfig, presetName: string): URLSearchParams {
  const base = getPreset(presetName);
  const pairs: [string, string][] = [];
  diffLeaves(base, validateRunConfig(cfg, base), '', pairs);
  return new URLSearchParams([[PRESET_PARAM, presetName], ...pairs]);
}

function leafAt(base: unknown, keys: readonly string[]): unknown {
  let v = base;
  for (const k of keys) v = isObj(v) ? v[k] : undefined;
  return v;
}

/**
 * Inverse of encodeConfigToUrlParams; validates the result. Missing `preset` means "magic".
 * Parameters named in `ignore` belong to the page, not the config; any other unknown
 * parameter is an error, so a typo is never silently dropped.
 */
export function decodeConfigFromUrlParams(
  params: URLSearchParams | string,
  ignore: readonly string[] = [],
): { preset: string; config: RunConfig } {
  const p = typeof params === 'string' ? new URLSearchParams(params) : params;
  const presetValues = p.getAll(PRESET_PARAM);
  if (presetValues.length > 1) throw new ConfigError(PRESET_PARAM, 'given more than once');
  const preset = presetValues[0] ?? DEFAULT_PRESET;
  const base = getPreset(preset);
  const partial: Rec = {};
  const seen = new Set<string>();
  for (const [key, raw] of p) {
    if (key === PRESET_PARAM || ignore.includes(key)) continue;
    if (seen.has(key)) throw new ConfigError(key, 'given more than once');
    seen.add(key);
    const keys = key.split('.');
    if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype')) {
      throw new ConfigError(key, 'not a config field path');
    }
    let value: unknown = raw;
    if (typeof leafAt(base, keys) !== 'string') {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw; // validation reports it with the field name
      }
    }
    let node = partial;
    keys.slice(0, -1).forEach((k, i) => {
      if (!isObj(node[k])) {
        if (node[k] !== undefined) throw new ConfigError(keys.slice(0, i + 1).join('.'), 'given both as a value and as an object');
        node[k] = {};
      }
      node = node[k] as Rec;
    });
    const last = keys[keys.length - 1];
    if (node[last] !== undefined) throw new ConfigError(key, 'given both as a value and as an object');
    node[last] = value;
  }
  return { preset, config: validateRunConfig(partial, base) };
}

/** The train and held-out sets a run uses (deterministic from the seed and the data section). */
export function buildRunDataset(cfg: RunConfig): Dataset {
  const d = cfg.data;
  return buildDataset({ seed: cfg.seed, families: d.families, difficulty: d.difficulty, trainSize: d.trainSize, testSize: d.testSize });
}

/** The longest stage's response limit: evaluations and the offline filter sample at it, so they stay comparable across stages. */
/** RL steps of the whole schedule when every stage has a fixed step count; null when one ends by convergence. */
export function fixedRunSteps(cfg: RunConfig): number | null {
  return cfg.stages.every((s) => s.steps !== null) ? cfg.stages.reduce((a, s) => a + (s.steps ?? 0), 0) : null;
}

export function longestResponseLength(cfg: RunConfig): number {
  return Math.max(...cfg.stages.map((s) => s.maxResponseLength));
}
