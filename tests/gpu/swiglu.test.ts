import { describe, expect, it } from 'vitest';
import { swigluBackward, swigluForward } from '../../src/gpu/kernels/swiglu';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload } from './harness';

const TOL = 1e-5;

describe('SwiGLU kernels vs float64 reference', () => {
  for (const n of [1, 7, 255, 257, 3 * 48 + 1, 70001]) {
    it(`forward + backward, n=${n}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      // Scale 4 reaches both saturated ends of σ (the overflow-free branch for large negative gates).
      const gate = randn(rng, n, 4).map(Math.fround);
      if (n > 2) (gate[0] = -120), (gate[1] = 95);
      const up = randn(rng, n).map(Math.fround);
      const dout = randn(rng, n).map(Math.fround);
      const [g, u, d] = [upload(rt, 'g', gate), upload(rt, 'u', up), upload(rt, 'd', dout)];
      const out = poisoned(rt, 'out', n), dgate = poisoned(rt, 'dg', n), dup = poisoned(rt, 'du', n);
      rt.run([await swigluForward(rt, { gate: g, up: u, out, n }), await swigluBackward(rt, { gate: g, up: u, dout: d, dgate, dup, n })]);
      const want = ref.swigluBackward(dout, gate, up);
      expect(relErr(await rt.readF32(out, 0, n), ref.swigluForward(gate, up)), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dgate, 0, n), want.dgate), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dup, 0, n), want.dup), `seed ${seed}`).toBeLessThan(TOL);
    });
  }

  it('the twin backward matches central differences of its forward', () => {
    const rng = new Rng(freshSeed());
    const gate = randn(rng, 20, 3), up = randn(rng, 20), dout = randn(rng, 20);
    const { dgate, dup } = ref.swigluBackward(dout, gate, up);
    const L = (g: Float64Array, u: Float64Array) => ref.swigluForward(g, u).reduce((s, y, i) => s + y * dout[i], 0);
    const h = 1e-6;
    for (let i = 0; i < 20; i++) {
      const gp = Float64Array.from(gate), gm = Float64Array.from(gate);
      gp[i] += h, gm[i] -= h;
      expect(dgate[i]).toBeCloseTo((L(gp, up) - L(gm, up)) / (2 * h), 6);
      const upP = Float64Array.from(up), upM = Float64Array.from(up);
      upP[i] += h, upM[i] -= h;
      expect(dup[i]).toBeCloseTo((L(gate, upP) - L(gate, upM)) / (2 * h), 6);
    }
  });
});
