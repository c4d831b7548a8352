import { describe, expect, it, vi } from 'vitest';
import type { Backend, BackendChoice, DeviceLossInfo } from '../../src/model/engine';
import { EngineHolder, type OpenedEngine } from '../../src/worker/engine-holder';
import type { EngineSummary } from '../../src/worker/protocol';

/** A backend that records destroy() and lets the test lose its device. */
function fakeEngine(choice: BackendChoice) {
  const watchers = new Set<(info: DeviceLossInfo) => void>();
  const backend = {
    destroy: vi.fn(),
    onLost: (f: (info: DeviceLossInfo) => void) => {
      watchers.add(f);
      return () => watchers.delete(f);
    },
  } as unknown as Backend;
  const summary = { backend: 'wasm', choice, description: choice, threads: 1, adapter: null, cpuBound: true } as EngineSummary;
  const lose = () => watchers.forEach((f) => f({ reason: 'unknown', message: 'gone' } as DeviceLossInfo));
  return { opened: { backend, summary } as OpenedEngine, lose, watching: () => watchers.size };
}

describe('EngineHolder (the Worker\'s open engine)', () => {
  it('opens the chosen engine, closes the one before, and remembers the choice', async () => {
    const made: ReturnType<typeof fakeEngine>[] = [];
    const h = new EngineHolder(async (c) => {
      made.push(fakeEngine(c));
      return made[made.length - 1].opened;
    }, () => undefined);
    expect([h.backend, h.summary, h.choice]).toEqual([null, null, 'auto']);
    await h.open('wasm');
    expect(h.choice).toBe('wasm');
    expect(h.summary?.description).toBe('wasm');
    await h.open('webgpu');
    expect(made[0].opened.backend.destroy).toHaveBeenCalledTimes(1);
    expect(made[0].watching()).toBe(0);
    expect(h.backend).toBe(made[1].opened.backend);
    await h.acquireAgain();
    expect(made[2].opened.summary.choice).toBe('webgpu');
    expect(h.backend).toBe(made[1].opened.backend); // acquired, not used
    h.close();
    expect([h.backend, h.summary]).toEqual([null, null]);
    expect(h.choice).toBe('webgpu');
  });

  it('a failed open leaves no engine but keeps the choice', async () => {
    const h = new EngineHolder(() => Promise.reject(new Error('no WebGPU')), () => undefined);
    await expect(h.open('webgpu')).rejects.toThrow('no WebGPU');
    expect(h.backend).toBeNull();
    expect(h.choice).toBe('webgpu');
  });

  it('hears of a lost device with the engine it belonged to, until that engine is closed', () => {
    const lost = vi.fn();
    const h = new EngineHolder(() => Promise.reject(new Error('unused')), lost);
    const a = fakeEngine('auto');
    h.use(a.opened);
    a.lose();
    expect(lost).toHaveBeenCalledWith(expect.objectContaining({ message: 'gone' }), a.opened.backend);
    h.close();
    a.lose();
    expect(lost).toHaveBeenCalledTimes(1);
  });

  it('holds one recovery at a time until it settles', async () => {
    const h = new EngineHolder(() => Promise.reject(new Error('unused')), () => undefined);
    let finish!: (ok: boolean) => void;
    const p = h.recoverWith(() => new Promise<boolean>((r) => (finish = r)));
    expect(h.recovering).toBe(p);
    finish(true);
    expect(await p).toBe(true);
    expect(h.recovering).toBeNull();
    await expect(h.recoverWith(() => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(h.recovering).toBeNull();
  });
});
