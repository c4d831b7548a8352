import { describe, expect, it } from 'vitest';
import { RunSession } from '../../src/worker/run-session';

const trainer = (step = 3, stage = 1) => ({ step, stage, destroyed: 0, destroy() { this.destroyed++; } });

describe('RunSession (the Worker\'s live run and what waits for the next step boundary)', () => {
  it('starts idle with nothing to step and reports step 0 without a trainer', () => {
    const r = new RunSession();
    expect(r.wantsSteps).toBe(false);
    expect(r.stateMessage()).toEqual({ type: 'state', runId: null, state: 'idle', step: 0, stage: 0, message: undefined });
  });

  it('begin: a run being set up, running unless started paused; the note is the default message', () => {
    const r = new RunSession();
    r.note = 'old';
    r.begin('run-a', false);
    expect(r.stateMessage()).toEqual({ type: 'state', runId: 'run-a', state: 'starting', step: 0, stage: 0, message: undefined });
    expect(r.wantsSteps).toBe(true);
    r.begin('run-b', true);
    expect(r.running).toBe(false);
    r.note = 'resumed';
    r.trainer = trainer();
    expect(r.stateMessage()).toMatchObject({ runId: 'run-b', step: 3, stage: 1, message: 'resumed' });
    expect(r.stateMessage('set-up phase').message).toBe('set-up phase');
  });

  it('single steps count down; a pause drops them', () => {
    const r = new RunSession();
    r.running = true;
    r.stepOnce();
    r.stepOnce();
    expect(r.running).toBe(false);
    expect(r.pendingSteps).toBe(2);
    r.stepped();
    expect(r.wantsSteps).toBe(true);
    r.stepped();
    r.stepped(); // never below zero
    expect(r.pendingSteps).toBe(0);
    expect(r.wantsSteps).toBe(false);
    r.stepOnce();
    r.halt();
    expect(r.wantsSteps).toBe(false);
  });

  it('a stage edit and a checkpoint request are taken once', () => {
    const r = new RunSession();
    r.pendingStages = [];
    r.pendingSave = true;
    expect(r.takeStages()).toEqual([]);
    expect(r.takeStages()).toBeNull();
    expect(r.takeSave()).toBe(true);
    expect(r.takeSave()).toBe(false);
  });

  it('supersede advances the generation and drops every wish; end forgets the run', () => {
    const r = new RunSession();
    r.begin('run-a', false);
    r.stepOnce();
    r.pendingStages = [];
    r.pendingSave = true;
    const gen = r.generation;
    r.supersede();
    expect(r.generation).toBe(gen + 1);
    expect([r.running, r.pendingSteps, r.pendingStages, r.pendingSave]).toEqual([false, 0, null, false]);
    expect(r.runId).toBe('run-a'); // the run id stays until the stop is answered
    r.note = 'x';
    r.end();
    expect([r.runId, r.state, r.note]).toEqual([null, 'idle', undefined]);
  });

  it('dropTrainer frees the trainer once', () => {
    const r = new RunSession<ReturnType<typeof trainer>>();
    const t = trainer();
    r.trainer = t;
    r.dropTrainer();
    r.dropTrainer();
    expect(t.destroyed).toBe(1);
    expect(r.trainer).toBeNull();
  });
});
