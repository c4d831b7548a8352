import { describe, it, expect } from 'vitest';
import {
  additionKeyCount,
  arithKeyCount,
  countdownKeyCount,
  DISTINCT_CAP,
  DISTINCT_PROBLEMS,
  distinctProblemCount,
  sharedProblemCount,
  usableProblemCount,
} from '../../src/tasks/capacity';
import { buildDataset, FAMILIES, type FamilyName } from '../../src/tasks';
import { Rng } from '../../src/util/rng';

describe('distinct problems per family and difficulty', () => {
  it('the table holds what the enumerators give for the small spaces (the large ones: scripts/count-problems.ts)', () => {
    expect(DISTINCT_PROBLEMS.countdown.slice(0, 2)).toEqual([countdownKeyCount(1), countdownKeyCount(2)]);
    expect(DISTINCT_PROBLEMS.arith.slice(0, 2)).toEqual([arithKeyCount(1), arithKeyCount(2)]);
    // Countdown enumerates fast enough to check difficulty 3 and the cap at 4 too.
    expect(countdownKeyCount(3)).toBe(DISTINCT_PROBLEMS.countdown[2]);
    expect(countdownKeyCount(4)).toBe(Infinity);
    expect(DISTINCT_PROBLEMS.countdown).toHaveLength(FAMILIES.countdown.maxDifficulty);
    expect(DISTINCT_PROBLEMS.arith).toHaveLength(FAMILIES.arith.maxDifficulty);
  });

  it('addition: unordered operand pairs with a d-digit operand', () => {
    expect(additionKeyCount(1)).toBe(55);
    expect(additionKeyCount(2)).toBe(5050 - 55);
    expect(additionKeyCount(3)).toBe(500500 - 5050);
    expect(additionKeyCount(4)).toBe(Infinity); // 49,995,000 ≥ DISTINCT_CAP
    expect(DISTINCT_CAP).toBe(2_000_000);
  });

  // buildDataset keeps one problem per canonical key: it finds exactly this many and fails at one more.
  const exact: [FamilyName, number][] = [
    ['addition', 1],
    ['countdown', 1],
    ['arith', 1],
    ['countdown', 2],
  ];
  it.each(exact)('%s at difficulty %i: buildDataset draws every one of them and no more', (family, difficulty) => {
    const n = distinctProblemCount(family, difficulty);
    const ds = buildDataset({ seed: 3, families: [family], difficulty, trainSize: n - 5, testSize: 5 });
    expect(ds.train.length + ds.test.length).toBe(n);
    expect(() => buildDataset({ seed: 3, families: [family], difficulty, trainSize: n - 4, testSize: 5 })).toThrow(/distinct/);
  });

  it('random draws never produce a key outside the counted space (difficulty 2)', () => {
    const rng = new Rng(7);
    for (const family of ['addition', 'countdown', 'arith', 'sort'] as const) {
      const keys = new Set<string>();
      for (let i = 0; i < 20000; i++) keys.add(FAMILIES[family].canonicalKey(FAMILIES[family].generate(rng, 2)));
      expect(keys.size).toBeLessThanOrEqual(distinctProblemCount(family, 2));
    }
  });

  it('a run may use all of a small space and half of a large one', () => {
    expect(usableProblemCount('addition', 2)).toBe(4995);
    expect(usableProblemCount('countdown', 3)).toBe(365535);
    expect(usableProblemCount('arith', 5)).toBe(Infinity);
  });

  it('addition and arith share the 45 sums of two digits 1–9 at difficulty 1 only', () => {
    const add = new Set<string>();
    const ar = new Set<string>();
    const rng = new Rng(1);
    for (let i = 0; i < 20000; i++) {
      add.add(FAMILIES.addition.canonicalKey(FAMILIES.addition.generate(rng, 1)));
      ar.add(FAMILIES.arith.canonicalKey(FAMILIES.arith.generate(rng, 1)));
    }
    expect([...add].filter((k) => ar.has(k)).length).toBe(sharedProblemCount('addition', 'arith', 1));
    expect(sharedProblemCount('arith', 'addition', 1)).toBe(45);
    expect(sharedProblemCount('addition', 'arith', 2)).toBe(0);
    expect(sharedProblemCount('addition', 'countdown', 1)).toBe(0);
  });
});
