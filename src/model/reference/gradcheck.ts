/**
 * Small helpers for checking gradients by central finite differences, and for filling test
 * tensors. Used by the reference tests; also handy for GPU kernel tests.
 */

import { Rng } from '../../util/rng';

/**
 * Central difference (f(x+h) − f(x−h)) / 2h of the scalar f with respect to x[i].
 * f must read x afresh on each call; x[i] is restored afterwards.
 */
export function numericalGrad(f: () => number, x: Float64Array, i: number, h = 1e-5): number {
  const orig = x[i];
  x[i] = orig + h;
  const fPlus = f();
  x[i] = orig - h;
  const fMinus = f();
  x[i] = orig;
  return (fPlus - fMinus) / (2 * h);
}

/**
 * |a − n| / max(|a|, |n|, floor). The floor keeps near-zero gradients (where finite-difference
 * rounding noise dominates) from reading as huge relative errors.
 */
export function relError(analytic: number, numeric: number, floor = 1e-4): number {
  return Math.abs(analytic - numeric) / Math.max(Math.abs(analytic), Math.abs(numeric), floor);
}

/**
 * Largest relError over the given indices between `analytic[i]` and the finite difference
 * of f with respect to x[i]. Returns the worst error and where it happened.
 */
export function checkGrad(
  f: () => number,
  x: Float64Array,
  analytic: Float64Array,
  indices?: Iterable<number>,
  h = 1e-5,
): { maxErr: number; worst: number; analytic: number; numeric: number } {
  let maxErr = 0;
  let worst = -1;
  let worstA = 0;
  let worstN = 0;
  const idx = indices ?? Array.from({ length: x.length }, (_, i) => i);
  for (const i of idx) {
    const n = numericalGrad(f, x, i, h);
    const err = relError(analytic[i], n);
    if (worst < 0 || err > maxErr) {
      maxErr = err;
      worst = i;
      worstA = analytic[i];
      worstN = n;
    }
  }
  return { maxErr, worst, analytic: worstA, numeric: worstN };
}

/** n values from N(mean, std²), deterministic in the Rng. */
export function randn(rng: Rng, n: number, std = 1, mean = 0): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = mean + std * rng.normal();
  return out;
}

/** Σ a_i·b_i: turns a vector output into a scalar loss with a random projection. */
export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
