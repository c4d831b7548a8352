import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import { getPreset } from '../../src/rl/config';
import { estimateRun } from '../../src/rl/resources';
import { Rng } from '../../src/util/rng';

const cfg = validateModelConfig({ vocabSize: 24, contextLength: 40, nLayers: 2, dModel: 16, nHeads: 2 });

function tokens(rows: number, T: number, seed: number): Uint32Array {
  const rng = new Rng(seed);
  return Uint32Array.from({ length: rows * T }, () => rng.int(0, 23));
}

describe('CPU engine: every training shape shares one arena', () => {
  let backend: WasmBackend;
  beforeAll(async () => {
    backend = await wasmBackend({ threads: 2 });
  });
  afterAll(() => backend.destroy());

  it('a shape run again after others gives the same log-probs, before and after the arena grows', async () => {
    const params = initParams(cfg, 7);
    const fresh = async (rows: number, T: number, seed: number) => {
      const p = await backend.createPolicy(cfg, 'fresh');
      p.setParams(params);
      const out = await p.forward(tokens(rows, T, seed), tokens(rows, T, seed + 1), rows, T, 1);
      p.destroy();
      return out.logp;
    };
    const p = await backend.createPolicy(cfg, 'shared');
    p.setParams(params);
    const run = async (rows: number, T: number, seed: number) => (await p.forward(tokens(rows, T, seed), tokens(rows, T, seed + 1), rows, T, 1)).logp;
    const a1 = await run(3, 11, 1);
    const b = await run(5, 17, 3);
    expect(await run(3, 11, 1)).toEqual(a1);
    // A larger shape than any so far: the arena moves and the cached plans are rebuilt in it.
    const rt = backend.rt as unknown as { top: number };
    const c = await run(9, 37, 5);
    expect(await run(3, 11, 1)).toEqual(a1);
    expect(await run(5, 17, 3)).toEqual(b);
    expect(c).toEqual(await fresh(9, 37, 5));
    expect(a1).toEqual(await fresh(3, 11, 1));
    // Smaller shapes after the largest one allocate nothing new but their programs.
    const top = rt.top;
    await run(2, 7, 9);
    expect(rt.top - top).toBeLessThan(64 * 1024);
    p.destroy();
  });

  it('reserveTrain sizes the arena once: later smaller shapes do not grow memory', async () => {
    const p = await backend.createPolicy(cfg, 'reserved');
    p.setParams(initParams(cfg, 1));
    p.reserveTrain!(8, 40);
    const rt = backend.rt as unknown as { top: number };
    const top = rt.top;
    for (const [rows, T] of [[2, 10], [4, 20], [8, 40], [8, 33]]) await p.forward(tokens(rows, T, 1), tokens(rows, T, 2), rows, T, 1);
    expect(rt.top - top).toBeLessThan(256 * 1024);
    p.destroy();
  });

  it('the small rung’s default run fits the CPU engine’s 2 GiB (the arena holds the largest shape, not the sum)', () => {
    const est = estimateRun(getPreset('magic', 'small'), 'wasm', 2).policy.total;
    expect(est).toBeLessThan(2 * 1024 ** 3);
    expect(est).toBeGreaterThan(500 * 1024 ** 2);
  });
});
