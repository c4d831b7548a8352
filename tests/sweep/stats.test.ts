/** Sweep statistics against table values and hand computations; the verdict rules' three outcomes. */
import { describe, expect, it } from 'vitest';
import {
  avgAtKProblemSE,
  avgAtKSamplingSE,
  bootstrapMeanInterval,
  combineVerdicts,
  premiseVerdict,
  VERDICTS,
  correlationInterval,
  directionalVerdict,
  equivalenceVerdict,
  incompleteBeta,
  logGamma,
  mean,
  normalCdf,
  normalizedArea,
  normalQuantile,
  pairedDifference,
  pearson,
  quantileSorted,
  sd,
  tCdf,
  tInterval,
  tQuantile,
  variance,
} from '../../src/sweep/stats';

describe('moments', () => {
  it('mean, variance (n − 1), sd', () => {
    expect(mean([1, 2, 3, 4, 5])).toBe(3);
    expect(variance([1, 2, 3, 4, 5])).toBe(2.5);
    expect(sd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.138089935, 9);
    expect(mean([])).toBeNaN();
    expect(variance([1])).toBeNaN();
  });

  it('type-7 quantiles', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0)).toBe(1);
    expect(quantileSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(quantileSorted([10, 20, 30, 40, 50], 0.1)).toBeCloseTo(14, 12);
  });
});

describe('special functions', () => {
  it('log-gamma at integers and halves', () => {
    expect(logGamma(1)).toBeCloseTo(0, 13);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
    expect(logGamma(100)).toBeCloseTo(359.1342053695754, 9);
  });

  it('incomplete beta: symmetric and closed forms', () => {
    expect(incompleteBeta(0.5, 3, 3)).toBeCloseTo(0.5, 13);
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 13);
    expect(incompleteBeta(0.3, 2, 1)).toBeCloseTo(0.09, 13); // x^a for b = 1
    expect(incompleteBeta(0.2, 1, 3)).toBeCloseTo(1 - 0.8 ** 3, 13);
  });

  it('normal CDF and quantile', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 13);
    expect(normalCdf(-5)).toBeCloseTo(2.866515718791939e-7, 18);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 11);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 13);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 8);
    expect(normalQuantile(0)).toBe(-Infinity);
  });
});

describe('Student t', () => {
  // Table values (two-sided 95%: the 0.975 quantile), 3 decimals as printed in textbooks.
  const table: [number, number][] = [
    [1, 12.706],
    [2, 4.303],
    [3, 3.182],
    [4, 2.776],
    [5, 2.571],
    [9, 2.262],
    [10, 2.228],
    [19, 2.093],
    [30, 2.042],
    [120, 1.98],
  ];
  for (const [df, t] of table) {
    it(`t_{0.975, ${df}} = ${t}`, () => expect(tQuantile(0.975, df)).toBeCloseTo(t, 3));
  }

  it('more digits where they are known exactly', () => {
    expect(tQuantile(0.975, 1)).toBeCloseTo(Math.tan(Math.PI * 0.475), 10); // Cauchy
    expect(tQuantile(0.975, 2)).toBeCloseTo(0.95 / Math.sqrt(2 * 0.975 * 0.025), 10); // closed form for df = 2
    expect(tQuantile(0.975, 4)).toBeCloseTo(2.7764451051977987, 9);
    expect(tQuantile(0.995, 9)).toBeCloseTo(3.249835541592, 8);
  });

  it('large df → the normal 1.960; symmetric; median 0', () => {
    expect(tQuantile(0.975, 1e7)).toBeCloseTo(1.96, 3);
    expect(tQuantile(0.975, Infinity)).toBeCloseTo(1.959963984540054, 11);
    expect(tQuantile(0.025, 4)).toBeCloseTo(-2.7764451051977987, 9);
    expect(tQuantile(0.5, 7)).toBe(0);
  });

  it('CDF inverts the quantile', () => {
    for (const df of [1, 3, 4.5, 12, 200]) for (const p of [0.6, 0.9, 0.975, 0.999]) expect(tCdf(tQuantile(p, df), df)).toBeCloseTo(p, 11);
  });

  it('bad arguments give NaN', () => {
    expect(tQuantile(1.2, 4)).toBeNaN();
    expect(tQuantile(0.9, 0)).toBeNaN();
  });
});

