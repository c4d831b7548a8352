import { describe, expect, it } from 'vitest';
import { CommandQueue } from '../../src/worker/command-queue';
import { EngineTurn } from '../../src/worker/engine-turn';

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

describe('EngineTurn (steps and inspector passes take the engine one at a time)', () => {
  it('runs each call after the one before has settled, even when it failed', async () => {
    const turn = new EngineTurn();
    const log: string[] = [];
    let release!: () => void;
    const first = turn.exclusive(async () => {
      log.push('step start');
      await new Promise<void>((r) => (release = r));
      log.push('step end');
      throw new Error('device lost');
    });
    const second = turn.exclusive(async () => {
      log.push('inspect');
      return 7;
    });
    await tick();
    expect(log).toEqual(['step start']);
    release();
    await expect(first).rejects.toThrow('device lost');
    expect(await second).toBe(7);
    expect(log).toEqual(['step start', 'step end', 'inspect']);
  });
});

describe('CommandQueue (the Worker handles commands in arrival order)', () => {
  it('runs commands one after another; a failure is reported and the next still runs', async () => {
    const errors: unknown[] = [];
    const q = new CommandQueue((e) => errors.push(e));
    const log: number[] = [];
    let release!: () => void;
    q.enqueue(async () => {
      await new Promise<void>((r) => (release = r));
      log.push(1);
    });
    q.enqueue(async () => {
      log.push(2);
      throw new Error('bad command');
    });
    q.enqueue(async () => log.push(3));
    await tick();
    expect(log).toEqual([]);
    release();
    await tick();
    expect(log).toEqual([1, 2, 3]);
    expect(errors).toEqual([new Error('bad command')]);
  });
});
