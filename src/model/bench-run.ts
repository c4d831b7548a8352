/**
 * The engine benchmark both `magic-lab bench` (src/cli/bench.ts) and the page's Benchmark view
 * (the Worker's `bench` message) run, so a figure means the same in either: matmul GFLOP/s at the
 * train step's shapes (each shape, and all of them: total FLOP / total time), WebGPU's matmul
 * variants and the fastest, a full train step (forward + GRPO loss + backward + clipped AdamW) and
 * batched sampling; with `peak`, the CPU engine's f32x4 peak (src/cpu/roofline.ts) and each
 * figure's share of it. Medians after warm-up; a measurement, not a test.
 */
import { peakGflops } from '../cpu/roofline';
import { chooseMatmulVariant, type MatmulVariant } from '../gpu/kernels/matmul';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from './bench-batch';
import type { ModelConfig } from './config';
import type { WasmBackend } from './cpu-policy';
import type { Backend, BackendName, MatmulShape } from './engine';
import { decodeFlops, trainStepFlops } from './flops';
import type { WebGpuBackend } from './gpu-engine';
import { initParams } from './init';
import { trainMatmulShapes } from './policy';

/** The bench model and batch (`--config` keys): small enough for SwiftShader, the same on both engines. */
export const DEFAULT_BENCH = { vocab: 32, ctx: 64, dModel: 64, layers: 2, heads: 4, mlpRatio: 4, batch: 16 };
export type BenchConfig = typeof DEFAULT_BENCH;

/** Which model a measurement timed, when not the bench model: the page names its rung (and preset). */
export interface BenchModelName {
  /** "tiny rung", or "off the rung ladder" for a hand-made shape. */
  name: string;
  rung: string | null;
  preset: string;
}

export interface BenchResult {
  backend: BackendName;
  /** The adapter, or the CPU engine and its thread count. */
  adapter: string;
  threads: number;
  config: BenchConfig;
  params: number;
  /** The page's measurement of the rung it is on: which model (absent: the bench model, as `magic-lab bench` times). */
  model?: BenchModelName;
  /**
   * gflops: the backend's matmul over all the train step's shapes (total FLOP / total time); per_shape: each shape's own;
   * variants: WebGPU's per-variant figures over all shapes, chosen: the fastest.
   */
  matmul: {
    gflops: number;
    shapes: number;
    largest: { shape: string; gflops: number };
    per_shape?: { shape: string; flop: number; gflops: number }[];
    variants?: Record<MatmulVariant, number>;
    chosen?: MatmulVariant;
    /** WebGPU: the variant the bench's policy (and the figures above) ran: the backend's (timed per adapter and cached, or --matmul-variant). */
    used?: MatmulVariant;
  };
  /** gflops: the model's matmul FLOPs per step (src/model/flops.ts) over the median time. */
  train_step: { median_ms: number; tokens_per_s: number; steps: number; gflops?: number };
  sampling: { tokens_per_s: number; sequences: number; tokens: number; median_ms: number; decode_steps?: number; gflops?: number };
  /** With `peak` on the CPU engine: its f32x4 mul + add peak on every pool thread, and each figure as a share of it. */
  peak?: { kernel: 'f32x4.mul + f32x4.add'; gflops: number; threads: number };
  efficiency?: { matmul: number; train_step: number; sampling: number };
  /** With `magic-lab bench --rl-steps`: one RL step of the magic preset (rollouts, rewards, update), seconds. */
  rl_step?: { preset: string; steps: number; median_s: number; first_s: number };
}

