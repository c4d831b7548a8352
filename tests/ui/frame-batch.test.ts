import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FrameBatch, frameSchedule } from '../../src/ui/lib/frame-batch';

/** A schedule driven by hand: `frame()` runs what waits for the next frame. */
function manualFrames() {
  let waiting: (() => void)[] = [];
  return {
    schedule: (cb: () => void) => void waiting.push(cb),
    frame: () => {
      const now = waiting;
      waiting = [];
      now.forEach((cb) => cb());
    },
    get waiting() {
      return waiting.length;
    },
  };
}

describe('FrameBatch (the Worker messages of one frame, handled together)', () => {
  it('delivers nothing until its frame, then everything in arrival order, scheduling one frame per batch', () => {
    const frames = manualFrames();
    const got: string[] = [];
    const b = new FrameBatch<string>((x) => got.push(x), frames.schedule);
    b.push('metrics');
    b.push('samples');
    b.push('state');
    expect(got).toEqual([]);
    expect(frames.waiting).toBe(1);
    expect(b.pending).toBe(3);
    frames.frame();
    expect(got).toEqual(['metrics', 'samples', 'state']);
    expect(b.pending).toBe(0);
    b.push('metrics');
    expect(frames.waiting).toBe(1);
    frames.frame();
    expect(got).toEqual(['metrics', 'samples', 'state', 'metrics']);
  });

  it('an item that ends its batch leaves the rest for the next frame (every run state is drawn)', () => {
    const frames = manualFrames();
    const got: string[] = [];
    const b = new FrameBatch<string>((x) => got.push(x), frames.schedule, undefined, (x) => x.startsWith('state'));
    for (const m of ['metrics', 'state 4 running', 'state 4 done', 'state 0 starting', 'sync']) b.push(m);
    frames.frame();
    expect(got).toEqual(['metrics', 'state 4 running']);
    frames.frame();
    expect(got.slice(2)).toEqual(['state 4 done']);
    frames.frame();
    expect(got.slice(3)).toEqual(['state 0 starting']);
    frames.frame();
    expect(got.slice(4)).toEqual(['sync']);
    expect(frames.waiting).toBe(0);
    // flush() (before a restart) delivers everything, states or not.
    for (const m of ['state 1', 'state 2', 'metrics']) b.push(m);
    b.flush();
    expect(got.slice(5)).toEqual(['state 1', 'state 2', 'metrics']);
  });

  it('flush() delivers what waits at once; the frame then finds nothing', () => {
    const frames = manualFrames();
    const got: number[] = [];
    const b = new FrameBatch<number>((x) => got.push(x), frames.schedule);
    b.push(1);
    b.push(2);
    b.flush();
    expect(got).toEqual([1, 2]);
    frames.frame();
    expect(got).toEqual([1, 2]);
    b.push(3);
    expect(frames.waiting).toBe(1);
  });

  it('delivers at once while `now` says so (a hidden page), but never ahead of what already waits', () => {
    const frames = manualFrames();
    const got: string[] = [];
    let hidden = false;
    const b = new FrameBatch<string>((x) => got.push(x), frames.schedule, () => hidden);
    b.push('a');
    hidden = true;
    b.push('b');
    expect(got).toEqual([]);
    frames.frame();
    b.push('c');
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('a handler that throws loses no later message; the error is still reported', async () => {
    const frames = manualFrames();
    const got: string[] = [];
    const b = new FrameBatch<string>((x) => {
      if (x === 'bad') throw new Error('handler failed');
      got.push(x);
    }, frames.schedule);
    const errors: unknown[] = [];
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((cb) => {
      try {
        cb();
      } catch (e) {
        errors.push(e);
      }
    });
    b.push('a');
    b.push('bad');
    b.push('c');
    frames.frame();
    spy.mockRestore();
    expect(got).toEqual(['a', 'c']);
    expect(errors).toEqual([new Error('handler failed')]);
  });
});

describe('frameSchedule', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('runs once, on the next animation frame', () => {
    let frame: (() => void) | null = null;
    vi.stubGlobal('requestAnimationFrame', (cb: () => void) => ((frame = cb), 1));
    const cb = vi.fn();
    frameSchedule(cb);
    expect(cb).not.toHaveBeenCalled();
    frame!();
    expect(cb).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(200);
    expect(cb).toHaveBeenCalledTimes(1);
  });

  it('runs after 100 ms where no frame comes (a background tab)', () => {
    vi.stubGlobal('requestAnimationFrame', () => 1);
    const cb = vi.fn();
    frameSchedule(cb);
    vi.advanceTimersByTime(99);
    expect(cb).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(cb).toHaveBeenCalledTimes(1);
  });
});
