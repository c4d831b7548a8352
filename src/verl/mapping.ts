/**
 * RunConfig → verl: the lab's recipe as Hydra overrides of `python3 -m verl.trainer.main_ppo`,
 * one launch per stage, in two dialects (keys checked against tests/verl/fixtures/verl-keys.json):
 *
 *   upstream     volcengine/verl v0.7.0 (f9c855f)
 *   skywork-or1  Skywork-OR1's fork (SkyworkAI/Skywork-OR1 @64e96af, an older verl) with the
 *                MAGIC parts upstream lacks: adaptive entropy control (EntController,
 *                actor_rollout_ref.actor.adaptive_entropy.*) and rejection sampling
 *                (trainer.rejection_sample); it always validates at τ 0.6 and 1.0
 *
 * FIELD_MAP is the one table (RunConfig field → key in each dialect); docs/verl.md shows it.
 * stageOverrides() applies it to one stage; recipeGaps() says, for a config, what a dialect
 * cannot express and what to do instead (NOTES.md). Rules beyond renaming:
 *   - each stage is its own launch, resuming the previous stage's checkpoint; verl's global step
 *     carries on, so trainer.total_training_steps is the stage's cumulative end
 *     (StageConfig.convergence has no verl equivalent: its maxSteps is the budget)
 *   - D_T: verl's ppo_mini_batch_size counts prompts, = D_R / update.miniBatches
 *   - null means off: dual clip (loss.dualClip) and grad clip (update.gradClip) take 1e9, as
 *     verl needs a number; eval.everySteps 0 (never) is test_freq −1
 *   - the checkpoint of a stage's last step must exist for the next stage: upstream saves it
 *     whenever save_freq > 0; the fork saves only multiples of save_freq, so its save_freq
 *     divides the stage's end
 */
import { longestResponseLength, resolveStage, type ResolvedStage, type RunConfig } from '../rl/config';

export type VerlFlavor = 'upstream' | 'skywork-or1';
export const VERL_FLAVORS: readonly VerlFlavor[] = ['upstream', 'skywork-or1'];

/** One Hydra override; `value` is a shell word placed inside double quotes (may name ${PARAMETERS}). */
export interface Override {
  key: string;
  value: string;
  /** RunConfig fields it carries (empty for launch plumbing). */
  fields: string[];
}

/** A row of the field → key table. `stages[].x` = a stage's own field; a group covers its children. */
export interface FieldMapping {
  field: string;
  /** The paper's symbol, or '' when it has none. */
  symbol: string;
  /** Keys in upstream verl ('' = none: see recipeGaps / NOTES.md). */
  upstream: string;
  /** Keys in Skywork-OR1's fork. */
  skywork: string;
  /** How the value carries over. */
  rule: string;
}

const A = 'actor_rollout_ref.actor';
const R = 'actor_rollout_ref.rollout';

