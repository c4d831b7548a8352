/**
 * Metadata for every RunConfig field the config panel shows: the paper's group and symbol, a
 * one-line explanation (shown on hover) and the input kind. The stage schedule has its own
 * editor (StageEditor); everything else is listed here.
 */
import { TASK_FAMILIES } from '../../rl/config';

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

const f = (path: string, group: FieldGroup, symbol: string, label: string, help: string, input: FieldKind): FieldMeta => ({ path, group, symbol, label, help, input });

export const CONFIG_FIELDS: readonly FieldMeta[] = [
  f('seed', 'run', 'seed', 'Seed', 'Seed of every random stream of the run (data, init, sampling, shuffles); same seed + config = same run.', { kind: 'int', min: 0, max: 0xffffffff }),

  f('data.families', 'data', 'families', 'Task families', 'Task families mixed into the training and test sets (mixing diverse sources helps stability).', { kind: 'families' }),
  f('data.difficulty', 'data', 'level', 'Difficulty', 'Task difficulty level 1 (easiest) … 5, mapped to operand sizes by the generators.', { kind: 'int', min: 1, max: 5 }),
  f('data.trainSize', 'data', '|D|', 'Train prompts', 'Training prompts generated before filtering.', { kind: 'int', min: 1 }),
  f('data.testSize', 'data', '|D_test|', 'Test prompts', 'Held-out test prompts (decontaminated against the train set).', { kind: 'int', min: 1 }),
  f('data.offlineFilter.enabled', 'data', 'offline', 'Offline filter', 'Offline filter: sample N responses per prompt from the base model at τ = 1 and drop prompts solved 0/N or N/N.', { kind: 'bool' }),
  f('data.offlineFilter.samples', 'data', 'N', 'Offline samples', 'N: samples per prompt for the offline filter (paper: 16 for math, 8 for code).', { kind: 'int', min: 2 }),
  f('data.onlineFilter', 'data', 'online', 'Online filter', 'Online filter: at each stage start, drop prompts solved in every rollout of the previous stage.', { kind: 'bool' }),
  f('rejection.mode', 'data', 'rejection', 'Rejection sampling', 'Zero-advantage groups (all rewards equal): drop (MAGIC), refill with fresh rollouts (DAPO dynamic sampling) or keep (off).', { kind: 'select', options: ['drop', 'refill', 'off'] }),
  f('rejection.maxRefillRounds', 'data', 'refill', 'Max refill rounds', "Cap on extra rollout rounds per step in 'refill' mode.", { kind: 'int', min: 0, max: 100 }),

  f('rollout.temperature', 'strategy', 'τ', 'Temperature', 'τ: rollout sampling temperature (MAGIC: 1.0; 0.6 starts near-zero entropy and stalls).', { kind: 'number', min: 0.05, max: 10, step: 0.05 }),
  f('rollout.topP', 'strategy', 'top-p', 'Top-p', 'Nucleus sampling mass (1.0 = off, as in the paper).', { kind: 'number', min: 0.01, max: 1, step: 0.01 }),
  f('rollout.groupSize', 'strategy', 'G', 'Group size', 'G (M in Eq. 3.1): responses sampled per prompt; advantages are normalised within a group.', { kind: 'int', min: 2 }),
  f('rollout.batchPrompts', 'strategy', 'D_R', 'Batch prompts', 'D_R: prompts per rollout batch (stages may override).', { kind: 'int', min: 1 }),
  f('truncation.mode', 'strategy', 'trunc', 'Truncated responses', "Truncated responses: 'none' = reward 0 counts (MAGIC); Adv-Mask-Before / -After zero their advantage.", { kind: 'select', options: ['none', 'adv-mask-before', 'adv-mask-after'] }),
  f('update.miniBatches', 'strategy', 'D_R/D_T', 'Mini-batches', 'D_R / D_T: optimizer steps per rollout batch; > 1 is off-policy (N_SGD = mini-batches × reuse). The kept responses are shuffled and split into exactly this many equal parts, whatever rejection keeps. At most G.', { kind: 'int', min: 1 }),
  f('update.reuseEpochs', 'strategy', 'N_reuse', 'Reuse epochs', 'N_reuse: passes over each rollout batch; MAGIC is on-policy (1).', { kind: 'int', min: 1, max: 100 }),
  f('update.lr', 'strategy', 'η', 'Learning rate', 'AdamW peak learning rate (paper 1e-6 at 7B; a tiny char model needs ~1e-4…1e-3); the schedule below scales it step by step.', { kind: 'number', min: 1e-7, max: 1, step: 1e-5 }),
  f('update.lrSchedule.mode', 'strategy', 'η(k)', 'LR schedule', "η over the run: 'constant' (verl's default) or 'cosine' (half a cosine down to the floor at the last step; needs fixed-length stages). Logged as actor/lr.", { kind: 'select', options: ['constant', 'cosine'] }),
  f('update.lrSchedule.warmupSteps', 'strategy', 'W', 'LR warmup steps', 'Linear warmup: η·k/W over the first W RL steps (0 = none).', { kind: 'int', min: 0, max: 1_000_000 }),
  f('update.lrSchedule.minRatio', 'strategy', 'η_min/η', 'LR floor', "Cosine only: the fraction of η reached at the last step (verl's min_lr_ratio).", { kind: 'number', min: 0, max: 1, step: 0.01 }),
  f('update.beta1', 'strategy', 'β₁', 'Adam β₁', 'AdamW first-moment decay.', { kind: 'number', min: 0, max: 0.9999, step: 0.001 }),
  f('update.beta2', 'strategy', 'β₂', 'Adam β₂', 'AdamW second-moment decay.', { kind: 'number', min: 0, max: 0.99999, step: 0.0001 }),
  f('update.weightDecay', 'strategy', 'λ', 'Weight decay', 'AdamW decoupled weight decay (paper: 0.01).', { kind: 'number', min: 0, max: 10, step: 0.001 }),
  f('update.gradClip', 'strategy', 'clip‖g‖', 'Grad clip', 'Max global gradient norm (paper: 1.0); empty = no clipping.', { kind: 'nullable-number', min: 0, step: 0.1 }),
  f('update.maxNonfiniteSteps', 'strategy', 'K', 'Max non-finite steps', 'K: a step whose loss or gradient norm is not finite is skipped (weights and AdamW state untouched, counted in actor/nonfinite_steps); after K such steps in a row the run stops as diverged.', { kind: 'int', min: 1, max: 1_000_000 }),

  f('loss.epsLow', 'loss', 'ε_low', 'Clip low', 'ε_low: the ratio ρ is clipped below at 1 − ε_low (paper: 0.2).', { kind: 'number', min: 0, max: 0.99, step: 0.01 }),
  f('loss.epsHigh', 'loss', 'ε_high', 'Clip high', 'ε_high: ρ clipped above at 1 + ε_high; > ε_low is "clip-higher" (0.28 blew entropy up in the paper).', { kind: 'number', min: 0, max: 10, step: 0.01 }),
  f('loss.dualClip', 'loss', 'c', 'Dual clip', 'Dual-clip constant c > 1 bounding negative-advantage losses; empty = off (as released).', { kind: 'nullable-number', min: 1, step: 0.5 }),
  f('loss.aggregation', 'loss', '1/T_k', 'Aggregation', "Loss aggregation: 'token-mean' over all batch tokens (1/T_k, MAGIC) or per-sequence mean (GRPO, biases length).", { kind: 'select', options: ['token-mean', 'seq-mean-token-mean'] }),
  f('loss.advantageStd', 'loss', 'σ_r', 'Std-normalise A', 'Divide advantages by the group std (GRPO); off = Dr. GRPO centring only.', { kind: 'bool' }),
  f('loss.kl.beta', 'loss', 'β', 'KL β', 'β: KL(π_θ‖π_ref) penalty weight (0 = off, no reference model; 1e-3 stalled stage-2 gains). A stage may set its own β; π_ref = the policy at the start of the first stage with β > 0.', { kind: 'number', min: 0, max: 100, step: 1e-4 }),
  f('loss.kl.type', 'loss', 'KL est.', 'KL estimator', 'KL estimator: k1, k3 (paper ablation) or low-variance KL.', { kind: 'select', options: ['k1', 'k3', 'low_var_kl'] }),

  f('loss.entropy.mode', 'entropy', 'α mode', 'Entropy term', "Entropy term α_k·H_t: 'adaptive' (MAGIC, Eq. 3.2), 'constant' α, or 'off'.", { kind: 'select', options: ['adaptive', 'constant', 'off'] }),
  f('loss.entropy.target', 'entropy', 'tgt-ent', 'Target entropy', 'tgt-ent: the controller raises c while the batch entropy e_k is below this (nats).', { kind: 'number', min: 0.001, max: 100, step: 0.01 }),
  f('loss.entropy.delta', 'entropy', 'Δ', 'Step Δ', 'Δ: change of c per update (released 1e-4, paper text 5e-3).', { kind: 'number', min: 0, max: 10, step: 1e-4 }),
  f('loss.entropy.cMin', 'entropy', 'c_min', 'c min', 'c_min: lower clamp of the coefficient c.', { kind: 'number', min: 0, max: 10, step: 1e-3 }),
  f('loss.entropy.cMax', 'entropy', 'c_max', 'c max', 'c_max: upper clamp of the coefficient c (released 5e-3).', { kind: 'number', min: 0, max: 10, step: 1e-3 }),
  f('loss.entropy.c0', 'entropy', 'c_0', 'c₀', 'c_0: initial coefficient.', { kind: 'number', min: 0, max: 10, step: 1e-3 }),
  f('loss.entropy.constantCoef', 'entropy', 'α', 'Constant α', "α in 'constant' mode (small → still collapses, large → entropy explodes).", { kind: 'number', min: 0, max: 10, step: 1e-3 }),
  f('loss.entropy.estimator', 'entropy', 'e_k', 'Entropy estimate', "e_k the controller sees, over the kept batch before the update: 'exact' mean entropy H_t of the rollout distribution (actor/entropy) or 'sampled' −mean log π of the sampled tokens (actor/entropy_sampled).", { kind: 'select', options: ['exact', 'sampled'] }),
  f('loss.entropy.gate', 'entropy', '1{e<tgt}', 'Gate', "On/off gate: 'current' gates on e_k (paper), 'lagged' on e_{k−1} (released code).", { kind: 'select', options: ['current', 'lagged'] }),

  f('eval.everySteps', 'eval', 'every', 'Eval every', 'Evaluate on the held-out set every this many steps (0 = never during training).', { kind: 'int', min: 0 }),
  f('eval.k', 'eval', 'k', 'Samples k', 'k: samples per test problem for avg@k, pass@k (unbiased) and maj@k.', { kind: 'int', min: 1 }),
  f('eval.temperatures', 'eval', 'τ_eval', 'Eval temperatures', 'Sampling temperatures to evaluate at, comma-separated (paper: 1.0 and 0.6).', { kind: 'number-list' }),
  f('eval.testProblems', 'eval', '#test', 'Test problems', 'Test problems per evaluation (≤ test prompts).', { kind: 'int', min: 1 }),
  f('checkpoint.everySteps', 'eval', 'ckpt', 'Checkpoint every', 'Save a checkpoint (kept in this browser) every this many steps (0 = never).', { kind: 'int', min: 0 }),

  f('model.nLayers', 'model', 'L', 'Layers', 'L: transformer blocks.', { kind: 'int', min: 1 }),
  f('model.dModel', 'model', 'C', 'Width', 'C: residual-stream width (a multiple of H).', { kind: 'int', min: 1, max: 4096 }),
  f('model.nHeads', 'model', 'H', 'Heads', 'H: attention heads; head size C / H.', { kind: 'int', min: 1, max: 256 }),
  f('model.mlpRatio', 'model', 'r_mlp', 'MLP ratio', 'MLP hidden width = ratio · C.', { kind: 'int', min: 1 }),
  f('model.contextLength', 'model', 'T', 'Context', 'T: max sequence length (prompt + response).', { kind: 'int', min: 2 }),
  f('model.vocabSize', 'model', 'V', 'Vocab', 'V: vocabulary size (the char tokenizer has exactly 24 tokens).', { kind: 'int', min: 24, max: 24 }),
  f('model.norm', 'model', 'norm', 'Norm', 'Pre-norm flavour.', { kind: 'select', options: ['rmsnorm', 'layernorm'] }),
  f('model.tiedEmbeddings', 'model', 'tied', 'Tied embeddings', 'Logits use the token-embedding table (no separate head).', { kind: 'bool' }),
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
