/**
 * Typed messages between the UI and the Worker that owns the GPU device and the trainer.
 * The UI never imports src/gpu (only types); everything it learns about the device and the
 * run arrives through these messages. Metrics are sent in batches, not one message per token.
 */
import type { AdapterSummary } from '../gpu/runtime';
import type { RunConfig, StageConfig } from '../rl/config';
import type { EvalRecord, SampleRecord, StepRecord } from '../rl/trainer-types';

export type RunState = 'idle' | 'starting' | 'running' | 'paused' | 'done' | 'error';

export type ToWorker =
  /** Acquire the device; answered by ready / no-webgpu. */
  | { type: 'init' }
  /**
   * Start a new run with this config (validated in the Worker). `checkpoint` (a .mlck file's
   * bytes) resumes a run saved by `save-checkpoint`, or warm-starts from base weights; without
   * it, the shipped base checkpoint for the config's model is loaded (`baseCheckpointUrl`).
   */
  | { type: 'start'; runId: string; config: RunConfig; checkpoint?: ArrayBuffer; baseCheckpointUrl?: string; paused?: boolean }
  | { type: 'pause' }
  | { type: 'resume' }
  /** Run exactly one training step, then pause. */
  | { type: 'step' }
  /** Stop the run and free its buffers (the device stays). */
  | { type: 'stop' }
  /** Replace the stage schedule; stages before the current one must be unchanged. */
  | { type: 'set-stages'; stages: StageConfig[] }
  /** Answered by a `checkpoint` message with the full run state. */
  | { type: 'save-checkpoint' }
  /** Answer to `sync`: everything the Worker sent before it is on screen. */
  | { type: 'drawn'; id: number };

export type FromWorker =
  | { type: 'ready'; adapter: AdapterSummary }
  | { type: 'no-webgpu'; reason: string }
  | { type: 'state'; runId: string | null; state: RunState; step: number; stage: number; message?: string }
  /**
   * The config the trainer actually runs with, sent once after `start` when it differs from the
   * one sent: a run checkpoint carries its own config, which wins over the page's.
   */
  | { type: 'run-config'; runId: string; config: RunConfig }
  /** Step records since the last message (batched). */
  | { type: 'metrics'; runId: string; steps: StepRecord[] }
  | { type: 'eval'; runId: string; record: EvalRecord }
  /** The latest rollout group(s), for the rollout viewer. */
  | { type: 'samples'; runId: string; step: number; samples: SampleRecord[] }
  | { type: 'checkpoint'; runId: string; step: number; bytes: ArrayBuffer }
  /**
   * Answer with `drawn` (same id) once the messages before this one are drawn. Sent after a
   * batch when the GPU is emulated on the CPU: the next step waits for the answer (at most 2 s)
   * so that drawing and GPU work do not compete for the cores.
   */
  | { type: 'sync'; id: number }
  | { type: 'error'; message: string };
