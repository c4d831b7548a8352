/** The one zustand store of the page (device slice for now). */
import { create } from 'zustand';
import type { AdapterSummary } from '../gpu/runtime';

export type DeviceState =
  | { status: 'starting' }
  | { status: 'ready'; adapter: AdapterSummary }
  | { status: 'no-webgpu'; reason: string }
  | { status: 'error'; message: string };

export interface LabStore {
  device: DeviceState;
  setDevice(d: DeviceState): void;
}

export const useLab = create<LabStore>((set) => ({
  device: { status: 'starting' },
  setDevice: (device) => set({ device }),
}));
