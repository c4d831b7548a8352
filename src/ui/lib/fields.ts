/**
 * Metadata for every RunConfig field the config panel shows: the paper's group, a label and a
 * one-line explanation (shown on hover). The symbol and the input (its kind and bounds) come from
 * the field's rule in rl/config (rules.ts), the same one the validator checks, so the page never
 * offers a bound the config does not have. The stage schedule has its own editor (StageEditor);
 * everything else is listed here.
 */
import { fieldRule, TASK_FAMILIES, type FieldRule } from '../../rl/config';

export type FieldKind =
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'number'; min?: number; max?: number; step?: number }
  /** A number or null (off): an empty input means null. */
  | { kind: 'nullable-number'; min?: number; step?: number }
  | { kind: 'bool' }
  | { kind: 'select'; options: readonly string[] }
  | { kind: 'families' }
  | { kind: 'number-list' };

export type FieldGroup = 'run' | 'data' | 'strategy' | 'loss' | 'entropy' | 'eval' | 'model';

export interface FieldMeta {
  /** Dotted path into RunConfig. */
  path: string;
  group: FieldGroup;
  /** Paper symbol (or short name). */
  symbol: string;
  label: string;
  /** One-line explanation (title attribute). */
  help: string;
  input: FieldKind;
}

export const GROUP_TITLES: Record<FieldGroup, string> = {
  run: 'Run',
  data: 'Data',
  strategy: 'Training strategy',
  loss: 'Loss (Eq. 3.1)',
  entropy: 'Adaptive entropy control (Eq. 3.2)',
  eval: 'Evaluation & checkpoints',
  model: 'Policy model',
};

export const GROUP_ORDER: readonly FieldGroup[] = ['run', 'data', 'strategy', 'loss', 'entropy', 'eval', 'model'];

/**
 * A field's input from its rule. An input's min/max are inclusive, so an open bound (τ > 0) gives
 * the first value a step inside it (0.05 for τ with step 0.05), or none without a step; a bound that
 * depends on other fields (c_max ≥ c_min) gives its static floor, and a max that other fields
 * lower (mini-batches ≤ G) none.
 */
export function inputFor(rule: FieldRule, step?: number): FieldKind {
  switch (rule.kind) {
    case 'int':
      return { kind: 'int', min: rule.min, max: rule.crossMax === undefined ? rule.max : undefined };
    case 'number': {
      const inside = (bound: number | undefined, open: boolean | undefined, dir: 1 | -1) => (bound === undefined || !open ? bound : step === undefined ? undefined : bound + dir * step);
      const min = inside(rule.min, rule.minOpen, 1);
      return rule.nullable ? { kind: 'nullable-number', min, step } : { kind: 'number', min, max: inside(rule.max, rule.maxOpen, -1), step };
    }
    case 'bool':
      return { kind: 'bool' };
    case 'enum':
      return { kind: 'select', options: rule.options };
    case 'list':
      return rule.of.kind === 'enum' ? { kind: 'families' } : { kind: 'number-list' };
  }
}

const f = (path: string, group: FieldGroup, label: string, help: string, step?: number): FieldMeta => {
  const rule = fieldRule(path);
  if (rule === undefined) throw new Error(`${path}: no such RunConfig field`);
  return { path, group, symbol: rule.symbol, label, help, input: inputFor(rule, step) };
};

