import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/rl/config';
import { ResumePoint } from '../../src/worker/resume-point';

const config = {} as RunConfig;

describe('ResumePoint (what a lost device resumes the run from)', () => {
  it('counts losses until a checkpoint written after the last recovery shows progress', () => {
    const p = new ResumePoint();
    p.began({ config, fresh: true });
    expect(p.countLoss()).toBe(1);
    expect(p.resumed(0, true)).toBeNull(); // no checkpoint: resumed from the start
    expect(p.countLoss()).toBe(2);
    p.saved(4, new Uint8Array([1]));
    expect(p.resumed(4, true)).toBe(4);
    expect(p.countLoss()).toBe(3); // resumed at 4, no checkpoint since
    p.saved(8, new Uint8Array([2]));
    expect(p.countLoss()).toBe(1); // a checkpoint after the recovery: progress
  });

  it('a new run starts counting afresh', () => {
    const p = new ResumePoint();
    p.began({ config, fresh: true });
    p.countLoss();
    p.resumed(0, true);
    p.countLoss();
    p.began({ config, fresh: false });
    expect([p.losses, p.resumedAt, p.startEvalPosted]).toEqual([0, -1, false]);
    expect(p.countLoss()).toBe(1);
  });

  it('the start evaluation is due once, at step 0 of a fresh run, and not again after it was sent', () => {
    const p = new ResumePoint();
    p.startEvalPending = true;
    expect(p.takeStartEval(1)).toBe(false);
    expect(p.takeStartEval(0)).toBe(true);
    expect(p.takeStartEval(0)).toBe(false);
    p.resumed(0, true);
    expect(p.startEvalPending).toBe(true); // lost before it was sent: evaluated again
    p.startEvalPosted = true;
    p.resumed(0, true);
    expect(p.startEvalPending).toBe(false);
    p.startEvalPosted = false;
    p.resumed(0, false); // a resumed checkpoint has no start evaluation
    expect(p.startEvalPending).toBe(false);
    p.resumed(3, true);
    expect(p.startEvalPending).toBe(false);
  });

  it('says which checkpoint the page keeps; forget drops what to resume from but not the step', () => {
    const p = new ResumePoint();
    expect(p.keptLine()).toBe('no checkpoint was saved before it: start the run again');
    expect(p.lastGoodLine()).toBe('no checkpoint was saved before it');
    p.began({ config, checkpoint: new Uint8Array([9]), fresh: true });
    p.saved(6, new Uint8Array([1]));
    expect(p.keptLine()).toMatch(/^its checkpoint at step 6 is kept in this browser/);
    expect(p.lastGoodLine()).toBe("the last good checkpoint is this run's checkpoint at step 6");
    p.forget();
    expect([p.start, p.checkpoint, p.checkpointStep]).toEqual([null, null, 6]);
  });
});
