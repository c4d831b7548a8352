import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DrawGate } from '../../src/worker/drawgate';

describe('DrawGate (the Worker waits for the page to draw a batch)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('does not wait when nothing was requested', async () => {
    expect(await new DrawGate().wait(1000)).toBe('drawn');
  });

  it('waits until the answer with the request id arrives', async () => {
    const g = new DrawGate();
    const id = g.request();
    let outcome: string | null = null;
    void g.wait(2000).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(500);
    expect(outcome).toBeNull();
    g.answer(id + 7); // an answer to another request does not release it
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBeNull();
    expect(g.waiting).toBe(true);
    g.answer(id);
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toBe('drawn');
    expect(g.waiting).toBe(false);
  });

  it('an answer that arrives before the wait starts is not lost', async () => {
    const g = new DrawGate();
    g.answer(g.request());
    expect(await g.wait(2000)).toBe('drawn');
  });

  it('gives up after maxWaitMs (a hidden tab must not stall training)', async () => {
    const g = new DrawGate();
    g.request();
    let outcome: string | null = null;
    void g.wait(2000).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(1999);
    expect(outcome).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe('timeout');
    expect(g.waiting).toBe(false);
  });

  it('ids are fresh per request: a late answer to an old request does not release a new one', async () => {
    const g = new DrawGate();
    const first = g.request();
    const timedOut = g.wait(10);
    await vi.advanceTimersByTimeAsync(10);
    expect(await timedOut).toBe('timeout');
    const second = g.request();
    expect(second).not.toBe(first);
    let outcome: string | null = null;
    void g.wait(1000).then((o) => (outcome = o));
    g.answer(first);
    await vi.advanceTimersByTimeAsync(5);
    expect(outcome).toBeNull();
    g.answer(second);
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toBe('drawn');
  });

  it('cancel releases a waiting step at once (pause, stop)', async () => {
    const g = new DrawGate();
    g.request();
    let outcome: string | null = null;
    void g.wait(5000).then((o) => (outcome = o));
    g.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toBe('drawn');
    expect(g.waiting).toBe(false);
  });
});
