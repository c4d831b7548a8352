import { describe, expect, it } from 'vitest';
import { COLLAPSE_STEPS, collapseEntropy, collapseStreak } from '../../src/rl/collapse';
import { scaleSftSchedule, rungSftDefaults, validateSftConfig } from '../../src/rl/sft';

describe('policy collapse (src/rl/collapse.ts)', () => {
  it('counts steps with entropy under 5% of ln V and reward 0; any other step resets the streak', () => {
    const V = 24;
    const low = collapseEntropy(V) * 0.9;
    let s = 0;
    for (let i = 0; i < COLLAPSE_STEPS; i++) s = collapseStreak(s, low, 0, V);
    expect(s).toBe(COLLAPSE_STEPS);
    expect(collapseStreak(s, low, 0.01, V)).toBe(0); // a reward: it still learns
    expect(collapseStreak(s, collapseEntropy(V) * 1.01, 0, V)).toBe(0); // exploring
    expect(collapseStreak(s, Math.log(V), 0, V)).toBe(0); // a random init has not collapsed
    expect(collapseStreak(s, NaN, 0, V)).toBe(0); // a non-finite entropy is a divergence, not this
    expect(collapseEntropy(24)).toBeCloseTo(0.05 * Math.log(24), 15);
  });
});

describe('scaleSftSchedule', () => {
  it('keeps the decay at its fraction of the run, and every scaled config validates', () => {
    expect(scaleSftSchedule({ steps: 5000, lrDecayStart: 3500, lrDecayEnd: 4500 }, 3)).toEqual({ lrDecayStart: 2, lrDecayEnd: 3 });
    expect(scaleSftSchedule({ steps: 5000, lrDecayStart: 3500, lrDecayEnd: 4500 }, 10000)).toEqual({ lrDecayStart: 7000, lrDecayEnd: 9000 });
    expect(scaleSftSchedule({ steps: 100, lrDecayStart: 0, lrDecayEnd: 0 }, 3)).toEqual({ lrDecayStart: 0, lrDecayEnd: 0 });
    for (const rung of ['tiny', 'small', 'medium'] as const) {
      const d = rungSftDefaults(rung);
      for (const steps of [1, 2, 3, 7, 50, d.steps, 2 * d.steps + 1]) {
        expect(() => validateSftConfig({ steps, ...scaleSftSchedule(d, steps) }, d), `${rung} ${steps}`).not.toThrow();
      }
    }
  });
});
