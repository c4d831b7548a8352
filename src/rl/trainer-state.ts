/**
 * The trainer's resumable state: apart from src/rl/trainer.ts so that run-checkpoint.ts, which the
 * trainer imports, checks a stored state without importing the trainer back.
 */
import type { RunConfig } from './config';
import { initialEntropyState, type EntropyControllerState } from './entropy';
import type { OfflineFilterReport } from './filters';

/** Everything besides weights and AdamW moments that a resumed run needs (JSON in the checkpoint). */
export interface TrainerState {
  /** Steps done. */
  step: number;
  /**
   * AdamW steps applied (N_SGD per RL step). A step rejected as non-finite does not count: it
   * left the moments as they were, so the bias correction's t stays the number of updates they hold.
   */
  adamStep: number;
  /** critic/score/mean of every step: the stage tracker's input. */
  scoreHistory: number[];
  entropy: EntropyControllerState;
  /** Active training-prompt indices (after offline / online filtering). */
  pool: number[];
  /** Data cursor: epoch over the pool and position in its shuffled order. */
  epoch: number;
  position: number;
  /** Per-prompt rollouts and solves in the current stage (online filter). */
  attempts: number[];
  solves: number[];
  /** Stage whose start-of-stage work (online filter) has been done. */
  stageStarted: number;
  offline: OfflineFilterReport | null;
  /** Training wall time so far (ms), excluding evaluations. */
  elapsedMs: number;
  /**
   * Optimizer steps rejected as non-finite in a row, so a resumed run stops after the same
   * update.maxNonfiniteSteps as an unbroken one. Absent while 0 (older files and finite runs
   * keep their exact bytes).
   */
  nonfiniteStreak?: number;
}

/** The state of a run before its first step: the whole training set in the pool, every counter at 0. */
export function freshTrainerState(cfg: RunConfig, trainSize: number): TrainerState {
  return {
    step: 0,
    adamStep: 0,
    scoreHistory: [],
    entropy: initialEntropyState(cfg.loss.entropy),
    pool: Array.from({ length: trainSize }, (_, i) => i),
    epoch: 0,
    position: 0,
    attempts: new Array(trainSize).fill(0),
    solves: new Array(trainSize).fill(0),
    stageStarted: 0,
    offline: null,
    elapsedMs: 0,
  };
}
