import { describe, expect, it } from 'vitest';
import {
  biasGrad,
  chooseMatmulVariant,
  matmul,
  MATMUL_VARIANTS,
  matmulGflops,
  selectedMatmulVariant,
  setMatmulVariant,
} from '../../src/gpu/kernels/matmul';
import type { BufferSlice } from '../../src/gpu/runtime';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, maxRelError, poisoned, randn, relErr, rms, upload } from './harness';

const TOL = 1e-4;
/** Output rows/columns per workgroup of each variant (the shader's tile sizes). */
const OUTPUT_TILE = { blocked4x4: 32, tiled64: 64 } as const;
// [M, N, K]: degenerate, smaller than one 4×4 block, and odd sizes straddling 16/32/64 tiles;
// then multiple-of-4 sizes (still straddling tiles) that take blocked4x4's vec4 path, for every
// layout ([36, 68, 17] only where K needs no alignment: transposed A with untransposed B).
const SIZES: [number, number, number][] = [
  [1, 1, 1],
  [5, 7, 3],
  [33, 65, 17],
  [67, 31, 129],
  [4, 4, 4],
  [36, 68, 17],
  [68, 36, 132],
];
/**
 * Relative error measured against the size of the summed terms (RMS of Σ|term| per output), the
 * scale f32 rounding error is proportional to: with few outputs, a sum that happens to cancel
 * (a·b ≈ -bias for 1×1×1) would otherwise turn harmless rounding into a large "relative" error.
 */
function sumRelErr(actual: ArrayLike<number>, expected: ArrayLike<number>, magnitude: ArrayLike<number>): number {
  return maxRelError(actual, expected, Math.max(rms(expected), rms(magnitude)));
}

const abs = (x: Float64Array) => x.map(Math.abs);

/** Whether blocked4x4 may use its vec4 path at this shape (the builder's rule, restated). */
const vec4Shape = (M: number, N: number, K: number, transA: boolean, transB: boolean) =>
  (transA ? M : K) % 4 === 0 && (transB ? K : N) % 4 === 0;

describe('matmul vs float64 gemm', () => {
  for (const variant of MATMUL_VARIANTS) {
    for (const transA of [false, true]) {
      for (const transB of [false, true]) {
        for (const accumulate of [false, true]) {
          for (const withBias of [false, true]) {
            const name = `${variant} transA=${transA} transB=${transB} accumulate=${accumulate} bias=${withBias}`;
            it(name, async () => {
              const rt = await gpu();
              for (const [M, N, K] of SIZES) {
                const seed = freshSeed();
                const rng = new Rng(seed);
                const A = randn(rng, M * K);
                const B = randn(rng, K * N);
                const bias = randn(rng, N);
                // Accumulate tests start from known random data (NaN would hide nothing: NaN + x = NaN).
                const init = randn(rng, M * N);
                const expected = ref.gemm(A, B, M, N, K, transA, transB);
                const magnitude = ref.gemm(abs(A), abs(B), M, N, K, transA, transB);
                for (let i = 0; i < M; i++) {
                  for (let j = 0; j < N; j++) {
                    if (withBias) expected[i * N + j] += bias[j];
                    if (withBias) magnitude[i * N + j] += Math.abs(bias[j]);
                    if (accumulate) expected[i * N + j] += init[i * N + j];
                    if (accumulate) magnitude[i * N + j] += Math.abs(init[i * N + j]);
                  }
                }
                const out = accumulate ? upload(rt, 'out', init) : poisoned(rt, 'out', M * N);
                const d = await matmul(rt, {
                  a: upload(rt, 'a', A),
                  b: upload(rt, 'b', B),
                  out,
                  bias: withBias ? upload(rt, 'bias', bias) : undefined,
                  M,
                  N,
                  K,
                  transA,
                  transB,
                  accumulate,
                  variant,
                });
                const wantVec4 = variant === 'blocked4x4' && vec4Shape(M, N, K, transA, transB);
                expect(d.label.includes('vec4'), `${d.label}: vec4 path`).toBe(wantVec4);
                rt.run([d]);
                const got = await rt.readF32(out, 0, M * N);
                expect(sumRelErr(got, expected, magnitude), `${name} ${M}x${N}x${K} seed ${seed}`).toBeLessThan(TOL);
              }
            });
          }
        }
      }
    }
  }

  // tiled64 runs barrier-heavy 256-invocation workgroups that SwiftShader executes slowly
  // (~4 ms each), so it runs a smaller long-and-thin case; both record the 100k grids.
  for (const [variant, long] of [
    ['blocked4x4', 100_000],
    ['tiled64', 4099],
  ] as const) {
    it(`${variant}: M or N up to 100000 stays within the workgroup-count limit`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const max = rt.limits.maxComputeWorkgroupsPerDimension;
      for (const [M, N, K] of [
        [1, long, 2],
        [long, 1, 3],
      ]) {
        const A = randn(rng, M * K);
        const B = randn(rng, K * N);
        const a = upload(rt, 'big.a', A);
        const b = upload(rt, 'big.b', B);
        const out = poisoned(rt, 'big.out', M * N);
        rt.run([await matmul(rt, { a, b, out, M, N, K, transA: false, transB: true, accumulate: false, variant })]);
        const got = await rt.readF32(out, 0, M * N);
        expect(relErr(got, ref.gemm(A, B, M, N, K, false, true)), `${M}x${N}x${K} seed ${seed}`).toBeLessThan(TOL);
      }
      // Grid shape only (not run): 100000 rows or columns in one launch.
      const huge = 100_000;
      const hugeIn = rt.buffer('big.huge.in', huge * 64 * 4);
      const hugeOut = rt.buffer('big.huge.out', huge * 64 * 4);
      for (const [M, N] of [
        [huge, 64],
        [64, huge],
      ]) {
        const d = await matmul(rt, { a: hugeIn, b: hugeIn, out: hugeOut, M, N, K: 64, transA: false, transB: false, accumulate: false, variant });
        expect(Math.max(...d.workgroups)).toBeLessThanOrEqual(max);
        expect(d.workgroups[0] * d.workgroups[1] * OUTPUT_TILE[variant] ** 2).toBeGreaterThanOrEqual(M * N);
      }
    });
  }
});

