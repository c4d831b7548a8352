/** The backend choice rule shared by the CLI and the page's Worker, and what both engines do with a non-finite update. */
import { describe, expect, it } from 'vitest';
import { acquireNodeRuntime } from '../../src/gpu/node';
import { validateModelConfig } from '../../src/model/config';
import { wasmBackend } from '../../src/model/cpu-policy';
import { resolveBackend, type Backend, type GrpoLossOptions, type StepStats, type UpdateBatch } from '../../src/model/engine';
import { webgpuBackend } from '../../src/model/gpu-engine';
import { initParams } from '../../src/model/init';
import { Rng } from '../../src/util/rng';

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

/**
 * Divergence, caught before AdamW applies it: an update whose loss or global gradient norm is
 * not finite leaves the weights and AdamW moments bit for bit as they were, on both engines,
 * and says so (StepStats.applied); the next finite update applies as usual.
 */
describe('a non-finite update is rejected before AdamW (both engines)', () => {
  const cfg = validateModelConfig({ vocabSize: 11, contextLength: 9, nLayers: 1, dModel: 8, nHeads: 2, mlpRatio: 2, norm: 'layernorm', tiedEmbeddings: false });
  const B = 3;
  const T = 7;
  const LOSS: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0.01, klCoef: 0, klType: 'k3' };
  const ADAMW = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1 };
  const backends: [string, () => Promise<Backend>][] = [
    ['wasm', () => wasmBackend({ threads: 2 })],
    ['webgpu', async () => webgpuBackend(await acquireNodeRuntime())],
  ];

  function batch(seed: number, advantage: (b: number) => number): UpdateBatch {
    const rng = new Rng(seed);
    const tokens = Uint32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));
    const targets = new Uint32Array(B * T);
    const mask = new Float32Array(B * T);
    const advantages = new Float32Array(B * T);
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T - 1; t++) targets[b * T + t] = tokens[b * T + t + 1];
      for (let t = 2; t < T - 1; t++) {
        mask[b * T + t] = 1;
        advantages[b * T + t] = advantage(b);
      }
    }
    const count = mask.reduce((a, x) => a + x, 0);
    return { rows: B, T, temperature: 1, tokens, targets, mask, weights: mask.map((m) => m / count), advantages };
  }

  const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

  for (const [name, make] of backends) {
    it(name, async () => {
      const backend = await make();
      try {
        const pol = await backend.createPolicy(cfg, 'diverge');
        pol.setParams(initParams(cfg, 7));
        pol.resetAdamState();
        const run = (b: UpdateBatch, step: number) => pol.update(b, { kind: 'grpo', opts: LOSS }, { step, adamw: ADAMW });
        const first = await run(batch(1, (b) => b - 1), 1);
        expect(first.applied).toBe(true);
        const cases: [string, UpdateBatch, (s: StepStats) => boolean][] = [
          ['an advantage of NaN', batch(2, (b) => (b === 1 ? NaN : 1)), (s) => Number.isNaN(s.loss) && Number.isNaN(s.gradNorm)],
          ['an advantage of Infinity', batch(3, (b) => (b === 0 ? Infinity : -1)), (s) => !Number.isFinite(s.loss) || !Number.isFinite(s.gradNorm)],
          // Finite inputs whose gradient overflows f32: a huge learning signal.
          ['an advantage of 3e38', batch(4, () => 3e38), (s) => !Number.isFinite(s.gradNorm)],
        ];
        for (const [what, b, nonFinite] of cases) {
          const params = await pol.getParams();
          const adam = await pol.getAdamState();
          const s = await run(b, 2);
          expect(s.applied, `${what}: applied`).toBe(false);
          expect(nonFinite(s), `${what}: loss ${s.loss}, grad norm ${s.gradNorm}`).toBe(true);
          const after = await pol.getAdamState();
          expect(bits(await pol.getParams()).equals(bits(params)), `${what}: weights changed`).toBe(true);
          expect(bits(after.m).equals(bits(adam.m)), `${what}: AdamW m changed`).toBe(true);
          expect(bits(after.v).equals(bits(adam.v)), `${what}: AdamW v changed`).toBe(true);
        }
        // The rejected steps left nothing behind: step 2 now equals step 2 of a policy that never saw them.
        const fresh = await backend.createPolicy(cfg, 'clean');
        fresh.setParams(initParams(cfg, 7));
        fresh.resetAdamState();
        await fresh.update(batch(1, (b) => b - 1), { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW });
        const good = batch(5, (b) => 1 - b);
        expect((await run(good, 2)).applied).toBe(true);
        expect((await fresh.update(good, { kind: 'grpo', opts: LOSS }, { step: 2, adamw: ADAMW })).applied).toBe(true);
        expect(bits(await pol.getParams()).equals(bits(await fresh.getParams()))).toBe(true);
        expect(bits((await pol.getAdamState()).m).equals(bits((await fresh.getAdamState()).m))).toBe(true);
        // update: false is not applied either, whatever the values.
        expect((await pol.update(good, { kind: 'grpo', opts: LOSS }, { step: 3, adamw: ADAMW, update: false })).applied).toBe(false);
        pol.destroy();
        fresh.destroy();
      } finally {
        backend.destroy();
      }
    }, 60_000);
  }
});
