/**
 * Typed messages between the UI and the Worker that owns the GPU device. The UI never
 * imports src/gpu; everything it learns about the device arrives through these messages.
 */
import type { AdapterSummary } from '../gpu/runtime';

export type ToWorker = { type: 'init' };

export type FromWorker =
  | { type: 'ready'; adapter: AdapterSummary }
  | { type: 'no-webgpu'; reason: string }
  | { type: 'error'; message: string };
