// The roofline's two ceilings, in the same build as the kernels (twins: none; tests/cpu/roofline.test.ts
// recomputes them in f32 with Math.fround):
//
//   peakMulAdd: a register-resident loop of ACCS independent f32x4 chains acc = acc·m + a. The
//     engine's kernels use mul then add (no relaxed-SIMD FMA: results must not depend on the
//     machine), so the peak is measured with the same two instructions; 2 FLOP per lane per pair.
//     Each step depends on the last through both the mul and the add, so neither can be hoisted.
//   triad: a[i] = b[i] + s·c[i] over [lo, hi), STREAM's triad (3 × 4 bytes per element moved).
import { at } from './common';

/** Independent chains: enough to cover the mul + add latency at two pairs per cycle, within x64's 16 xmm registers. */
export const PEAK_ACCS: i32 = 12;

/** Runs `iters` steps of every chain; writes the ACCS final vectors (lane j of chain k starts at (4k + j)·start) at out. */
export function peakMulAdd(out: usize, iters: i32, m: f32, a: f32, start: f32): void {
  const vm = f32x4.splat(m);
  const va = f32x4.splat(a);
  const step = f32x4.splat(start * 4);
  let c0 = f32x4.mul(f32x4(0, 1, 2, 3), f32x4.splat(start));
  let c1 = f32x4.add(c0, step);
  let c2 = f32x4.add(c1, step);
  let c3 = f32x4.add(c2, step);
  let c4 = f32x4.add(c3, step);
  let c5 = f32x4.add(c4, step);
  let c6 = f32x4.add(c5, step);
  let c7 = f32x4.add(c6, step);
  let c8 = f32x4.add(c7, step);
  let c9 = f32x4.add(c8, step);
  let c10 = f32x4.add(c9, step);
  let c11 = f32x4.add(c10, step);
  for (let i = 0; i < iters; i++) {
    c0 = f32x4.add(f32x4.mul(c0, vm), va);
    c1 = f32x4.add(f32x4.mul(c1, vm), va);
    c2 = f32x4.add(f32x4.mul(c2, vm), va);
    c3 = f32x4.add(f32x4.mul(c3, vm), va);
    c4 = f32x4.add(f32x4.mul(c4, vm), va);
    c5 = f32x4.add(f32x4.mul(c5, vm), va);
    c6 = f32x4.add(f32x4.mul(c6, vm), va);
    c7 = f32x4.add(f32x4.mul(c7, vm), va);
    c8 = f32x4.add(f32x4.mul(c8, vm), va);
    c9 = f32x4.add(f32x4.mul(c9, vm), va);
    c10 = f32x4.add(f32x4.mul(c10, vm), va);
    c11 = f32x4.add(f32x4.mul(c11, vm), va);
  }
  v128.store(out, c0);
  v128.store(out, c1, 16);
  v128.store(out, c2, 32);
  v128.store(out, c3, 48);
  v128.store(out, c4, 64);
  v128.store(out, c5, 80);
  v128.store(out, c6, 96);
  v128.store(out, c7, 112);
  v128.store(out, c8, 128);
  v128.store(out, c9, 144);
  v128.store(out, c10, 160);
  v128.store(out, c11, 176);
}

/** a[i] = b[i] + s·c[i] for i in [lo, hi). */
export function triad(a: usize, b: usize, c: usize, s: f32, lo: i32, hi: i32): void {
  const vs = f32x4.splat(s);
  let i = lo;
  for (; i + 4 <= hi; i += 4) v128.store(at(a, i), f32x4.add(v128.load(at(b, i)), f32x4.mul(vs, v128.load(at(c, i)))));
  for (; i < hi; i++) store<f32>(at(a, i), load<f32>(at(b, i)) + s * load<f32>(at(c, i)));
}
