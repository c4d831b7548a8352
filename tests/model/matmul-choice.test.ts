/** Choosing the WebGPU matmul variant by timing (src/model/matmul-choice.ts), with fake timings and caches: no GPU. */
import { describe, expect, it } from 'vitest';
import type { GpuRuntime } from '../../src/gpu/runtime';
import { validateModelConfig } from '../../src/model/config';
import { chooseVariantByTiming, fastestVariant, timingRows, variantByAdapterKind, variantCacheKey, type VariantCache, type VariantTimer } from '../../src/model/matmul-choice';
import { trainMatmulShapes } from '../../src/model/policy';
import { MATMUL_VARIANTS, type MatmulVariant } from '../../src/util/engine-options';

const cfg = validateModelConfig({ vocabSize: 32, contextLength: 64, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4 });

/** Just what the choice reads of a runtime: the adapter and the matmul shader's text. */
function fakeRt(description: string, isSoftware: boolean, shader = 'fn main() {}'): GpuRuntime {
  return { adapter: { description, isSoftware }, shaderText: () => shader } as unknown as GpuRuntime;
}

function fakeTimer(ms: Record<MatmulVariant, number>) {
  const calls: { rows: number; repeats: number }[] = [];
  const time: VariantTimer = async (_rt, shapes, repeats) => {
    calls.push({ rows: shapes[0].M, repeats });
    return ms;
  };
  return { time, calls };
}

function memoryCache(init: Record<string, string> = {}) {
  const store = new Map(Object.entries(init));
  const cache: VariantCache = { get: (k) => store.get(k), put: (k, v) => void store.set(k, v) };
  return { cache, store };
}

describe('fastestVariant', () => {
  it('picks the smallest total time; a tie or a non-finite time keeps the earlier variant', () => {
    expect(fastestVariant({ blocked4x4: 3, tiled64: 1 })).toBe('tiled64');
    expect(fastestVariant({ blocked4x4: 1, tiled64: 3 })).toBe('blocked4x4');
    expect(fastestVariant({ blocked4x4: 2, tiled64: 2 })).toBe(MATMUL_VARIANTS[0]);
    expect(fastestVariant({ blocked4x4: NaN, tiled64: 2 })).toBe('tiled64');
    expect(fastestVariant({ blocked4x4: 2, tiled64: NaN })).toBe('blocked4x4');
  });

  it('the old fixed rule, for checkpoints without a recorded variant', () => {
    expect(variantByAdapterKind({ isSoftware: true })).toBe('blocked4x4');
    expect(variantByAdapterKind({ isSoftware: false })).toBe('tiled64');
  });
});

describe('timingRows', () => {
  it('keeps SwiftShader to a small FLOP budget and times a hardware GPU at the micro-batch size', () => {
    const flop = (rows: number) => trainMatmulShapes(cfg, rows).reduce((s, x) => s + 2 * x.M * x.N * x.K, 0);
    const soft = timingRows(cfg, true);
    expect(flop(soft)).toBeLessThanOrEqual(3e7);
    expect(flop(soft * 2)).toBeGreaterThan(3e7);
    expect(timingRows(cfg, false)).toBe(16 * cfg.contextLength);
    // A narrow model fits the budget at any size: SwiftShader still stops at 256 rows (its cost is per workgroup, too).
    const narrow = validateModelConfig({ vocabSize: 24, contextLength: 64, nLayers: 1, dModel: 16, nHeads: 2, mlpRatio: 4 });
    expect(timingRows(narrow, true)).toBe(256);
    expect(timingRows(narrow, false)).toBe(1024);
  });
});

describe('chooseVariantByTiming', () => {
  it('a miss times the variants, picks the fastest and caches it; the next call hits without timing', async () => {
    const rt = fakeRt('NVIDIA / ada / RTX 4090', false);
    const { cache, store } = memoryCache();
    const t = fakeTimer({ blocked4x4: 5, tiled64: 2 });
    const first = await chooseVariantByTiming(rt, cfg, cache, t.time);
    expect(first).toEqual({ variant: 'tiled64', from: 'timing', ms: { blocked4x4: 5, tiled64: 2 } });
    expect(t.calls).toEqual([{ rows: 16 * 64, repeats: 3 }]);
    expect([...store.values()]).toEqual(['tiled64']);
    const again = await chooseVariantByTiming(rt, cfg, cache, fakeTimer({ blocked4x4: 1, tiled64: 9 }).time);
    expect(again).toEqual({ variant: 'tiled64', from: 'cache' });
  });

  it('keys by adapter and by the matmul shader: another adapter or a changed shader times again', async () => {
    const { cache, store } = memoryCache();
    await chooseVariantByTiming(fakeRt('SwiftShader', true, 'v1'), cfg, cache, fakeTimer({ blocked4x4: 1, tiled64: 3 }).time);
    const other = fakeTimer({ blocked4x4: 4, tiled64: 1 });
    expect((await chooseVariantByTiming(fakeRt('Apple M2', false, 'v1'), cfg, cache, other.time)).from).toBe('timing');
    const changed = fakeTimer({ blocked4x4: 4, tiled64: 1 });
    const stale = await chooseVariantByTiming(fakeRt('SwiftShader', true, 'v2'), cfg, cache, changed.time);
    expect(stale).toMatchObject({ variant: 'tiled64', from: 'timing' });
    expect(changed.calls[0].repeats).toBe(2); // software: fewer repeats
    expect(store.size).toBe(3);
    expect(variantCacheKey({ description: 'SwiftShader' }, 'v1')).not.toBe(variantCacheKey({ description: 'SwiftShader' }, 'v2'));
  });

  it('a cache that holds garbage, fails to read or fails to write costs a timing, never the choice', async () => {
    const rt = fakeRt('SwiftShader', true);
    const key = variantCacheKey(rt.adapter, rt.shaderText('matmul.wgsl'));
    const garbage = memoryCache({ [key]: 'tiled128' });
    expect(await chooseVariantByTiming(rt, cfg, garbage.cache, fakeTimer({ blocked4x4: 1, tiled64: 2 }).time)).toMatchObject({ variant: 'blocked4x4', from: 'timing' });
    expect(garbage.store.get(key)).toBe('blocked4x4');
    const broken: VariantCache = {
      get: () => {
        throw new Error('EACCES');
      },
      put: async () => {
        throw new Error('quota');
      },
    };
    expect(await chooseVariantByTiming(rt, cfg, broken, fakeTimer({ blocked4x4: 3, tiled64: 2 }).time)).toMatchObject({ variant: 'tiled64', from: 'timing' });
    expect(await chooseVariantByTiming(rt, cfg, null, fakeTimer({ blocked4x4: 3, tiled64: 2 }).time)).toMatchObject({ variant: 'tiled64', from: 'timing' });
  });
});
