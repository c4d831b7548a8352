import { describe, expect, it } from 'vitest';
import { accumulate, add, geluBackward, geluForward } from '../../src/gpu/kernels/elementwise';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, maxRelError, poisoned, randn, relErr, rms, upload } from './harness';

const TOL = 1e-4;

describe('elementwise kernels vs float64 reference', () => {
  for (const n of [1, 255, 257, 1000, 4099]) {
    it(`gelu forward/backward, n=${n}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const x = randn(rng, n, 3);
      const dout = randn(rng, n);
      const inp = upload(rt, 'x', x);
      const dy = upload(rt, 'dy', dout);
      const out = poisoned(rt, 'y', n);
      const dx = poisoned(rt, 'dx', n);
      rt.run([await geluForward(rt, { inp, out, n }), await geluBackward(rt, { inp, dout: dy, dinp: dx, n })]);
      // float32 0.5·x·(1 + tanh u) loses the low bits of 1 + tanh u where it → 0 (x ≲ −4): the error is
      // relative to |x|, so the floor is the inputs' scale (n = 1 would otherwise fail on such an x).
      const want = ref.geluForward(x);
      expect(maxRelError(await rt.readF32(out, 0, n), want, Math.max(rms(want), rms(x))), `seed ${seed}`).toBeLessThan(TOL);
      // Likewise gelu'(x)·dout: where gelu' → 0 its float32 error is relative to |dout|, not to the product.
      const wantDx = ref.geluBackward(x, dout);
      expect(maxRelError(await rt.readF32(dx, 0, n), wantDx, Math.max(rms(wantDx), rms(dout))), `seed ${seed}`).toBeLessThan(TOL);
    });
  }

  it('add and accumulate', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const n = 777;
    const a = randn(rng, n);
    const b = randn(rng, n);
    const A = upload(rt, 'a', a);
    const B = upload(rt, 'b', b);
    const out = poisoned(rt, 'out', n);
    rt.run([await add(rt, { a: A, b: B, out, n })]);
    const sum = a.map((v, i) => v + b[i]);
    expect(relErr(await rt.readF32(out, 0, n), sum), `seed ${seed}`).toBeLessThan(TOL);
    rt.run([await accumulate(rt, { inp: A, out, n })]);
    expect(relErr(await rt.readF32(out, 0, n), sum.map((v, i) => v + a[i])), `seed ${seed}`).toBeLessThan(TOL);
  });

  it('folds a launch over the 65535-workgroup limit into two dimensions', async () => {
    const rt = await gpu();
    const n = 65536 * 256 + 300; // needs > 65535 workgroups of 256
    const x = new Float32Array(n);
    for (let i = 0; i < n; i += 4099) x[i] = (i % 7) - 3;
    const inp = upload(rt, 'bigx', x);
    const out = poisoned(rt, 'bigy', n);
    rt.run([await add(rt, { a: inp, b: inp, out, n })]);
    const got = await rt.readF32(out);
    expect(got[n - 1]).toBe(2 * x[n - 1]);
    expect(got[n - 300]).toBe(2 * x[n - 300]);
    expect(got.subarray(0, n).every((v, i) => v === 2 * x[i])).toBe(true);
  });
});

describe('runtime errors', () => {
  it('surfaces a validation error from a submitted command instead of silently dropping it', async () => {
    const rt = await gpu();
    const buf = upload(rt, 'alias', new Float32Array(64));
    // Same buffer bound read-only and read-write in one dispatch is invalid.
    rt.run([await accumulate(rt, { inp: buf, out: buf, n: 64 })]);
    await expect(rt.sync()).rejects.toThrow(/WebGPU error/);
  });
});
