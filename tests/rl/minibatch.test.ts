import { describe, expect, it } from 'vitest';
import { planMiniBatches } from '../../src/rl/minibatch';

describe('planMiniBatches', () => {
  it('on-policy default: one step over the whole batch, in order', () => {
    expect(planMiniBatches({ count: 5, miniBatches: 1, reuseEpochs: 1, seed: 3 })).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('each epoch partitions every index exactly once; sizes differ by at most one', () => {
    const plan = planMiniBatches({ count: 10, miniBatches: 3, reuseEpochs: 2, seed: 7 });
    expect(plan.length).toBe(6);
    for (let e = 0; e < 2; e++) {
      const epoch = plan.slice(3 * e, 3 * e + 3);
      expect(epoch.map((b) => b.length)).toEqual([4, 3, 3]);
      expect(epoch.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const b of epoch) expect(b).toEqual([...b].sort((x, y) => x - y));
    }
  });

  it('is a deterministic function of the seed and actually shuffles', () => {
    const a = planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 1, seed: 11 });
    expect(planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 1, seed: 11 })).toEqual(a);
    const plans = [1, 2, 3, 4].map((seed) => JSON.stringify(planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 1, seed })));
    expect(new Set(plans).size).toBeGreaterThan(1);
    expect(plans.some((p) => p !== JSON.stringify([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]))).toBe(true);
  });

  it('keeps groups whole when groupSize is given', () => {
    const plan = planMiniBatches({ count: 16, miniBatches: 2, reuseEpochs: 1, seed: 5, groupSize: 4 });
    expect(plan.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    for (const b of plan) {
      expect(b.length).toBe(8);
      for (const i of b) expect(b).toContain(Math.floor(i / 4) * 4 + 3);
    }
  });

  it('more mini-batches than units: one unit each; empty batch: no steps', () => {
    expect(planMiniBatches({ count: 2, miniBatches: 4, reuseEpochs: 1, seed: 1 }).map((b) => b.length)).toEqual([1, 1]);
    expect(planMiniBatches({ count: 0, miniBatches: 4, reuseEpochs: 1, seed: 1 })).toEqual([]);
    expect(() => planMiniBatches({ count: 5, miniBatches: 1, reuseEpochs: 1, seed: 1, groupSize: 2 })).toThrow(/multiple/);
  });
});
