/**
 * Device loss surfaced by the runtime (issue #13): a device lost outside of destroy() — here
 * destroyed behind the runtime's back, as a GPU process crash loses it — is reported once to
 * onLost listeners and raised as DeviceLostError by every later read, never as the bare
 * `mapAsync` AbortError; errors the device reports through `uncapturederror` are raised, typed.
 */
import { describe, expect, it } from 'vitest';
import { acquireNodeRuntime } from '../../src/gpu/node';
import { DeviceLostError, GpuUncapturedError, isDeviceFault, type DeviceLossInfo } from '../../src/gpu/runtime';
import { accumulate } from '../../src/gpu/kernels/elementwise';
import { webgpuBackend } from '../../src/model/gpu-engine';
import { getPreset } from '../../src/rl/config';
import { MagicTrainer } from '../../src/rl/trainer';
import { upload } from './harness';

describe('device loss', () => {
  it('a lost device is reported once to onLost and raised as DeviceLostError by reads, syncs and new kernels', async () => {
    const rt = await acquireNodeRuntime();
    const seen: DeviceLossInfo[] = [];
    rt.onLost((info) => seen.push(info));
    const buf = upload(rt, 'x', new Float32Array([1, 2, 3, 4]));
    expect(Array.from(await rt.readF32(buf))).toEqual([1, 2, 3, 4]);
    expect(rt.lost).toBeNull();
    rt.device.destroy(); // not rt.destroy(): the runtime did not ask for it
    const err = await rt.readF32(buf).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceLostError);
    expect((err as DeviceLostError).reason).toBe('destroyed');
    expect((err as Error).message).toMatch(/^the GPU device was lost \(destroyed/);
    expect(isDeviceFault(err)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(rt.lost).toEqual(seen[0]);
    await expect(rt.sync()).rejects.toBeInstanceOf(DeviceLostError);
    await expect(rt.readF32(buf)).rejects.toBeInstanceOf(DeviceLostError);
    await expect(rt.pipeline({ shader: 'elementwise.wgsl', entry: 'gelu_forward' })).rejects.toBeInstanceOf(DeviceLostError);
    rt.destroy();
    expect(seen).toHaveLength(1);
  });

  it('destroy() is not a loss: no listener is called', async () => {
    const rt = await acquireNodeRuntime();
    let called = 0;
    rt.onLost(() => called++);
    rt.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(called).toBe(0);
    expect(rt.lost).toBeNull();
  });

  it('a training step on a lost device fails with DeviceLostError, not "Failed to execute mapAsync"', async () => {
    const rt = await acquireNodeRuntime();
    const backend = webgpuBackend(rt);
    let lost = 0;
    backend.onLost!(() => lost++);
    const t = await MagicTrainer.create(backend, getPreset('magic-tiny'));
    await t.trainStep();
    rt.device.destroy();
    const err = await t.trainStep().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceLostError);
    await expect(t.saveCheckpoint()).rejects.toBeInstanceOf(DeviceLostError);
    expect(lost).toBe(1);
    t.destroy();
    backend.destroy();
  });

  it('an uncaptured validation error is raised at the next sync, typed, and is not a device fault', async () => {
    const rt = await acquireNodeRuntime();
    try {
      const buf = upload(rt, 'alias', new Float32Array(64));
      // Same buffer bound read-only and read-write in one dispatch is invalid.
      rt.run([await accumulate(rt, { inp: buf, out: buf, n: 64 })]);
      const err = await rt.sync().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GpuUncapturedError);
      expect((err as GpuUncapturedError).kind).toBe('validation');
      expect((err as Error).message).toMatch(/^WebGPU error \(validation\): /);
      expect(isDeviceFault(err)).toBe(false);
      await rt.sync(); // reported once
      expect(isDeviceFault(new GpuUncapturedError('out-of-memory', ['x']))).toBe(true);
    } finally {
      rt.destroy();
    }
  });
});