export const FIELD_MAP: readonly FieldMapping[] = [
  { field: 'seed', symbol: '', upstream: 'data.seed', skywork: '', rule: 'the exported problems are the seed\'s already; here it seeds verl\'s data shuffling' },
  { field: 'model', symbol: 'π_θ', upstream: 'actor_rollout_ref.model.path', skywork: 'actor_rollout_ref.model.path', rule: 'the lab\'s character transformer is replaced by the LLM at $MODEL_PATH' },
  { field: 'data.families', symbol: '', upstream: 'data.train_files, data.val_files', skywork: 'data.train_files, data.val_files', rule: 'the exported train.parquet / val.parquet rows' },
  { field: 'data.difficulty', symbol: '', upstream: 'data.train_files, data.val_files', skywork: 'data.train_files, data.val_files', rule: 'the exported rows' },
  { field: 'data.trainSize', symbol: '', upstream: 'data.train_files', skywork: 'data.train_files', rule: 'train.parquet: the deduplicated, decontaminated (and offline-filtered) training problems' },
  { field: 'data.testSize', symbol: '', upstream: 'data.val_files', skywork: 'data.val_files', rule: 'test.parquet holds all of them; val.parquet the first eval.testProblems' },
  { field: 'data.offlineFilter', symbol: 'N', upstream: 'data.train_files', skywork: 'data.train_files', rule: 'applied at export when the result is known (run checkpoint or base checkpoint); it reflects the lab\'s base policy' },
  { field: 'data.onlineFilter', symbol: '', upstream: '', skywork: 'trainer.stats_path, trainer.stats_save_freq', rule: 'no filter in verl: the fork records per-prompt solve rates to filter by hand between stages' },
  { field: 'rollout.temperature', symbol: 'τ', upstream: `${R}.temperature`, skywork: `${R}.temperature`, rule: 'per stage (stages[].temperature wins)' },
  { field: 'rollout.topP', symbol: 'top-p', upstream: `${R}.top_p, ${R}.val_kwargs.top_p`, skywork: `${R}.top_p`, rule: 'as is' },
  { field: 'rollout.groupSize', symbol: 'G (M)', upstream: `${R}.n`, skywork: `${R}.n`, rule: 'per stage (stages[].groupSize wins)' },
  { field: 'rollout.batchPrompts', symbol: 'D_R', upstream: 'data.train_batch_size', skywork: 'data.train_batch_size', rule: 'per stage (stages[].batchPrompts wins)' },
  { field: 'stages[].maxResponseLength', symbol: '', upstream: 'data.max_response_length', skywork: 'data.max_response_length', rule: 'one run_stageK.sh per stage' },
  { field: 'stages[].steps', symbol: '', upstream: 'trainer.total_training_steps', skywork: 'trainer.total_training_steps', rule: 'cumulative: the stage ends at the sum of the steps so far' },
  { field: 'stages[].convergence', symbol: '', upstream: '', skywork: '', rule: 'no plateau rule in verl: convergence.maxSteps is the stage\'s budget' },
  { field: 'stages[].batchPrompts', symbol: 'D_R', upstream: 'data.train_batch_size', skywork: 'data.train_batch_size', rule: 'that stage\'s D_R' },
  { field: 'stages[].groupSize', symbol: 'G', upstream: `${R}.n`, skywork: `${R}.n`, rule: 'that stage\'s G' },
  { field: 'stages[].temperature', symbol: 'τ', upstream: `${R}.temperature`, skywork: `${R}.temperature`, rule: 'that stage\'s τ' },
  { field: 'stages[].klBeta', symbol: 'β', upstream: `${A}.use_kl_loss, ${A}.kl_loss_coef`, skywork: `${A}.use_kl_loss, ${A}.kl_loss_coef`, rule: 'that stage\'s β; verl\'s π_ref is the model at actor_rollout_ref.model.path' },
  { field: 'loss.epsLow', symbol: 'ε_low', upstream: `${A}.clip_ratio_low`, skywork: `${A}.clip_ratio`, rule: 'the fork clips symmetrically at ε_low' },
  { field: 'loss.epsHigh', symbol: 'ε_high', upstream: `${A}.clip_ratio_high`, skywork: '', rule: 'clip-higher: upstream only' },
  { field: 'loss.dualClip', symbol: 'c', upstream: `${A}.clip_ratio_c`, skywork: '', rule: 'null (off) → 1e9: upstream always applies dual clip (default 3); the fork never does' },
  { field: 'loss.aggregation', symbol: '1/T_k', upstream: `${A}.loss_agg_mode`, skywork: '', rule: 'token-mean / seq-mean-token-mean, same names; the fork takes token means' },
  { field: 'loss.entropy.mode', symbol: 'α_k', upstream: `${A}.entropy_coeff`, skywork: `${A}.adaptive_entropy.enabled, ${A}.entropy_coeff`, rule: 'constant → α; off → 0; adaptive → the fork\'s controller (upstream: 0, see NOTES.md)' },
  { field: 'loss.entropy.target', symbol: 'tgt-ent', upstream: '', skywork: `${A}.adaptive_entropy.target_entropy`, rule: 'fork only' },
  { field: 'loss.entropy.delta', symbol: 'Δ', upstream: '', skywork: `${A}.adaptive_entropy.delta_ent_coef`, rule: 'fork only' },
  { field: 'loss.entropy.cMin', symbol: 'c_min', upstream: '', skywork: `${A}.adaptive_entropy.min_ent_coef`, rule: 'fork only' },
  { field: 'loss.entropy.cMax', symbol: 'c_max', upstream: '', skywork: `${A}.adaptive_entropy.max_ent_coef`, rule: 'fork only' },
  { field: 'loss.entropy.c0', symbol: 'c_0', upstream: '', skywork: `${A}.entropy_coeff`, rule: 'the fork starts its controller at entropy_coeff' },
  { field: 'loss.entropy.constantCoef', symbol: 'α', upstream: `${A}.entropy_coeff`, skywork: `${A}.entropy_coeff`, rule: 'constant mode only' },
  { field: 'loss.entropy.gate', symbol: '', upstream: '', skywork: '', rule: 'the fork gates on e_{k−1} (= "lagged")' },
  { field: 'loss.entropy.estimator', symbol: 'e_k', upstream: '', skywork: '', rule: 'the fork\'s controller reads −mean log π_old (= "sampled")' },
  { field: 'loss.kl.beta', symbol: 'β', upstream: `${A}.use_kl_loss, ${A}.kl_loss_coef`, skywork: `${A}.use_kl_loss, ${A}.kl_loss_coef`, rule: 'β > 0 turns the KL loss on' },
  { field: 'loss.kl.type', symbol: '', upstream: `${A}.kl_loss_type`, skywork: `${A}.kl_loss_type`, rule: 'k1 → k1 (fork: kl); k3 and low_var_kl → low_var_kl (verl clamps k3 to ±10)' },
  { field: 'loss.advantageStd', symbol: 'std_j r', upstream: 'algorithm.norm_adv_by_std_in_grpo', skywork: '', rule: 'the fork always divides by the std' },
  { field: 'rejection.mode', symbol: '', upstream: '', skywork: 'trainer.rejection_sample, trainer.rejection_sample_multiplier', rule: 'drop → True (multiplier 1: no refill); off → False' },
  { field: 'rejection.maxRefillRounds', symbol: '', upstream: '', skywork: '', rule: 'refill (DAPO dynamic sampling) is verl\'s recipe/dapo, not main_ppo' },
  { field: 'truncation.mode', symbol: 'Adv-Mask', upstream: '', skywork: '', rule: 'verl scores truncated responses like any other ("none" minus a corner, NOTES.md)' },
  { field: 'update.miniBatches', symbol: 'D_R/D_T', upstream: `${A}.ppo_mini_batch_size`, skywork: `${A}.ppo_mini_batch_size`, rule: 'ppo_mini_batch_size = D_R / miniBatches prompts' },
  { field: 'update.reuseEpochs', symbol: 'N_reuse', upstream: `${A}.ppo_epochs`, skywork: `${A}.ppo_epochs`, rule: 'as is' },
  { field: 'update.lr', symbol: 'lr', upstream: `${A}.optim.lr`, skywork: `${A}.optim.lr`, rule: 'the peak; the schedule below scales it' },
  { field: 'update.lrSchedule.mode', symbol: '', upstream: `${A}.optim.lr_scheduler_type`, skywork: `${A}.optim.warmup_style`, rule: 'constant / cosine, as is (verl steps it once per RL step too)' },
  { field: 'update.lrSchedule.warmupSteps', symbol: '', upstream: `${A}.optim.lr_warmup_steps`, skywork: `${A}.optim.lr_warmup_steps_ratio`, rule: 'upstream: as is; fork: W / the stage\'s end step (it takes a ratio of trainer.total_training_steps)' },
  { field: 'update.lrSchedule.minRatio', symbol: '', upstream: `${A}.optim.min_lr_ratio`, skywork: `${A}.optim.min_lr_ratio`, rule: 'as is' },
  { field: 'update.beta1', symbol: 'β1', upstream: `${A}.optim.betas`, skywork: `+${A}.optim.betas`, rule: '[β1,β2]; the fork reads it without declaring it (+)' },
  { field: 'update.beta2', symbol: 'β2', upstream: `${A}.optim.betas`, skywork: `+${A}.optim.betas`, rule: '[β1,β2]' },
  { field: 'update.weightDecay', symbol: '', upstream: `${A}.optim.weight_decay`, skywork: `+${A}.optim.weight_decay`, rule: 'as is' },
  { field: 'update.gradClip', symbol: '', upstream: `${A}.grad_clip`, skywork: `${A}.grad_clip`, rule: 'null (off) → 1e9' },
  { field: 'eval.everySteps', symbol: '', upstream: 'trainer.test_freq', skywork: 'trainer.test_freq', rule: '0 → −1 (never); both also validate before stage 1 and at the last step' },
  { field: 'eval.k', symbol: 'k', upstream: `${R}.val_kwargs.n`, skywork: `${R}.n_val`, rule: 'samples per problem (avg@k)' },
  { field: 'eval.temperatures', symbol: 'τ_eval', upstream: `${R}.val_kwargs.temperature`, skywork: '', rule: 'upstream validates at the first; the fork always at 0.6 and 1.0' },
  { field: 'eval.testProblems', symbol: '', upstream: 'data.val_files', skywork: 'data.val_files', rule: 'val.parquet = the first eval.testProblems test problems, as the lab evaluates' },
  { field: 'checkpoint.everySteps', symbol: '', upstream: 'trainer.save_freq', skywork: 'trainer.save_freq', rule: 'a stage\'s last step is always saved (the next stage resumes from it)' },
];