export interface BenchOptions {
  config: BenchConfig;
  model: ModelConfig;
  /** Names the model in the result when it is not the bench model. */
  modelName?: BenchModelName;
  /** Timed train steps (after 2 untimed). */
  steps: number;
  /** Timed sampling rounds (after 1 untimed); default 2. */
  samplingRounds?: number;
  /** Repeats of each matmul shape (median); default 5. */
  matmulRepeats?: number;
  /** Measure the CPU engine's peak (ignored on WebGPU, which has none measured). */
  peak?: boolean;
  /** Called as each part starts: what, and how many parts of `total` are done. */
  onProgress?: (phase: string, done: number, total: number) => void;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const shapeName = (s: MatmulShape) => `${s.M}x${s.N}x${s.K}${s.transA ? ' Aᵀ' : ''}${s.transB ? ' Bᵀ' : ''}`;
const flopOf = (s: MatmulShape) => 2 * s.M * s.N * s.K;

/** Runs the benchmark on `backend` (which the caller owns and destroys). */
export async function benchEngine(backend: Backend, o: BenchOptions): Promise<BenchResult> {
  const cfg = o.model;
  const B = o.config.batch;
  const T = cfg.contextLength;
  const rows = B * T;
  const shapes = trainMatmulShapes(cfg, rows);
  const peak = o.peak && backend.name === 'wasm';
  const parts = shapes.length + (backend.name === 'webgpu' ? 1 : 0) + 2 + (peak ? 1 : 0);
  let done = 0;
  const step = (phase: string) => o.onProgress?.(phase, done++, parts);
  const repeats = o.matmulRepeats ?? 5;
  const gflopsOf = async (shape: MatmulShape) => (backend.matmulGflops ? backend.matmulGflops(shape, repeats) : NaN);
  const big = shapes.reduce((a, s) => (flopOf(s) > flopOf(a) ? s : a));
  // Made first, so WebGPU's variant is settled (timed or cached) before the matmul figures use it.
  const policy = await backend.createPolicy(cfg, 'bench');
  try {
    let totalFlop = 0;
    let totalS = 0;
    const perShape: NonNullable<BenchResult['matmul']['per_shape']> = [];
    for (const s of shapes) {
      step(`matmul ${shapeName(s)}`);
      const g = await gflopsOf(s);
      perShape.push({ shape: shapeName(s), flop: flopOf(s), gflops: g });
      totalFlop += flopOf(s);
      totalS += flopOf(s) / (g * 1e9);
    }
    const matmul: BenchResult['matmul'] = { gflops: totalFlop / totalS / 1e9, shapes: shapes.length, largest: { shape: shapeName(big), gflops: await gflopsOf(big) }, per_shape: perShape };
    if (backend.name === 'webgpu') {
      // WebGPU only: every kernel variant timed at the train step's full shapes (a run's own choice times smaller ones, src/model/matmul-choice.ts).
      step('matmul variants');
      const v = await chooseMatmulVariant((backend as WebGpuBackend).rt, shapes);
      matmul.variants = v.gflops;
      matmul.chosen = v.chosen;
      matmul.used = policy.matmulVariant;
    }
    policy.setParams(initParams(cfg, 1));
    policy.resetAdamState();
    step('train step');
    const batch = benchTrainBatch(cfg, B);
    const times: number[] = [];
    for (let i = 0; i < o.steps + 2; i++) {
      const t0 = performance.now();
      await policy.update(batch, BENCH_GRPO_LOSS, { step: i + 1, adamw: BENCH_ADAMW });
      if (i >= 2) times.push(performance.now() - t0);
    }
    const stepMs = median(times);

    // Sampling: B sequences from a one-token prompt, up to the full context; throughput counts the tokens actually generated.
    // Every round decodes the same sequences (one seed), so the timed rounds and the counted work agree.
    step('sampling');
    const sampleTimes: number[] = [];
    let generated = 0;
    let decodeSteps = 0;
    let liveSlots: number[] = [];
    for (let i = 0; i < 1 + (o.samplingRounds ?? 2); i++) {
      const t0 = performance.now();
      const res = await policy.generate({ prompts: Array.from({ length: B }, () => [0]), maxResponseLength: T - 1, temperature: 1, topP: 1, seed: 0, eosId: cfg.vocabSize - 1, padId: 0 });
      if (i > 0) sampleTimes.push(performance.now() - t0);
      generated = res.responses.reduce((s, r) => s + r.length, 0);
      decodeSteps = res.steps;
      liveSlots = res.liveSlots;
    }
    const sampleMs = median(sampleTimes);
    const result: BenchResult = {
      backend: backend.name,
      adapter: backend.description,
      threads: backend.threads,
      config: o.config,
      params: policy.layout.count,
      ...(o.modelName ? { model: o.modelName } : {}),
      matmul,
      train_step: { median_ms: stepMs, tokens_per_s: (rows / stepMs) * 1000, steps: o.steps, gflops: trainStepFlops(cfg, B, T).total / stepMs / 1e6 },
      sampling: { tokens_per_s: (generated / sampleMs) * 1000, sequences: B, tokens: generated, median_ms: sampleMs, decode_steps: decodeSteps, gflops: decodeFlops(cfg, liveSlots).total / sampleMs / 1e6 },
    };
    if (peak) {
      step('CPU peak (f32x4 mul + add)');
      const rt = (backend as WasmBackend).rt;
      const g = peakGflops(rt, rt.threads);
      result.peak = { kernel: 'f32x4.mul + f32x4.add', gflops: g, threads: rt.threads };
      result.efficiency = { matmul: matmul.gflops / g, train_step: result.train_step.gflops! / g, sampling: result.sampling.gflops! / g };
    }
    o.onProgress?.('done', parts, parts);
    return result;
  } finally {
    policy.destroy();
  }
}
