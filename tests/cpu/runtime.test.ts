/**
 * The runtime's thread pool: a trap on any thread fails the run with an error (never a hang), and
 * the allocator reuses freed memory.
 */
import { describe, expect, it } from 'vitest';
import { ProgramBuilder } from '../../src/cpu/program';
import { CpuRuntime } from '../../src/cpu/runtime';

describe('CPU runtime', () => {
  it('a trap on thread 0 fails the run and the runtime, instead of leaving the pool waiting', async () => {
    const rt = await CpuRuntime.create({ threads: 2 });
    const p = new ProgramBuilder();
    p.cmd('BARRIER').barrier();
    const words = p.finish(rt);
    rt.i32(words.ptr, 1)[0] = 99; // no such opcode: every thread traps
    expect(() => rt.run(words)).toThrow(/unreachable/);
    expect(() => rt.run(words)).toThrow(/destroyed \(or failed\)/);
  });

  it('a trap on a pool thread only (out-of-bounds rows of its share) fails the run with an error', async () => {
    const rt = await CpuRuntime.create({ threads: 2 });
    const M = 8;
    const K = 4;
    const N = 4;
    const b = rt.allocF32(K * N);
    const c = rt.allocF32(M * N);
    // A's first half of rows (thread 0's share) is in memory, the second half past its end.
    const a = rt.memory.buffer.byteLength - (M / 2) * K * 4;
    const p = new ProgramBuilder().matmulNN({ a, b, out: c, M, N, K, rowUnit: 1 }).finish(rt);
    expect(() => rt.run(p)).toThrow(/pool thread failed/);
  });

  it('freed blocks are reused and merged, so a policy made and destroyed repeatedly does not grow memory', async () => {
    const rt = await CpuRuntime.create({ threads: 1 });
    try {
      const first = [rt.alloc(1000), rt.alloc(5000), rt.alloc(64)];
      let size = 0;
      for (let k = 0; k < 50; k++) {
        const x = rt.alloc(1_000_000);
        const y = rt.alloc(3_000);
        rt.release(x, 1_000_000);
        rt.release(y, 3_000);
        if (k === 0) size = rt.memory.buffer.byteLength;
      }
      expect(rt.memory.buffer.byteLength).toBe(size);
      rt.release(first[1], 5000);
      expect(rt.alloc(4000)).toBe(first[1]);
      // Fresh allocations are zeroed even when reused.
      rt.f32(first[0], 250).fill(7);
      rt.release(first[0], 1000);
      const again = rt.alloc(1000);
      expect(again).toBe(first[0]);
      expect(Array.from(rt.f32(again, 250)).every((x) => x === 0)).toBe(true);
      // Past the memory's maximum: a clear error, nothing grown.
      const before = rt.memory.buffer.byteLength;
      expect(() => rt.alloc(3 * 2 ** 30)).toThrow(/out of memory \(needs \d+ MiB, limit 2048 MiB\)/);
      expect(rt.memory.buffer.byteLength).toBe(before);
    } finally {
      rt.destroy();
    }
  });
});