/** A stage as one launch: resolved settings and its place on verl's global step axis. */
export interface StagePlan {
  /** 1-based: run_stage<number>.sh. */
  number: number;
  stage: ResolvedStage;
  /** Steps done before this stage (the global step it resumes at). */
  startStep: number;
  /** Cumulative step at which it ends (trainer.total_training_steps). */
  endStep: number;
  /** Ends on convergence in the lab: endStep is its maxSteps budget. */
  convergence: boolean;
  /** D_R / update.miniBatches, rounded down to at least 1. */
  miniBatchPrompts: number;
}

export function planStages(cfg: RunConfig): StagePlan[] {
  let done = 0;
  return cfg.stages.map((_, i) => {
    const stage = resolveStage(cfg, i);
    const length = stage.steps ?? stage.convergence!.maxSteps;
    const plan: StagePlan = {
      number: i + 1,
      stage,
      startStep: done,
      endStep: done + length,
      convergence: stage.steps === null,
      miniBatchPrompts: Math.max(1, Math.floor(stage.batchPrompts / cfg.update.miniBatches)),
    };
    done += length;
    return plan;
  });
}

/** Launch parameters the scripts read from the environment: name, default, meaning (NOTES.md lists them). */
export const LAUNCH_PARAMETERS: readonly { name: string; default: string; meaning: string }[] = [
  { name: 'MODEL_PATH', default: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B', meaning: 'the policy to train: a Hugging Face id or a local directory' },
  { name: 'NNODES', default: '1', meaning: 'trainer.nnodes' },
  { name: 'N_GPUS_PER_NODE', default: '8', meaning: 'trainer.n_gpus_per_node' },
  { name: 'ROLLOUT_TP', default: '1', meaning: 'vLLM tensor parallel size of the rollout' },
  { name: 'GPU_MEMORY_UTILIZATION', default: '0.6', meaning: 'vLLM\'s share of GPU memory' },
  { name: 'PPO_MAX_TOKEN_LEN_PER_GPU', default: '16384', meaning: 'dynamic micro-batch budget; at least prompt + response length' },
  { name: 'MAX_PROMPT_LENGTH', default: '512', meaning: 'data.max_prompt_length in the model\'s tokens (the exported prompts are ~100)' },
  { name: 'THINK_PREFILLED', default: 'True', meaning: 'the chat template ends the generation prompt with <think> (DeepSeek-R1-Distill does); False for a model that writes it itself' },
  { name: 'DATA_DIR', default: 'this folder', meaning: 'where train.parquet, val.parquet and reward.py are' },
  { name: 'CKPT_DIR', default: '$DATA_DIR/checkpoints', meaning: 'stage K checkpoints go to $CKPT_DIR/stageK' },
  { name: 'RESUME_FROM', default: 'the previous stage\'s last checkpoint', meaning: 'stage 2 on: the global_step_N folder to start from' },
  { name: 'PROJECT_NAME', default: 'magic-lab', meaning: 'trainer.project_name' },
  { name: 'EXPERIMENT_NAME', default: 'the exported recipe\'s name', meaning: 'trainer.experiment_name' },
  { name: 'LOGGER', default: '[console]', meaning: 'trainer.logger, e.g. [console,wandb]; the console log imports with magic-lab import-verl' },
  { name: 'VERL_FLAVOR', default: 'upstream', meaning: 'upstream (volcengine/verl v0.7.0) or skywork-or1 (the fork\'s keys)' },
];

/** Hydra number literal (JavaScript's shortest round-trip form is one: 0.0003, 1e-7). */
function num(x: number): string {
  return String(x);
}
const bool = (b: boolean) => (b ? 'True' : 'False');
const OFF = 1e9;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** verl's dataloader stops after total_epochs passes: enough of them for the stage's end (drop_last batches). */
function epochsFor(plan: StagePlan, trainRows: number): number {
  const batches = Math.max(1, Math.floor(trainRows / plan.stage.batchPrompts));
  return Math.ceil(plan.endStep / batches) + 1;
}

function klType(type: RunConfig['loss']['kl']['type'], flavor: VerlFlavor): string {
  if (type === 'k1') return flavor === 'upstream' ? 'k1' : 'kl';
  return 'low_var_kl';
}

/** The overrides of one stage's launch (resume overrides are added by the script: they depend on what is on disk). */
export function stageOverrides(cfg: RunConfig, plan: StagePlan, flavor: VerlFlavor, trainRows: number): Override[] {
  const s = plan.stage;
  const o: Override[] = [];
  const add = (key: string, value: string | number | boolean, fields: string[] = []) =>
    o.push({ key, value: typeof value === 'number' ? num(value) : typeof value === 'boolean' ? bool(value) : value, fields });
  const up = flavor === 'upstream';
  const stageField = (f: string) => `stages[${plan.number - 1}].${f}`;

  add('algorithm.adv_estimator', 'grpo');
  // Paths in Hydra quotes: a directory name with spaces or commas stays one value.
  add('data.train_files', "'${DATA_DIR}/train.parquet'", ['data.families', 'data.difficulty', 'data.trainSize', 'data.offlineFilter']);
  add('data.val_files', "'${DATA_DIR}/val.parquet'", ['data.testSize', 'eval.testProblems']);
  add('data.train_batch_size', s.batchPrompts, ['rollout.batchPrompts', stageField('batchPrompts')]);
  add('data.max_prompt_length', '${MAX_PROMPT_LENGTH}');
  add('data.max_response_length', s.maxResponseLength, [stageField('maxResponseLength')]);
  if (up) add('data.seed', cfg.seed, ['seed']);
  add('actor_rollout_ref.model.path', "'${MODEL_PATH}'", ['model']);

  add(`${R}.name`, 'vllm');
  add(`${R}.n`, s.groupSize, ['rollout.groupSize', stageField('groupSize')]);
  add(`${R}.temperature`, s.temperature, ['rollout.temperature', stageField('temperature')]);
  add(`${R}.top_p`, s.topP, ['rollout.topP']);
  add(`${R}.tensor_model_parallel_size`, '${ROLLOUT_TP}');
  add(`${R}.gpu_memory_utilization`, '${GPU_MEMORY_UTILIZATION}');
  if (up) {
    add(`${R}.val_kwargs.n`, cfg.eval.k, ['eval.k']);
    add(`${R}.val_kwargs.temperature`, cfg.eval.temperatures[0], ['eval.temperatures']);
    add(`${R}.val_kwargs.top_p`, s.topP, ['rollout.topP']);
    add(`${R}.val_kwargs.do_sample`, true);
  } else {
    add(`${R}.n_val`, cfg.eval.k, ['eval.k']);
  }

  add(`${A}.ppo_mini_batch_size`, plan.miniBatchPrompts, ['update.miniBatches']);
  add(`${A}.ppo_epochs`, cfg.update.reuseEpochs, ['update.reuseEpochs']);
  add(`${A}.use_dynamic_bsz`, true);
  add(`${A}.ppo_max_token_len_per_gpu`, '${PPO_MAX_TOKEN_LEN_PER_GPU}');
  if (up) {
    add(`${A}.clip_ratio_low`, cfg.loss.epsLow, ['loss.epsLow']);
    add(`${A}.clip_ratio_high`, cfg.loss.epsHigh, ['loss.epsHigh']);
    add(`${A}.clip_ratio_c`, cfg.loss.dualClip ?? OFF, ['loss.dualClip']);
    add(`${A}.loss_agg_mode`, cfg.loss.aggregation, ['loss.aggregation']);
  } else {
    add(`${A}.clip_ratio`, cfg.loss.epsLow, ['loss.epsLow']);
  }

  const e = cfg.loss.entropy;
  if (up) {
    // No controller upstream: adaptive mode trains without the term (NOTES.md says so and what to do).
    add(`${A}.entropy_coeff`, e.mode === 'constant' ? e.constantCoef : 0, ['loss.entropy.mode', 'loss.entropy.constantCoef']);
    add(`${A}.calculate_entropy`, true); // log actor/entropy even at α = 0: collapse is what to watch
  } else {
    const adaptive = e.mode === 'adaptive';
    add(`${A}.entropy_coeff`, adaptive ? e.c0 : e.mode === 'constant' ? e.constantCoef : 0, ['loss.entropy.mode', 'loss.entropy.c0', 'loss.entropy.constantCoef']);
    add(`${A}.adaptive_entropy.enabled`, adaptive, ['loss.entropy.mode']);
    if (adaptive) {
      add(`${A}.adaptive_entropy.target_entropy`, e.target, ['loss.entropy.target']);
      add(`${A}.adaptive_entropy.delta_ent_coef`, e.delta, ['loss.entropy.delta']);
      add(`${A}.adaptive_entropy.min_ent_coef`, e.cMin, ['loss.entropy.cMin']);
      add(`${A}.adaptive_entropy.max_ent_coef`, e.cMax, ['loss.entropy.cMax']);
    }
  }

  const beta = s.klBeta;
  add(`${A}.use_kl_loss`, beta > 0, ['loss.kl.beta', stageField('klBeta')]);
  if (beta > 0) {
    add(`${A}.kl_loss_coef`, beta, ['loss.kl.beta', stageField('klBeta')]);
    add(`${A}.kl_loss_type`, klType(cfg.loss.kl.type, flavor), ['loss.kl.type']);
  }
  if (up) {
    add('algorithm.use_kl_in_reward', false);
    add('algorithm.norm_adv_by_std_in_grpo', cfg.loss.advantageStd, ['loss.advantageStd']);
  }

  const u = cfg.update;
  add(`${A}.optim.lr`, u.lr, ['update.lr']);
  const ls = u.lrSchedule;
  add(`${A}.optim.${up ? 'lr_scheduler_type' : 'warmup_style'}`, ls.mode, ['update.lrSchedule.mode']);
  if (up) add(`${A}.optim.lr_warmup_steps`, ls.warmupSteps, ['update.lrSchedule.warmupSteps']);
  else add(`${A}.optim.lr_warmup_steps_ratio`, ls.warmupSteps / plan.endStep, ['update.lrSchedule.warmupSteps']);
  add(`${A}.optim.min_lr_ratio`, ls.minRatio, ['update.lrSchedule.minRatio']);
  add(`${up ? '' : '+'}${A}.optim.betas`, `[${num(u.beta1)},${num(u.beta2)}]`, ['update.beta1', 'update.beta2']);
  add(`${up ? '' : '+'}${A}.optim.weight_decay`, u.weightDecay, ['update.weightDecay']);
  add(`${A}.grad_clip`, u.gradClip ?? OFF, ['update.gradClip']);

  if (up) {
    add('custom_reward_function.path', "'${DATA_DIR}/reward.py'");
    add('custom_reward_function.name', 'compute_score');
    add('+custom_reward_function.reward_kwargs.think_prefilled', '${THINK_PREFILLED}');
  } else {
    // The fork wires its compute_score in main_ppo.py: fork_reward.py swaps reward.py in, and only
    // the `yr` manager takes the flags main_ppo passes and calls compute_score on the response alone.
    add('reward_model.reward_manager', 'yr');
    add('trainer.rejection_sample', cfg.rejection.mode !== 'off', ['rejection.mode']);
    add('trainer.rejection_sample_multiplier', 1, ['rejection.mode']);
    if (cfg.data.onlineFilter) {
      add('trainer.stats_path', `'\${CKPT_DIR}/stage${plan.number}/stats'`, ['data.onlineFilter']);
      add('trainer.stats_save_freq', 1, ['data.onlineFilter']);
    }
  }

  add('trainer.logger', '${LOGGER}');
  add('trainer.project_name', "'${PROJECT_NAME}'");
  add('trainer.experiment_name', "'${EXPERIMENT_NAME}'");
  add('trainer.nnodes', '${NNODES}');
  add('trainer.n_gpus_per_node', '${N_GPUS_PER_NODE}');
  add('trainer.default_local_dir', `'\${CKPT_DIR}/stage${plan.number}'`);
  // A converging stage's end is its budget, not a mapping of the rule (NOTES.md).
  add('trainer.total_training_steps', plan.endStep, plan.convergence ? [] : [stageField('steps')]);
  add('trainer.total_epochs', epochsFor(plan, trainRows));
  add('trainer.test_freq', cfg.eval.everySteps > 0 ? cfg.eval.everySteps : -1, ['eval.everySteps']);
  add('trainer.save_freq', saveFreq(cfg, plan, flavor), ['checkpoint.everySteps']);
  add('trainer.val_before_train', plan.number === 1);
  return o;
}

/** save_freq of a stage: checkpoint.everySteps, such that the stage's last step is saved (see the header). */
export function saveFreq(cfg: RunConfig, plan: StagePlan, flavor: VerlFlavor): number {
  const every = cfg.checkpoint.everySteps > 0 ? cfg.checkpoint.everySteps : plan.endStep - plan.startStep;
  return flavor === 'upstream' ? every : gcd(every, plan.endStep);
}

/** What a dialect cannot express for a config, and what to do: one NOTES.md entry. */
export interface RecipeGap {
  /** RunConfig fields concerned (named in NOTES.md). */
  fields: string[];
  flavors: VerlFlavor[];
  text: string;
}

const BOTH: VerlFlavor[] = ['upstream', 'skywork-or1'];
const UP: VerlFlavor[] = ['upstream'];
const FORK: VerlFlavor[] = ['skywork-or1'];

/** Every field neither dialect can carry as it is, with this config's values (NOTES.md). */
export function recipeGaps(cfg: RunConfig): RecipeGap[] {
  const e = cfg.loss.entropy;
  const gaps: RecipeGap[] = [];
  const g = (fields: string[], flavors: VerlFlavor[], text: string) => gaps.push({ fields, flavors, text });
  const plans = planStages(cfg);

  if (e.mode === 'adaptive') {
    g(
      ['loss.entropy.mode', 'loss.entropy.target', 'loss.entropy.delta', 'loss.entropy.cMin', 'loss.entropy.cMax', 'loss.entropy.c0'],
      UP,
      `Adaptive entropy control (target ${e.target}, Δ ${e.delta}, c in [${e.cMin}, ${e.cMax}], c_0 ${e.c0}) does not exist in upstream verl: the upstream scripts train with entropy_coeff=0 and log actor/entropy. Run them with VERL_FLAVOR=skywork-or1 on Skywork-OR1's fork, which has the controller; or pass a constant coefficient (\`bash run_stageK.sh ${A}.entropy_coeff=…\`) and watch actor/entropy: a constant too small still collapses, too large explodes (the lab's const-entropy presets).`,
    );
    g(
      ['loss.entropy.c0'],
      FORK,
      `The fork does not checkpoint its controller: every stage starts it again at entropy_coeff (c_0 = ${e.c0}). To continue from where the previous stage left c, pass its last logged actor/entropy_coeff: \`bash run_stage2.sh ${A}.entropy_coeff=<c>\`.`,
    );
    g(['loss.entropy.gate'], FORK, `gate = "${e.gate}": the fork gates the term on the previous step's entropy (the lab's "lagged"); ${e.gate === 'lagged' ? 'the same.' : 'the paper\'s "current" gate would need a patch of its EntController.'}`);
    g(['loss.entropy.estimator'], FORK, `estimator = "${e.estimator}": the fork's controller reads actor/entropy_loss, −mean log π_old of the sampled tokens (the lab's "sampled"); ${e.estimator === 'sampled' ? 'the same.' : 'the lab reads the exact mean entropy, which has the same expectation without the sampling noise.'}`);
  } else {
    g(['loss.entropy.target', 'loss.entropy.delta', 'loss.entropy.cMin', 'loss.entropy.cMax', 'loss.entropy.c0', 'loss.entropy.gate', 'loss.entropy.estimator'], BOTH, `Inert: loss.entropy.mode is "${e.mode}" (the controller's settings do not act).`);
  }
  if (e.mode !== 'constant') g(['loss.entropy.constantCoef'], BOTH, `Inert: loss.entropy.mode is "${e.mode}".`);

  if (cfg.data.offlineFilter.enabled) {
    g(
      ['data.offlineFilter'],
      BOTH,
      `The offline filter (N = ${cfg.data.offlineFilter.samples}) keeps the problems a starting policy solves sometimes but not always; whatever train.parquet holds (see Files) was decided by the lab's policy, and your LLM finds other problems easy. To filter for it, export with the filter off (\`--config\` with {"data":{"offlineFilter":{"enabled":false}}}), sample N responses per train.parquet prompt at τ = 1 (a validation-only run: \`trainer.val_only=True data.val_files=…/train.parquet ${R}.val_kwargs.n=N ${R}.val_kwargs.temperature=1.0 trainer.validation_data_dir=DIR\` writes every score), and drop the prompts solved 0/N or N/N.`,
    );
  }
  if (cfg.data.onlineFilter) {
    g(
      ['data.onlineFilter'],
      BOTH,
      'The online filter (at each stage start, drop the prompts solved in every rollout of the previous stage) is not in verl. Upstream: add `trainer.rollout_data_dir=DIR` to dump every rollout with its prompt and score; the fork records per-prompt solve rates under trainer.stats_path (emitted). Before the next stage, remove from train.parquet the prompts whose rollouts in this stage all scored 1 (match them by prompt text; extra_info holds the lab\'s prompt and id).',
    );
  } else g(['data.onlineFilter'], UP, 'data.onlineFilter off: verl keeps every prompt too, the same.');
  const hasConvergence = plans.some((p) => p.convergence);
  if (hasConvergence) {
    g(
      plans.filter((p) => p.convergence).map((p) => `stages[${p.number - 1}].convergence`),
      BOTH,
      'A stage that ends on convergence (train accuracy stops improving) has no verl equivalent: its script runs to convergence.maxSteps. Watch critic/score/mean, stop the run when it plateaus, and start the next stage with RESUME_FROM=<its last global_step_N folder>.',
    );
  } else {
    g(['stages[].convergence'], BOTH, 'Every stage has a fixed length (steps): nothing to carry.');
  }

  if (cfg.rejection.mode === 'drop') {
    g(['rejection.mode'], UP, 'Rejection sampling ("drop": groups whose rewards are all equal leave the batch) is not in upstream main_ppo: those groups stay with zero advantage (they still weigh in the entropy and KL terms). The fork has it (VERL_FLAVOR=skywork-or1: trainer.rejection_sample=True); upstream, verl\'s recipe/dapo filters groups (algorithm.filter_groups) but refills the batch.');
  } else if (cfg.rejection.mode === 'refill') {
    g(['rejection.mode', 'rejection.maxRefillRounds'], BOTH, `"refill" (DAPO's dynamic sampling, up to ${cfg.rejection.maxRefillRounds} extra rounds) is verl's recipe/dapo (algorithm.filter_groups.enable=True, max_num_gen_batches), not main_ppo; the fork only drops (emitted as trainer.rejection_sample=True).`);
  } else {
    g(['rejection.mode'], UP, 'rejection.mode "off": upstream keeps every group, as here.');
  }
  if (cfg.rejection.mode !== 'refill') g(['rejection.maxRefillRounds'], BOTH, `Inert: rejection.mode is "${cfg.rejection.mode}".`);

  g(
    ['truncation.mode'],
    BOTH,
    cfg.truncation.mode === 'none'
      ? 'truncation.mode "none" (truncated responses keep their reward and count): verl\'s behaviour. One corner differs: the lab scores a truncated response 0 even when the answer was complete before the cut; verl does not tell reward.py that a response was truncated, so such a response scores by its text (reward.py scores 0 when extra_info["truncated"] is True, for callers that know).'
      : `truncation.mode "${cfg.truncation.mode}" (Adv-Mask: truncated responses get advantage 0${cfg.truncation.mode === 'adv-mask-before' ? ' and leave the group statistics' : ' after the group statistics'}) is in neither verl: patch compute_grpo_outcome_advantage to zero the advantage where the response hit data.max_response_length.`,
  );
  g(
    ['model'],
    BOTH,
    `The lab's policy (${cfg.model.nLayers} layers, d_model ${cfg.model.dModel}, a ${cfg.model.vocabSize}-token character vocabulary) stays in the lab: verl trains the LLM at MODEL_PATH on the same problems and rewards.`,
  );
  if (!plans.every((p) => p.stage.batchPrompts % cfg.update.miniBatches === 0)) {
    g(['update.miniBatches'], BOTH, `D_R is not a multiple of update.miniBatches (${cfg.update.miniBatches}): ppo_mini_batch_size is rounded down, so a step may take one optimizer step more.`);
  }
  if (cfg.update.miniBatches > 1 && cfg.rejection.mode !== 'off') {
    g(['update.miniBatches'], FORK, `The lab cuts the kept responses into exactly ${cfg.update.miniBatches} mini-batches per epoch whatever rejection keeps; the fork cuts fixed mini-batches of ppo_mini_batch_size prompts, so after rejection a step may take fewer optimizer steps.`);
  }
  const ls = cfg.update.lrSchedule;
  if (ls.mode === 'cosine' && plans.length > 1) {
    g(
      ['update.lrSchedule.mode'],
      BOTH,
      `The lab's cosine runs once over the whole schedule (${plans[plans.length - 1].endStep} steps). verl sets the scheduler's horizon from each launch's trainer.total_training_steps (this export: the stage's end step, ${plans.map((p) => p.endStep).join(', ')}), so stage 1 decays to min_lr_ratio by its own end and a resumed stage jumps back up. To follow the lab's curve, keep one launch per run or pass the whole run's length to every stage's scheduler (a patch of where the trainer sets optim.total_training_steps).`,
    );
  }
  if (ls.warmupSteps > 0) {
    g(['update.lrSchedule.warmupSteps'], BOTH, `verl's warmup starts at lr 0 (step 0 of its scheduler) and reaches η at step ${ls.warmupSteps}; the lab's first step already takes η/${ls.warmupSteps}: the same curve one step earlier.`);
  }
  g(
    ['update.maxNonfiniteSteps'],
    BOTH,
    `The lab skips an optimizer step whose loss or gradient norm is not finite and stops the run after ${cfg.update.maxNonfiniteSteps} in a row. Upstream verl's FSDP actor also skips a step whose grad norm is not finite (it prints "grad_norm is not finite" and zeroes the gradients) but never stops: watch actor/grad_norm and stop a run that keeps skipping, then resume from its last checkpoint. The fork is an older verl: check that its actor (dp_actor.py) skips such a step too.`,
  );
  g(['update.microBatchRows'], BOTH, `update.microBatchRows (${cfg.update.microBatchRows ?? 'off'}) splits only the lab's engine calls (each token keeps its mini-batch's weight, the step is the same); verl sizes its micro-batches by ppo_micro_batch_size_per_gpu or ppo_max_token_len_per_gpu (the launch's variables), not by this field.`);
  const temps = cfg.eval.temperatures;
  if (temps.length > 1) g(['eval.temperatures'], UP, `Upstream validates at one temperature (val_kwargs.temperature = ${temps[0]}). For ${temps.slice(1).join(', ')}, run a validation-only launch on a saved checkpoint: \`bash run_stageK.sh trainer.val_only=True ${R}.val_kwargs.temperature=${temps[1]}\`.`);
  const forkTemps = [...temps].sort((a, b) => a - b).join(',');
  g(['eval.temperatures'], FORK, forkTemps === '0.6,1' ? 'The fork validates at τ 0.6 and 1.0 (ray_trainer._validate_with_temperatures), as here.' : `The fork always validates at τ 0.6 and 1.0 (ray_trainer._validate_with_temperatures), not at ${temps.join(', ')}.`);
  g(['eval'], BOTH, `The lab evaluates at the longest stage's response length (${longestResponseLength(cfg)}); verl validates at the current stage's data.max_response_length.`);
  g(['seed'], FORK, `seed ${cfg.seed}: the exported problems are the seed's; the fork has no key for its data shuffling seed.`);
  if (cfg.loss.epsHigh !== cfg.loss.epsLow) g(['loss.epsHigh'], FORK, `Clip-higher (ε_high ${cfg.loss.epsHigh} ≠ ε_low ${cfg.loss.epsLow}) is not in the fork: it clips at ε_low on both sides.`);
  else g(['loss.epsHigh'], FORK, `ε_high = ε_low = ${cfg.loss.epsLow}: the fork's symmetric clip_ratio is the same.`);
  if (cfg.loss.dualClip !== null) g(['loss.dualClip'], FORK, `Dual clip (c = ${cfg.loss.dualClip}) is not in the fork.`);
  else g(['loss.dualClip'], FORK, 'Dual clip off: the fork has none, the same.');
  g(['loss.aggregation'], FORK, cfg.loss.aggregation === 'token-mean' ? 'The fork averages the loss over the tokens of each micro-batch (token-mean).' : `loss.aggregation "${cfg.loss.aggregation}" is not in the fork (token means only).`);
  g(['loss.advantageStd'], FORK, cfg.loss.advantageStd ? 'The fork divides advantages by the group std, as here.' : 'Dr. GRPO centring (no std division) is not in the fork.');
  if (cfg.loss.kl.type === 'k3' && plans.some((p) => p.stage.klBeta > 0)) {
    g(['loss.kl.type'], BOTH, 'kl type "k3": verl\'s k3 is low_var_kl, clamped to ±10; the lab\'s "k3" is unclamped (the same unless the policies drift far apart).');
  }
  const laterKl = plans.find((p) => p.stage.klBeta > 0);
  if (laterKl && laterKl.number > 1) {
    g(
      ['loss.kl.beta', `stages[${laterKl.number - 1}].klBeta`],
      BOTH,
      `The KL term starts in stage ${laterKl.number}, against the policy at that stage's start; verl's reference policy is the model at MODEL_PATH. Merge stage ${laterKl.number - 1}'s last checkpoint into a Hugging Face model (\`python3 -m verl.model_merger merge --backend fsdp --local_dir $CKPT_DIR/stage${laterKl.number - 1}/global_step_${laterKl.startStep}/actor --target_dir DIR\`) and launch run_stage${laterKl.number}.sh with MODEL_PATH=DIR: the actor still resumes from the checkpoint, and π_ref is that stage start.`,
    );
  }
  if (plans.some((p, i) => i > 0 && p.stage.batchPrompts !== plans[i - 1].stage.batchPrompts)) {
    g(['stages[].batchPrompts'], FORK, 'The fork restores the whole pickled dataloader when it resumes (data.pt), batch size included: a stage that changes D_R must resume without it (delete data.pt from the checkpoint it starts from).');
  }
  return gaps;
}

/** The field → key table as Markdown (docs/verl.md carries it; a test keeps the two equal). */
export function fieldMapMarkdown(): string {
  const cell = (s: string) => (s === '' ? '— (NOTES.md)' : s.split(', ').map((k) => `\`${k}\``).join(', '));
  const rows = FIELD_MAP.map((m) => `| \`${m.field}\` | ${m.symbol || '—'} | ${cell(m.upstream)} | ${cell(m.skywork)} | ${m.rule} |`);
  return ['| RunConfig field | symbol | verl v0.7.0 key | Skywork-OR1 fork key | how |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
