import { describe, expect, it } from 'vitest';
import { planMiniBatches } from '../../src/rl/minibatch';

const sizes = (plan: number[][]) => plan.map((b) => b.length);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('planMiniBatches (how D_T is formed)', () => {
  it('on-policy default: one step over the whole batch, in order', () => {
    expect(planMiniBatches({ count: 5, miniBatches: 1, reuseEpochs: 1, seed: 3 })).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('each epoch partitions every index exactly once; sizes differ by at most one', () => {
    const plan = planMiniBatches({ count: 10, miniBatches: 3, reuseEpochs: 2, seed: 7 });
    expect(plan.length).toBe(6);
    for (let e = 0; e < 2; e++) {
      const epoch = plan.slice(3 * e, 3 * e + 3);
      expect(sizes(epoch)).toEqual([4, 3, 3]);
      expect(sorted(epoch.flat())).toEqual(range(10));
      for (const b of epoch) expect(b).toEqual(sorted(b));
    }
  });

  it('exactly miniBatches · reuseEpochs steps for every kept count from N_SGD up to N_SGD·G (rejection keeping fewer groups)', () => {
    // G = 8, D_R = 16, N_SGD = 4: rejection may keep 1…16 groups, i.e. 8…128 responses.
    const G = 8;
    for (let groups = 1; groups <= 16; groups++) {
      const count = groups * G;
      for (const reuseEpochs of [1, 2]) {
        const plan = planMiniBatches({ count, miniBatches: 4, reuseEpochs, seed: 100 + groups });
        expect(plan.length, `${groups} groups, N_reuse ${reuseEpochs}`).toBe(4 * reuseEpochs);
        for (let e = 0; e < reuseEpochs; e++) {
          const epoch = plan.slice(4 * e, 4 * e + 4);
          expect(sorted(epoch.flat())).toEqual(range(count));
          expect(Math.max(...sizes(epoch)) - Math.min(...sizes(epoch))).toBeLessThanOrEqual(1);
          expect(Math.min(...sizes(epoch))).toBe(Math.floor(count / 4));
        }
      }
    }
    // Counts that are not multiples of N_SGD and smaller than N_SGD·G (G = 4, one or two kept groups, odd leftovers).
    expect(sizes(planMiniBatches({ count: 4, miniBatches: 4, reuseEpochs: 1, seed: 1 }))).toEqual([1, 1, 1, 1]);
    expect(sizes(planMiniBatches({ count: 6, miniBatches: 4, reuseEpochs: 1, seed: 1 }))).toEqual([2, 2, 1, 1]);
    expect(sizes(planMiniBatches({ count: 7, miniBatches: 4, reuseEpochs: 1, seed: 1 }))).toEqual([2, 2, 2, 1]);
    expect(sizes(planMiniBatches({ count: 5, miniBatches: 4, reuseEpochs: 2, seed: 1 }))).toEqual([2, 1, 1, 1, 2, 1, 1, 1]);
  });

  it('splits responses, not groups: a group may span mini-batches', () => {
    const G = 4;
    const plan = planMiniBatches({ count: 2 * G, miniBatches: 4, reuseEpochs: 1, seed: 5 });
    expect(sizes(plan)).toEqual([2, 2, 2, 2]);
    const groupsOf = (b: number[]) => new Set(b.map((i) => Math.floor(i / G)));
    expect(plan.some((b) => groupsOf(b).size > 1)).toBe(true);
  });

  it('is a deterministic function of the seed and actually shuffles', () => {
    const a = planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 1, seed: 11 });
    expect(planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 1, seed: 11 })).toEqual(a);
    const plans = [1, 2, 3, 4].map((seed) => JSON.stringify(planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 1, seed })));
    expect(new Set(plans).size).toBeGreaterThan(1);
    expect(plans.some((p) => p !== JSON.stringify([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]))).toBe(true);
    // Epochs are shuffled independently.
    const two = planMiniBatches({ count: 12, miniBatches: 4, reuseEpochs: 2, seed: 11 });
    expect(JSON.stringify(two.slice(0, 4))).not.toBe(JSON.stringify(two.slice(4)));
  });

  it('empty batch: no steps; fewer responses than mini-batches or bad input: an error', () => {
    expect(planMiniBatches({ count: 0, miniBatches: 4, reuseEpochs: 1, seed: 1 })).toEqual([]);
    expect(() => planMiniBatches({ count: 3, miniBatches: 4, reuseEpochs: 1, seed: 1 })).toThrow(/cannot fill 4 mini-batches/);
    expect(() => planMiniBatches({ count: 4, miniBatches: 0, reuseEpochs: 1, seed: 1 })).toThrow(/miniBatches/);
    expect(() => planMiniBatches({ count: 4, miniBatches: 1, reuseEpochs: 1.5, seed: 1 })).toThrow(/reuseEpochs/);
  });
});
