/**
 * `npm run bench:peers` (scripts/bench-peers-webgpu.mjs): the TF.js peer model against the lab's
 * float64 reference on a tiny shape (TF.js's CPU backend, in Node: the model code, not WebGPU),
 * and the benchmark itself in --quick mode at batch 2 in headless Chromium on SwiftShader: the
 * JSON names the three engines, with finite positive times and step-0 losses that agree.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as tf from '@tensorflow/tfjs';
import { layoutParams, validateModelConfig } from '../../src/model/config';
import { benchTrainBatch, BENCH_ADAMW } from '../../src/model/bench-batch';
import { initParams } from '../../src/model/init';
import { referenceCrossEntropy } from '../../src/model/reference/model';
import { adamwStep, clipGradNorm } from '../../src/model/reference/ops';
// @ts-expect-error: a plain .mjs benchmark module without types
import { TfGpt } from '../../scripts/peers/tfjs-gpt.mjs';

describe('scripts/peers/tfjs-gpt.mjs', () => {
  it('trains as the lab reference does: same loss at every step of CE + clip + AdamW on a tiny model', async () => {
    await tf.setBackend('cpu');
    const cfg = validateModelConfig({ vocabSize: 11, contextLength: 8, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2 });
    const layout = layoutParams(cfg);
    const B = 3;
    const T = cfg.contextLength;
    const batch = benchTrainBatch(cfg, B);
    const init = initParams(cfg, 1);
    const adamw = { ...BENCH_ADAMW, lr: 1e-2, weightDecay: 0.5, maxGradNorm: 0.5 }; // a large step, strong decay and an active clip, so a wrong update shows
    const model = new TfGpt(cfg, layout, init, adamw);
    const params = Float64Array.from(init);
    const m = new Float64Array(params.length);
    const v = new Float64Array(params.length);
    const weights = Float64Array.from(batch.weights);
    for (let step = 1; step <= 4; step++) {
      const ref = referenceCrossEntropy(cfg, params, batch.tokens, B, T, weights);
      const { scale } = clipGradNorm(ref.grads, adamw.maxGradNorm);
      adamwStep(params, ref.grads, m, v, { ...adamw, step, gradScale: scale, decayEnd: layout.decayEnd });
      const loss = await model.step(Int32Array.from(batch.tokens), Int32Array.from(batch.targets), batch.weights, B, T);
      expect(Math.abs(loss - ref.loss), `step ${step}: TF.js ${loss} vs reference ${ref.loss}`).toBeLessThan(1e-4);
    }
    model.dispose();
  });
});

const chromium = '/usr/bin/chromium';
describe.skipIf(!existsSync(chromium))('npm run bench:peers -- --quick --batch 2', () => {
  it('writes JSON with the lab, TF.js and jax-js on one WebGPU adapter: finite times, ratios, step-0 losses that agree', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bench-peers-')), 'peers.json');
    const r = spawnSync(process.execPath, ['scripts/bench-peers-webgpu.mjs', '--quick', '--batch', '2', '--json', out], { encoding: 'utf8', timeout: 170_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const j = JSON.parse(readFileSync(out, 'utf8'));
    expect(j.quick).toBe(true);
    expect(j.env.config).toMatchObject({ vocabSize: 32, contextLength: 64, dModel: 64, nLayers: 2, nHeads: 4, batch: 2 });
    expect(j.env.adapter.vendor + j.env.adapter.architecture).not.toBe('');
    expect(j.env.tfjsBackend).toBe('webgpu');
    expect(j.env.jaxDevices).toContain('webgpu');
    for (const e of ['lab', 'labGrpo', 'tfjs', 'jaxjs']) {
      const t = j.train_step[e];
      expect(t.times_ms.length).toBe(2);
      for (const ms of [...t.times_ms, t.median_ms]) expect(Number.isFinite(ms) && ms > 0, `${e}: ${ms} ms`).toBe(true);
    }
    expect(j.check.ok).toBe(true);
    for (const k of ['tfjs', 'jaxjs']) expect(Math.abs(j.check[k][0] - j.check.lab[0])).toBeLessThanOrEqual(1e-3);
    for (const k of ['lab', 'tfjs', 'jaxjs']) expect(j.check[k].at(-1)).toBeLessThan(j.check[k][0]);
    for (const x of Object.values(j.ratios) as number[]) expect(Number.isFinite(x) && x > 0).toBe(true);
  }, 180_000);
});
