/**
 * Shared test harness for GPU kernels: one runtime per test file (Dawn in Node; SwiftShader
 * on CPU-only machines), poisoned output buffers, and relative-error comparison against the
 * float64 reference twins.
 */
import { afterAll } from 'vitest';
import { acquireNodeRuntime } from '../../src/gpu/node';
import type { GpuRuntime } from '../../src/gpu/runtime';
import { Rng } from '../../src/util/rng';

let runtime: Promise<GpuRuntime> | null = null;

/** The shared runtime; destroyed after the file's tests. */
export function gpu(): Promise<GpuRuntime> {
  if (!runtime) {
    runtime = acquireNodeRuntime();
    afterAll(async () => {
      (await runtime!).destroy();
      runtime = null;
    });
  }
  return runtime;
}

/** NaN bit pattern written into outputs before a run, so an unwritten element fails the comparison. */
export const POISON = NaN;

/** A storage buffer holding `data` (f32). */
export function upload(rt: GpuRuntime, name: string, data: ArrayLike<number>): GPUBuffer {
  const buf = rt.buffer(name, data.length * 4);
  rt.write(buf, Float32Array.from(data));
  return buf;
}

export function uploadU32(rt: GpuRuntime, name: string, data: ArrayLike<number>): GPUBuffer {
  const buf = rt.buffer(name, data.length * 4);
  rt.write(buf, Uint32Array.from(data));
  return buf;
}

/** A storage buffer of n floats filled with NaN. */
export function poisoned(rt: GpuRuntime, name: string, n: number): GPUBuffer {
  return upload(rt, name, new Float32Array(n).fill(POISON));
}

/** Seeded normal random values (fresh per test via the seed argument). */
export function randn(rng: Rng, n: number, scale = 1): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = rng.normal() * scale;
  return a;
}

/** A new seed per call so each run uses fresh random inputs; printed on failure via the message. */
export function freshSeed(): number {
  return (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
}

/**
 * Max relative error |a-b| / max(|b|, floor) over all elements; NaN anywhere → Infinity.
 * The floor keeps near-zero reference values from dominating (absolute error there).
 */
export function maxRelError(actual: ArrayLike<number>, expected: ArrayLike<number>, floor = 1): number {
  if (actual.length < expected.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (!Number.isFinite(a)) return Infinity;
    const err = Math.abs(a - e) / Math.max(Math.abs(e), floor);
    if (err > worst) worst = err;
  }
  return worst;
}

/** Scale for relative error: the RMS of the reference, so errors are relative to the data's magnitude. */
export function rms(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return Math.sqrt(s / Math.max(1, a.length)) || 1;
}

/** Asserts max relative error (vs max(|ref|, 1e-3·rms(ref)... )) below tol, with a useful message. */
export function relErr(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  return maxRelError(actual, expected, rms(expected));
}
