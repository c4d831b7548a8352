import { describe, expect, it } from 'vitest';
import { normBackward, normChunkRows, normForward, type NormKind } from '../../src/gpu/kernels/norm';
import type { BufferSlice, GpuRuntime } from '../../src/gpu/runtime';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, maxRelError, poisoned, randn, relErr, rms, upload } from './harness';

const TOL = 1e-4;
const KINDS: NormKind[] = ['rmsnorm', 'layernorm'];
const SHAPES: [number, number][] = [
  [1, 1],
  [3, 5],
  [17, 33], // two weight-gradient chunks, the second partial
  [130, 64], // nine chunks, the last holding two rows
  [1000, 3], // many rows, narrow rows
];

interface Problem {
  x: Float64Array;
  w: Float64Array;
  b: Float64Array;
  dout: Float64Array;
  mean: Float64Array;
  rstd: Float64Array;
  out: Float64Array;
  dx: Float64Array;
  dw: Float64Array;
  db: Float64Array;
}

/**
 * Random inputs (shifted off zero so LayerNorm's centring matters) and the float64 answers.
 * Inputs are rounded to f32 — what the kernels receive — and the backward answer is computed
 * from the f32-rounded mean and rstd the backward kernel is given: with C = 3, a row whose
 * values nearly coincide has rstd ~300, and x − mean against an unrounded mean would differ
 * from the kernel's exact f32 x − mean by far more than f32 arithmetic error.
 */
function problem(kind: NormKind, rng: Rng, rows: number, C: number): Problem {
  const f32 = (a: Float64Array) => a.map(Math.fround);
  const x = f32(randn(rng, rows * C, 2).map((v) => v + 1.5));
  const w = f32(randn(rng, C).map((v) => 1 + 0.5 * v));
  const b = f32(randn(rng, C));
  const dout = f32(randn(rng, rows * C));
  if (kind === 'rmsnorm') {
    const f = ref.rmsnormForward(x, w, rows, C);
    const g = ref.rmsnormBackward(dout, x, w, f32(f.rstd), rows, C);
    return { x, w, b, dout, mean: new Float64Array(rows), rstd: f.rstd, out: f.out, dx: g.dx, dw: g.dw, db: new Float64Array(C) };
  }
  const f = ref.layernormForward(x, w, b, rows, C);
  const g = ref.layernormBackward(dout, x, w, f32(f.mean), f32(f.rstd), rows, C);
  return { x, w, b, dout, mean: f.mean, rstd: f.rstd, out: f.out, dx: g.dx, dw: g.dw, db: g.db };
}

const plus = (a: ArrayLike<number>, b: ArrayLike<number>) => Float64Array.from(a, (v, i) => v + b[i]);

/** A 256-byte-aligned slice in the middle of a larger buffer, as parameters are bound in the model. */
function sliceOf(rt: GpuRuntime, name: string, data: ArrayLike<number>): BufferSlice {
  const padded = new Float32Array(64 + data.length + 64).fill(NaN);
  padded.set(Array.from(data), 64);
  const buffer = upload(rt, name, padded);
  return { buffer, offset: 256, size: data.length * 4 };
}

