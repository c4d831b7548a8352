/**
 * `magic-lab bench [--backend webgpu|wasm]`: matmul GFLOP/s at the model's shapes, a full train
 * step (forward + GRPO loss + backward + clipped AdamW) and batched sampling, with the same JSON
 * keys on either backend. Medians after warm-up;
 * a benchmark, not a test — compare figures measured in one run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { chooseMatmulVariant, type MatmulVariant } from '../gpu/kernels/matmul';
import { validateModelConfig } from '../model/config';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../model/bench-batch';
import { initParams } from '../model/init';
import { decodeCheckpoint } from '../model/checkpoint';
import type { Backend, BackendChoice, BackendName, MatmulShape } from '../model/engine';
import type { WebGpuBackend } from '../model/gpu-engine';
import { trainMatmulShapes } from '../model/policy';
import { getPreset } from '../rl/config';
import { MagicTrainer } from '../rl/trainer';
import { parseFlags, parseKeyValues, UsageError, type FlagSpec } from './args';
import { acquireBackend, BACKEND_FLAG, parseBackendChoice, THREADS_FLAG } from './backend';
import { defaultBaseFor } from '../run/rung-base';
import { roofline, type RooflineResult } from './roofline';

export const BENCH_FLAGS: Record<string, FlagSpec> = {
  config: { type: 'string', help: 'model/batch size, e.g. vocab=32,ctx=64,dModel=64,layers=2,heads=4,batch=16' },
  json: { type: 'string', help: 'also write the results as JSON to this file' },
  steps: { type: 'int', min: 1, help: 'timed train steps (default 10)' },
  'rl-steps': { type: 'int', min: 2, help: "also time this many RL steps of the magic preset from the shipped base (the trainer's perf/step_s; median after the first)" },
  roofline: { type: 'bool', help: 'the CPU engine against its ceilings: peak GFLOP/s (1 and N threads), triad GB/s, and each rung\'s train step and sampling as a share of peak (BENCHMARKS.md, Roofline)' },
  svg: { type: 'string', help: 'with --roofline: write the efficiency chart (SVG) to this file, e.g. docs/roofline.svg' },
  compare: { type: 'bool', help: 'run WebGPU and the CPU engine one after the other and print the ratios (cpu / webgpu)' },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
  help: { type: 'bool', help: 'show this help' },
};

const CONFIG_KEYS = ['vocab', 'ctx', 'dModel', 'layers', 'heads', 'mlpRatio', 'batch'] as const;
export const DEFAULT_BENCH = { vocab: 32, ctx: 64, dModel: 64, layers: 2, heads: 4, mlpRatio: 4, batch: 16 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export interface BenchResult {
  backend: BackendName;
  /** The adapter, or the CPU engine and its thread count. */
  adapter: string;
  threads: number;
  config: typeof DEFAULT_BENCH;
  params: number;
  /** gflops: the backend's matmul over all the train step's shapes (total FLOP / total time); variants: WebGPU's per-variant figures. */
  matmul: { gflops: number; shapes: number; largest: { shape: string; gflops: number }; variants?: Record<MatmulVariant, number>; chosen?: MatmulVariant };
  train_step: { median_ms: number; tokens_per_s: number; steps: number };
  sampling: { tokens_per_s: number; sequences: number; tokens: number; median_ms: number };
  /** With --rl-steps: one RL step of the magic preset (rollouts, rewards, update), seconds. */
  rl_step?: { preset: string; steps: number; median_s: number; first_s: number };
}

/** --compare: both backends measured in one run, and CPU engine / WebGPU ratios (> 1: the CPU engine is faster). */
export interface BenchComparison {
  runs: BenchResult[];
  ratios: { train_step: number; sampling: number; matmul: number; rl_step?: number };
}

