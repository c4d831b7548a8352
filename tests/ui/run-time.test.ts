import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { formatDuration, measuredStepSeconds, plannedRunSteps, runsTimeText, sameStepShape, wholeRunText } from '../../src/ui/lib/run-time';

describe('whole-run time', () => {
  it('counts the planned steps; a convergence stage at its most', () => {
    expect(plannedRunSteps(getPreset('magic'))).toEqual({ steps: 400, atMost: false });
    const conv = { stages: [{ ...getPreset('magic').stages[0], steps: 10 }, { ...getPreset('magic').stages[1], steps: null, convergence: { window: 5, minImprovement: 0.01, maxSteps: 50 } }] };
    expect(plannedRunSteps(conv)).toEqual({ steps: 60, atMost: true });
  });

  it('formats durations a person reads at a glance', () => {
    expect(formatDuration(0.2)).toBe('1 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(89)).toBe('89 s');
    expect(formatDuration(400 * 3.7)).toBe('25 min');
    expect(formatDuration(400 * 17)).toBe('1.9 h');
    expect(formatDuration(3600 * 14)).toBe('14 h');
    expect(formatDuration(NaN)).toBe('?');
  });

  it('says the steps and the time of one run or several back to back', () => {
    expect(wholeRunText([getPreset('magic')], 3.7)).toBe('400 steps ≈ 25 min at ~3.7 s/step');
    expect(wholeRunText([getPreset('magic'), getPreset('magic')], 17)).toBe('2 runs, 800 steps in all ≈ 3.8 h at ~17 s/step');
    const conv = { stages: [{ ...getPreset('magic').stages[0], steps: null, convergence: { window: 5, minImprovement: 0.01, maxSteps: 50 } }] };
    expect(wholeRunText([conv], 0.25)).toBe('50 steps ≤ 13 s at ~0.25 s/step');
  });
});

describe("a card's Run both time", () => {
  it("sums each arm's steps at its own rung's figure; none while an arm's rung has no figure", () => {
    const short = { stages: getPreset('magic').stages.map((s) => ({ ...s, steps: 40 })) };
    expect(runsTimeText([{ config: short, secondsPerStep: 1.5 }, { config: getPreset('magic'), secondsPerStep: 4 }])).toBe('2 runs, 480 steps in all ≈ 29 min');
    expect(runsTimeText([{ config: short, secondsPerStep: 1.5 }, { config: short, secondsPerStep: null }])).toBeNull();
    expect(runsTimeText([])).toBeNull();
  });
});

describe('calibration from the measured step', () => {
  const steps = (t: number[]) => t.map((x, i) => ({ step: i + 1, 'timing_s/step': x }));
  it('the median of the timed steps past the first (warm-up), once there are three', () => {
    expect(measuredStepSeconds(steps([30, 4, 3.8]))).toBeNull();
    expect(measuredStepSeconds(steps([30, 4, 3.8, 4.2]))).toEqual({ seconds: 4, steps: 3 });
    // A step held back (a redraw, a checkpoint) does not move it.
    expect(measuredStepSeconds(steps([30, 4, 3.8, 60, 4.2]))).toEqual({ seconds: 4.1, steps: 4 });
    expect(measuredStepSeconds(steps([30, NaN, 0, 4, 4, 4]))!.seconds).toBe(4);
  });
  it("stands for the rung's figure only with the rung's rollouts per step and response limit", () => {
    const small = getPreset('magic', 'small');
    expect(sameStepShape(small, small)).toBe(true);
    expect(sameStepShape({ ...small, rollout: { ...small.rollout, batchPrompts: 2 } }, small)).toBe(false);
    expect(sameStepShape({ ...small, stages: [{ ...small.stages[0], maxResponseLength: 8 }] }, small)).toBe(false);
    expect(sameStepShape({ ...small, stages: [{ ...small.stages[0], groupSize: 2 }] }, small)).toBe(false);
    // Later stages and the step count do not change the first stage's step.
    expect(sameStepShape({ ...small, stages: [{ ...small.stages[0], steps: 5 }] }, small)).toBe(true);
  });
});