describe('norm kernels vs float64 reference', () => {
  for (const kind of KINDS) {
    for (const [rows, C] of SHAPES) {
      it(`${kind} forward, rows=${rows} C=${C}`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const P = problem(kind, new Rng(seed), rows, C);
        const inp = upload(rt, 'x', P.x);
        const out = poisoned(rt, 'out', rows * C);
        const mean = poisoned(rt, 'mean', rows);
        const rstd = poisoned(rt, 'rstd', rows);
        const d = await normForward(rt, { kind, inp, weight: upload(rt, 'w', P.w), bias: upload(rt, 'b', P.b), out, mean, rstd, rows, C });
        rt.run([d]);
        expect(relErr(await rt.readF32(out, 0, rows * C), P.out), `seed ${seed}`).toBeLessThan(TOL);
        expect(relErr(await rt.readF32(rstd, 0, rows), P.rstd), `seed ${seed}`).toBeLessThan(TOL);
        if (kind === 'layernorm') expect(relErr(await rt.readF32(mean, 0, rows), P.mean), `seed ${seed}`).toBeLessThan(TOL);
        else expect((await rt.readF32(mean, 0, rows)).every(Number.isNaN), 'rmsnorm leaves mean alone').toBe(true);
      });

      for (const accumulate of [false, true]) {
        it(`${kind} backward, rows=${rows} C=${C}, accumulate=${accumulate}`, async () => {
          const rt = await gpu();
          const seed = freshSeed();
          const rng = new Rng(seed);
          const P = problem(kind, rng, rows, C);
          // Gradients of parameters always accumulate onto what is there; dinp only when asked.
          const dinp0 = randn(rng, rows * C);
          const dw0 = randn(rng, C);
          const db0 = randn(rng, C);
          const dinp = accumulate ? upload(rt, 'dinp', dinp0) : poisoned(rt, 'dinp', rows * C);
          const dweight = upload(rt, 'dw', dw0);
          const dbias = upload(rt, 'db', db0);
          const ds = await normBackward(rt, {
            kind,
            dout: upload(rt, 'dout', P.dout),
            inp: upload(rt, 'x', P.x),
            weight: upload(rt, 'w', P.w),
            mean: upload(rt, 'mean', P.mean),
            rstd: upload(rt, 'rstd', P.rstd),
            dinp,
            dweight,
            dbias,
            rows,
            C,
            accumulate,
          });
          rt.run(ds);
          const want = accumulate ? plus(dinp0, P.dx) : P.dx;
          // dx = rstd·(dn − …) cancels almost exactly when C is tiny (C=1 RMSNorm: dx ∝ eps), so
          // errors are measured against the size of the terms that cancel, rstd·dout·w.
          const terms = P.dout.map((d, i) => d * P.w[i % C] * P.rstd[Math.floor(i / C)]);
          const floor = Math.max(rms(want), rms(terms));
          expect(maxRelError(await rt.readF32(dinp, 0, rows * C), want, floor), `seed ${seed}`).toBeLessThan(TOL);
          expect(relErr(await rt.readF32(dweight, 0, C), plus(dw0, P.dw)), `seed ${seed}`).toBeLessThan(TOL);
          const dbGot = await rt.readF32(dbias, 0, C);
          if (kind === 'layernorm') expect(relErr(dbGot, plus(db0, P.db)), `seed ${seed}`).toBeLessThan(TOL);
          else expect(dbGot, 'rmsnorm leaves dbias alone').toEqual(Float32Array.from(db0));
        });
      }
    }
  }

  it('uses more than one weight-gradient chunk for the shapes above', () => {
    expect(Math.ceil(17 / normChunkRows(17))).toBe(2);
    expect(Math.ceil(130 / normChunkRows(130))).toBeGreaterThan(2);
    expect(Math.ceil(1000 / normChunkRows(1000))).toBeGreaterThan(2);
  });

  it('two layernorm backwards of one shape share scratch correctly within one submission, on buffer slices', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [rows, C] = [37, 19];
    const layers = [0, 1].map((l) => {
      const P = problem('layernorm', rng, rows, C);
      const dw0 = randn(rng, C);
      const db0 = randn(rng, C);
      return {
        P,
        dw0,
        db0,
        dinp: poisoned(rt, `dinp${l}`, rows * C),
        weight: sliceOf(rt, `w${l}`, P.w),
        dweight: sliceOf(rt, `dw${l}`, dw0),
        dbias: sliceOf(rt, `db${l}`, db0),
        dout: upload(rt, `dout${l}`, P.dout),
        inp: upload(rt, `x${l}`, P.x),
        mean: upload(rt, `mean${l}`, P.mean),
        rstd: upload(rt, `rstd${l}`, P.rstd),
      };
    });
    const dispatches = [];
    for (const L of layers) {
      const { dinp, weight, dweight, dbias, dout, inp, mean, rstd } = L;
      dispatches.push(...(await normBackward(rt, { kind: 'layernorm', dinp, weight, dweight, dbias, dout, inp, mean, rstd, rows, C, accumulate: false })));
    }
    rt.run(dispatches);
    for (const L of layers) {
      expect(relErr(await rt.readF32(L.dinp, 0, rows * C), L.P.dx), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(L.dweight), plus(L.dw0, L.P.dw)), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(L.dbias), plus(L.db0, L.P.db)), `seed ${seed}`).toBeLessThan(TOL);
    }
  });

  it("rmsnorm forward uses the model's ε (Qwen2's 1e-6) where it matters", async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const [rows, C] = [9, 13];
    // Values ~1e-3: mean(x²) ~ 1e-6, the size of ε, so 1e-5 and 1e-6 give rstd apart by ~2x.
    const x = randn(new Rng(seed), rows * C, 1e-3).map(Math.fround);
    const w = randn(new Rng(seed + 1), C).map((v) => Math.fround(1 + 0.5 * v));
    for (const eps of [1e-6, 1e-5]) {
      const out = poisoned(rt, 'out', rows * C);
      const rstd = poisoned(rt, 'rstd', rows);
      rt.run([await normForward(rt, { kind: 'rmsnorm', inp: upload(rt, 'x', x), weight: upload(rt, 'w', w), out, rstd, rows, C, eps })]);
      const want = ref.rmsnormForward(x, w, rows, C, eps);
      expect(relErr(await rt.readF32(out, 0, rows * C), want.out), `eps ${eps}, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(rstd, 0, rows), want.rstd), `eps ${eps}, seed ${seed}`).toBeLessThan(TOL);
    }
    expect(() => normForward(rt, { kind: 'rmsnorm', inp: upload(rt, 'x', x), weight: upload(rt, 'w', w), out: upload(rt, 'o', x), rstd: upload(rt, 'r', x), rows, C, eps: 0 })).toThrow(/eps/);
  });

  it('layernorm without bias or mean is refused', async () => {
    const rt = await gpu();
    const b = upload(rt, 'tiny', [1, 2, 3, 4]);
    expect(() => normForward(rt, { kind: 'layernorm', inp: b, weight: b, out: b, rstd: b, rows: 1, C: 4 })).toThrow(/bias/);
  });
});