describe('intervals', () => {
  it('t interval over 5 seeds: mean ± 2.776 · sd/√5', () => {
    const iv = tInterval([1, 2, 3, 4, 5]);
    expect(iv.n).toBe(5);
    expect(iv.mean).toBe(3);
    const h = 2.7764451051977987 * Math.sqrt(2.5 / 5);
    expect(iv.lower).toBeCloseTo(3 - h, 12);
    expect(iv.upper).toBeCloseTo(3 + h, 12);
  });

  it('one value has no interval; NaN values are left out', () => {
    expect(tInterval([0.3]).lower).toBeNaN();
    expect(tInterval([1, NaN, 3]).n).toBe(2);
  });

  it('paired difference uses only the seeds both arms have', () => {
    const a = new Map([
      [1, 0.5],
      [2, 0.6],
      [3, 0.7],
      [4, 0.9],
    ]);
    const b = new Map([
      [2, 0.5],
      [3, 0.5],
      [4, 0.6],
      [5, 0.1],
    ]);
    const d = pairedDifference(a, b);
    expect(d.seeds).toEqual([2, 3, 4]);
    expect(d.diffs.map((x) => +x.toFixed(12))).toEqual([0.1, 0.2, 0.3]);
    expect(d.mean).toBeCloseTo(0.2, 12);
    expect(d.upper - d.mean).toBeCloseTo(4.302652729911275 * (0.1 / Math.sqrt(3)), 9);
  });

  it('seeded bootstrap: same seed, same interval; inside the data range; narrower than t at n = 5', () => {
    const xs = [0.12, 0.18, 0.15, 0.2, 0.11];
    const a = bootstrapMeanInterval(xs, { seed: 7 });
    const b = bootstrapMeanInterval(xs, { seed: 7 });
    expect(a).toEqual(b);
    expect(a.lower).toBeGreaterThanOrEqual(0.11);
    expect(a.upper).toBeLessThanOrEqual(0.2);
    const t = tInterval(xs);
    expect(a.upper - a.lower).toBeLessThan(t.upper - t.lower);
    expect(bootstrapMeanInterval(xs, { seed: 8 })).not.toEqual(a);
  });
});

describe('correlation', () => {
  it('Pearson r on known data', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 14);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 14);
    expect(pearson([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5])).toBeCloseTo(0.8285714285714286, 14);
  });

  it('Fisher-z interval: tanh(atanh r ± 1.96/√(n−3))', () => {
    const c = correlationInterval([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5]);
    const z = Math.atanh(0.8285714285714286);
    const h = 1.959963984540054 / Math.sqrt(3);
    expect(c.lower).toBeCloseTo(Math.tanh(z - h), 10);
    expect(c.upper).toBeCloseTo(Math.tanh(z + h), 10);
    expect(correlationInterval([1, 2, 3], [1, 2, 3]).lower).toBeNaN(); // n ≤ 3
  });
});

