/**
 * Typed messages between the UI and the Worker that owns the engine (GPU device or CPU engine) and the trainer.
 * The UI never imports src/gpu (only types); everything it learns about the device and the
 * run arrives through these messages. Metrics are sent in batches, not one message per token.
 */
import type { AdapterSummary } from '../gpu/runtime';
import type { BackendChoice, BackendName, EngineLimits } from '../model/engine';
import type { BenchModelName, BenchResult } from '../model/bench-run';
import type { ModelConfig } from '../model/config';
import type { RunConfig, StageConfig } from '../rl/config';
import type { EvalRecord, SampleRecord, StepRecord } from '../rl/trainer-types';
import type { TemperatureView } from '../rl/token-probs';

export type { BackendChoice, BackendName } from '../model/engine';
export { BACKEND_CHOICES } from '../model/engine';
export type { BenchConfig, BenchModelName, BenchResult } from '../model/bench-run';

/** The model the Benchmark view times: the rung the page is on (its draft's model), and its name for the result. */
export interface BenchModelSpec {
  config: ModelConfig;
  name: BenchModelName;
}

/** The engine the Worker trains on, as the page shows it. */
export interface EngineSummary {
  backend: BackendName;
  /** What was asked for (auto, webgpu, wasm). */
  choice: BackendChoice;
  /** "WebGPU on <adapter>" or "CPU engine (WebAssembly SIMD, N threads)". */
  description: string;
  threads: number;
  /** The WebGPU adapter when the engine is WebGPU. */
  adapter: AdapterSummary | null;
  /** The engine computes on the CPU (CPU engine, or WebGPU on a software adapter): the page must get its turns to draw. */
  cpuBound: boolean;
  /** Why `auto` did not pick WebGPU, when it did not. */
  note?: string;
  /** What the engine can hold (the rung selector refuses a rung beyond it); absent for a backend that exposes none. */
  limits?: EngineLimits | null;
}

export type RunState = 'idle' | 'starting' | 'running' | 'paused' | 'done' | 'error';

export type ToWorker =
  /**
   * Open the engine (default `auto`: WebGPU on a hardware adapter, else the CPU engine); answered
   * by ready / no-engine. Sent again with another choice, it stops any run and switches engines.
   */
  | { type: 'init'; backend?: BackendChoice }
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
  | { type: 'drawn'; id: number }
  /**
   * The group inspector's token view: the policy's next-token distribution at response position
   * `position` (0-based, into `tokens`, the response's token strings) after `prompt`, from a forward
   * pass of the run's current policy. Answered by `token-probs` with the same requestId.
   */
  | { type: 'token-probs'; requestId: number; runId: string; prompt: string; tokens: string[]; position: number; temperatures: number[]; k: number }
  /**
   * The rung selector's speed figure: a couple of train steps and a short decode on a throwaway
   * policy of `config`'s model, timed on the open engine and scaled to `config`'s first stage
   * (src/worker/rung-bench.ts). Answered by `step-estimate` with the same key, between two steps.
   */
  | { type: 'measure-step'; key: string; config: RunConfig }
  /**
   * The Benchmark view: `magic-lab bench`'s measurement (src/model/bench-run.ts) on the open engine,
   * between two steps; `thorough` times the CLI's default batch and steps, else a quick one
   * (src/worker/bench.ts). Answered by `bench-progress` messages, then one `bench-result`.
   */
  | { type: 'bench'; requestId: number; thorough: boolean; model?: BenchModelSpec };

/** The answer to a `token-probs` request: the distribution, or why there is none. */
export type TokenProbsAnswer =
  | {
      requestId: number;
      runId: string;
      /** Steps the answering policy has trained: the policy now, not the one that sampled the response. */
      step: number;
      /** log p of every token id at τ = 1 (any τ follows: src/rl/token-probs.ts). */
      logp: number[];
      /** The top-k alternatives, entropy and the sampled token's probability at each requested τ. */
      views: TemperatureView[];
    }
  | { requestId: number; runId: string; error: string };

export type FromWorker =
  | { type: 'ready'; engine: EngineSummary }
  /** Neither WebGPU nor the CPU engine (WebAssembly SIMD) works here, or the chosen one does not. */
  | { type: 'no-engine'; reason: string }
  | { type: 'state'; runId: string | null; state: RunState; step: number; stage: number; message?: string }
  /**
   * Progress of long work inside a step (the step-0 evaluation) for the state line: not a state, so a Worker busy in
   * it neither answers a `stop` nor moves the page's run state (a Reset meanwhile leaves the page idle).
   */
  | { type: 'progress'; runId: string; message: string }
  /**
   * The config the trainer actually runs with, sent once after `start` when it differs from the
   * one sent: a run checkpoint carries its own config, which wins over the page's.
   */
  | { type: 'run-config'; runId: string; config: RunConfig }
  /** Step records since the last message (batched). */
  | { type: 'metrics'; runId: string; steps: StepRecord[] }
  | { type: 'eval'; runId: string; record: EvalRecord }
  /**
   * The rollout groups recorded since the last batch, for the group inspector: each record names
   * its step (at most the last 32 steps' records); `step` is the newest.
   */
  | { type: 'samples'; runId: string; step: number; samples: SampleRecord[] }
  | ({ type: 'token-probs' } & TokenProbsAnswer)
  | { type: 'checkpoint'; runId: string; step: number; bytes: ArrayBuffer }
  /** The answer to `measure-step`: seconds per RL step on `engine` (its description), or why there is none. */
  | { type: 'step-estimate'; key: string; engine: string; seconds: number }
  | { type: 'step-estimate'; key: string; engine: string; error: string }
  /** The benchmark's part now running (`done` of `total` parts finished). */
  | { type: 'bench-progress'; requestId: number; phase: string; done: number; total: number }
  | { type: 'bench-result'; requestId: number; result: BenchResult }
  | { type: 'bench-result'; requestId: number; error: string }
  /** An on-demand base checkpoint being downloaded for a run's start: bytes so far, and of the whole file (0: unknown). */
  | { type: 'base-progress'; runId: string; loaded: number; total: number }
  /**
   * Answer with `drawn` (same id) once the messages before this one are drawn. Sent after a
   * batch when the GPU is emulated on the CPU: the next step waits for the answer (at most 2 s)
   * so that drawing and GPU work do not compete for the cores.
   */
  | { type: 'sync'; id: number }
  /**
   * The GPU device was lost (the browser's GPU process crashed, the driver reset) or failed. The
   * Worker drops it and opens a new one (a few attempts with growing pauses): `recovering` while
   * it tries, then `recovered` — the run (if any) resumed from its last checkpoint, so the page
   * drops its records after `resumedFromStep` (they are sent again) — or `failed`: no new device;
   * the run stopped and its last checkpoint is kept. `message` says so in one line for the page.
   */
  | { type: 'device-lost'; runId: string | null; phase: 'recovering' | 'recovered' | 'failed'; lostAtStep: number; resumedFromStep: number | null; message: string }
  | { type: 'error'; message: string };
