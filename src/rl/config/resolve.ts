/** Stage resolution: a stage with the rollout defaults filled in, and the schedule's length. */
import type { ConvergenceRule } from '../stages';
import type { RunConfig } from './schema';

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

/** RL steps of the whole schedule when every stage has a fixed step count; null when one ends by convergence. */
export function fixedRunSteps(cfg: RunConfig): number | null {
  return cfg.stages.every((s) => s.steps !== null) ? cfg.stages.reduce((a, s) => a + (s.steps ?? 0), 0) : null;
}

/** The longest stage's response limit: evaluations and the offline filter sample at it, so they stay comparable across stages. */
export function longestResponseLength(cfg: RunConfig): number {
  return Math.max(...cfg.stages.map((s) => s.maxResponseLength));
}
