/**
 * Helpers for checking kernels against their float64 twins, shared by the tests and by
 * `magic-lab gradcheck`: uploads, NaN-poisoned outputs (an element a kernel forgets to write
 * stays NaN and fails), and relative error.
 */
import type { GpuRuntime } from './runtime';

/** A storage buffer holding `data` as f32. */
export function upload(rt: GpuRuntime, name: string, data: ArrayLike<number>): GPUBuffer {
  const buf = rt.buffer(name, data.length * 4);
  rt.write(buf, Float32Array.from(data));
  return buf;
}

/** A storage buffer holding `data` as u32. */
export function uploadU32(rt: GpuRuntime, name: string, data: ArrayLike<number>): GPUBuffer {
  const buf = rt.buffer(name, data.length * 4);
  rt.write(buf, Uint32Array.from(data));
  return buf;
}

/** A storage buffer of n floats filled with NaN. */
export function poisoned(rt: GpuRuntime, name: string, n: number): GPUBuffer {
  return upload(rt, name, new Float32Array(n).fill(NaN));
}

/**
 * Max over elements of |a−e| / max(|e|, floor); NaN or a short array → Infinity. The floor keeps
 * near-zero reference values from dominating (the error there is judged in absolute terms).
 */
export function maxRelError(actual: ArrayLike<number>, expected: ArrayLike<number>, floor = 1): number {
  if (actual.length < expected.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    if (!Number.isFinite(a)) return Infinity;
    const err = Math.abs(a - expected[i]) / Math.max(Math.abs(expected[i]), floor);
    if (err > worst) worst = err;
  }
  return worst;
}

/** Root mean square (1 for an all-zero array, so it can serve as a floor). */
export function rms(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return Math.sqrt(s / Math.max(1, a.length)) || 1;
}

/** Relative error of a kernel output, elementwise, floored at the reference's RMS magnitude. */
export function relErr(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  return maxRelError(actual, expected, rms(expected));
}
