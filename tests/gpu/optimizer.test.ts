import { describe, expect, it } from 'vitest';
import { adamw, gradNorm, gradNormScratchFloats, type AdamWOptions } from '../../src/gpu/kernels/optimizer';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload } from './harness';
import { NONFINITE_STEPS } from '../nonfinite-steps';

const TOL = 1e-4;

/** Rounds to f32 so the float64 reference sees exactly what the GPU sees. */
const f32 = (a: Float64Array) => Float64Array.from(Float32Array.from(a));

describe('gradNorm', () => {
  for (const n of [1, 257, 4099, 70001, 600_001]) {
    it(`matches √Σg² and is bit-reproducible, n=${n}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const g = f32(randn(new Rng(seed), n, 0.01));
      const grads = upload(rt, 'g', g);
      const scratch = poisoned(rt, 'scratch', gradNormScratchFloats(n));
      const norm = poisoned(rt, 'norm', 1);
      const ds = await gradNorm(rt, { grads, n, scratch, norm });
      rt.run(ds);
      const first = (await rt.readF32(norm, 0, 1))[0];
      rt.write(norm, new Float32Array([NaN]));
      rt.run(ds);
      const second = (await rt.readF32(norm, 0, 1))[0];
      const want = ref.clipGradNorm(g, 1).norm;
      expect(Math.abs(first - want) / want, `seed ${seed}`).toBeLessThan(1e-5);
      expect(Object.is(first, second), `seed ${seed}: ${first} vs ${second}`).toBe(true);
    });
  }
});

describe('AdamW with GPU-side gradient clipping vs float64 reference', () => {
  // clipFactor: maxGradNorm = clipFactor · (this step's true norm); < 1 clips, > 1 does not.
  const cases: Array<{ n: number; clipFactor: number }> = [];
  for (const n of [1, 63, 1000, 70001]) for (const clipFactor of [0.3, 3, Infinity]) cases.push({ n, clipFactor });
  for (const { n, clipFactor } of cases) {
    it(`n=${n}, maxGradNorm = ${clipFactor}·norm, steps 1..3`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const decayEnd = Math.floor((n + 1) / 2);
      const p64 = f32(randn(rng, n));
      const m64 = new Float64Array(n);
      const v64 = new Float64Array(n);
      const params = upload(rt, 'params', p64);
      const m = upload(rt, 'm', m64);
      const v = upload(rt, 'v', v64);
      const grads = upload(rt, 'grads', new Float32Array(n));
      const scratch = rt.buffer('scratch', gradNormScratchFloats(n) * 4);
      const norm = rt.buffer('norm', 4);
      const loss = upload(rt, 'loss', [0.25]);
      const base: AdamWOptions = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, maxGradNorm: Infinity };
      const norms = await gradNorm(rt, { grads, n, scratch, norm });
      const opt = await adamw(rt, { params, grads, m, v, norm, loss, n, decayEnd, opts: base });
      let clipped = 0;
      for (let step = 1; step <= 3; step++) {
        // Different gradient scale and lr each step: checks that `update` rewrites every option.
        const g = f32(randn(rng, n, 0.05 * step));
        const { norm: trueNorm } = ref.clipGradNorm(g, 1);
        const opts: AdamWOptions = { ...base, lr: base.lr / step, maxGradNorm: clipFactor * trueNorm };
        const { scale } = ref.clipGradNorm(g, opts.maxGradNorm);
        if (scale < 1) clipped++;
        ref.adamwStep(p64, g, m64, v64, { ...opts, step, gradScale: scale, decayEnd });
        rt.write(grads, Float32Array.from(g));
        rt.write(scratch, new Float32Array(gradNormScratchFloats(n)).fill(NaN));
        rt.write(norm, new Float32Array([NaN]));
        opt.update(rt, step, opts);
        rt.run([...norms, ...opt.dispatches]);
        const gotNorm = (await rt.readF32(norm, 0, 1))[0];
        expect(Math.abs(gotNorm - trueNorm) / trueNorm, `seed ${seed} step ${step}`).toBeLessThan(1e-5);
        expect(relErr(await rt.readF32(params, 0, n), p64), `params, seed ${seed} step ${step}`).toBeLessThan(TOL);
      }
      expect(clipped).toBe(clipFactor < 1 ? 3 : 0);
      expect(relErr(await rt.readF32(m, 0, n), m64), `m, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(v, 0, n), v64), `v, seed ${seed}`).toBeLessThan(TOL);
    });
  }

  // A non-finite step (a ±Inf / NaN gradient, or a non-finite loss with finite gradients) is
  // rejected on the GPU: params, m and v keep their bits, the norm is still written, and the
  // steps around it match the float64 twin that skips the same steps (adamwStep's gate), with
  // the step count t advancing only on applied steps (as the trainer does).
  const rejects = NONFINITE_STEPS;
  for (const n of [1, 63, 1001, 70001]) {
    it(`rejects a non-finite step without writing (n=${n}): ${rejects.map((r) => r.what).join(', ')}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const decayEnd = Math.floor(n / 3);
      const p64 = f32(randn(rng, n));
      const m64 = new Float64Array(n);
      const v64 = new Float64Array(n);
      const params = upload(rt, 'params', p64);
      const m = upload(rt, 'm', m64);
      const v = upload(rt, 'v', v64);
      const grads = upload(rt, 'grads', new Float32Array(n));
      const scratch = rt.buffer('scratch', gradNormScratchFloats(n) * 4);
      const norm = rt.buffer('norm', 4);
      const loss = rt.buffer('loss', 4);
      const opts: AdamWOptions = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 0.5 };
      const norms = await gradNorm(rt, { grads, n, scratch, norm });
      const opt = await adamw(rt, { params, grads, m, v, norm, loss, n, decayEnd, opts });
      let t = 0;
      // finite, then each rejection with a finite step after it: the moments carry on as if the rejected step never ran.
      const plan = [null, ...rejects.flatMap((r) => [r, null])];
      for (const [k, r] of plan.entries()) {
        const g = f32(randn(rng, n, 0.05));
        const lossValue = r ? r.poison(g, rng) : 0.5;
        const { norm: refNorm, scale } = ref.clipGradNorm(g, opts.maxGradNorm);
        const applied = ref.adamwStep(p64, g, m64, v64, { ...opts, step: t + 1, gradScale: scale, decayEnd, gate: { loss: lossValue, gradNorm: refNorm } });
        expect(applied, `step ${k}`).toBe(r === null);
        const before = [await rt.readF32(params, 0, n), await rt.readF32(m, 0, n), await rt.readF32(v, 0, n)];
        rt.write(grads, Float32Array.from(g));
        rt.write(loss, new Float32Array([lossValue]));
        rt.write(scratch, new Float32Array(gradNormScratchFloats(n)).fill(NaN));
        rt.write(norm, new Float32Array([0.125])); // poison that is finite: a skipped norm pass would let AdamW run
        opt.update(rt, t + 1, opts);
        rt.run([...norms, ...opt.dispatches]);
        const gotNorm = (await rt.readF32(norm, 0, 1))[0];
        const label = `seed ${seed}, step ${k} (${r?.what ?? 'finite'})`;
        if (Number.isFinite(refNorm)) expect(Math.abs(gotNorm - refNorm) / refNorm, label).toBeLessThan(1e-5);
        else expect(Number.isNaN(refNorm) ? Number.isNaN(gotNorm) : gotNorm === Infinity, `${label}: norm ${gotNorm}, want ${refNorm}`).toBe(true);
        const after = [await rt.readF32(params, 0, n), await rt.readF32(m, 0, n), await rt.readF32(v, 0, n)];
        if (applied) {
          t++;
          expect(relErr(after[0], p64), `params, ${label}`).toBeLessThan(TOL);
        } else {
          ['params', 'm', 'v'].forEach((name, j) => expect(Buffer.from(after[j].buffer).equals(Buffer.from(before[j].buffer)), `${name} changed, ${label}`).toBe(true));
        }
      }
      expect(t).toBe(rejects.length + 1);
      expect(relErr(await rt.readF32(params, 0, n), p64), `params, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(m, 0, n), m64), `m, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(v, 0, n), v64), `v, seed ${seed}`).toBeLessThan(TOL);
    });
  }

  it('applies weight decay only to [0, decayEnd)', async () => {
    // Zero gradients: the update is the decay alone, so untouched tail elements must be bit-equal.
    const rt = await gpu();
    const n = 301;
    const decayEnd = 128;
    const p0 = f32(randn(new Rng(freshSeed()), n));
    const params = upload(rt, 'params', p0);
    const m = upload(rt, 'm', new Float32Array(n));
    const v = upload(rt, 'v', new Float32Array(n));
    const grads = upload(rt, 'grads', new Float32Array(n));
    const norm = upload(rt, 'norm', [0]);
    const loss = upload(rt, 'loss', [0]);
    const opt = await adamw(rt, { params, grads, m, v, norm, loss, n, decayEnd, opts: { lr: 0.5, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0.2, maxGradNorm: 1 } });
    rt.run(opt.dispatches);
    const got = await rt.readF32(params, 0, n);
    for (let i = 0; i < n; i++) {
      const want = i < decayEnd ? p0[i] * (1 - 0.5 * 0.2) : p0[i];
      expect(Math.abs(got[i] - want), `i=${i}`).toBeLessThanOrEqual(1e-6 * Math.abs(want));
    }
  });

  it('rejects invalid options', async () => {
    const rt = await gpu();
    const b = rt.buffer('tiny', 16);
    const opts: AdamWOptions = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 1 };
    await expect(adamw(rt, { params: b, grads: b, m: b, v: b, norm: b, loss: b, n: 4, decayEnd: 5, opts })).rejects.toThrow(/decayEnd/);
    const opt = await adamw(rt, { params: rt.buffer('p4', 16), grads: rt.buffer('g4', 16), m: rt.buffer('m4', 16), v: rt.buffer('v4', 16), norm: rt.buffer('n4', 16), loss: rt.buffer('l4', 16), n: 4, decayEnd: 4, opts });
    expect(() => opt.update(rt, 0, opts)).toThrow(/step/);
    expect(() => opt.update(rt, 1, { ...opts, maxGradNorm: 0 })).toThrow(/maxGradNorm/);
  });
});
