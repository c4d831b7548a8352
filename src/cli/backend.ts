/**
 * `--backend auto|webgpu|wasm` for every command that runs the policy. `auto` takes WebGPU on a
 * hardware adapter and the CPU engine on a software adapter (SwiftShader) or none: on a machine
 * without a GPU the WebAssembly SIMD engine is several times faster than emulated WebGPU.
 */
import { acquireNodeRuntime } from '../gpu/node';
import { BACKEND_CHOICES, resolveBackend, type Backend, type BackendChoice } from '../model/engine';
import { webgpuBackend } from '../model/gpu-engine';
import { UsageError, type FlagSpec } from './args';

export const BACKEND_FLAG: FlagSpec = { type: 'string', help: 'auto (WebGPU on a hardware adapter, else the CPU engine), webgpu, or wasm' };
export const THREADS_FLAG: FlagSpec = { type: 'int', min: 1, help: 'CPU engine threads (default: every core)' };

export function parseBackendChoice(value: unknown): BackendChoice {
  const v = value === undefined ? 'auto' : String(value);
  if (!(BACKEND_CHOICES as readonly string[]).includes(v)) throw new UsageError(`--backend: expected one of ${BACKEND_CHOICES.join(', ')}, got ${JSON.stringify(v)}`);
  return v as BackendChoice;
}

async function cpuBackend(threads?: number): Promise<Backend> {
  const { wasmBackend } = await import('../model/cpu-policy');
  return wasmBackend({ threads });
}

/** Opens the chosen backend (the caller destroys it). */
export async function acquireBackend(choice: BackendChoice, opts: { threads?: number } = {}): Promise<Backend> {
  if (choice === 'wasm') return cpuBackend(opts.threads);
  if (choice === 'webgpu') return webgpuBackend(await acquireNodeRuntime());
  let rt = null;
  try {
    rt = await acquireNodeRuntime();
  } catch {
    // no adapter at all: the CPU engine
  }
  if (rt && resolveBackend(choice, rt.adapter) === 'webgpu') return webgpuBackend(rt);
  rt?.destroy();
  return cpuBackend(opts.threads);
}
