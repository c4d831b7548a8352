/**
 * One engine interface, two backends. The trainer, SFT, evaluation, the CLI and the Worker talk
 * to a `PolicyEngine` (one policy: weights, AdamW moments, batched sampling, one update) made by
 * a `Backend` — WebGPU (`src/model/policy.ts` on `src/gpu/`) or the CPU engine
 * (`src/model/cpu-policy.ts` on the WebAssembly SIMD kernels of `src/cpu/`). Everything that
 * crosses this interface is a plain typed array, so a backend owns its memory layout. The options
 * and results it carries are in ./engine-types.ts, the checks both engines make in ./engine-checks.ts.
 *
 * Both backends compute the same math (each kernel is tested against the same float64 twin);
 * they differ in summation order, so a run replays bit for bit on one backend (and, for the CPU
 * engine, one thread count), and a checkpoint written by one resumes on the other (not bit-exact).
 */
import type { AdamWOptions, GenerateRequest, GenerateResult, GrpoLossOptions } from './engine-types';
import type { DeviceLossInfo } from '../gpu/faults';
import type { ModelConfig, ParamLayout } from './config';
import type { StepStats } from './step';
import type { MatmulVariant } from '../util/engine-options';

export type { AdamWOptions, GrpoLossOptions, KlType, SamplerOptions } from './engine-types';
export { MATMUL_VARIANTS, type MatmulVariant } from '../util/engine-options';
export type { GenerateRequest, GenerateResult, FinishReason } from './engine-types';
export type { StepStats } from './step';
export { combineStepStats } from './step-stats';
/** Device faults (src/gpu/faults.ts), for the layers above that recover from them without importing src/gpu. */
export { DeviceLostError, GpuUncapturedError, isDeviceFault, describeLoss, type DeviceLossInfo } from '../gpu/faults';

export type BackendName = 'webgpu' | 'wasm';
/** What a user asks for: `auto` picks WebGPU on a hardware adapter, the CPU engine on a software adapter or none. */
export type BackendChoice = BackendName | 'auto';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'webgpu', 'wasm'];

/**
 * The `auto` rule: WebGPU on a hardware adapter; the CPU engine where the only adapter is a
 * software one (SwiftShader runs WebGPU at ~1 GFLOP/s on the CPU, the CPU engine ~10× faster) or
 * where there is none. An explicit choice is kept (the caller reports it if unavailable).
 */
export function resolveBackend(choice: BackendChoice, adapter: { isSoftware: boolean } | null): BackendName {
  if (choice !== 'auto') return choice;
  return adapter && !adapter.isSoftware ? 'webgpu' : 'wasm';
}

/** The loss of one update: GRPO policy loss (optionally with the KL term, which needs refLogp), or SFT cross-entropy. */
export type UpdateLoss = { kind: 'grpo'; opts: GrpoLossOptions } | { kind: 'ce' };

/**
 * One mini-batch of `rows` sequences of `T` tokens, row-major [rows × T]; or, with `lengths`, its
 * rows packed back to back (PolicyEngine.packedRows).
 */
export interface UpdateBatch {
  rows: number;
  /** Tokens per row; with `lengths`, at least the longest row (the engine sizes its buffers by rows × T). */
  T: number;
  /**
   * Packed rows: row r holds lengths[r] tokens (1 ≤ lengths[r] ≤ T) and starts where row r − 1 ends,
   * so every per-token array below holds Σ lengths entries, not rows × T, and no position is padding.
   * Only for an engine with PolicyEngine.packedRows.
   */
  lengths?: Uint32Array;
  /** τ of the log-probs and entropies (the rollout temperature). */
  temperature: number;
  /** Input tokens. */
  tokens: Uint32Array;
  /** The token each position predicts (anything where mask is 0). */
  targets: Uint32Array;
  /** 1 on response tokens that enter the loss, else 0. */
  mask: Float32Array;
  /** Per-token aggregation weights (src/rl/aggregation.ts; for CE: mask / count). */
  weights: Float32Array;
  /** Per-token advantage Â (GRPO). */
  advantages?: Float32Array;
  /** log π_old per token (off-policy mini-batches); absent = on-policy: this forward's logp (ρ ≡ 1). */
  oldLogp?: Float32Array;
  /** log π_ref per token (KL term, β > 0). */
  refLogp?: Float32Array;
}

/** Token offset of each row of a batch and the end ([rows + 1] entries): r·T, or the running sum of packed lengths. */
export function rowOffsets(b: { rows: number; T: number; lengths?: Uint32Array }): number[] {
  const out = [0];
  for (let r = 0; r < b.rows; r++) out.push(out[r] + (b.lengths ? b.lengths[r] : b.T));
  return out;
}

