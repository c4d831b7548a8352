import { describe, expect, it } from 'vitest';
import { computeAdvantages, groupAdvantages, hasSignal } from '../../src/rl/advantage';

const GRPO = { normalizeStd: true, truncation: 'none' as const };
const list = (a: Float64Array) => Array.from(a);

describe('group advantages', () => {
  it('[1,0,0,1] uses the unbiased std (N−1): ±0.5/(√(1/3)+1e-6) ≈ ±0.866', () => {
    const a = groupAdvantages([1, 0, 0, 1], undefined, GRPO);
    const v = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    expect(list(a)).toEqual([v, -v, -v, v]);
    expect(a[0]).toBeCloseTo(0.866025, 5); // the population std would give 1.0
  });

  it('Dr. GRPO (no std) only centres', () => {
    expect(list(groupAdvantages([1, 0, 0, 1], undefined, { normalizeStd: false, truncation: 'none' }))).toEqual([0.5, -0.5, -0.5, 0.5]);
  });

  it('equal rewards give exactly zero, even when the mean is not exact in floating point', () => {
    expect(list(groupAdvantages([0.1, 0.1, 0.1], undefined, GRPO))).toEqual([0, 0, 0]);
    expect(list(groupAdvantages([1, 1, 1, 1], undefined, GRPO))).toEqual([0, 0, 0, 0]);
  });

  // rewards [1,0,0,0], the last response truncated (reward 0)
  const r = [1, 0, 0, 0];
  const t = [false, false, false, true];
  it("truncation 'none': the truncated response keeps its negative advantage", () => {
    // mean .25, unbiased var .75/3 = .25, std .5
    const a = groupAdvantages(r, t, { ...GRPO, eps: 0 });
    expect(list(a)).toEqual([1.5, -0.5, -0.5, -0.5]);
  });
  it('Adv-Mask-After: statistics over all four, then the truncated one gets 0', () => {
    expect(list(groupAdvantages(r, t, { normalizeStd: true, truncation: 'adv-mask-after', eps: 0 }))).toEqual([1.5, -0.5, -0.5, 0]);
  });
  it('Adv-Mask-Before: statistics over the three complete ones only, truncated gets 0', () => {
    // counted [1,0,0]: mean 1/3, ss = 4/9 + 2/9 = 2/3, var = 1/3, std = 1/√3
    const a = groupAdvantages(r, t, { normalizeStd: true, truncation: 'adv-mask-before', eps: 0 });
    const s = Math.sqrt(1 / 3);
    expect(a[0]).toBeCloseTo(2 / 3 / s, 12);
    expect(a[1]).toBeCloseTo(-1 / 3 / s, 12);
    expect(a[2]).toBeCloseTo(-1 / 3 / s, 12);
    expect(a[3]).toBe(0);
  });
  it('Adv-Mask-Before with fewer than two complete responses has no baseline: all zero', () => {
    expect(list(groupAdvantages([1, 0, 0], [false, true, true], { ...GRPO, truncation: 'adv-mask-before' }))).toEqual([0, 0, 0]);
  });
  it('Adv-Mask-Before where the complete responses agree gives zero advantage', () => {
    const a = groupAdvantages([0, 0, 1, 1], [true, true, false, false], { ...GRPO, truncation: 'adv-mask-before' });
    expect(hasSignal(a)).toBe(false);
  });
});

describe('batch advantages', () => {
  it('computes each contiguous group independently', () => {
    const a = computeAdvantages([1, 0, 1, 1, 0, 0], 2, undefined, { normalizeStd: false, truncation: 'none' });
    expect(list(a)).toEqual([0.5, -0.5, 0, 0, 0, 0]);
    expect(hasSignal(a, 0, 2)).toBe(true);
    expect(hasSignal(a, 2, 2)).toBe(false);
  });
  it('rejects a batch that does not split into groups', () => {
    expect(() => computeAdvantages([1, 0, 1], 2, undefined, GRPO)).toThrow(/groups of 2/);
  });
});