/** A slice of a shared buffer at a 256-byte-aligned offset, as the model binds parameters. */
function sliceOf(buffer: GPUBuffer, offsetFloats: number, floats: number): BufferSlice {
  return { buffer, offset: offsetFloats * 4, size: floats * 4 };
}

describe('linear layer as the model composes it', () => {
  for (const variant of MATMUL_VARIANTS) {
    it(`${variant}: forward, dx, dW += and db += match linearForward/linearBackward`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const rows = 19;
      const inF = 23;
      const outF = 37;
      const x = randn(rng, rows * inF);
      const w = randn(rng, outF * inF);
      const bvec = randn(rng, outF);
      const dy = randn(rng, rows * outF);
      const dw0 = randn(rng, outF * inF);
      const db0 = randn(rng, outF);
      // W and b live inside one flat parameter buffer, dW and db inside one gradient buffer.
      const wOff = 64;
      const bOff = wOff + Math.ceil((outF * inF) / 64) * 64;
      const flat = new Float64Array(bOff + outF).fill(NaN);
      flat.set(w, wOff);
      flat.set(bvec, bOff);
      const gradsInit = new Float64Array(bOff + outF).fill(NaN);
      gradsInit.set(dw0, wOff);
      gradsInit.set(db0, bOff);
      const params = upload(rt, 'lin.params', flat);
      const grads = upload(rt, 'lin.grads', gradsInit);
      const W = sliceOf(params, wOff, outF * inF);
      const Bias = sliceOf(params, bOff, outF);
      const dW = sliceOf(grads, wOff, outF * inF);
      const dB = sliceOf(grads, bOff, outF);
      const X = upload(rt, 'lin.x', x);
      const DY = upload(rt, 'lin.dy', dy);
      const Y = poisoned(rt, 'lin.y', rows * outF);
      const DX = poisoned(rt, 'lin.dx', rows * inF);
      rt.run([
        await matmul(rt, { a: X, b: W, bias: Bias, out: Y, M: rows, N: outF, K: inF, transA: false, transB: true, accumulate: false, variant }),
        await matmul(rt, { a: DY, b: W, out: DX, M: rows, N: inF, K: outF, transA: false, transB: false, accumulate: false, variant }),
        await matmul(rt, { a: DY, b: X, out: dW, M: outF, N: inF, K: rows, transA: true, transB: false, accumulate: true, variant }),
        await biasGrad(rt, { dout: DY, dbias: dB, rows, cols: outF, accumulate: true }),
      ]);
      const g = ref.linearBackward(dy, x, w, rows, inF, outF);
      const msg = `seed ${seed}`;
      expect(relErr(await rt.readF32(Y, 0, rows * outF), ref.linearForward(x, w, bvec, rows, inF, outF)), msg).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(DX, 0, rows * inF), g.dx), msg).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dW), g.dw.map((v, i) => v + dw0[i])), msg).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dB), g.db.map((v, i) => v + db0[i])), msg).toBeLessThan(TOL);
    });
  }
});

