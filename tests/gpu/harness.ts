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

/** NaN written into outputs before a run, so an unwritten element fails the comparison. */
export const POISON = NaN;

export { maxRelError, poisoned, relErr, rms, upload, uploadU32 } from '../../src/gpu/check';

/** Seeded normal random values (fresh per test via the seed argument). */
export function randn(rng: Rng, n: number, scale = 1): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = rng.normal() * scale;
  return a;
}

/** A new seed per call so each run uses fresh random inputs; tests print it on failure. */
/** A fresh seed per call; TEST_SEED=<n> replays the seed a failure message printed. */
export function freshSeed(): number {
  if (process.env.TEST_SEED) return Number(process.env.TEST_SEED) >>> 0;
  return (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
}
