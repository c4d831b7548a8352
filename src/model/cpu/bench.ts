/** The CPU engine's matmul benchmark (Backend.matmulGflops): a measurement, not a test. */
import { ProgramBuilder } from '../../cpu/program';
import type { CpuRuntime } from '../../cpu/runtime';
import type { MatmulShape } from '../engine';
import { F32 } from './memory';

/** GFLOP/s of one matmul shape on the CPU engine (median of `repeats`); Bᵀ layouts are prepared outside the timing, as per update. */
export function cpuMatmulGflops(rt: CpuRuntime, shape: MatmulShape, repeats: number): number {
  const { M, N, K, transA, transB } = shape;
  const sizes = [M * K, K * N, K * N, M * N];
  const [a, bRaw, bT, c] = sizes.map((n) => rt.allocF32(n));
  try {
    const fill = (off: number, n: number) => {
      const v = rt.f32(off, n);
      for (let i = 0; i < n; i++) v[i] = Math.sin(i * 0.37) * 0.5;
    };
    fill(a, M * K);
    fill(bRaw, K * N);
    // B as [K × N] row-major: stored [N × K] when transB, so transpose it once first.
    const prep = new ProgramBuilder();
    if (transB) prep.transpose(bRaw, bT, N, K);
    const pp = prep.finish(rt);
    rt.run(pp);
    const bb = transB ? bT : bRaw;
    const prog = new ProgramBuilder();
    if (transA) prog.matmulTN({ a, b: bb, out: c, M, N, K });
    else prog.matmulNN({ a, b: bb, out: c, M, N, K });
    const p = prog.finish(rt);
    rt.run(p);
    const times: number[] = [];
    for (let r = 0; r < Math.max(1, repeats); r++) {
      const t0 = performance.now();
      rt.run(p);
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    const ms = Math.max(times[Math.floor(times.length / 2)], 1e-6);
    rt.release(pp.ptr, pp.count * 64);
    rt.release(p.ptr, p.count * 64);
    return (2 * M * N * K) / (ms * 1e6);
  } finally {
    [a, bRaw, bT, c].forEach((off, i) => rt.release(off, Math.max(1, sizes[i]) * F32));
  }
}
