/** Records the trainer emits (one per step, one per evaluation, and sample completions), and its options. */
import type { StepInspector } from './inspect';
import type { StepMetrics } from './metrics';
import type { OfflineFilterCache } from './offline-sampling';
import type { Clock, TimingKey } from './phase-timer';

/**
 * One training step: the verl-named metrics plus where the run is. `timing_s/*` (src/rl/phase-timer.ts)
 * say where the step's time went; records written before they existed lack them.
 */
export type StepRecord = StepMetrics & Partial<Record<TimingKey, number>> & {
  /** 1-based global step. */
  step: number;
  /** Wall-clock ms since the run started (excluding evaluations). */
  time_ms: number;
};

/**
 * One evaluation: `val/avg@k/t1.0`, `val/pass@k/t0.6`, `val/maj@k/…`, `val/response_length/mean/t…`, `val/entropy/t…`, …, and the
 * coverage curve: `val/pass@1/t1.0`, `val/pass@2/t1.0`, … up to k, and per family `val/<family>/pass@k/t1.0` (coverage.ts).
 */
export type EvalRecord = { step: number } & Record<string, number>;

/** One sampled completion, kept for the rollout viewer and samples.jsonl (bounded per step). */
export interface SampleRecord {
  step: number;
  /** Index of the prompt's group in this step's rollout batch. */
  group: number;
  family: string;
  prompt: string;
  /** Decoded response, think block included, EOS excluded. */
  response: string;
  reward: number;
  advantage: number;
  truncated: boolean;
  /** Whether this group was kept by rejection sampling. */
  kept: boolean;
  /** Per response token: the token text, its log-prob and its distribution's entropy (at τ). */
  tokens: string[];
  logp: number[];
  entropy: number[];
  // Added for the group inspector; absent in older samples.jsonl files.
  /** Index of the prompt in the training set (the same prompt at another step has the same id). */
  promptId?: number;
  /** Recorded because its prompt is one the inspector follows (src/rl/inspect.ts WATCHED_PROMPTS). */
  watched?: boolean;
  /**
   * Per token ρ = π_after / π_old: the probability under the policy after this step's update over
   * the probability it was sampled with. Absent when the trainer does not inspect (TrainerInit.inspector)
   * or the step made no update.
   */
  ratio?: number[];
  /** Response positions where the clip took the gradient at an update (off-policy only; [] on-policy). Absent as ratio. */
  clipped?: number[];
}

export interface TrainStepResult {
  record: StepRecord;
  samples: SampleRecord[];
  /** Present when this step ran the periodic evaluation. */
  eval?: EvalRecord;
}

export interface TrainerInit {
  /**
   * A .mlck file: a run checkpoint (meta.kind "magic-lab-run") resumes that run — its config
   * wins over `config` — while any other checkpoint (e.g. the shipped base) provides the
   * starting weights.
   */
  checkpoint?: Uint8Array;
  /** Called with progress text during long set-up work (offline filter). */
  onProgress?: (message: string) => void;
  /**
   * Called with each set-up phase as it begins — generating the data, building the model, each
   * batch of the offline filter — for a progress display (the page's Worker posts them; the CLI
   * does not print them).
   */
  onSetup?: (message: string) => void;
  /** Names the checkpoint in errors (a file path); default "checkpoint". */
  checkpointName?: string;
  /**
   * The page's group inspector (groupInspector() in src/rl/inspect.ts): the trainer calls it only
   * when given one, to record the groups of the watched prompts besides the first ones, ρ after the
   * update and clip marks per token. It only reads (forward passes): the run's numbers are the same
   * with or without it; it costs one small forward per step.
   */
  inspector?: StepInspector;
  /**
   * Offline-filter results from other runs (a sweep's pool), read when the base checkpoint stores
   * none for this run's key and written after sampling: the same counts sampling would give.
   */
  offlineFilterCache?: OfflineFilterCache;
  /** Monotonic milliseconds for the step's timings (timing_s/*, perf/step_s, time_ms); default performance.now. */
  clock?: Clock;
}
