/**
 * The CPU engine's roofline ceilings, measured with the kernels of src/cpu/assembly/roofline.ts on
 * the engine's own runtime and thread pool (a measurement, not a test):
 *   - peak: GFLOP/s of register-resident f32x4 mul + add chains (2 FLOP per lane per pair), on
 *     1 thread and on `threads` threads at once (each runs the whole loop);
 *   - bandwidth: GB/s of a STREAM triad over three arrays far larger than cache (12 bytes moved per
 *     element: two reads and a write; the write's cache-line fill is not counted, as STREAM does).
 * Each is the best of `repeats` runs: a ceiling, so the fastest run is the estimate.
 */
import { PEAK_ACCS } from './ops';
import { ProgramBuilder } from './program';
import type { CpuRuntime, Program } from './runtime';

/** The peak loop's constants: acc = acc·m + a converges (|m| < 1), so no lane overflows however long it runs. */
export const PEAK_M = 0.999;
export const PEAK_ADD = 0.001;
export const PEAK_START = 0.01;
/** FLOP of one step of the peak loop on one thread: chains × 4 lanes × 2 (mul + add). */
export const PEAK_FLOP_PER_ITER = PEAK_ACCS * 4 * 2;

function timed(rt: CpuRuntime, p: Program, repeats: number): number {
  rt.run(p); // warm-up
  let best = Infinity;
  for (let r = 0; r < Math.max(1, repeats); r++) {
    const t0 = performance.now();
    rt.run(p);
    best = Math.min(best, performance.now() - t0);
  }
  return Math.max(best, 1e-6) / 1000;
}

/** Runs the peak loop once on `active` threads; returns every thread's final chains (active × PEAK_ACCS × 4 floats). */
export function runPeak(rt: CpuRuntime, iters: number, active: number): Float32Array {
  checkActive(rt, active);
  const floats = active * PEAK_ACCS * 4;
  const out = rt.allocF32(floats);
  try {
    const p = new ProgramBuilder().peak({ out, iters, active, m: PEAK_M, add: PEAK_ADD, start: PEAK_START }).finish(rt);
    rt.run(p);
    rt.release(p.ptr, p.count * 64);
    return rt.f32(out, floats).slice();
  } finally {
    rt.release(out, floats * 4);
  }
}

/** GFLOP/s of the peak loop on `active` threads of the runtime's pool (all of them together). */
export function peakGflops(rt: CpuRuntime, active: number, iters = 1 << 21, repeats = 5): number {
  checkActive(rt, active);
  if (!Number.isInteger(iters) || iters < 1) throw new Error(`peak: iters must be a positive integer, got ${iters}`);
  const bytes = active * PEAK_ACCS * 16;
  const out = rt.alloc(bytes);
  const p = new ProgramBuilder().peak({ out, iters, active, m: PEAK_M, add: PEAK_ADD, start: PEAK_START }).finish(rt);
  try {
    const s = timed(rt, p, repeats);
    return (active * iters * PEAK_FLOP_PER_ITER) / s / 1e9;
  } finally {
    rt.release(p.ptr, p.count * 64);
    rt.release(out, bytes);
  }
}

/** Runs a[i] = b[i] + s·c[i] once over n elements on every thread; returns a. */
export function runTriad(rt: CpuRuntime, b: Float32Array, c: Float32Array, s: number): Float32Array {
  if (b.length !== c.length) throw new Error(`triad: b has ${b.length} elements, c has ${c.length}`);
  const n = b.length;
  const [pa, pb, pc] = [0, 1, 2].map(() => rt.allocF32(n));
  try {
    rt.f32(pb, n).set(b);
    rt.f32(pc, n).set(c);
    const p = new ProgramBuilder().triad({ a: pa, b: pb, c: pc, s, n }).finish(rt);
    rt.run(p);
    rt.release(p.ptr, p.count * 64);
    return rt.f32(pa, n).slice();
  } finally {
    for (const off of [pa, pb, pc]) rt.release(off, Math.max(1, n) * 4);
  }
}

/** GB/s (10⁹ bytes) of the triad over three arrays of `mib` MiB each, on every thread of the pool. */
export function triadGBps(rt: CpuRuntime, mib = 256, repeats = 5): number {
  if (!(mib > 0) || !Number.isFinite(mib)) throw new Error(`triad: mib must be a positive number, got ${mib}`);
  const n = Math.floor((mib * 2 ** 20) / 4 / 64) * 64;
  const [pa, pb, pc] = [0, 1, 2].map(() => rt.allocF32(n));
  rt.f32(pb, n).fill(1);
  rt.f32(pc, n).fill(2);
  const p = new ProgramBuilder().triad({ a: pa, b: pb, c: pc, s: 3, n }).finish(rt);
  try {
    const s = timed(rt, p, repeats);
    return (12 * n) / s / 1e9;
  } finally {
    rt.release(p.ptr, p.count * 64);
    for (const off of [pa, pb, pc]) rt.release(off, n * 4);
  }
}

function checkActive(rt: CpuRuntime, active: number): void {
  if (!Number.isInteger(active) || active < 1 || active > rt.threads) throw new Error(`peak: active threads must be an integer in [1, ${rt.threads}], got ${active}`);
}
