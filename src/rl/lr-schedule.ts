/**
 * The learning-rate schedule of the policy's AdamW: a pure function of the RL step, so a resumed
 * run continues on exactly the curve it left. The shape is verl's (actor.optim: lr_warmup_steps,
 * warmup_style / lr_scheduler_type 'constant' | 'cosine', min_lr_ratio, num_cycles 0.5), counted in
 * RL steps as verl steps its scheduler once per training step, whatever N_SGD is.
 */

export type LrScheduleMode = 'constant' | 'cosine';

export interface LrScheduleConfig {
  /** 'constant' (verl's default: η after the warmup) or 'cosine' (half a cosine from η down to minRatio·η at the last step). */
  mode: LrScheduleMode;
  /** Linear warmup over the first W RL steps (η·k/W at step k ≤ W); 0 = none. */
  warmupSteps: number;
  /** 'cosine' only: the factor reached at the last step (verl's min_lr_ratio). */
  minRatio: number;
}

export const CONSTANT_LR: LrScheduleConfig = { mode: 'constant', warmupSteps: 0, minRatio: 0 };

/**
 * Multiplier of update.lr at RL step `step` (1-based) of a run of `totalSteps` steps (needed by
 * 'cosine' only; null when a stage ends by convergence, which validation refuses for cosine).
 * verl's lr_lambda(current_step) evaluated at current_step = step: the same curve, one step
 * later, so that the first update is not taken at lr 0 and the last one is at minRatio·η.
 */
export function lrFactor(cfg: LrScheduleConfig, step: number, totalSteps: number | null): number {
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`lrFactor: step must be an integer ≥ 1, got ${step}`);
  const W = cfg.warmupSteps;
  if (step < W) return step / W;
  if (cfg.mode === 'constant') return 1;
  if (totalSteps === null) throw new RangeError('lrFactor: a cosine schedule needs the run length (every stage a fixed step count)');
  if (totalSteps <= W) return 1;
  const progress = Math.min(1, (step - W) / (totalSteps - W));
  return cfg.minRatio + (1 - cfg.minRatio) * 0.5 * (1 + Math.cos(Math.PI * progress));
}