describe('biasGrad vs column sums', () => {
  // rows not a multiple of the 4 row lanes, cols not a multiple of the 64-column workgroup.
  for (const [rows, cols] of [
    [1, 1],
    [3, 5],
    [7, 70],
    [130, 129],
  ]) {
    for (const accumulate of [false, true]) {
      it(`rows=${rows} cols=${cols} accumulate=${accumulate}`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const rng = new Rng(seed);
        const dout = randn(rng, rows * cols);
        const init = randn(rng, cols);
        const dbias = accumulate ? upload(rt, 'db', init) : poisoned(rt, 'db', cols);
        rt.run([await biasGrad(rt, { dout: upload(rt, 'dout', dout), dbias, rows, cols, accumulate })]);
        const expected = new Float64Array(cols);
        const magnitude = new Float64Array(cols);
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < cols; c++) {
            expected[c] += dout[r * cols + c];
            magnitude[c] += Math.abs(dout[r * cols + c]);
          }
        }
        if (accumulate) for (let c = 0; c < cols; c++) expected[c] += init[c];
        if (accumulate) for (let c = 0; c < cols; c++) magnitude[c] += Math.abs(init[c]);
        expect(sumRelErr(await rt.readF32(dbias, 0, cols), expected, magnitude), `seed ${seed}`).toBeLessThan(TOL);
      });
    }
  }
});

describe('variant selection', () => {
  it('rejects shapes that do not fit the bound buffers', async () => {
    const rt = await gpu();
    const small = upload(rt, 'sel.small', new Float32Array(8));
    await expect(matmul(rt, { a: small, b: small, out: small, M: 3, N: 3, K: 3, transA: false, transB: false, accumulate: false })).rejects.toThrow(/A holds/);
  });

  it('chooseMatmulVariant times every variant and records the fastest', async () => {
    const rt = await gpu();
    const shapes = [
      { M: 48, N: 40, K: 36, transA: false, transB: true },
      { M: 40, N: 36, K: 48, transA: true, transB: false },
    ];
    const first = await chooseMatmulVariant(rt, shapes);
    for (const v of MATMUL_VARIANTS) {
      expect(Number.isFinite(first.gflops[v]) && first.gflops[v] > 0, `${v}: ${first.gflops[v]}`).toBe(true);
      expect(first.gflops[first.chosen]).toBeGreaterThanOrEqual(first.gflops[v]);
    }
    expect(selectedMatmulVariant(rt)).toBe(first.chosen);
    // Start from the other variant so a choose that forgot to record would be caught.
    const other = MATMUL_VARIANTS.find((v) => v !== first.chosen)!;
    setMatmulVariant(rt, other);
    const second = await chooseMatmulVariant(rt, shapes);
    expect(selectedMatmulVariant(rt)).toBe(second.chosen);

    // matmul without `variant` uses the runtime's selection.
    setMatmulVariant(rt, other);
    const buf = upload(rt, 'sel.buf', new Float32Array(16));
    const d = await matmul(rt, { a: buf, b: buf, out: poisoned(rt, 'sel.out', 4), M: 2, N: 2, K: 2, transA: false, transB: false, accumulate: false });
    expect(d.label).toContain(other);
  });

  it('matmulGflops reports a finite positive rate for each variant', async () => {
    const rt = await gpu();
    for (const v of MATMUL_VARIANTS) {
      const g = await matmulGflops(rt, v, { M: 32, N: 32, K: 32 }, 3);
      expect(Number.isFinite(g) && g > 0, `${v}: ${g}`).toBe(true);
    }
  });
});