export interface UpdateOptions {
  /** AdamW step number t (bias correction), 1-based. */
  step: number;
  adamw: AdamWOptions;
  /** false: gradients and stats only (no optimizer step). Default true. */
  update?: boolean;
  /**
   * Gradient accumulation over micro-batches (verl's ppo_micro_batch_size_per_gpu): 'first' zeroes
   * the gradients, 'middle' and 'last' add to them, 'last' then takes the grad norm and the clipped
   * AdamW step. 'only' (the default) is one call doing all of it. Each micro-batch's weights must
   * carry the whole mini-batch's normalisation (src/rl/aggregation.ts), so the gradients add up;
   * combineStepStats merges the calls' statistics. A 'last' after a micro-batch whose loss was not
   * finite applies nothing (applied: false). Non-final calls report gradNorm NaN, applied false.
   */
  accumulate?: Accumulate;
}

export type Accumulate = 'first' | 'middle' | 'last' | 'only';

/**
 * How to build a policy. matmulVariant (WebGPU only; the CPU engine ignores it): the kernel variant
 * its matmuls use — a resumed run's recorded one; 'by-adapter-kind' is the rule runs used before the
 * variant was recorded (software adapter → blocked4x4, else tiled64), so their checkpoints still
 * replay bit for bit. Absent: the backend's own choice (timed per adapter and cached, or its override).
 */
export interface PolicyOptions {
  matmulVariant?: MatmulVariant | 'by-adapter-kind';
}

export interface PolicyEngine {
  readonly backend: BackendName;
  /** WebGPU: the matmul variant this policy's kernels were built with (a run records it in its checkpoint). */
  readonly matmulVariant?: MatmulVariant;
  readonly cfg: ModelConfig;
  readonly layout: ParamLayout;
  setParams(flat: Float32Array): void;
  getParams(): Promise<Float32Array>;
  setAdamState(m: Float32Array, v: Float32Array): void;
  getAdamState(): Promise<{ m: Float32Array; v: Float32Array }>;
  resetAdamState(): void;
  /** Batched sampling with a KV cache and the counter-based PRNG (same seed, same backend → same tokens). */
  generate(req: GenerateRequest): Promise<GenerateResult>;
  /** zero grads → forward → loss → backward → grad norm → clipped AdamW (per o.accumulate); returns the batch statistics. */
  update(batch: UpdateBatch, loss: UpdateLoss, o: UpdateOptions): Promise<StepStats>;
  /**
   * Forward only: log-prob of each target and the full-distribution entropy at τ, [rows × T] each;
   * with `lengths` (packedRows engines only), rows packed as in UpdateBatch.lengths, Σ lengths each.
   */
  forward(tokens: Uint32Array, targets: Uint32Array, rows: number, T: number, temperature: number, lengths?: Uint32Array): Promise<{ logp: Float32Array; entropy: Float32Array }>;
  /**
   * Optional: sizes the training memory for the largest shape a run will use, once (the CPU engine's
   * shapes share one arena). Engines that keep a buffer set per shape (WebGPU) leave it out.
   */
  reserveTrain?(rows: number, T: number): void;
  /**
   * true: update and forward take packed rows (UpdateBatch.lengths; the CPU engine: its programs
   * are recorded per batch and every shape's buffers share one arena), so the trainer trains no
   * padding (src/rl/update-batch.ts). Absent: rows × T only, and the trainer pads rows to G × 2^k
   * and T to the stage's limit, so only a few shapes are built (WebGPU: a buffer set per shape).
   */
  readonly packedRows?: boolean;
  /** Frees what the engine holds (buffers, worker threads). */
  destroy(): void;
}

/** out[M×N] = op(A)·op(B), op(X) = Xᵀ when trans. */
export interface MatmulShape {
  M: number;
  N: number;
  K: number;
  transA: boolean;
  transB: boolean;
}

/** What an engine can hold (the run's resource check, src/rl/resources.ts): a WebGPU device's buffer limits, or the CPU engine's memory. */
export type EngineLimits =
  | { engine: 'webgpu'; maxStorageBufferBindingSize: number; maxBufferSize: number; software: boolean }
  | { engine: 'wasm'; memoryBytes: number; threads: number };

/** Makes policies on one device (a GPU adapter, or the CPU's cores). */
export interface Backend {
  readonly name: BackendName;
  /** Human-readable: the adapter, or "CPU engine (WebAssembly SIMD, 2 threads)". */
  readonly description: string;
  /** Threads the CPU engine uses (1 for WebGPU). */
  readonly threads: number;
  /** `name` labels the policy's buffers (actor, reference, …). */
  createPolicy(cfg: ModelConfig, name: string, opts?: PolicyOptions): Promise<PolicyEngine>;
  /** GFLOP/s of this backend's matmul on one shape (median of `repeats`; a benchmark, not a test). */
  matmulGflops?(shape: MatmulShape, repeats: number): Promise<number>;
  /** The device's limits now; absent on a backend that exposes none (a test double). */
  limits?(): EngineLimits;
  /**
   * WebGPU only: calls `f` once if the device is lost outside of destroy() (the GPU process
   * crashed, the driver reset). Every policy of this backend is then dead; its owner opens a new
   * backend. Returns the unsubscribe.
   */
  onLost?(f: (info: DeviceLossInfo) => void): () => void;
  destroy(): void;
}
