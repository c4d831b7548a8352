import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUDGET_SHARE, COST_SHARE, createRedrawBudget, createStaggerQueue, MAX_REDRAW_MS, nextCost, recordRedraw, redrawInterval, redrawWait, rolloutsDrawn } from '../../src/ui/lib/stagger';

const PUMP = 12;
/** "Idle" = the next macrotask, as in a browser without requestIdleCallback (a nested 0 ms timer fires 1 ms later under fake timers). */
const idle = (cb: () => void) => void setTimeout(cb, 0);

describe('stagger queue (one chart update per task)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs queued updates in order, one per task, PUMP ms apart', async () => {
    const q = createStaggerQueue(PUMP, idle);
    const ran: [string, number][] = [];
    const t0 = Date.now();
    for (const name of ['a', 'b', 'c']) q.enqueue(() => ran.push([name, Date.now() - t0]));
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(ran.map((r) => r[0])).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(PUMP);
    expect(ran.map((r) => r[0])).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(PUMP);
    expect(ran).toEqual([
      ['a', 0],
      ['b', PUMP],
      ['c', 2 * PUMP],
    ]);
  });

  it('whenDrawn answers after two idle moments when nothing is scheduled', async () => {
    const q = createStaggerQueue(PUMP, idle);
    const cb = vi.fn();
    q.whenDrawn(cb);
    await vi.advanceTimersByTimeAsync(0);
    expect(cb).not.toHaveBeenCalled(); // one idle: renders set off by the message may still schedule updates
    await vi.advanceTimersByTimeAsync(1);
    expect(cb).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(cb).toHaveBeenCalledTimes(1); // the max-wait timer does not call it again
  });

  it('whenDrawn waits for every scheduled update, including one scheduled after the request', async () => {
    const q = createStaggerQueue(PUMP, idle);
    const cb = vi.fn();
    q.schedule(); // a chart's update is due
    q.whenDrawn(cb);
    await vi.advanceTimersByTimeAsync(0);
    q.schedule(); // a second chart's effect, after the message's render
    await vi.advanceTimersByTimeAsync(500);
    expect(cb).not.toHaveBeenCalled();
    expect(q.pending).toBe(2);
    q.enqueue(() => q.settled());
    await vi.advanceTimersByTimeAsync(100);
    expect(cb).not.toHaveBeenCalled();
    q.enqueue(() => q.settled());
    await vi.advanceTimersByTimeAsync(0);
    expect(q.pending).toBe(0);
    await vi.advanceTimersByTimeAsync(PUMP - 1);
    expect(cb).not.toHaveBeenCalled(); // the last update's render runs first (one pump interval)
    await vi.advanceTimersByTimeAsync(4);
    expect(cb).toHaveBeenCalledTimes(1);
  });

  it('whenDrawn gives up after maxWaitMs when an update never settles', async () => {
    const q = createStaggerQueue(PUMP, idle);
    const cb = vi.fn();
    q.schedule();
    q.whenDrawn(cb, 3000);
    await vi.advanceTimersByTimeAsync(2999);
    expect(cb).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(cb).toHaveBeenCalledTimes(1);
    q.settled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(cb).toHaveBeenCalledTimes(1);
  });

  it('settled never drives the count below zero', () => {
    const q = createStaggerQueue(PUMP, idle);
    q.settled();
    q.schedule();
    expect(q.pending).toBe(1);
  });
});

describe('redrawWait (a redraw at most every interval, none off screen)', () => {
  it('waits for what is left of the interval since the last draw, on a fake clock', () => {
    expect(redrawWait(1000, 0, 1000, true)).toBe(0);
    expect(redrawWait(1300, 1000, 1000, true)).toBe(700);
    expect(redrawWait(2000, 1000, 1000, true)).toBe(0);
    expect(redrawWait(5000, 1000, 1000, true)).toBe(0);
  });
  it('holds every redraw while off screen, however long since the last', () => {
    expect(redrawWait(1300, 1000, 1000, false)).toBeNull();
    expect(redrawWait(99_000, 0, 1000, false)).toBeNull();
  });
});

describe('redrawInterval (redraws take at most 1/COST_SHARE of the time)', () => {
  it('keeps the minimum for cheap redraws and grows with their cost, up to the ceiling', () => {
    expect(redrawInterval(1000, 0)).toBe(1000);
    expect(redrawInterval(1000, 20)).toBe(1000);
    expect(redrawInterval(1000, 50)).toBe(50 * COST_SHARE);
    expect(redrawInterval(1000, 60)).toBe(60 * COST_SHARE);
    expect(redrawInterval(1000, 500)).toBe(MAX_REDRAW_MS);
  });
  it('smooths the measured cost: the first measure as it is, then half old, half new', () => {
    expect(nextCost(0, 80)).toBe(80);
    expect(nextCost(80, 40)).toBe(60);
    let c = 0;
    for (let i = 0; i < 30; i++) c = nextCost(c, 100);
    expect(c).toBeCloseTo(100, 9);
  });
});

describe('rolloutsDrawn (the rollout viewer holds batches off screen while training)', () => {
  it('draws on screen always, off screen only when no run trains', () => {
    expect(rolloutsDrawn(true, true)).toBe(true);
    expect(rolloutsDrawn(true, false)).toBe(true);
    expect(rolloutsDrawn(false, false)).toBe(true);
    expect(rolloutsDrawn(false, true)).toBe(false);
  });
  it('held off screen: no wait is given (redrawWait null), and a stopped run is drawn after its interval', () => {
    expect(redrawWait(1000, 900, 1000, rolloutsDrawn(false, true))).toBeNull();
    expect(redrawWait(1000, 900, 1000, rolloutsDrawn(false, false))).toBe(900);
  });
});

describe('createRedrawBudget (the charts in view share one redraw budget)', () => {
  it('gives every chart the sum of the costs in view × share, between the minimum and the ceiling', () => {
    const b = createRedrawBudget();
    const [a, c, d] = [{}, {}, {}];
    expect(b.interval(1000)).toBe(1000);
    b.set(a, 20);
    expect(b.interval(1000)).toBe(1000);
    b.set(c, 40);
    b.set(d, 10);
    expect(b.total()).toBe(70);
    expect(b.interval(1000)).toBe(70 * BUDGET_SHARE);
    b.set(a, 30); // a new smoothed cost replaces the old
    expect(b.total()).toBe(80);
    b.set(c, 400);
    expect(b.interval(1000)).toBe(MAX_REDRAW_MS);
  });
  it('a chart off screen or gone leaves the sum', () => {
    const b = createRedrawBudget(10, 9000);
    const [a, c] = [{}, {}];
    b.set(a, 100);
    b.set(c, 200);
    expect(b.interval(500)).toBe(3000);
    b.set(c, null);
    expect(b.interval(500)).toBe(1000);
    b.set(a, null);
    expect(b.total()).toBe(0);
    expect(b.interval(500)).toBe(500);
  });
});

describe('recordRedraw (for bench:ui --profile)', () => {
  it('appends to globalThis.__chartRedraws only when a profiler made it', () => {
    const g = globalThis as { __chartRedraws?: unknown[] };
    delete g.__chartRedraws;
    recordRedraw('chart-entropy', 1, 2);
    expect(g.__chartRedraws).toBeUndefined();
    g.__chartRedraws = [];
    recordRedraw('chart-entropy', 1, 2);
    expect(g.__chartRedraws).toEqual([{ label: 'chart-entropy', start: 1, ms: 2 }]);
    delete g.__chartRedraws;
  });
});
