/**
 * Memory a policy takes on each engine, estimated from its config and the shapes it runs, buffer
 * by buffer, mirroring what the engines allocate: the WebGPU policy (policy.ts: one storage
 * buffer per activation, step.ts: the loss's) and the CPU engine's policy (cpu-policy.ts: slices
 * of one WebAssembly memory, plus transposed weights and per-thread scratch). WebGPU caches a buffer
 * set per shape for the life of the policy, so a run holds every shape it has built at once; the
 * CPU engine lays every training shape out in one arena sized for the largest.
 * Compared with an engine's limits by src/rl/resources.ts before anything is allocated.
 * Pure: no GPU, no Node APIs, nothing from src/gpu.
 */
import { attentionScratchBytes, normPartialBytes, samplerScratchBytes } from '../cpu/program';
import { layoutParams, type ModelConfig } from './config';

// The page's main thread imports this module (the config panel's check), and it never imports
// src/gpu: the two WebGPU scratch sizes are restated here (tests/model/resources.test.ts compares
// them with src/gpu/kernels' gradNormScratchFloats and grpoLossScratchFloats).
/** gradNormScratchFloats (src/gpu/kernels/optimizer.ts): at most 256 stage-1 partials. */
export const gpuGradNormScratchFloats = (n: number) => Math.min(256, Math.max(1, Math.ceil(n / (256 * 8))));
/** grpoLossScratchFloats (src/gpu/kernels/loss.ts): 8 statistics per token and per 128-token chunk. */
export const gpuLossScratchFloats = (N: number) => 8 * N + 8 * Math.ceil(N / 128);

export type EngineKind = 'webgpu' | 'wasm';

/** One buffer (WebGPU) or allocation (CPU engine). */
export interface BufferEstimate {
  /** What it holds, e.g. "attention probabilities". */
  name: string;
  /** Its shape in words, e.g. "rows·H·T·T = 128·4·60·60 f32". */
  shape: string;
  bytes: number;
  /** Which part of the policy: its weights and optimizer state, a training plan, or the decoding plan. */
  part: 'state' | 'train' | 'decode';
}

/** The shapes a policy runs over its life: [rows × T] training batches and B-sequence decoding. */
export interface PolicyShapes {
  train: { rows: number; T: number }[];
  decode: number[];
}

export interface PolicyEstimate {
  buffers: BufferEstimate[];
  /** Sum of every buffer (with each engine's alignment). */
  total: number;
  largest: BufferEstimate;
}

const F32 = 4;
const align = (n: number, a: number) => Math.ceil(n / a) * a;
/** Bytes of an allocation as each engine rounds it (GPU: 16, CPU engine: 64-byte lines; at least 1 float). */
const rounded = (engine: EngineKind, floats: number) => align(Math.max(1, floats) * F32, engine === 'webgpu' ? 16 : 64);

/** The weights and optimizer state: params, grads, AdamW m and v (and the CPU engine's transposed weights and scratch). */
export function stateBuffers(cfg: ModelConfig, engine: EngineKind, threads = 1): BufferEstimate[] {
  const n = layoutParams(cfg).totalFloats;
  const out: BufferEstimate[] = ['parameters', 'gradients', 'AdamW m', 'AdamW v'].map((name) => ({
    name,
    shape: `${n} f32`,
    bytes: rounded(engine, n),
    part: 'state' as const,
  }));
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  if (engine === 'webgpu') {
    out.push({ name: 'gradient-norm scratch', shape: 'partials', bytes: rounded(engine, gpuGradNormScratchFloats(n)), part: 'state' });
    // getParams / getAdamState read back through a mapped staging buffer of the same size.
    out.push({ name: 'read-back staging', shape: `${n} f32`, bytes: rounded(engine, n), part: 'state' });
  } else {
    const weights = cfg.nLayers * (3 * C * C + C * C + 2 * C * F) + cfg.vocabSize * C;
    out.push({ name: 'transposed weights', shape: `${weights} f32`, bytes: cfg.nLayers * 4 * 64 + rounded(engine, weights), part: 'state' });
    const hs = C / cfg.nHeads;
    const stride = align(Math.max(attentionScratchBytes(cfg.contextLength, hs), samplerScratchBytes(cfg.vocabSize), cfg.vocabSize * F32, cfg.contextLength * F32), 64);
    out.push({ name: 'thread scratch', shape: `${threads}·${stride} B`, bytes: stride * threads + align(normPartialBytes(n), 64) + 8 * 64, part: 'state' });
  }
  return out;
}

