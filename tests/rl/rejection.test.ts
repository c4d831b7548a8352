import { describe, expect, it } from 'vitest';
import { groupSignals, planRejection } from '../../src/rl/rejection';

const T = true;
const F = false;

describe('groupSignals', () => {
  it('flags mixed-reward groups only', () => {
    expect(groupSignals([1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0], 4, undefined, { normalizeStd: true, truncation: 'none' })).toEqual([T, F, F]);
  });
  it('under Adv-Mask-Before a group whose complete responses agree has no signal', () => {
    const opts = { normalizeStd: true, truncation: 'adv-mask-before' as const };
    expect(groupSignals([0, 0, 1, 1], 4, [1, 1, 0, 0], opts)).toEqual([F]);
    expect(groupSignals([0, 0, 1, 1], 4, [1, 1, 0, 0], { ...opts, truncation: 'none' })).toEqual([T]);
  });
});

describe('planRejection', () => {
  it("'drop' keeps the signal groups and asks for nothing more", () => {
    expect(planRejection({ mode: 'drop', signals: [T, F, T, F], targetGroups: 4, rounds: 1, maxRefillRounds: 3 })).toEqual({
      keep: [0, 2],
      requestPrompts: 0,
      done: true,
      rejected: 2,
    });
  });
  it("'off' keeps every group", () => {
    const p = planRejection({ mode: 'off', signals: [T, F, F, F], targetGroups: 4, rounds: 1, maxRefillRounds: 3 });
    expect(p.keep).toEqual([0, 1, 2, 3]);
    expect(p.done).toBe(true);
  });
  it("'refill' asks for missing/keepRate prompts (≤ one batch) until full, respecting the cap", () => {
    const base = { mode: 'refill' as const, targetGroups: 4, maxRefillRounds: 2 };
    // round 1: 1 of 4 kept, rate 1/4 → 3/(1/4) = 12, capped at one batch = 4
    let p = planRejection({ ...base, signals: [T, F, F, F], rounds: 1 });
    expect(p).toEqual({ keep: [0], requestPrompts: 4, done: false, rejected: 3 });
    // round 2: 3 of 8 kept, rate 3/8 → ceil(1 / 0.375) = 3
    const after2 = [T, F, F, F, T, T, F, F];
    p = planRejection({ ...base, signals: after2, rounds: 2 });
    expect(p).toEqual({ keep: [0, 4, 5], requestPrompts: 3, done: false, rejected: 5 });
    // round 3 finds nothing: the cap (2 refill rounds) is reached → train on the partial batch
    p = planRejection({ ...base, signals: [...after2, F, F, F], rounds: 3 });
    expect(p.keep).toEqual([0, 4, 5]);
    expect(p.requestPrompts).toBe(0);
    expect(p.done).toBe(true);
    // round 3 fills the batch: surplus signal groups beyond D_R are left out
    p = planRejection({ ...base, signals: [...after2, T, F, T], rounds: 3 });
    expect(p.keep).toEqual([0, 4, 5, 8]);
    expect(p.done).toBe(true);
  });
  it("'refill' with nothing kept asks for a full batch; with cap 0 it behaves like 'drop'", () => {
    expect(planRejection({ mode: 'refill', signals: [F, F], targetGroups: 2, rounds: 1, maxRefillRounds: 1 }).requestPrompts).toBe(2);
    expect(planRejection({ mode: 'refill', signals: [F, F], targetGroups: 2, rounds: 1, maxRefillRounds: 0 })).toEqual({
      keep: [],
      requestPrompts: 0,
      done: true,
      rejected: 2,
    });
  });
  it('rejects nonsense inputs', () => {
    expect(() => planRejection({ mode: 'drop', signals: [], targetGroups: 0, rounds: 1, maxRefillRounds: 0 })).toThrow(/targetGroups/);
    expect(() => planRejection({ mode: 'drop', signals: [], targetGroups: 1, rounds: 0, maxRefillRounds: 0 })).toThrow(/rounds/);
  });
});
