/**
 * Multi-stage schedule tracking. A run is a list of stages (each with its own max response
 * length, batch, group size, temperature); a stage ends after a fixed number of steps or when
 * train accuracy plateaus. The status is recomputed from the metric history alone, so a run
 * resumed from a checkpoint needs no extra tracker state.
 */

/** Plateau rule: stop when mean(last W) − mean(previous W) < δ (needs ≥ 2W steps), or at maxSteps. */
export interface ConvergenceRule {
  /** W: window length in steps. */
  window: number;
  /** δ: smallest improvement of the windowed mean (accuracy, in [0, 1]) that still counts. */
  minImprovement: number;
  /** Hard cap so a stage that keeps improving slowly still ends. */
  maxSteps: number;
}

/** What the tracker needs of a stage: exactly one of `steps` / `convergence` is non-null. */
export interface StageRule {
  steps: number | null;
  convergence: ConvergenceRule | null;
}

export type StageEndReason = 'steps' | 'plateau' | 'max-steps';

export interface StageStatus {
  /** Stage the NEXT step belongs to (the last stage once `done`). */
  stage: number;
  /** Steps already done in `stage`. */
  stepInStage: number;
  /** Steps done in the whole run (= history length). */
  globalStep: number;
  /** Global step at which each stage reached so far began. */
  stageStarts: number[];
  /** Why each finished stage ended. */
  endReasons: StageEndReason[];
  /** The last recorded step finished a stage and another follows: do the stage-start work now. */
  advanced: boolean;
  /** Every stage is finished: stop training. */
  done: boolean;
}

/** True when the mean of the last W values improves on the previous W by less than δ. */
export function plateaued(values: readonly number[], window: number, minImprovement: number, from = 0, to = values.length): boolean {
  if (to - from < 2 * window) return false;
  let last = 0;
  let prev = 0;
  for (let i = to - window; i < to; i++) last += values[i];
  for (let i = to - 2 * window; i < to - window; i++) prev += values[i];
  return (last - prev) / window < minImprovement;
}

/**
 * Walks the history (one train-accuracy value per completed step, e.g. critic/score/mean)
 * through the stages. A plateau is judged on the current stage's values only, because raising
 * the max response length changes what accuracy means.
 */
export function trackStages(stages: readonly StageRule[], history: readonly number[]): StageStatus {
  if (stages.length === 0) throw new RangeError('a run needs at least one stage');
  const stageStarts = [0];
  const endReasons: StageEndReason[] = [];
  let stage = 0;
  let start = 0;
  for (let t = 1; t <= history.length && stage < stages.length; t++) {
    const reason = stageEnd(stages[stage], history, start, t);
    if (reason === null) continue;
    endReasons.push(reason);
    stage++;
    start = t;
    if (stage < stages.length) stageStarts.push(t);
  }
  const done = stage >= stages.length;
  const last = done ? stages.length - 1 : stage;
  return {
    stage: last,
    stepInStage: history.length - stageStarts[last],
    globalStep: history.length,
    stageStarts,
    endReasons,
    advanced: !done && stage > 0 && start === history.length,
    done,
  };
}

/** Whether a stage that began at `from` ends once step `to` (exclusive) is recorded. */
function stageEnd(rule: StageRule, history: readonly number[], from: number, to: number): StageEndReason | null {
  const n = to - from;
  if (rule.steps !== null) return n >= rule.steps ? 'steps' : null;
  const c = rule.convergence;
  if (c === null) throw new RangeError('a stage needs `steps` or `convergence`');
  if (plateaued(history, c.window, c.minImprovement, from, to)) return 'plateau';
  return n >= c.maxSteps ? 'max-steps' : null;
}
