/**
 * From a WebGPU adapter to a GpuRuntime: what the adapter is (summary, software or not), the
 * device request, and the one clear error when a host's WebGPU gives no adapter at all.
 */
import { GpuRuntime, type AdapterSummary } from './runtime';

/** Reads the fields of GPUAdapterInfo (older implementations expose fewer). */
export function summarizeAdapter(adapter: GPUAdapter): AdapterSummary {
  const info = (adapter as GPUAdapter & { info?: GPUAdapterInfo }).info;
  const vendor = info?.vendor ?? '';
  const architecture = info?.architecture ?? '';
  const device = info?.device ?? '';
  const desc = info?.description ?? '';
  const parts = [vendor, architecture, device, desc].filter((s) => s);
  const description = parts.length ? parts.join(' / ') : 'unknown adapter';
  const isSoftware = /swiftshader|llvmpipe|lavapipe|software|cpu/i.test(description) || Boolean((info as { isFallbackAdapter?: boolean } | undefined)?.isFallbackAdapter);
  const limits: Record<string, number> = {};
  for (const k of [
    'maxStorageBufferBindingSize',
    'maxBufferSize',
    'maxComputeWorkgroupStorageSize',
    'maxComputeInvocationsPerWorkgroup',
    'maxComputeWorkgroupsPerDimension',
    'maxStorageBuffersPerShaderStage',
  ] as const) {
    limits[k] = Number(adapter.limits[k]);
  }
  return { description, vendor, architecture, isSoftware, limits, features: [...adapter.features].map(String).sort() };
}

/**
 * Requests a device asking for the adapter's larger buffer limits (bigger models) but only
 * the WebGPU default binding counts, so kernels run on every adapter.
 */
export async function createRuntime(adapter: GPUAdapter, shaderSource: (file: string) => string): Promise<GpuRuntime> {
  const requiredFeatures: GPUFeatureName[] = [];
  if (adapter.features.has('timestamp-query')) requiredFeatures.push('timestamp-query');
  const device = await adapter.requestDevice({
    requiredFeatures,
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
    },
  });
  return new GpuRuntime(device, summarizeAdapter(adapter), shaderSource);
}

/** The message a user sees when WebGPU gives no adapter, per host. */
export const NO_ADAPTER_HELP = {
  node:
    'WebGPU found no adapter. On a machine without a GPU, install SwiftShader (Debian: `apt-get install chromium libvulkan1`) ' +
    'and set VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json; `npm test` and the magic-lab CLI set it themselves when that file exists.',
  browser:
    'This browser exposes WebGPU but returned no adapter. Use a recent Chrome/Edge (113+) with hardware acceleration on, ' +
    'or start Chromium with --enable-unsafe-webgpu (Linux), or Firefox 141+ / Safari 26+.',
};

/** A runtime on `adapter`, or — when WebGPU gave none — one clear error saying why and what to do. */
export function runtimeFromAdapter(adapter: GPUAdapter | null, shaderSource: (file: string) => string, host: keyof typeof NO_ADAPTER_HELP): Promise<GpuRuntime> {
  if (!adapter) return Promise.reject(new Error(NO_ADAPTER_HELP[host]));
  return createRuntime(adapter, shaderSource);
}
