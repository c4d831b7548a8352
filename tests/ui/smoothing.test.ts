import { describe, expect, it } from 'vitest';
import { downsample, emaSmooth } from '../../src/ui/lib/smoothing';

describe('emaSmooth', () => {
  it('weight 0 is the identity', () => {
    expect(emaSmooth([1, 2, 3], 0)).toEqual([1, 2, 3]);
  });
  it('is debiased: a constant series stays constant', () => {
    for (const v of emaSmooth([5, 5, 5, 5], 0.9)) expect(v).toBeCloseTo(5, 12);
  });
  it('matches the recurrence s_t = w s_{t-1} + (1-w) x_t divided by 1 - w^n', () => {
    const w = 0.5;
    const out = emaSmooth([0, 4], w);
    expect(out[0]).toBe(0);
    // acc = 0.5*0 + 0.5*4 = 2 (after acc_1 = 0); debias 1 - 0.25 = 0.75
    expect(out[1]).toBeCloseTo(2 / 0.75, 12);
  });
  it('keeps missing values missing and skips them', () => {
    const out = emaSmooth([1, NaN, null, 1, Infinity], 0.8);
    expect(out[1]).toBeNull();
    expect(out[2]).toBeNull();
    expect(out[4]).toBeNull();
    expect(out[3]).toBeCloseTo(1, 12);
  });
  it('rejects weights outside [0, 1)', () => {
    expect(() => emaSmooth([1], 1)).toThrow(/\[0, 1\)/);
    expect(() => emaSmooth([1], -0.1)).toThrow();
  });
});

describe('downsample', () => {
  it('keeps short lists and the endpoints of long ones', () => {
    expect(downsample([1, 2, 3], 5)).toEqual([1, 2, 3]);
    const xs = Array.from({ length: 1000 }, (_, i) => i);
    const d = downsample(xs, 10);
    expect(d).toHaveLength(10);
    expect(d[0]).toBe(0);
    expect(d[9]).toBe(999);
  });
});
