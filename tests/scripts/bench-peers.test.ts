/**
 * `npm run bench:peers` (scripts/bench-peers-webgpu.mjs): the TF.js peer model against the lab's
 * float64 reference on a tiny shape (TF.js's CPU backend, in Node: the model code, not WebGPU),
 * and the benchmark itself in --quick mode at batch 2 in headless Chromium on SwiftShader: the
 * JSON names the three engines, with finite positive times and step-0 losses that agree, and
 * sampling timed after each sampler passed its check against the float64 reference. The sampler
 * check itself (scripts/peers/sample-check.mjs) is shown to fail wrong samplers, and the TF.js
 * sampler (KV cache and prefix forms) to decode as the reference does, in Node on TF.js's CPU backend.
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
import { referenceCrossEntropy, referenceForward } from '../../src/model/reference/model';
import { adamwStep, clipGradNorm } from '../../src/model/reference/ops';
// @ts-expect-error: a plain .mjs benchmark module without types
import { TfGpt } from '../../scripts/peers/tfjs-gpt.mjs';
// @ts-expect-error: a plain .mjs benchmark module without types
import { greedyCheck, temperatureCheck } from '../../scripts/peers/sample-check.mjs';

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

describe('scripts/peers/sample-check.mjs and the TF.js sampler', () => {
  const cfg = validateModelConfig({ vocabSize: 11, contextLength: 8, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2 });
  const layout = layoutParams(cfg);
  // × 4, as the bench's check: sharp logits and attention, so a misplaced KV entry changes the argmax.
  const flat = initParams(cfg, 1).map((x) => x * 4);
  const params64 = Float64Array.from(flat);

  it('TF.js greedy decoding (KV cache and recomputed prefix) is the float64 argmax; τ = 1 samples pass the log-prob check', async () => {
    await tf.setBackend('cpu');
    const m = new TfGpt(cfg, layout, flat, BENCH_ADAMW);
    for (const variant of ['kv', 'prefix']) {
      const g = greedyCheck(cfg, params64, await m.sample(3, 5, { variant, greedy: true }));
      expect(g.mismatches, variant).toEqual([]);
      expect(g.compared, variant).toBeGreaterThan(0);
      const t = temperatureCheck(cfg, params64, await m.sample(32, 6, { variant }), 1);
      expect(t.n).toBe(32 * 7);
      expect(Math.abs(t.z), `${variant}: z ${t.z}`).toBeLessThan(5);
    }
    m.dispose();
  });

  it('fails a wrong sampler: a greedy token off by one position, and uniform draws at τ = 1', () => {
    // The reference's own greedy sequence, then the same sequence shifted (a sampler that read the logits one position late).
    const seq = [0];
    for (let i = 0; i < 6; i++) {
      const z = referenceForward(cfg, params64, seq, 1, seq.length).logits.subarray((seq.length - 1) * cfg.vocabSize, seq.length * cfg.vocabSize);
      seq.push(z.indexOf(Math.max(...z)));
    }
    expect(greedyCheck(cfg, params64, [seq]).mismatches).toEqual([]);
    const late = [0, 0, ...seq.slice(1, -1)];
    expect(late).not.toEqual(seq);
    expect(greedyCheck(cfg, params64, [late]).mismatches.length).toBe(1);
    let s = 12345;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) % cfg.vocabSize);
    const uniform = Array.from({ length: 32 }, () => [0, ...Array.from({ length: 7 }, rnd)]);
    expect(Math.abs(temperatureCheck(cfg, params64, uniform, 1).z)).toBeGreaterThan(5);
  });
});

const chromium = '/usr/bin/chromium';
describe.skipIf(!existsSync(chromium))('npm run bench:peers -- --quick --batch 2', () => {
  it('writes JSON with the lab, TF.js and jax-js on one WebGPU adapter: finite times, ratios, step-0 losses that agree', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bench-peers-')), 'peers.json');
    const r = spawnSync(process.execPath, ['scripts/bench-peers-webgpu.mjs', '--quick', '--batch', '2', '--json', out], { encoding: 'utf8', timeout: 400_000 });
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
    // Every ratio is measured, jax-js's sampling included (its argmax by `<`: random.categorical's loses the GPU on SwiftShader).
    for (const [k, x] of Object.entries(j.ratios)) {
      if (k === 'sampling_tfjs_peer') continue;
      expect(Number.isFinite(x) && (x as number) > 0, k).toBe(true);
    }
    // Sampling: every sampler that ran passed the check against the float64 reference (a wrong one fails the run), then was timed.
    expect(j.sampling_check.ok).toBe(true);
    for (const e of ['lab', 'tfjsKv', 'tfjsPrefix', 'jaxjsKv']) {
      const c = j.sampling_check.engines[e];
      expect(c.greedy.mismatches, e).toEqual([]);
      expect(c.greedy.compared, e).toBeGreaterThan(0);
      expect(Math.abs(c.temperature1.z), e).toBeLessThanOrEqual(5);
      const s = j.sampling[e];
      expect(s.runs.length).toBe(1);
      expect(Number.isFinite(s.tokens_per_s) && s.tokens_per_s > 0, `${e}: ${s.tokens_per_s} tokens/s`).toBe(true);
      if (e !== 'lab') expect(s.runs[0].generated).toBe(2 * 63);
    }
    // The engines agree on the greedy tokens of the check (one prompt, so every row is the same sequence).
    const first = j.sampling_check.engines.tfjsKv.greedySeqs[0];
    for (const e of ['lab', 'tfjsPrefix', 'jaxjsKv']) {
      const q = j.sampling_check.engines[e].greedySeqs[0];
      expect(q.slice(0, 4), e).toEqual(first.slice(0, Math.min(4, q.length)));
    }
  }, 420_000);
});
