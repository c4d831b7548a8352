/**
 * The roofline's pieces (magic-lab bench --roofline): the peak loop and the triad compute exactly
 * what an f32 recomputation gives and time to finite positive figures, in both builds; the model
 * FLOP count agrees with a hand count and with the engine's own list of train-step products.
 */
import { describe, expect, it } from 'vitest';
import { PEAK_ACCS } from '../../src/cpu/ops';
import { peakGflops, PEAK_ADD, PEAK_M, PEAK_START, runPeak, runTriad, triadGBps } from '../../src/cpu/roofline';
import { CpuRuntime } from '../../src/cpu/runtime';
import { DEFAULT_MODEL_CONFIG, type ModelConfig } from '../../src/model/config';
import { decodeFlops, forwardFlops, trainStepFlops } from '../../src/model/flops';
import { trainMatmulShapes } from '../../src/model/policy';

const fr = Math.fround;

/** Lane j of chain k after `iters` steps of acc = fround(fround(acc·m) + a), as the loop computes it (mul then add, no FMA). */
function expectedChain(k: number, j: number, iters: number): number {
  const m = fr(PEAK_M);
  const a = fr(PEAK_ADD);
  const start = fr(PEAK_START);
  let acc = fr(j * start);
  for (let s = 0; s < k; s++) acc = fr(acc + fr(start * 4));
  for (let i = 0; i < iters; i++) acc = fr(fr(acc * m) + a);
  return acc;
}

describe('roofline kernels', () => {
  for (const build of ['threads', 'single'] as const) {
    it(`the peak loop leaves every thread's chains at their f32 recomputation (${build} build)`, async () => {
      const threads = build === 'threads' ? 2 : 1;
      const rt = await CpuRuntime.create({ threads, build });
      try {
        expect((rt.exports.PEAK_ACCS as WebAssembly.Global).value).toBe(PEAK_ACCS);
        const iters = 37;
        const out = runPeak(rt, iters, threads);
        expect(out.length).toBe(threads * PEAK_ACCS * 4);
        for (let t = 0; t < threads; t++) {
          for (let k = 0; k < PEAK_ACCS; k++) for (let j = 0; j < 4; j++) expect(out[(t * PEAK_ACCS + k) * 4 + j], `thread ${t} chain ${k} lane ${j}`).toBe(expectedChain(k, j, iters));
        }
        const g = peakGflops(rt, threads, 1 << 12, 1);
        expect(Number.isFinite(g) && g > 0, `peak ${g}`).toBe(true);
        expect(() => peakGflops(rt, threads + 1)).toThrow(/active threads must be an integer in \[1, \d\]/);
      } finally {
        rt.destroy();
      }
    });

    it(`the triad writes a[i] = b[i] + s·c[i] over every thread's share and its tail (${build} build)`, async () => {
      const rt = await CpuRuntime.create({ threads: build === 'threads' ? 2 : 1, build });
      try {
        const n = 1003; // four 256-float units and a short one, a 3-float scalar tail
        const b = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7));
        const c = Float32Array.from({ length: n }, (_, i) => Math.cos(i * 1.3));
        const s = 2.5;
        const a = runTriad(rt, b, c, s);
        for (let i = 0; i < n; i++) expect(a[i], `a[${i}]`).toBe(fr(b[i] + fr(s * c[i])));
        const gbps = triadGBps(rt, 1, 1);
        expect(Number.isFinite(gbps) && gbps > 0, `bandwidth ${gbps}`).toBe(true);
        expect(() => triadGBps(rt, 0)).toThrow(/mib must be a positive number/);
      } finally {
        rt.destroy();
      }
    });
  }
});

describe('model FLOP count', () => {
  // C = 4, F = 8, V = 5, one layer of 2 heads (hs = 2), 2 sequences of 3 tokens.
  const cfg: ModelConfig = { ...DEFAULT_MODEL_CONFIG, vocabSize: 5, contextLength: 3, dModel: 4, nHeads: 2, nLayers: 1, mlpRatio: 2 };

  it('matches a hand count on a tiny shape', () => {
    // Per token: qkv 2·4·12 = 96, proj 2·4·4 = 32, fc 2·4·8 = 64, fcproj 2·8·4 = 64 → 256; head 2·4·5 = 40.
    // Attention per sequence and head: 1 + 2 + 3 = 6 pairs × hs 2 = 12 multiply-adds for QKᵀ, 12 for A·V → 48 FLOP.
    const f = forwardFlops(cfg, 2, 3);
    expect(f).toEqual({ linear: 6 * 256, head: 6 * 40, attention: 2 * 2 * 48, total: 1536 + 240 + 192 });
    expect(trainStepFlops(cfg, 2, 3).total).toBe(3 * 1968);
    // Decoding positions 0, 1, 2 of both sequences is the same work as the forward over them.
    expect(decodeFlops(cfg, [2, 2, 2])).toEqual(f);
    expect(decodeFlops(cfg, [2, 2]).attention).toBe(2 * 2 * 2 * (1 + 2) * 2 * 2);
    // A sequence that stops after position 0 costs its one position only: 3 + 2 + 2 slots, keys 3·1 + 2·2 + 2·3.
    const early = decodeFlops(cfg, [3, 2, 2]);
    expect([early.linear, early.head]).toEqual([7 * 256, 7 * 40]);
    expect(early.attention).toBe(decodeFlops(cfg, [1]).attention * (3 * 1 + 2 * 2 + 2 * 3));
  });

  it("the linear layers and head agree with the engine's list of a train step's products", () => {
    const big: ModelConfig = { ...cfg, dModel: 64, nHeads: 4, mlpRatio: 4, vocabSize: 32, contextLength: 64, nLayers: 1 };
    const listed = trainMatmulShapes(big, 4 * 64).reduce((s, x) => s + 2 * x.M * x.N * x.K, 0);
    const t = trainStepFlops(big, 4, 64);
    expect(t.linear + t.head).toBe(listed);
    expect(trainStepFlops({ ...big, nLayers: 3 }, 4, 64).linear).toBe(3 * t.linear);
  });
});
