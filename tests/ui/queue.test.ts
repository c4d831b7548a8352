/** The "Run this finding here" queue: planning from a real reference file, and the reducer over the Worker's states. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixedRunSteps, getPreset, presetNames } from '../../src/rl/config';
import {
  nextToStart,
  planQueue,
  queuedRunConfig,
  queueProgress,
  queueReducer,
  runFinished,
  stepLimit,
  type RunQueue,
} from '../../src/ui/lib/queue';
import { validateReferenceFile } from '../../src/ui/lib/reference';

const tiny = validateReferenceFile(JSON.parse(readFileSync('e2e/fixtures/reference/tiny-demo.json', 'utf8')), 'reference/tiny-demo.json');

/** Starts the next item as lab.ts does. */
const startNext = (q: RunQueue, runId: string): RunQueue => {
  const i = nextToStart(q);
  expect(i).not.toBeNull();
  return queueReducer(q, { type: 'started', index: i!, runId });
};

describe('planning', () => {
  it("queues the reference's presets × its seeds, preset by preset, named after the reference", () => {
    const q = planQueue(tiny, presetNames());
    expect(q.items.map((i) => i.name)).toEqual(['tiny-demo · magic-tiny · seed 101', 'tiny-demo · magic-tiny · seed 102', 'tiny-demo · grpo-tiny · seed 101', 'tiny-demo · grpo-tiny · seed 102']);
    expect(q.items.every((i) => i.status === 'pending' && i.runId === null)).toBe(true);
    expect(q.steps).toBe(4);
    expect(q.status).toBe('running');
    expect(nextToStart(q)).toBe(0);
  });
  it("a reference made at another rung queues each preset at that rung, as its runs were (the collapse fixture: small)", () => {
    const small = validateReferenceFile(JSON.parse(readFileSync('e2e/fixtures/collapse/entropy-control-small.json', 'utf8')), 'reference/entropy-control-small.json');
    const q = planQueue(small, presetNames());
    expect(q.items.length).toBeGreaterThan(0);
    for (const item of q.items) {
      expect(queuedRunConfig(item)).toEqual({ ...getPreset(item.preset, 'small'), seed: item.seed });
      expect(queuedRunConfig(item).model.dModel).toBe(128);
    }
    // Tiny references keep queueing the plain preset.
    expect(planQueue(tiny, presetNames()).items.every((i) => i.config === undefined)).toBe(true);
  });
  it('refuses a reference with a preset this page lacks', () => {
    expect(() => planQueue(tiny, ['magic-tiny'])).toThrow('tiny-demo: this page has no preset grpo-tiny');
  });
  it("a queued run is the preset with the reference's seed", () => {
    const cfg = queuedRunConfig({ preset: 'grpo-tiny', seed: 102 });
    expect(cfg).toEqual({ ...getPreset('grpo-tiny'), seed: 102 });
  });
  it('steps: the whole schedule when the reference ran it, else a limit the page stops at', () => {
    const cfg = getPreset('magic-tiny');
    const total = fixedRunSteps(cfg)!;
    expect(total).toBe(4);
    expect(stepLimit({ steps: null }, cfg)).toBeNull();
    expect(stepLimit({ steps: total }, cfg)).toBeNull();
    expect(stepLimit({ steps: 2 }, cfg)).toBe(2);
    expect(fixedRunSteps(getPreset('magic'))).toBe(400);
    expect(runFinished('done', 4, null)).toBe(true);
    expect(runFinished('paused', 4, null)).toBe(false);
    expect(runFinished('paused', 2, 2)).toBe(true);
    expect(runFinished('paused', 1, 2)).toBe(false);
    expect(runFinished('running', 2, 2)).toBe(false);
  });
});

describe('the reducer', () => {
  it('runs one after another: each starts when the previous reaches done', () => {
    let q = planQueue(tiny, presetNames());
    q = startNext(q, 'r1');
    expect(q.items[0]).toMatchObject({ status: 'running', runId: 'r1' });
    expect(nextToStart(q)).toBeNull(); // one at a time
    expect(queueProgress(q)).toEqual({ index: 1, total: 4, done: 0 });
    // States of the running run that are not its end change nothing (the same object back).
    for (const state of ['starting', 'running', 'paused'] as const) expect(queueReducer(q, { type: 'run-state', runId: 'r1', state, step: 2 })).toBe(q);
    // Another run's state is not the queue's business.
    expect(queueReducer(q, { type: 'run-state', runId: 'other', state: 'done', step: 4 })).toBe(q);
    q = queueReducer(q, { type: 'run-state', runId: 'r1', state: 'done', step: 4 });
    expect(q.items[0].status).toBe('done');
    expect(nextToStart(q)).toBe(1);
    for (const [i, id] of ['r2', 'r3', 'r4'].entries()) {
      q = startNext(q, id);
      expect(queueProgress(q).index).toBe(i + 2);
      q = queueReducer(q, { type: 'run-state', runId: id, state: 'done', step: 4 });
    }
    expect(q.status).toBe('done');
    expect(nextToStart(q)).toBeNull();
    expect(queueProgress(q)).toEqual({ index: 4, total: 4, done: 4 });
    // A done state repeated after the end changes nothing.
    expect(queueReducer(q, { type: 'run-state', runId: 'r4', state: 'done', step: 4 })).toBe(q);
  });

  it('a run with a step limit is finished when it stands paused at the limit', () => {
    let q = startNext(planQueue(tiny, presetNames()), 'r1');
    expect(queueReducer(q, { type: 'run-state', runId: 'r1', state: 'paused', step: 1 }, 2)).toBe(q);
    q = queueReducer(q, { type: 'run-state', runId: 'r1', state: 'paused', step: 2 }, 2);
    expect(q.items[0].status).toBe('done');
    expect(nextToStart(q)).toBe(1);
  });

  it('cancel stops the queue: the running run is cancelled, the finished stay, the rest never start', () => {
    let q = startNext(planQueue(tiny, presetNames()), 'r1');
    q = queueReducer(q, { type: 'run-state', runId: 'r1', state: 'done', step: 4 });
    q = startNext(q, 'r2');
    q = queueReducer(q, { type: 'cancel', message: 'cancelled' });
    expect(q.status).toBe('cancelled');
    expect(q.items.map((i) => i.status)).toEqual(['done', 'cancelled', 'pending', 'pending']);
    expect(nextToStart(q)).toBeNull();
    expect(queueProgress(q)).toEqual({ index: 2, total: 4, done: 1 });
    // A late done of the cancelled run does not revive it.
    expect(queueReducer(q, { type: 'run-state', runId: 'r2', state: 'done', step: 4 })).toBe(q);
    expect(queueReducer(q, { type: 'cancel' })).toBe(q);
  });

  it('an error stops the queue with a message naming the run', () => {
    let q = startNext(planQueue(tiny, presetNames()), 'r1');
    q = queueReducer(q, { type: 'run-state', runId: 'r1', state: 'error', step: 0, message: 'out of memory' });
    expect(q.status).toBe('error');
    expect(q.message).toBe('tiny-demo · magic-tiny · seed 101 failed: out of memory; the queue stopped');
    expect(nextToStart(q)).toBeNull();
  });

  it('starting refuses an item that is not pending', () => {
    const q = startNext(planQueue(tiny, presetNames()), 'r1');
    expect(queueReducer(q, { type: 'started', index: 0, runId: 'again' })).toBe(q);
  });
});
