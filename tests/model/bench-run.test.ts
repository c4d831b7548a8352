/** The engine benchmark both the CLI and the page's Worker run (src/model/bench-run.ts), on the CPU engine at a tiny size. */
import { describe, expect, it } from 'vitest';
import { benchEngine } from '../../src/model/bench-run';
import { wasmBackend } from '../../src/model/cpu-policy';
import { trainMatmulShapes } from '../../src/model/policy';
import { modelParameterCount } from '../../src/rl/config';
import { benchModel, pageBench, QUICK_BENCH } from '../../src/worker/bench';

describe('benchEngine', () => {
  it('times every train-step matmul shape, the train step and sampling, and with peak the share of the CPU peak; progress ends at its total', async () => {
    const config = { vocab: 16, ctx: 16, dModel: 16, layers: 1, heads: 2, mlpRatio: 2, batch: 2 };
    const model = benchModel(config);
    const backend = await wasmBackend({ threads: 1 });
    const progress: [string, number, number][] = [];
    try {
      const r = await benchEngine(backend, { config, model, steps: 1, samplingRounds: 1, matmulRepeats: 1, peak: true, onProgress: (p, d, t) => progress.push([p, d, t]) });
      const shapes = trainMatmulShapes(model, config.batch * config.ctx);
      expect(r.matmul.per_shape!.length).toBe(shapes.length);
      expect(r.matmul.variants).toBeUndefined();
      const positive = [r.matmul.gflops, ...r.matmul.per_shape!.map((s) => s.gflops), r.train_step.tokens_per_s, r.train_step.gflops!, r.sampling.tokens_per_s, r.sampling.gflops!, r.peak!.gflops];
      for (const x of positive) expect(Number.isFinite(x) && x > 0).toBe(true);
      expect(r.efficiency!.train_step).toBeCloseTo(r.train_step.gflops! / r.peak!.gflops, 12);
      expect(r.peak!.threads).toBe(1);
      // No model name given (the CLI's call): the result has no `model` key, as `magic-lab bench --json` always had.
      expect(r).not.toHaveProperty('model');
      const total = shapes.length + 3;
      expect(progress.map((p) => p[1])).toEqual([...Array(total).keys(), total]);
      expect(progress.at(-1)).toEqual(['done', total, total]);
    } finally {
      backend.destroy();
    }
  });

  it("the page times the model it is sent (the rung it is on), named, at the mode's batch", async () => {
    const model = { vocabSize: 16, contextLength: 16, nLayers: 1, dModel: 16, nHeads: 2, mlpRatio: 2, norm: 'rmsnorm' as const, tiedEmbeddings: true };
    const backend = await wasmBackend({ threads: 1 });
    try {
      const r = await pageBench(backend, false, () => undefined, { config: model, name: { name: 'tiny rung', rung: 'tiny', preset: 'magic' } });
      expect(r.model).toEqual({ name: 'tiny rung', rung: 'tiny', preset: 'magic' });
      expect(r.config).toEqual({ vocab: 16, ctx: 16, dModel: 16, layers: 1, heads: 2, mlpRatio: 2, batch: QUICK_BENCH.config.batch });
      expect(r.params).toBe(modelParameterCount(model));
      expect(r.sampling.sequences).toBe(QUICK_BENCH.config.batch);
      // A bad shape from a message is refused by the model check, naming the field.
      await expect(pageBench(backend, false, () => undefined, { config: { ...model, nHeads: 3 }, name: { name: 'x', rung: null, preset: 'magic' } })).rejects.toThrow(/nHeads|dModel/);
    } finally {
      backend.destroy();
    }
  });

  it("the page's quick setting is the bench model at a smaller batch", () => {
    expect(QUICK_BENCH.config).toMatchObject({ vocab: 32, ctx: 64, dModel: 64, layers: 2, heads: 4, batch: 4 });
  });
});