export const CONFIG_FIELDS: readonly FieldMeta[] = [
  f('seed', 'run', 'Seed', 'Seed of every random stream of the run (data, init, sampling, shuffles); same seed + config = same run.'),

  f('data.families', 'data', 'Task families', 'Task families mixed into the training and test sets (mixing diverse sources helps stability).'),
  f('data.difficulty', 'data', 'Difficulty', 'Task difficulty level 1 (easiest) … 5, mapped to operand sizes by the generators.'),
  f('data.trainSize', 'data', 'Train prompts', 'Training prompts generated before filtering.'),
  f('data.testSize', 'data', 'Test prompts', 'Held-out test prompts (decontaminated against the train set).'),
  f('data.offlineFilter.enabled', 'data', 'Offline filter', 'Offline filter: sample N responses per prompt from the base model at τ = 1 and drop prompts solved 0/N or N/N.'),
  f('data.offlineFilter.samples', 'data', 'Offline samples', 'N: samples per prompt for the offline filter (paper: 16 for math, 8 for code).'),
  f('data.onlineFilter', 'data', 'Online filter', 'Online filter: at each stage start, drop prompts solved in every rollout of the previous stage.'),
  f('rejection.mode', 'data', 'Rejection sampling', 'Zero-advantage groups (all rewards equal): drop (MAGIC), refill with fresh rollouts (DAPO dynamic sampling) or keep (off).'),
  f('rejection.maxRefillRounds', 'data', 'Max refill rounds', "Cap on extra rollout rounds per step in 'refill' mode."),

  f('rollout.temperature', 'strategy', 'Temperature', 'τ: rollout sampling temperature (MAGIC: 1.0; 0.6 starts near-zero entropy and stalls).', 0.05),
  f('rollout.topP', 'strategy', 'Top-p', 'Nucleus sampling mass (1.0 = off, as in the paper).', 0.01),
  f('rollout.groupSize', 'strategy', 'Group size', 'G (M in Eq. 3.1): responses sampled per prompt; advantages are normalised within a group.'),
  f('rollout.batchPrompts', 'strategy', 'Batch prompts', 'D_R: prompts per rollout batch (stages may override).'),
  f('truncation.mode', 'strategy', 'Truncated responses', "Truncated responses: 'none' = reward 0 counts (MAGIC); Adv-Mask-Before / -After zero their advantage."),
  f('update.miniBatches', 'strategy', 'Mini-batches', 'D_R / D_T: optimizer steps per rollout batch; > 1 is off-policy (N_SGD = mini-batches × reuse). The kept responses are shuffled and split into exactly this many equal parts, whatever rejection keeps. At most G.'),
  f('update.microBatchRows', 'strategy', 'Micro-batch rows', "verl's ppo_micro_batch_size_per_gpu: rows per engine call; a mini-batch's gradients accumulate over its micro-batches into one optimizer step (same step, less memory). Empty = the whole mini-batch in one call."),
  f('update.reuseEpochs', 'strategy', 'Reuse epochs', 'N_reuse: passes over each rollout batch; MAGIC is on-policy (1).'),
  f('update.lr', 'strategy', 'Learning rate', 'AdamW peak learning rate (paper 1e-6 at 7B; a tiny char model needs ~1e-4…1e-3); the schedule below scales it step by step.', 1e-5),
  f('update.lrSchedule.mode', 'strategy', 'LR schedule', "η over the run: 'constant' (verl's default) or 'cosine' (half a cosine down to the floor at the last step; needs fixed-length stages). Logged as actor/lr."),
  f('update.lrSchedule.warmupSteps', 'strategy', 'LR warmup steps', 'Linear warmup: η·k/W over the first W RL steps (0 = none).'),
  f('update.lrSchedule.minRatio', 'strategy', 'LR floor', "Cosine only: the fraction of η reached at the last step (verl's min_lr_ratio).", 0.01),
  f('update.beta1', 'strategy', 'Adam β₁', 'AdamW first-moment decay.', 0.001),
  f('update.beta2', 'strategy', 'Adam β₂', 'AdamW second-moment decay.', 0.0001),
  f('update.weightDecay', 'strategy', 'Weight decay', 'AdamW decoupled weight decay (paper: 0.01).', 0.001),
  f('update.gradClip', 'strategy', 'Grad clip', 'Max global gradient norm (paper: 1.0); empty = no clipping.', 0.1),
  f('update.maxNonfiniteSteps', 'strategy', 'Max non-finite steps', 'K: a step whose loss or gradient norm is not finite is skipped (weights and AdamW state untouched, counted in actor/nonfinite_steps); after K such steps in a row the run stops as diverged.'),

  f('loss.epsLow', 'loss', 'Clip low', 'ε_low: the ratio ρ is clipped below at 1 − ε_low (paper: 0.2).', 0.01),
  f('loss.epsHigh', 'loss', 'Clip high', 'ε_high: ρ clipped above at 1 + ε_high; > ε_low is "clip-higher" (0.28 blew entropy up in the paper).', 0.01),
  f('loss.dualClip', 'loss', 'Dual clip', 'Dual-clip constant c > 1 bounding negative-advantage losses; empty = off (as released).', 0.5),
  f('loss.aggregation', 'loss', 'Aggregation', "Loss aggregation: 'token-mean' over all batch tokens (1/T_k, MAGIC) or per-sequence mean (GRPO, biases length)."),
  f('loss.advantageStd', 'loss', 'Std-normalise A', 'Divide advantages by the group std (GRPO); off = Dr. GRPO centring only.'),
  f('loss.kl.beta', 'loss', 'KL β', 'β: KL(π_θ‖π_ref) penalty weight (0 = off, no reference model; 1e-3 stalled stage-2 gains). A stage may set its own β; π_ref = the policy at the start of the first stage with β > 0.', 1e-4),
  f('loss.kl.type', 'loss', 'KL estimator', 'KL estimator: k1, k3 (paper ablation) or low-variance KL.'),

  f('loss.entropy.mode', 'entropy', 'Entropy term', "Entropy term α_k·H_t: 'adaptive' (MAGIC, Eq. 3.2), 'constant' α, or 'off'."),
  f('loss.entropy.target', 'entropy', 'Target entropy', 'tgt-ent: the controller raises c while the batch entropy e_k is below this (nats).', 0.01),
  f('loss.entropy.delta', 'entropy', 'Step Δ', 'Δ: change of c per update (released 1e-4, paper text 5e-3).', 1e-4),
  f('loss.entropy.cMin', 'entropy', 'c min', 'c_min: lower clamp of the coefficient c.', 1e-3),
  f('loss.entropy.cMax', 'entropy', 'c max', 'c_max: upper clamp of the coefficient c (released 5e-3).', 1e-3),
  f('loss.entropy.c0', 'entropy', 'c₀', 'c_0: initial coefficient.', 1e-3),
  f('loss.entropy.constantCoef', 'entropy', 'Constant α', "α in 'constant' mode (small → still collapses, large → entropy explodes).", 1e-3),
  f('loss.entropy.estimator', 'entropy', 'Entropy estimate', "e_k the controller sees, over the kept batch before the update: 'exact' mean entropy H_t of the rollout distribution (actor/entropy) or 'sampled' −mean log π of the sampled tokens (actor/entropy_sampled)."),
  f('loss.entropy.gate', 'entropy', 'Gate', "On/off gate: 'current' gates on e_k (paper), 'lagged' on e_{k−1} (released code)."),

  f('eval.everySteps', 'eval', 'Eval every', 'Evaluate on the held-out set every this many steps (0 = never during training).'),
  f('eval.k', 'eval', 'Samples k', 'k: samples per test problem for avg@k, pass@k (unbiased) and maj@k.'),
  f('eval.temperatures', 'eval', 'Eval temperatures', 'Sampling temperatures to evaluate at, comma-separated (paper: 1.0 and 0.6).'),
  f('eval.testProblems', 'eval', 'Test problems', 'Test problems per evaluation (≤ test prompts).'),
  f('checkpoint.everySteps', 'eval', 'Checkpoint every', 'Save a checkpoint (kept in this browser) every this many steps (0 = never).'),

  f('model.nLayers', 'model', 'Layers', 'L: transformer blocks.'),
  f('model.dModel', 'model', 'Width', 'C: residual-stream width (a multiple of H).'),
  f('model.nHeads', 'model', 'Heads', 'H: attention heads; head size C / H.'),
  f('model.mlpRatio', 'model', 'MLP ratio', 'MLP hidden width = ratio · C.'),
  f('model.contextLength', 'model', 'Context', 'T: max sequence length (prompt + response).'),
  f('model.vocabSize', 'model', 'Vocab', 'V: vocabulary size (the char tokenizer has exactly 24 tokens).'),
  f('model.norm', 'model', 'Norm', 'Pre-norm flavour.'),
  f('model.tiedEmbeddings', 'model', 'Tied embeddings', 'Logits use the token-embedding table (no separate head).'),
];

export const ALL_FAMILIES = TASK_FAMILIES;

/** Value at a dotted path. */
export function getPath(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** A structural copy of obj with the value at path replaced (the input is not modified). */
export function setPath<T>(obj: T, path: string, value: unknown): T {
  const keys = path.split('.');
  const rec = (o: unknown, i: number): unknown => {
    const src = (o ?? {}) as Record<string, unknown>;
    if (i === keys.length - 1) return { ...src, [keys[i]]: value };
    return { ...src, [keys[i]]: rec(src[keys[i]], i + 1) };
  };
  return rec(obj, 0) as T;
}
