/**
 * The Worker's engine: WebGPU on a hardware adapter, else the CPU engine (WebAssembly SIMD,
 * threads where the page is cross-origin isolated). A browser without WebGPU, or with only a
 * software adapter, still gets a working lab — on the CPU engine, and the page says so.
 */
import { acquireBrowserRuntime, webgpuMissingReason } from '../gpu/browser';
import type { GpuRuntime } from '../gpu/runtime';
import { resolveBackend, type Backend, type BackendChoice } from '../model/engine';
import { webgpuBackend } from '../model/gpu-engine';
import type { EngineSummary } from './protocol';
import { indexedDbVariantCache } from './variant-cache';

const errMsg = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function acquireWorkerBackend(choice: BackendChoice): Promise<{ backend: Backend; summary: EngineSummary }> {
  let rt: GpuRuntime | null = null;
  let why: string | null = null;
  if (choice !== 'wasm') {
    why = webgpuMissingReason();
    if (!why) {
      try {
        rt = await acquireBrowserRuntime();
      } catch (e) {
        why = errMsg(e);
      }
    }
    if (!rt && choice === 'webgpu') throw new Error(`WebGPU is not available: ${why}`);
  }
  if (rt && resolveBackend(choice, rt.adapter) === 'webgpu') {
    // auto matmul variant: timed on this adapter once, kept in IndexedDB; a resumed run uses its checkpoint's.
    const backend = webgpuBackend(rt, { cache: indexedDbVariantCache() });
    return { backend, summary: { backend: 'webgpu', choice, description: backend.description, threads: 1, adapter: rt.adapter, cpuBound: rt.adapter.isSoftware, limits: backend.limits?.() ?? null } };
  }
  let note: string | undefined;
  if (choice === 'auto') {
    note = rt
      ? `The only WebGPU adapter here is a software one (${rt.adapter.description}); the CPU engine is several times faster, so the lab trains on it.`
      : `No WebGPU here (${why}); the lab trains on the CPU engine.`;
  }
  rt?.destroy();
  const { wasmBackend } = await import('../model/cpu-policy');
  const backend = await wasmBackend();
  if (choice === 'auto' && backend.threads === 1 && typeof crossOriginIsolated !== 'undefined' && !crossOriginIsolated) {
    note = `${note ?? ''} The page is not cross-origin isolated, so the CPU engine runs on one thread.`.trim();
  }
  return { backend, summary: { backend: 'wasm', choice, description: backend.description, threads: backend.threads, adapter: null, cpuBound: true, note, limits: backend.limits?.() ?? null } };
}