export async function bench(argv: string[], log: (s: string) => void = console.log): Promise<BenchResult | BenchComparison | RooflineResult> {
  const flags = parseFlags(argv, BENCH_FLAGS, 'bench');
  if (flags.svg !== undefined && !flags.roofline) throw new UsageError('--svg: only with --roofline');
  if (flags.roofline) {
    for (const k of ['compare', 'config', 'rl-steps'] as const) if (flags[k] !== undefined) throw new UsageError(`--roofline measures the rungs on the CPU engine: it cannot be combined with --${k}`);
    if (flags.backend !== undefined && flags.backend !== 'wasm') throw new UsageError('--roofline: the roofline is the CPU engine\'s (--backend wasm)');
    return roofline({ threads: flags.threads as number | undefined, steps: flags.steps as number | undefined, json: flags.json as string | undefined, svg: flags.svg as string | undefined }, log);
  }
  if (flags.compare && flags.backend !== undefined) throw new UsageError('--compare runs both backends: it cannot be combined with --backend');
  const choice = parseBackendChoice(flags.backend);
  if (!flags.compare) {
    const r = await benchBackend(flags, choice, log);
    if (flags.json) writeFileSync(String(flags.json), JSON.stringify(r, null, 2) + '\n');
    return r;
  }
  const runs = [await benchBackend(flags, 'webgpu', log), await benchBackend(flags, 'wasm', log)];
  const [g, w] = runs;
  const ratios: BenchComparison['ratios'] = {
    train_step: w.train_step.tokens_per_s / g.train_step.tokens_per_s,
    sampling: w.sampling.tokens_per_s / g.sampling.tokens_per_s,
    matmul: w.matmul.gflops / g.matmul.gflops,
  };
  if (g.rl_step && w.rl_step) ratios.rl_step = g.rl_step.median_s / w.rl_step.median_s;
  log('');
  log('| CPU engine / WebGPU, measured in this run | ratio |');
  log('| --- | --- |');
  for (const [k, v] of Object.entries(ratios)) log(`| ${k === 'rl_step' ? 'RL step (magic preset), speed' : k} | ${v.toFixed(2)}× |`);
  const out: BenchComparison = { runs, ratios };
  if (flags.json) writeFileSync(String(flags.json), JSON.stringify(out, null, 2) + '\n');
  return out;
}

async function benchRlSteps(backend: Backend, n: number, log: (s: string) => void): Promise<NonNullable<BenchResult['rl_step']>> {
  const config = getPreset('magic');
  let checkpoint: Uint8Array | undefined;
  const baseFile = defaultBaseFor(config);
  if (existsSync(baseFile)) {
    const bytes = new Uint8Array(readFileSync(baseFile));
    if (JSON.stringify(decodeCheckpoint(bytes, baseFile).model) === JSON.stringify(config.model)) checkpoint = bytes;
  }
  const trainer = await MagicTrainer.create(backend, { ...config, eval: { ...config.eval, everySteps: 0 } }, { checkpoint });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await trainer.trainStep();
    times.push(r.record['perf/step_s']);
    log(`  rl step ${i + 1}/${n}: ${r.record['perf/step_s'].toFixed(2)} s`);
  }
  trainer.destroy();
  return { preset: 'magic', steps: n, median_s: median(times.slice(1)), first_s: times[0] };
}

