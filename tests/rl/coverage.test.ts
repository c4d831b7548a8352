import { describe, expect, it } from 'vitest';
import { coverageSplit, curveKs, passAtKCurve, rareMaxCorrect, solvabilityClass, unsolvedSolvedShare, type CoverageRow } from '../../src/rl/coverage';
import { Rng } from '../../src/util/rng';

/** pass@k of one problem's actual samples: the share of its k-subsets holding a correct sample, by enumeration. */
function enumeratedPassAtK(samples: readonly boolean[], k: number): number {
  let hit = 0;
  let total = 0;
  const rec = (start: number, left: number, any: boolean) => {
    if (left === 0) {
      total++;
      if (any) hit++;
      return;
    }
    for (let i = start; i <= samples.length - left; i++) rec(i + 1, left - 1, any || samples[i]);
  };
  rec(0, k, false);
  return hit / total;
}

describe('pass@k curve', () => {
  it('k = 1, 2, 4, … below n, then n itself', () => {
    expect(curveKs(1)).toEqual([1]);
    expect(curveKs(8)).toEqual([1, 2, 4, 8]);
    expect(curveKs(12)).toEqual([1, 2, 4, 8, 12]);
    expect(curveKs(256)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256]);
    expect(() => curveKs(0)).toThrow(/n ≥ 1/);
  });

  it('equals exact enumeration over all k-subsets of fresh random samples (n ≤ 13, odd sizes too)', () => {
    const rng = new Rng(0, 0x5eed43);
    for (let trial = 0; trial < 40; trial++) {
      const n = 1 + Math.floor(rng.next() * 13);
      const problems = 1 + Math.floor(rng.next() * 5);
      const p = rng.next();
      const samples = Array.from({ length: problems }, () => Array.from({ length: n }, () => rng.next() < p * rng.next()));
      const rows: CoverageRow[] = samples.map((s) => ({ family: 'sort', difficulty: 1, n, correct: s.filter(Boolean).length }));
      const curve = passAtKCurve(rows);
      expect(Object.keys(curve)).toEqual(curveKs(n).map(String));
      for (const k of curveKs(n)) {
        const exact = samples.reduce((a, s) => a + enumeratedPassAtK(s, k), 0) / problems;
        expect(curve[String(k)]).toBeCloseTo(exact, 12);
      }
    }
  });

  it('rises with k from avg accuracy to the share solved at least once', () => {
    const rows: CoverageRow[] = [
      { family: 'a', difficulty: 1, n: 16, correct: 0 },
      { family: 'a', difficulty: 1, n: 16, correct: 1 },
      { family: 'b', difficulty: 1, n: 16, correct: 8 },
      { family: 'b', difficulty: 1, n: 16, correct: 16 },
    ];
    const c = passAtKCurve(rows);
    expect(c['1']).toBeCloseTo((0 + 1 / 16 + 0.5 + 1) / 4, 14);
    expect(c['16']).toBe(0.75);
    const vals = Object.values(c);
    for (let i = 1; i < vals.length; i++) expect(vals[i]).toBeGreaterThanOrEqual(vals[i - 1]);
  });

  it('refuses an impossible row, naming the counts', () => {
    expect(() => passAtKCurve([{ family: 'a', difficulty: 1, n: 4, correct: 5 }])).toThrow(/n=4 correct=5/);
    expect(passAtKCurve([])).toEqual({});
  });
});

describe('base-solvability classes', () => {
  it('unsolved = 0 of n, rare = 1..max(1, ⌊n/8⌋), often above', () => {
    expect(rareMaxCorrect(256)).toBe(32);
    expect(rareMaxCorrect(16)).toBe(2);
    expect(rareMaxCorrect(4)).toBe(1);
    expect(solvabilityClass(0, 256)).toBe('unsolved');
    expect(solvabilityClass(1, 256)).toBe('rare');
    expect(solvabilityClass(32, 256)).toBe('rare');
    expect(solvabilityClass(33, 256)).toBe('often');
    expect(solvabilityClass(1, 4)).toBe('rare');
    expect(solvabilityClass(2, 4)).toBe('often');
    expect(() => solvabilityClass(3, 2)).toThrow(/correct=3 n=2/);
  });
});

describe('coverage splits', () => {
  const rows: CoverageRow[] = [
    { family: 'multiply', difficulty: 3, n: 8, correct: 0 },
    { family: 'sort', difficulty: 2, n: 8, correct: 8 },
    { family: 'multiply', difficulty: 2, n: 8, correct: 2 },
    { family: 'sort', difficulty: 3, n: 8, correct: 1 },
    { family: 'multiply', difficulty: 3, n: 8, correct: 5 },
  ];

  it('per family and per level: each group is the curve of its own rows, and the groups weight back to the whole', () => {
    const s = coverageSplit(rows);
    expect(Object.keys(s.families)).toEqual(['multiply', 'sort']);
    expect(s.families.multiply).toEqual({ problems: 3, solved: 2 / 3, 'pass@k': passAtKCurve([rows[0], rows[2], rows[4]]) });
    expect(s.families.sort['pass@k']).toEqual(passAtKCurve([rows[1], rows[3]]));
    expect(Object.keys(s.difficulties!)).toEqual(['2', '3']);
    expect(s.difficulties!['3']['pass@k']).toEqual(passAtKCurve([rows[0], rows[3], rows[4]]));
    for (const k of ['1', '2', '4', '8']) {
      const weighted = Object.values(s.families).reduce((a, g) => a + g.problems * g['pass@k'][k], 0) / rows.length;
      expect(weighted).toBeCloseTo(s['pass@k'][k], 14);
    }
    expect(s.classes).toBeUndefined();
  });

  it('one level: no per-level split', () => {
    expect(coverageSplit(rows.map((r) => ({ ...r, difficulty: 2 }))).difficulties).toBeUndefined();
  });

  it('per base class, and the share of base-unsolved problems the policy solves', () => {
    const classes = (['unsolved', 'often', 'rare', 'unsolved', 'often'] as const).slice();
    const s = coverageSplit(rows, classes);
    expect(Object.keys(s.classes!)).toEqual(['unsolved', 'rare', 'often']);
    expect(s.classes!.unsolved).toEqual({ problems: 2, solved: 0.5, 'pass@k': passAtKCurve([rows[0], rows[3]]) });
    expect(s.classes!.rare!.problems).toBe(1);
    expect(unsolvedSolvedShare(rows, classes)).toBe(0.5);
    expect(unsolvedSolvedShare(rows, ['often', 'often', 'rare', 'often', 'often'])).toBeNaN();
    expect(() => coverageSplit(rows, ['often'])).toThrow(/1 classes for 5 rows/);
  });
});
