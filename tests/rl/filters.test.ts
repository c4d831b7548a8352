import { describe, expect, it } from 'vitest';
import { createSolveCounts, offlineFilter, onlineFilterDrops, recordSolves, removeIds } from '../../src/rl/filters';

describe('online filter', () => {
  it('drops prompts solved in every rollout of the stage, keeps unsampled and partially solved ones', () => {
    const c = createSolveCounts(5);
    recordSolves(c, [0, 0, 1, 1, 2, 2], [1, 1, 1, 0, 0, 0]);
    recordSolves(c, [0, 0, 3, 3], [true, true, true, true]);
    expect(Array.from(c.attempts)).toEqual([4, 2, 2, 2, 0]);
    expect(Array.from(c.solves)).toEqual([4, 1, 0, 2, 0]);
    const drop = onlineFilterDrops(c);
    expect(drop).toEqual([0, 3]);
    expect(removeIds([4, 3, 2, 1, 0], drop)).toEqual([4, 2, 1]);
  });
  it('one failure anywhere in the stage keeps the prompt', () => {
    const c = createSolveCounts(1);
    recordSolves(c, [0, 0], [1, 1]);
    recordSolves(c, [0], [0]);
    expect(onlineFilterDrops(c)).toEqual([]);
  });
  it('rejects bad ids and mismatched lengths', () => {
    expect(() => recordSolves(createSolveCounts(2), [2], [1])).toThrow(/out of range/);
    expect(() => recordSolves(createSolveCounts(2), [0, 1], [1])).toThrow(/length/);
  });
});

describe('offline filter', () => {
  it('drops 0/N and N/N prompts and reports what remains', () => {
    const r = offlineFilter([0, 3, 8, 5, 8, 1], 8);
    expect(r.keep).toEqual([1, 3, 5]);
    expect([r.droppedUnsolved, r.droppedSolved, r.total]).toEqual([1, 2, 6]);
    expect(r.summary).toBe('offline filter (N=8): kept 3/6 prompts; dropped 1 solved 0/8, 2 solved 8/8');
  });
  it('rejects counts outside [0, N]', () => {
    expect(() => offlineFilter([9], 8)).toThrow(/correctCounts\[0\]/);
    expect(() => offlineFilter([1], 0)).toThrow(/samples/);
  });
});
