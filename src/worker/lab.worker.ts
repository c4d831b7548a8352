/// <reference lib="webworker" />
/** The Worker that owns the WebGPU device (training never blocks the page's main thread). */
import { acquireBrowserRuntime, webgpuMissingReason } from '../gpu/browser';
import type { GpuRuntime } from '../gpu/runtime';
import type { FromWorker, ToWorker } from './protocol';

const post = (m: FromWorker) => (self as unknown as DedicatedWorkerGlobalScope).postMessage(m);
let runtime: GpuRuntime | null = null;

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === 'init') {
    const missing = webgpuMissingReason();
    if (missing) return post({ type: 'no-webgpu', reason: missing });
    try {
      runtime ??= await acquireBrowserRuntime();
      post({ type: 'ready', adapter: runtime.adapter });
    } catch (e) {
      post({ type: 'no-webgpu', reason: (e as Error).message });
    }
  }
};