/** The activations (and their gradients) of one training shape: `rows` sequences of `T` tokens. */
export function trainBuffers(cfg: ModelConfig, rows: number, T: number, engine: EngineKind): BufferEstimate[] {
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const V = cfg.vocabSize;
  const H = cfg.nHeads;
  const N = rows * T;
  const nt = `${rows}·${T}`;
  const out: BufferEstimate[] = [];
  const add = (name: string, shape: string, floats: number, count = 1) => {
    for (let i = 0; i < count; i++) out.push({ name, shape, bytes: rounded(engine, floats), part: 'train' });
  };
  const L = cfg.nLayers;
  const gpu = engine === 'webgpu';
  // Per token scalars: tokens, targets, per-layer norm statistics, lnf's, lse, logp, entropy, their gradients, the loss inputs.
  add('per-token scalars', `rows·T = ${nt}`, N, 2 + 4 * L + 2 + 5 + 5);
  // [N × C]: encoded, per layer ln1 atty res2 ln2 res3 (+ attproj fcproj on WebGPU), lnf, and the backward's dres dln datty (+ dlnf).
  add('residual-stream activations', `rows·T·C = ${nt}·${C} f32`, N * C, 1 + L * (gpu ? 7 : 5) + 1 + (gpu ? 4 : 3));
  add('qkv projections', `rows·T·3C = ${nt}·${3 * C} f32`, N * 3 * C, L + 1);
  add('MLP hidden activations', `rows·T·F = ${nt}·${F} f32`, N * F, 2 * L + (gpu ? 2 : 1));
  add('attention probabilities', `rows·H·T·T = ${rows}·${H}·${T}·${T} f32`, rows * H * T * T, L + (gpu ? 1 : 0));
  add('logits', `rows·T·V = ${nt}·${V} f32`, N * V, 2);
  if (gpu) add('loss scratch', `rows·T = ${nt} partials`, gpuLossScratchFloats(N));
  // CPU engine: the shape's recorded programs (64-byte commands; forward, and an update per loss variant).
  else out.push({ name: 'recorded programs', shape: 'commands', bytes: 4 * 64 * (24 * L + 40), part: 'train' });
  return out;
}

/** Batched decoding of B sequences with a KV cache of the full context. */
export function decodeBuffers(cfg: ModelConfig, B: number, engine: EngineKind): BufferEstimate[] {
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const Tmax = cfg.contextLength;
  const out: BufferEstimate[] = [];
  const add = (name: string, shape: string, floats: number, count = 1) => {
    for (let i = 0; i < count; i++) out.push({ name, shape, bytes: rounded(engine, floats), part: 'decode' });
  };
  add('KV cache', `B·T·C = ${B}·${Tmax}·${C} f32 per layer, K and V`, B * Tmax * C, 2 * cfg.nLayers);
  add('sequences', `B·T = ${B}·${Tmax}`, B * Tmax, 3);
  add('decode activations', `B·C = ${B}·${C} f32`, B * C, 6);
  add('decode MLP hidden', `B·F = ${B}·${F} f32`, B * F, 2);
  add('decode logits', `B·V = ${B}·${cfg.vocabSize} f32`, B * cfg.vocabSize);
  add('decode scalars', `B = ${B}`, B, 6);
  if (engine === 'wasm') out.push({ name: 'recorded programs', shape: 'commands', bytes: 64 * (12 * cfg.nLayers + 16), part: 'decode' });
  // WebGPU: the copies that move running sequences to the front slots go through one sequence's worth of scratch.
  else add('slot swap scratch', `T·C + 2·T + 8 = ${Tmax}·${C} + ${2 * Tmax + 8} f32`, Tmax * C + 2 * Tmax + 8);
  return out;
}

/**
 * Every buffer a policy holds after running `shapes`. WebGPU keeps a buffer set per training shape;
 * the CPU engine lays every shape out in one arena, so it holds the largest shape's activations
 * (plus each shape's recorded programs).
 */
export function estimatePolicy(cfg: ModelConfig, shapes: PolicyShapes, engine: EngineKind, threads = 1): PolicyEstimate {
  const buffers = [...stateBuffers(cfg, engine, threads)];
  const seen = new Set<string>();
  let arena: BufferEstimate[] = [];
  const sum = (bs: BufferEstimate[]) => bs.reduce((a, b) => a + b.bytes, 0);
  for (const s of shapes.train) {
    const key = `${s.rows}x${s.T}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const shape = trainBuffers(cfg, s.rows, s.T, engine);
    if (engine === 'webgpu') {
      buffers.push(...shape);
      continue;
    }
    buffers.push(...shape.filter((b) => b.name === 'recorded programs'));
    const acts = shape.filter((b) => b.name !== 'recorded programs');
    if (sum(acts) > sum(arena)) arena = acts;
  }
  buffers.push(...arena);
  for (const B of new Set(shapes.decode)) buffers.push(...decodeBuffers(cfg, B, engine));
  let largest = buffers[0];
  let total = 0;
  for (const b of buffers) {
    total += b.bytes;
    if (b.bytes > largest.bytes) largest = b;
  }
  return { buffers, total, largest };
}

/** "3.2 GiB", "128 MiB", "12 KiB", "900 B". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const text = i === 0 || Number.isInteger(v) ? String(Math.round(v)) : v >= 100 ? v.toFixed(0) : v.toFixed(1);
  return `${text.replace(/\.0$/, '')} ${units[i]}`;
}
