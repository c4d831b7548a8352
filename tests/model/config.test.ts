import { describe, expect, it } from 'vitest';
import { ATTENTION_MAX_CONTEXT } from '../../src/gpu/kernels/attention';
import { ConfigError, DEFAULT_MODEL_CONFIG, layoutParams, MAX_CONTEXT_LENGTH, PARAM_ALIGN_FLOATS, validateModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';

describe('model config validation', () => {
  const bad: [unknown, RegExp][] = [
    [{ dModel: 30, nHeads: 4 }, /^dModel: must be divisible by nHeads/],
    [{ nLayers: 0 }, /^nLayers: must be between 1 and 64, got 0/],
    [{ vocabSize: 31.5 }, /^vocabSize: must be an integer, got 31.5/],
    [{ contextLength: '64' }, /^contextLength: must be a number/],
    [{ contextLength: 5000 }, /^contextLength: must be between 1 and 1024/],
    [{ nHeads: -1 }, /^nHeads: must be between/],
    [{ norm: 'batchnorm' }, /^norm: must be "rmsnorm" or "layernorm"/],
    [{ tiedEmbeddings: 1 }, /^tiedEmbeddings: must be true or false/],
    [{ dmodel: 64 }, /^dmodel: unknown model config field/],
    [null, /^model: must be an object/],
  ];
  for (const [input, msg] of bad) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      let err: unknown;
      try {
        validateModelConfig(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(msg);
    });
  }

  it('rejects a context the adapter cannot hold, naming contextLength', () => {
    expect(() => validateModelConfig({ contextLength: 1024, nHeads: 4 }, { maxStorageBufferBindingSize: 1 << 20, maxComputeWorkgroupsPerDimension: 65535 })).toThrow(
      /^contextLength: model too large for this adapter/,
    );
  });

  it('allows no longer context than the WebGPU decode kernel holds (restated there, not imported)', () => {
    expect(MAX_CONTEXT_LENGTH).toBe(ATTENTION_MAX_CONTEXT);
  });

  it('fills defaults and does not mutate its input', () => {
    const input = { dModel: 32 };
    const cfg = validateModelConfig(input);
    expect(cfg).toEqual({ ...DEFAULT_MODEL_CONFIG, dModel: 32 });
    expect(input).toEqual({ dModel: 32 });
  });
});

describe('parameter layout', () => {
  it('aligns every tensor to 256 bytes, puts decayed tensors first, and counts parameters', () => {
    const cfg = validateModelConfig({ vocabSize: 7, contextLength: 9, nLayers: 2, dModel: 6, nHeads: 2, mlpRatio: 2, tiedEmbeddings: false });
    const l = layoutParams(cfg);
    for (const t of l.tensors) expect(t.offset % PARAM_ALIGN_FLOATS).toBe(0);
    for (let i = 1; i < l.tensors.length; i++) expect(l.tensors[i].offset).toBeGreaterThanOrEqual(l.tensors[i - 1].offset + l.tensors[i - 1].size);
    expect(l.tensors.filter((t) => t.decay).every((t) => t.offset < l.decayEnd)).toBe(true);
    expect(l.tensors.filter((t) => !t.decay).every((t) => t.offset >= l.decayEnd)).toBe(true);
    // V·C + T·C + V·C + L·(3C·C + C·C + F·C + C·F) + L·(C + 3C + C + C + F + C) + C
    const C = 6, F = 12, V = 7, T = 9, L = 2;
    expect(l.count).toBe(V * C + T * C + V * C + L * (3 * C * C + C * C + F * C + C * F) + L * (C + 3 * C + C + C + F + C) + C);
  });

  it('initialises deterministically from the seed', () => {
    const cfg = validateModelConfig({ vocabSize: 7, contextLength: 9, nLayers: 1, dModel: 6, nHeads: 2 });
    const a = initParams(cfg, 5);
    expect(Array.from(initParams(cfg, 5))).toEqual(Array.from(a));
    expect(Array.from(initParams(cfg, 6))).not.toEqual(Array.from(a));
    const l = layoutParams(cfg);
    const w = l.byName.get('h0.ln1.w')!;
    expect(Array.from(a.subarray(w.offset, w.offset + w.size))).toEqual(new Array(6).fill(1));
    const wte = l.byName.get('wte')!;
    const std = Math.sqrt(a.subarray(wte.offset, wte.offset + wte.size).reduce((s, x) => s + x * x, 0) / wte.size);
    expect(std).toBeGreaterThan(0.01);
    expect(std).toBeLessThan(0.03);
  });
});
