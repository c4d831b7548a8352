/**
 * Shared harness of the CPU-engine tests: one runtime per file (2 threads, so every command's
 * work split is exercised), inputs written into its memory, outputs poisoned with NaN before a
 * run, and the float64 twins' comparison helpers.
 */
import { afterAll } from 'vitest';
import { ProgramBuilder } from '../../src/cpu/program';
import { CpuRuntime, type CpuRuntimeOptions } from '../../src/cpu/runtime';
import { Rng } from '../../src/util/rng';

export { maxRelError, relErr, rms } from '../../src/gpu/check';

let runtime: Promise<CpuRuntime> | null = null;

export function cpu(opts: CpuRuntimeOptions = { threads: 2 }): Promise<CpuRuntime> {
  if (!runtime) {
    runtime = CpuRuntime.create(opts);
    afterAll(async () => {
      (await runtime!).destroy();
      runtime = null;
    });
  }
  return runtime;
}

export class Mem {
  constructor(readonly rt: CpuRuntime) {}
  f32(data: ArrayLike<number>): number {
    const off = this.rt.allocF32(data.length);
    this.rt.f32(off, data.length).set(Float32Array.from(data));
    return off;
  }
  u32(data: ArrayLike<number>): number {
    const off = this.rt.allocF32(data.length);
    this.rt.u32(off, data.length).set(Uint32Array.from(data));
    return off;
  }
  /** n floats of NaN: an element a kernel forgets to write fails the comparison. */
  poison(n: number): number {
    const off = this.rt.allocF32(n);
    this.rt.f32(off, n).fill(NaN);
    return off;
  }
  read(off: number, n: number): Float32Array {
    return this.rt.f32(off, n).slice();
  }
  readU32(off: number, n: number): Uint32Array {
    return this.rt.u32(off, n).slice();
  }
  run(record: (b: ProgramBuilder) => void): void {
    const b = new ProgramBuilder();
    record(b);
    const p = b.finish(this.rt);
    this.rt.run(p);
    this.rt.release(p.ptr, p.count * 64);
  }
}

export function randn(rng: Rng, n: number, scale = 1): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = rng.normal() * scale;
  return a;
}

/** f32-rounded copy as float64 (the exact inputs the kernels see). */
export const f32 = (a: ArrayLike<number>) => Float64Array.from(Float32Array.from(a));

/** A fresh seed per call; TEST_SEED=<n> replays the seed a failure message printed. */
export function freshSeed(): number {
  if (process.env.TEST_SEED) return Number(process.env.TEST_SEED) >>> 0;
  return (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
}
