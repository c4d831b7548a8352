/**
 * `--backend auto|webgpu|wasm` for every command that runs the policy. `auto` takes WebGPU on a
 * hardware adapter and the CPU engine on a software adapter (SwiftShader) or none: on a machine
 * without a GPU the WebAssembly SIMD engine is several times faster than emulated WebGPU.
 */
import { acquireNodeRuntime } from '../gpu/node';
import type { GpuRuntime } from '../gpu/runtime';
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../model/engine';
import { webgpuBackend } from '../model/gpu-engine';
import { MATMUL_VARIANT_CHOICES, type MatmulVariantChoice } from '../model/matmul-choice';
import { fileVariantCache } from '../run/variant-cache';
import { UsageError, type FlagSpec } from './args';
import { availableParallelism } from 'node:os';

export const BACKEND_FLAG: FlagSpec = { type: 'string', help: 'auto (WebGPU on a hardware adapter, else the CPU engine), webgpu, or wasm' };
/**
 * More CPU-engine threads than cores buys nothing, and each is a worker with its own heap: 100,000
 * of them grew past 10 GB before V8 died. Two are always allowed (the tests' count on any machine).
 */
export const MAX_THREADS = Math.max(2, availableParallelism());
export const THREADS_FLAG: FlagSpec = { type: 'int', min: 1, max: { value: MAX_THREADS, why: `this machine has ${availableParallelism()} logical core${availableParallelism() === 1 ? '' : 's'}` }, help: `CPU engine threads (default: every core; at most ${MAX_THREADS})` };

export const MATMUL_VARIANT_FLAG: FlagSpec = {
  type: 'string',
  help: 'WebGPU matmul kernel: auto (the fastest on this adapter, timed once and cached in ~/.cache/magic-lab), blocked4x4 or tiled64',
};

export function parseMatmulVariant(value: unknown): MatmulVariantChoice {
  const v = value === undefined ? 'auto' : String(value);
  if (!(MATMUL_VARIANT_CHOICES as readonly string[]).includes(v)) throw new UsageError(`--matmul-variant: expected one of ${MATMUL_VARIANT_CHOICES.join(', ')}, got ${JSON.stringify(v)}`);
  return v as MatmulVariantChoice;
}

export function parseBackendChoice(value: unknown): BackendChoice {
  const v = value === undefined ? 'auto' : String(value);
  if (!(BACKEND_CHOICES as readonly string[]).includes(v)) throw new UsageError(`--backend: expected one of ${BACKEND_CHOICES.join(', ')}, got ${JSON.stringify(v)}`);
  return v as BackendChoice;
}

async function cpuBackend(threads?: number): Promise<Backend> {
  const { wasmBackend } = await import('../model/cpu-policy');
  return wasmBackend({ threads });
}

/** Opens the chosen backend (the caller destroys it); WebGPU's `auto` matmul variant is cached in the user's cache folder (src/run/variant-cache.ts). */
export async function acquireBackend(choice: BackendChoice, opts: { threads?: number; matmulVariant?: MatmulVariantChoice } = {}): Promise<Backend> {
  const gpu = (rt: GpuRuntime) => webgpuBackend(rt, { matmulVariant: opts.matmulVariant, cache: fileVariantCache() });
  if (choice === 'wasm') return cpuBackend(opts.threads);
  if (choice === 'webgpu') return gpu(await acquireNodeRuntime());
  let rt = null;
  try {
    rt = await acquireNodeRuntime();
  } catch {
    // no adapter at all: the CPU engine
  }
  if (rt && resolveBackend(choice, rt.adapter) === 'webgpu') return gpu(rt);
  rt?.destroy();
  return cpuBackend(opts.threads);
}
