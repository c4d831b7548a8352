import { describe, expect, it } from 'vitest';
import type { SampleRecord, StepRecord } from '../../src/rl/trainer-types';
import { SAMPLE_STEPS_KEPT, StepOutbox } from '../../src/worker/outbox';

const rec = (step: number) => ({ step, time_ms: step }) as unknown as StepRecord;
const sample = (step: number) => ({ step, group: 0 }) as SampleRecord;

describe('StepOutbox (what the Worker has not yet sent the page)', () => {
  it('sends a batch per flush interval and restarts the clock on take', () => {
    let now = 1000;
    const o = new StepOutbox(400, () => now);
    expect(o.due).toBe(true); // never flushed
    o.add(rec(1), []);
    o.add(rec(2), [sample(2)]);
    expect(o.take()).toEqual({ steps: [rec(1), rec(2)], samples: { step: 2, samples: [sample(2)] } });
    expect(o.take()).toEqual({ steps: [], samples: null });
    expect(o.due).toBe(false);
    now += 399;
    expect(o.due).toBe(false);
    now += 1;
    expect(o.due).toBe(true);
  });

  it(`keeps the samples of the last ${SAMPLE_STEPS_KEPT} steps only`, () => {
    const o = new StepOutbox(400, () => 0);
    for (let s = 1; s <= SAMPLE_STEPS_KEPT + 3; s++) o.add(rec(s), [sample(s)]);
    const { samples } = o.take();
    expect(samples?.step).toBe(SAMPLE_STEPS_KEPT + 3);
    expect(samples?.samples.map((x) => x.step)).toEqual(Array.from({ length: SAMPLE_STEPS_KEPT }, (_, i) => i + 4));
  });

  it('a step without samples keeps the samples before it; clear drops everything without restarting the clock', () => {
    let now = 0;
    const o = new StepOutbox(400, () => now);
    o.add(rec(1), [sample(1)]);
    o.add(rec(2), []);
    o.clear();
    expect(o.take()).toEqual({ steps: [], samples: null });
    o.add(rec(3), [sample(3)]);
    o.add(rec(4), []);
    expect(o.take().samples).toEqual({ step: 3, samples: [sample(3)] });
    now = 500;
    o.clear();
    expect(o.due).toBe(true);
  });
});