describe('curves and evaluation SE', () => {
  it('normalised area: trapezoid ÷ range', () => {
    expect(normalizedArea([0, 10, 20], [0.2, 0.4, 0.4])).toBeCloseTo((3 + 4) / 20, 14);
    expect(normalizedArea([5], [0.3])).toBe(0.3);
    expect(normalizedArea([0, 10], [NaN, 0.5])).toBe(0.5);
  });

  it('sampling SE bound: ≤ 1.5 points at 256 × 8 for every accuracy (max 1.10 at 50%)', () => {
    expect(avgAtKSamplingSE(0.5, 256, 8)).toBeCloseTo(Math.sqrt(0.25 / 2048), 14);
    for (let p = 0; p <= 1; p += 0.01) expect(avgAtKSamplingSE(p, 256, 8)).toBeLessThanOrEqual(0.015);
    expect(avgAtKSamplingSE(0.5, 64, 8)).toBeGreaterThan(0.015); // the old 64-problem eval is not precise enough
  });

  it('the bound holds for any spread of per-problem accuracies', () => {
    // Exact sampling SE for fixed per-problem accuracies p_i: √(Σ p_i(1−p_i)/k)/n.
    const ps = [0, 0, 0.125, 0.5, 0.875, 1, 1, 0.25];
    const n = ps.length;
    const k = 8;
    const exact = Math.sqrt(ps.reduce((a, p) => a + p * (1 - p), 0) / k) / n;
    expect(exact).toBeLessThanOrEqual(avgAtKSamplingSE(mean(ps), n, k));
  });

  it('over-problems SE from correct counts', () => {
    expect(avgAtKProblemSE([0, 8, 4, 4], 8)).toBeCloseTo(sd([0, 1, 0.5, 0.5]) / 2, 14);
  });
});

describe('verdict rules', () => {
  it('directional: reproduced, contradicted, inconclusive', () => {
    expect(directionalVerdict(1, { lower: 0.01, upper: 0.2 })).toBe('reproduced');
    expect(directionalVerdict(1, { lower: -0.2, upper: -0.01 })).toBe('contradicted');
    expect(directionalVerdict(1, { lower: -0.05, upper: 0.2 })).toBe('inconclusive');
    expect(directionalVerdict(-1, { lower: -0.2, upper: -0.01 })).toBe('reproduced');
    expect(directionalVerdict(-1, { lower: 0.01, upper: 0.2 })).toBe('contradicted');
    expect(directionalVerdict(1, { lower: 0, upper: 0.2 })).toBe('inconclusive'); // must exclude 0
    expect(directionalVerdict(1, { lower: NaN, upper: NaN })).toBe('inconclusive');
  });

  it('equivalence with a margin', () => {
    expect(equivalenceVerdict({ lower: -0.02, upper: 0.025 }, 0.03)).toBe('reproduced');
    expect(equivalenceVerdict({ lower: 0.04, upper: 0.09 }, 0.03)).toBe('contradicted');
    expect(equivalenceVerdict({ lower: -0.09, upper: -0.031 }, 0.03)).toBe('contradicted');
    expect(equivalenceVerdict({ lower: -0.01, upper: 0.05 }, 0.03)).toBe('inconclusive');
  });

  it('combining checks', () => {
    expect(combineVerdicts(['reproduced', 'reproduced'])).toBe('reproduced');
    expect(combineVerdicts(['reproduced', 'inconclusive'])).toBe('inconclusive');
    // Contradicted needs the agreement reproduced needs: every check.
    expect(combineVerdicts(['reproduced', 'contradicted'])).toBe('inconclusive');
    expect(combineVerdicts(['inconclusive', 'contradicted'])).toBe('inconclusive');
    expect(combineVerdicts(['contradicted', 'contradicted'])).toBe('contradicted');
    expect(combineVerdicts([])).toBe('inconclusive');
    expect(combineVerdicts(['reproduced', 'not-testable', 'contradicted'])).toBe('not-testable');
  });

  it('a failed premise makes the verdict not-testable, whatever the checks say', () => {
    expect(premiseVerdict([true, true], 'reproduced')).toBe('reproduced');
    expect(premiseVerdict([], 'contradicted')).toBe('contradicted');
    for (const v of ['reproduced', 'contradicted', 'inconclusive'] as const) expect(premiseVerdict([true, false], v)).toBe('not-testable');
    expect(VERDICTS).toEqual(['reproduced', 'contradicted', 'inconclusive', 'not-testable']);
  });
});
