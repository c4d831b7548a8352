import { describe, expect, it } from 'vitest';
import { plateaued, trackStages, type StageRule } from '../../src/rl/stages';

const steps = (n: number): StageRule => ({ steps: n, convergence: null });
const conv = (window: number, minImprovement: number, maxSteps: number): StageRule => ({ steps: null, convergence: { window, minImprovement, maxSteps } });

describe('plateaued', () => {
  it('compares the mean of the last W with the previous W', () => {
    expect(plateaued([0.1, 0.2, 0.5], 2, 0.05)).toBe(false); // fewer than 2W values
    expect(plateaued([0.4, 0.5, 0.52, 0.53], 2, 0.05)).toBe(false); // .525 − .45 = .075
    expect(plateaued([0.5, 0.52, 0.53, 0.54], 2, 0.05)).toBe(true); // .535 − .51 = .025
    expect(plateaued([0.6, 0.5, 0.4, 0.3], 2, 0)).toBe(true); // getting worse counts as no improvement
  });
});

describe('trackStages', () => {
  it('advances on step counts', () => {
    const stages = [steps(2), steps(3)];
    const at = (n: number) => trackStages(stages, Array(n).fill(0.5));
    expect(at(0)).toMatchObject({ stage: 0, stepInStage: 0, advanced: false, done: false });
    expect(at(1)).toMatchObject({ stage: 0, stepInStage: 1, advanced: false, done: false });
    expect(at(2)).toMatchObject({ stage: 1, stepInStage: 0, advanced: true, done: false, stageStarts: [0, 2], endReasons: ['steps'] });
    expect(at(3)).toMatchObject({ stage: 1, stepInStage: 1, advanced: false, done: false });
    expect(at(5)).toMatchObject({ stage: 1, stepInStage: 3, advanced: false, done: true, endReasons: ['steps', 'steps'] });
  });

  it('advances on a train-accuracy plateau', () => {
    const stages = [conv(2, 0.05, 100), steps(1)];
    const h = [0.1, 0.2, 0.4, 0.5, 0.52, 0.53, 0.54];
    expect(trackStages(stages, h.slice(0, 6))).toMatchObject({ stage: 0, stepInStage: 6, advanced: false });
    expect(trackStages(stages, h)).toMatchObject({ stage: 1, stepInStage: 0, advanced: true, stageStarts: [0, 7], endReasons: ['plateau'] });
    expect(trackStages(stages, [...h, 0.9])).toMatchObject({ done: true, globalStep: 8 });
  });

  it('judges a plateau on the current stage only', () => {
    // Over the global history the drop 0.9 → 0.1 would read as "no improvement" at once.
    const stages = [steps(3), conv(2, 0.05, 100)];
    expect(trackStages(stages, [0.9, 0.9, 0.9, 0.1])).toMatchObject({ stage: 1, stepInStage: 1, done: false });
    expect(trackStages(stages, [0.9, 0.9, 0.9, 0.1, 0.2, 0.3, 0.4])).toMatchObject({ stage: 1, stepInStage: 4, done: false });
  });

  it('a convergence stage that keeps improving ends at maxSteps', () => {
    expect(trackStages([conv(2, 0, 4)], [0.1, 0.2, 0.3, 0.4])).toMatchObject({ done: true, endReasons: ['max-steps'] });
  });

  it('rejects an empty schedule', () => {
    expect(() => trackStages([], [])).toThrow(/at least one stage/);
  });
});
