import { describe, expect, it } from 'vitest';
import { downsampleMinMax } from '../../src/ui/lib/downsample';

const rows = (vals: (number | null)[], key = 'r0|x') => vals.map((v, i) => ({ step: i + 1, [key]: v }));

describe('downsampleMinMax', () => {
  it('returns the input itself when it is within the limit', () => {
    const r = rows([1, 2, 3, 4]);
    expect(downsampleMinMax(r, 4)).toBe(r);
    expect(downsampleMinMax(r, 100)).toBe(r);
  });

  it('keeps at most ~maxPoints rows per series, the first and the last', () => {
    const r = rows(Array.from({ length: 1001 }, (_, i) => Math.sin(i / 7)));
    const d = downsampleMinMax(r, 100);
    expect(d.length).toBeLessThanOrEqual(102);
    expect(d.length).toBeGreaterThan(50);
    expect(d[0]).toBe(r[0]);
    expect(d[d.length - 1]).toBe(r[1000]);
    // In step order, every row one of the input's (values unchanged).
    for (let i = 1; i < d.length; i++) expect(d[i].step).toBeGreaterThan(d[i - 1].step);
    for (const x of d) expect(x).toBe(r[x.step - 1]);
  });

  it('keeps a one-step spike up and one down: the max and min of a bucket survive', () => {
    const v = Array.from({ length: 999 }, () => 0.2);
    v[500] = 0.795;
    v[733] = -3;
    const d = downsampleMinMax(rows(v), 40);
    expect(d.some((x) => x.step === 501 && x['r0|x'] === 0.795)).toBe(true);
    expect(d.some((x) => x.step === 734 && x['r0|x'] === -3)).toBe(true);
    expect(Math.max(...d.map((x) => x['r0|x'] as number))).toBe(0.795);
  });

  it('handles odd lengths and limits: each bucket keeps its own extremes', () => {
    for (const [n, max] of [[7, 3], [13, 5], [101, 2], [100, 99]] as const) {
      const r = rows(Array.from({ length: n }, (_, i) => (i * 37) % 11));
      const d = downsampleMinMax(r, max);
      expect(d[0]).toBe(r[0]);
      expect(d[d.length - 1]).toBe(r[n - 1]);
      expect(Math.max(...d.map((x) => x['r0|x'] as number))).toBe(Math.max(...r.map((x) => x['r0|x'] as number)));
      expect(Math.min(...d.map((x) => x['r0|x'] as number))).toBe(Math.min(...r.map((x) => x['r0|x'] as number)));
    }
  });

  it('keeps every value of a sparse series (held-out dots) and each series its own spikes', () => {
    const r = Array.from({ length: 600 }, (_, i) => ({ step: i, 'r0|a': i === 300 ? 9 : 1, ...(i % 100 === 50 ? { 'r0|val': i / 1000 } : {}) }));
    const d = downsampleMinMax(r, 20);
    expect(d.filter((x) => 'r0|val' in x).map((x) => x.step)).toEqual([50, 150, 250, 350, 450, 550]);
    expect(d.some((x) => x['r0|a'] === 9)).toBe(true);
  });

  it('names a bad limit', () => {
    expect(() => downsampleMinMax(rows([1, 2, 3]), 1)).toThrow(/maxPoints/);
  });
});
