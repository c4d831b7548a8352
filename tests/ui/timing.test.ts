/** The step-time chart's data (src/ui/lib/timing.ts): each step's phases stacked to the whole step, and its reading. */
import { describe, expect, it } from 'vitest';
import { buildRows, chartSpecs, columnKey, extraMetricKeys } from '../../src/ui/lib/chartdata';
import { explainTiming, phaseStack, TIMING_OTHER_KEY, TIMING_SERIES, timingRun } from '../../src/ui/lib/timing';
import { fakeRun, fakeStep } from './helpers';

const timed = (step: number, over: Record<string, number> = {}) =>
  fakeStep(step, 0, { 'timing_s/gen': 0.6, 'timing_s/reward': 0.05, 'timing_s/old_log_prob': 0, 'timing_s/ref': 0, 'timing_s/adv': 0.05, 'timing_s/update_actor': 0.2, 'timing_s/step': 1, ...over });

describe('step time by phase', () => {
  it('stacks every phase, 0 where a step did not run it, and the rest of the step as other', () => {
    const s = phaseStack(timed(1) as unknown as Record<string, number>)!;
    expect(s['timing_s/testing']).toBe(0);
    expect(s[TIMING_OTHER_KEY]).toBeCloseTo(0.1, 12);
    // The stack's top is the whole step.
    expect(TIMING_SERIES.reduce((a, x) => a + s[x.key], 0)).toBeCloseTo(1, 12);
    // Phases over the step (clock jitter) never make other negative.
    expect(phaseStack(timed(1, { 'timing_s/step': 0.8 }) as unknown as Record<string, number>)![TIMING_OTHER_KEY]).toBe(0);
  });

  it('a record without timings (an older run) has no stack; a verl import\'s step time is its perf/step_s', () => {
    expect(phaseStack(fakeStep(1) as unknown as Record<string, number>)).toBeNull();
    const verl = { step: 1, 'timing_s/gen': 21.4, 'perf/step_s': 30 } as Record<string, number>;
    expect(phaseStack(verl)![TIMING_OTHER_KEY]).toBeCloseTo(8.6, 9);
  });

  it('draws as a stacked chart of the derived run, and timings never call up "More metrics" for a lab run', () => {
    const run = { ...fakeRun('a', 0), steps: [timed(1), timed(2, { 'timing_s/testing': 0.5, 'timing_s/step': 1.5 }), fakeStep(3)] };
    const spec = chartSpecs(run.config).find((c) => c.id === 'timing')!;
    expect(spec.stacked).toBe(true);
    expect(spec.series.map((s) => s.key)).toEqual(TIMING_SERIES.map((s) => s.key));
    const rows = buildRows([timingRun(run)], spec.series, 0);
    expect(rows.map((r) => r[columnKey(0, 'timing_s/testing')])).toEqual([0, 0.5, null]);
    expect(rows.map((r) => r[columnKey(0, 'timing_s/gen')])).toEqual([0.6, 0.6, null]);
    expect(timingRun(run)).toBe(timingRun(run));
    expect(extraMetricKeys([run], chartSpecs(run.config))).toEqual([]);
  });

  it('reads the last steps in one line, biggest share first', () => {
    const run = { ...fakeRun('a', 0), steps: [timed(1), timed(2, { 'timing_s/testing': 1, 'timing_s/step': 2 })] };
    // Means: step 1.5 s; gen 0.6, update 0.2, evaluation 0.5, reward 0.05, advantages 0.05, other 0.1.
    expect(explainTiming(run)).toBe('Over the last 2 steps a step took 1.50 s: generate 40%, evaluation 33%, update 13%, other 7%, reward 3%, advantages 3%.');
    expect(explainTiming({ ...run, steps: [timed(1, { 'timing_s/step': 0.05, 'timing_s/gen': 0.04, 'timing_s/update_actor': 0.01, 'timing_s/reward': 0, 'timing_s/adv': 0 })] })).toBe('At the last step a step took 0.050 s: generate 80%, update 20%.');
    expect(explainTiming(fakeRun('b', 3))).toBeUndefined();
  });
});
