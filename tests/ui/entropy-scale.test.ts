import { describe, expect, it } from 'vitest';
import { ENTROPY_TOP_FLOOR, entropyScale, entropyTop, interpolate, quantile } from '../../src/ui/lib/colour';

const LN24 = Math.log(24);

describe('entropy colour scale fitted to the shown tokens (issue #28 item 6)', () => {
  it('the top is a nice value ≥ the 99th percentile, so tokens below 0.8 nats are not all pale', () => {
    // 200 tokens: most near-certain, a few forking ones up to 0.74 nats, one outlier at 2.9.
    const hs = [...Array.from({ length: 190 }, (_, i) => (i % 10) * 0.02), 0.5, 0.55, 0.6, 0.62, 0.65, 0.7, 0.71, 0.72, 0.74, 2.9];
    expect(quantile(hs, 0.99)).toBe(0.72);
    expect(entropyTop(24, hs)).toBe(0.8);
    const sc = entropyScale(24, hs);
    expect(sc.ticks.map((t) => t.label)).toEqual(['0', '0.2', '0.4', '0.6', '0.8+']);
    expect(sc.note).toContain('0 … 0.8 nats');
    expect(sc.note).toContain('ln 24 = 3.18 is the uniform distribution');
    // A 0.7-nat token is dark now (t = 0.875), where ln 24 made it t = 0.22.
    expect(sc.colour(0.7)).toEqual(interpolate(sc.bar, 0.7 / 0.8));
    // The outlier and anything past ln V take the darkest colour.
    expect(sc.colour(2.9)).toEqual(sc.bar[sc.bar.length - 1]);
    expect(sc.colour(10)).toEqual(sc.bar[sc.bar.length - 1]);
  });
  it('never above ln V: a high-entropy group gets the full scale and its ln V label', () => {
    expect(entropyTop(24, [3.1, 3.15, 3.17])).toBeCloseTo(LN24, 12);
    expect(entropyTop(24, [50, Infinity])).toBeCloseTo(LN24, 12); // above ln V (bad input): still capped
    const sc = entropyScale(24, [3.1]);
    expect(sc.ticks[sc.ticks.length - 1].label).toBe('3.18 = ln 24');
    expect(sc.note).toContain('uniform distribution over 24 tokens');
    expect(entropyTop(2, [0.9])).toBeCloseTo(Math.log(2), 12); // ln 2 = 0.69 < the nice 1
  });
  it('a floor: a near-certain group (all ~0) is not stretched over hundredths of a nat', () => {
    expect(entropyTop(24, [0, 0, 0])).toBe(ENTROPY_TOP_FLOOR);
    expect(entropyTop(24, [0.001, 0.003])).toBe(ENTROPY_TOP_FLOOR);
    expect(entropyScale(24, [0, 0]).colour(0.003)).toEqual(interpolate(entropyScale(24, [0]).bar, 0.003 / ENTROPY_TOP_FLOOR));
  });
  it('odd inputs: empty and NaN-only shown values fall back to the floor; NaN tokens get no colour', () => {
    expect(entropyTop(24, [])).toBe(ENTROPY_TOP_FLOOR);
    expect(entropyTop(24, [NaN, NaN])).toBe(ENTROPY_TOP_FLOOR);
    expect(entropyTop(24, [NaN, 0.45, NaN])).toBe(0.6);
    expect(entropyTop(24, [2.1]).toString()).toBe('2.4');
    expect(entropyScale(24, [2.1]).ticks.map((t) => t.label)).toEqual(['0', '0.6', '1.2', '1.8', '2.4+']);
    expect(quantile([], 0.99)).toBe(0);
    const sc = entropyScale(24, [NaN]);
    expect(sc.colour(NaN)).toBeNull();
    expect(sc.colour(0)).toEqual(sc.bar[0]);
  });
  it('without shown values the scale is the old one, 0 … ln V', () => {
    const sc = entropyScale(24);
    expect(sc.ticks[sc.ticks.length - 1].label).toBe('3.18 = ln 24');
    expect(sc.colour(LN24 / 2)).toEqual(interpolate(sc.bar, 0.5));
  });
});
