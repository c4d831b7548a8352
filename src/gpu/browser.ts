/**
 * Browser host (page or Worker): navigator.gpu, shaders bundled by Vite as raw strings.
 */
import { runtimeFromAdapter } from './adapter';
import type { GpuRuntime } from './runtime';

const sources = import.meta.glob('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export function bundledShader(file: string): string {
  const src = sources[`../../shaders/${file}`];
  if (src === undefined) throw new Error(`shader ${file} is not bundled (expected shaders/${file})`);
  return src;
}

/** Why WebGPU is unavailable here, or null when navigator.gpu exists. */
export function webgpuMissingReason(): string | null {
  if (typeof navigator === 'undefined' || !('gpu' in navigator) || !navigator.gpu) {
    return typeof isSecureContext !== 'undefined' && !isSecureContext
      ? 'WebGPU needs a secure context: open the lab from https:// or http://localhost.'
      : 'This browser has no WebGPU (navigator.gpu is missing).';
  }
  return null;
}

export async function acquireBrowserRuntime(): Promise<GpuRuntime> {
  const missing = webgpuMissingReason();
  if (missing) throw new Error(missing);
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  return runtimeFromAdapter(adapter, bundledShader, 'browser');
}
