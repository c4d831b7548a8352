/**
 * update.microBatchRows end to end (src/rl/micro-batch.ts): the trainer's split of each mini-batch
 * into micro-batches, and a run with micro-batches a fraction of the batch against the unsplit run
 * (tiny presets, both engines' trainers as tests/rl/trainer.test.ts drives them).
 */
import { describe, expect, it } from 'vitest';
import { wasmBackend } from '../../src/model/cpu-policy';
import type { Backend, UpdateBatch } from '../../src/model/engine';
import { webgpuBackend } from '../../src/model/gpu-engine';
import { getPreset, type RunConfig } from '../../src/rl/config';
import { accumulateMode, microBatchStarts, microForwardLogp, sliceRows } from '../../src/rl/micro-batch';
import { initParams } from '../../src/model/init';
import { MagicTrainer } from '../../src/rl/trainer';
import { PAD_ID } from '../../src/tasks';
import { gpu } from '../gpu/harness';
import { everyStepGradientConfig, stripPerf } from './trainer-fixtures';

describe('splitting a packed mini-batch', () => {
  // 6 rows of T 3; rows 4 and 5 are padding (no loss token), as packUpdateBatch leaves them.
  const T = 3;
  const mask = Float32Array.from([1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  const batch: UpdateBatch = {
    rows: 6,
    T,
    temperature: 1,
    tokens: Uint32Array.from({ length: 18 }, (_, i) => i + 3),
    targets: Uint32Array.from({ length: 18 }, (_, i) => i + 4),
    mask,
    weights: mask.map((m) => m / 5),
    advantages: mask.map((m, i) => m * i),
  };

  it('one call when off or when the micro size covers the batch; chunks with a loss token otherwise', () => {
    expect(microBatchStarts(batch, null)).toEqual([0]);
    expect(microBatchStarts(batch, 6)).toEqual([0]);
    expect(microBatchStarts(batch, 2)).toEqual([0, 2]);
    expect(microBatchStarts(batch, 4)).toEqual([0]);
    expect(microBatchStarts(batch, 1)).toEqual([0, 1, 2, 3]);
    expect(microBatchStarts({ ...batch, mask: new Float32Array(18) }, 2)).toEqual([0]);
    expect(() => microBatchStarts(batch, 0)).toThrow(/update.microBatchRows must be an integer ≥ 1/);
    expect([accumulateMode(0, 1), accumulateMode(0, 3), accumulateMode(1, 3), accumulateMode(2, 3)]).toEqual(['only', 'first', 'middle', 'last']);
  });

  it('a slice keeps its rows and pads past the end with rows that add nothing', () => {
    const s = sliceRows(batch, 4, 3);
    expect(s.rows).toBe(3);
    expect(Array.from(s.tokens.subarray(0, 6))).toEqual(Array.from(batch.tokens.subarray(12, 18)));
    expect(Array.from(s.tokens.subarray(6))).toEqual([PAD_ID, PAD_ID, PAD_ID]);
    expect(Array.from(s.targets.subarray(6))).toEqual([PAD_ID, PAD_ID, PAD_ID]);
    expect(Array.from(s.mask.subarray(6))).toEqual([0, 0, 0]);
    expect(Array.from(s.weights.subarray(6))).toEqual([0, 0, 0]);
    expect(s.oldLogp).toBeUndefined();
    const mid = sliceRows(batch, 1, 2);
    expect(Array.from(mid.weights)).toEqual(Array.from(batch.weights.subarray(3, 9)));
    expect(Array.from(mid.advantages!)).toEqual(Array.from(batch.advantages!.subarray(3, 9)));
  });
});

const config = (update: Partial<RunConfig['update']>) => everyStepGradientConfig({ maxResponseLength: 10 }, update);

async function run(backend: Backend, cfg: RunConfig, steps: number) {
  const t = await MagicTrainer.create(backend, cfg);
  const records = [];
  for (let i = 0; i < steps; i++) records.push(stripPerf((await t.trainStep()).record));
  const params = await t.policy.getParams();
  t.destroy();
  return { records, params };
}

const engines: [string, () => Promise<Backend>][] = [
  ['wasm', () => wasmBackend({ threads: 2 })],
  ['webgpu', async () => webgpuBackend(await gpu())],
];

for (const [name, make] of engines) {
  describe(`a run in micro-batches matches the unsplit run (${name})`, () => {
    // 2 prompts × G 4 = 8 rows per batch: on-policy, micro 3 → 3 calls (the last padded); off-policy
    // (2 mini-batches of 4 rows, clipping active), micro 2 → 2 calls each.
    for (const [label, update, micro] of [
      ['on-policy', {}, 3],
      ['off-policy, 2 mini-batches', { miniBatches: 2 }, 2],
    ] as const) {
      it(label, async () => {
        const backend = await make();
        try {
          const whole = await run(backend, config(update), 3);
          const split = await run(backend, config({ ...update, microBatchRows: micro }), 3);
          expect(whole.records.every((r) => r['actor/grad_norm'] > 0)).toBe(true);
          for (let s = 0; s < 3; s++) {
            const a = whole.records[s];
            const b = split.records[s];
            expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
            for (const k of Object.keys(a)) {
              if (Number.isNaN(a[k])) expect(b[k], `step ${s + 1} ${k}`).toBeNaN();
              else expect(Math.abs(b[k] - a[k]), `step ${s + 1} ${k}: ${b[k]} vs ${a[k]}`).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(a[k])));
            }
          }
          let d = 0;
          for (let i = 0; i < whole.params.length; i++) d = Math.max(d, Math.abs(whole.params[i] - split.params[i]));
          expect(d).toBeLessThan(1e-4);
        } finally {
          if (name === 'wasm') backend.destroy();
        }
      });
    }
  });
}

for (const [name, make] of engines) {
  describe(`π_ref's forward in chunks of rows equals one forward, bit for bit (${name})`, () => {
    it('11 rows × T 19 in chunks of 4 (the last padded) and of 1', async () => {
      const backend = await make();
      try {
        const model = getPreset('magic-tiny').model;
        const policy = await backend.createPolicy(model, 'reference');
        policy.setParams(initParams(model, 1 + Math.floor(Math.random() * 1e6)));
        const rows = 11;
        const T = 19;
        const V = model.vocabSize;
        const tok = () => Uint32Array.from({ length: rows * T }, () => Math.floor(Math.random() * V));
        const mask = new Float32Array(rows * T).fill(1);
        const batch: UpdateBatch = { rows, T, temperature: 1.3, tokens: tok(), targets: tok(), mask, weights: mask.slice() };
        const whole = await microForwardLogp(policy, batch, null);
        expect(whole.length).toBe(rows * T);
        expect(whole.every((x) => Number.isFinite(x) && x < 0)).toBe(true);
        for (const micro of [4, 1]) expect(await microForwardLogp(policy, batch, micro), `chunks of ${micro}`).toEqual(whole);
        policy.destroy();
      } finally {
        if (name === 'wasm') backend.destroy();
      }
    });
  });
}
