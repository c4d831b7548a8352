/** The backend choice rule shared by the CLI and the page's Worker. */
import { describe, expect, it } from 'vitest';
import { resolveBackend } from '../../src/model/engine';

describe('resolveBackend', () => {
  it('auto: WebGPU on a hardware adapter, the CPU engine on a software adapter or none', () => {
    expect(resolveBackend('auto', { isSoftware: false })).toBe('webgpu');
    expect(resolveBackend('auto', { isSoftware: true })).toBe('wasm');
    expect(resolveBackend('auto', null)).toBe('wasm');
  });
  it('keeps an explicit choice whatever the adapter', () => {
    expect(resolveBackend('webgpu', { isSoftware: true })).toBe('webgpu');
    expect(resolveBackend('wasm', { isSoftware: false })).toBe('wasm');
    expect(resolveBackend('webgpu', null)).toBe('webgpu');
  });
});
