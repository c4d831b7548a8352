/**
 * Node host: WebGPU through Dawn (the `webgpu` npm package), shaders read from disk.
 * Only Node entry points (CLI, tests, benchmarks) import this file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { create, globals } from 'webgpu';
import { runtimeFromAdapter } from './adapter';
import type { GpuRuntime } from './runtime';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const shadersDir = new URL('../../shaders/', import.meta.url);

export function readShaderFromDisk(file: string): string {
  return readFileSync(new URL(file, shadersDir), 'utf8');
}

let installed = false;

/**
 * Creates a runtime on the best adapter Dawn finds. If none is found and the SwiftShader ICD is
 * installed, retries with VK_ICD_FILENAMES pointing at it (CPU fallback). `null` → clear error.
 */
export async function acquireNodeRuntime(opts: { powerPreference?: GPUPowerPreference } = {}): Promise<GpuRuntime> {
  if (!installed) {
    Object.assign(globalThis, globals);
    installed = true;
  }
  let gpu = create([]);
  let adapter = await gpu.requestAdapter({ powerPreference: opts.powerPreference ?? 'high-performance' });
  if (!adapter && !process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    gpu = create([]);
    adapter = await gpu.requestAdapter();
  }
  const rt = await runtimeFromAdapter(adapter, readShaderFromDisk, 'node');
  // Dawn's Node bindings keep the process alive while `gpu` is reachable; tie its lifetime to the runtime.
  (rt as unknown as { gpuHandle: unknown }).gpuHandle = gpu;
  return rt;
}
