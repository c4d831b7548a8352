import { describe, expect, it } from 'vitest';
import { CONSTANT_LR, lrFactor, type LrScheduleConfig } from '../../src/rl/lr-schedule';

/** verl's lr_lambda (verl/utils/torch_functional.py, num_cycles 0.5), written out independently. */
function verlLambda(mode: 'constant' | 'cosine', W: number, T: number, minRatio: number, current: number): number {
  if (current < W) return current / Math.max(1, W);
  if (mode === 'constant') return 1;
  const progress = (current - W) / Math.max(1, T - W);
  const x = Math.cos(Math.PI * 0.5 * 2 * progress);
  return Math.max(minRatio, x * (1 - minRatio) * 0.5 + (1 + minRatio) * 0.5);
}

describe('lrFactor', () => {
  it('constant without warmup is 1 at every step, with or without a run length', () => {
    for (const step of [1, 2, 99, 10_000]) {
      expect(lrFactor(CONSTANT_LR, step, 200)).toBe(1);
      expect(lrFactor(CONSTANT_LR, step, null)).toBe(1);
    }
  });

  it('warms up linearly from η/W at the first step to η at step W', () => {
    const cfg: LrScheduleConfig = { mode: 'constant', warmupSteps: 10, minRatio: 0 };
    expect(lrFactor(cfg, 1, null)).toBeCloseTo(0.1, 15);
    expect(lrFactor(cfg, 5, null)).toBeCloseTo(0.5, 15);
    expect(lrFactor(cfg, 10, null)).toBe(1);
    expect(lrFactor(cfg, 11, null)).toBe(1);
  });

  it('cosine runs from η after the warmup to minRatio·η at the last step, falling monotonically', () => {
    const cfg: LrScheduleConfig = { mode: 'cosine', warmupSteps: 0, minRatio: 0.1 };
    const f = Array.from({ length: 200 }, (_, i) => lrFactor(cfg, i + 1, 200));
    expect(f[0]).toBeLessThan(1);
    expect(f[0]).toBeGreaterThan(0.999);
    expect(f[99]).toBeCloseTo(0.55, 12); // halfway: (1 + minRatio) / 2
    expect(f[199]).toBeCloseTo(0.1, 15);
    for (let i = 1; i < f.length; i++) expect(f[i]).toBeLessThan(f[i - 1]);
    // past the end (a run extended after the fact) it stays at the floor
    expect(lrFactor(cfg, 250, 200)).toBeCloseTo(0.1, 15);
  });

  it("is verl's schedule one step later, for random warmups, lengths and floors", () => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let trial = 0; trial < 50; trial++) {
      const T = 2 + Math.floor(rand() * 301);
      const W = Math.floor(rand() * T);
      const minRatio = rand();
      const mode = rand() < 0.5 ? 'constant' : 'cosine';
      for (let step = 1; step <= T; step++) {
        expect(lrFactor({ mode, warmupSteps: W, minRatio }, step, T)).toBeCloseTo(verlLambda(mode, W, T, minRatio, step), 12);
      }
    }
  });

  it('refuses a step below 1 and a cosine without a run length', () => {
    expect(() => lrFactor(CONSTANT_LR, 0, 10)).toThrow(/step must be an integer ≥ 1, got 0/);
    expect(() => lrFactor({ mode: 'cosine', warmupSteps: 0, minRatio: 0 }, 3, null)).toThrow(/needs the run length/);
  });
});