async function benchBackend(flags: Record<string, unknown>, choice: BackendChoice, log: (s: string) => void): Promise<BenchResult> {
  const kv = flags.config ? parseKeyValues(String(flags.config), CONFIG_KEYS, '--config') : {};
  const c = { ...DEFAULT_BENCH, ...kv };
  if (c.batch < 1) throw new UsageError('--config: batch must be at least 1');
  const steps = (flags.steps as number | undefined) ?? 10;
  let cfg;
  try {
    cfg = validateModelConfig({ vocabSize: c.vocab, contextLength: c.ctx, nLayers: c.layers, dModel: c.dModel, nHeads: c.heads, mlpRatio: c.mlpRatio });
  } catch (e) {
    throw new UsageError(`--config: ${(e as Error).message}`);
  }
  const backend = await acquireBackend(choice, { threads: flags.threads as number | undefined });
  try {
    log(`backend: ${backend.description}`);
    const B = c.batch;
    const T = c.ctx;
    const rows = B * T;
    const shapes = trainMatmulShapes(cfg, rows);
    const flop = (s: MatmulShape) => 2 * s.M * s.N * s.K;
    const big = shapes.reduce((a, s) => (flop(s) > flop(a) ? s : a));
    const shapeName = `${big.M}x${big.N}x${big.K}${big.transA ? ' Aᵀ' : ''}${big.transB ? ' Bᵀ' : ''}`;
    const gflopsOf = async (shape: MatmulShape) => (backend.matmulGflops ? backend.matmulGflops(shape, 5) : NaN);
    let totalFlop = 0;
    let totalS = 0;
    for (const s of shapes) {
      const g = await gflopsOf(s);
      totalFlop += flop(s);
      totalS += flop(s) / (g * 1e9);
    }
    const matmul: BenchResult['matmul'] = { gflops: totalFlop / totalS / 1e9, shapes: shapes.length, largest: { shape: shapeName, gflops: await gflopsOf(big) } };
    if (backend.name === 'webgpu') {
      // WebGPU only: every kernel variant timed at the train step's shapes (the run uses a fixed one per adapter kind).
      const v = await chooseMatmulVariant((backend as WebGpuBackend).rt, shapes);
      matmul.variants = v.gflops;
      matmul.chosen = v.chosen;
    }

    const policy = await backend.createPolicy(cfg, 'bench');
    policy.setParams(initParams(cfg, 1));
    policy.resetAdamState();
    const batch = benchTrainBatch(cfg, B);
    const times: number[] = [];
    for (let i = 0; i < steps + 2; i++) {
      const t0 = performance.now();
      await policy.update(batch, BENCH_GRPO_LOSS, { step: i + 1, adamw: BENCH_ADAMW });
      if (i >= 2) times.push(performance.now() - t0);
    }
    const stepMs = median(times);

    // Sampling: B sequences from a one-token prompt, up to the full context; throughput counts the tokens actually generated.
    const sampleTimes: number[] = [];
    let generated = 0;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const res = await policy.generate({
        prompts: Array.from({ length: B }, () => [0]),
        maxResponseLength: T - 1,
        temperature: 1,
        topP: 1,
        seed: i,
        eosId: cfg.vocabSize - 1,
        padId: 0,
      });
      if (i > 0) sampleTimes.push(performance.now() - t0);
      generated = res.responses.reduce((s, r) => s + r.length, 0);
    }
    const sampleMs = median(sampleTimes);
    const result: BenchResult = {
      backend: backend.name,
      adapter: backend.description,
      threads: backend.threads,
      config: c,
      params: policy.layout.count,
      matmul,
      train_step: { median_ms: stepMs, tokens_per_s: (rows / stepMs) * 1000, steps },
      sampling: { tokens_per_s: (generated / sampleMs) * 1000, sequences: B, tokens: generated, median_ms: sampleMs },
    };
    policy.destroy();
    const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3));
    log(`model: ${Object.entries(c).map(([k, v]) => `${k}=${v}`).join(',')} (${result.params} parameters)`);
    log('');
    log('| measure | value |');
    log('| --- | --- |');
    log(`| matmul, all ${shapes.length} train-step shapes | ${f(matmul.gflops)} GFLOP/s |`);
    log(`| matmul, largest shape ${shapeName} | ${f(matmul.largest.gflops)} GFLOP/s |`);
    if (matmul.variants) for (const [v, g] of Object.entries(matmul.variants)) log(`| WebGPU matmul variant ${v}, all shapes | ${f(g)} GFLOP/s${v === matmul.chosen ? ' (fastest)' : ''} |`);
    log(`| train_step (fwd + GRPO loss + bwd + AdamW), ${B}×${T} tokens | ${f(stepMs)} ms median, ${f(result.train_step.tokens_per_s)} tokens/s |`);
    log(`| sampling, ${B} sequences, up to ${T - 1} tokens each (${generated} generated) | ${f(result.sampling.tokens_per_s)} tokens/s (${f(sampleMs)} ms) |`);
    const rl = flags['rl-steps'] as number | undefined;
    if (rl) {
      result.rl_step = await benchRlSteps(backend, rl, log);
      log(`| RL step, magic preset from the shipped base (median of steps 2–${rl}) | ${f(result.rl_step.median_s)} s (first ${f(result.rl_step.first_s)} s) |`);
    }
    return result;
  } finally {
    backend.destroy();
  }
}
