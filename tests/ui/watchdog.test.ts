import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StopWatch } from '../../src/ui/lib/watchdog';

describe('StopWatch: a Worker that does not answer a stop is found stuck after a bounded time', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('fires once when no state for another run arrives in time', () => {
    const stuck = vi.fn();
    const w = new StopWatch(5000, stuck);
    w.arm('run-a');
    // The stopped run's own late batch is no answer.
    w.state('run-a');
    vi.advanceTimersByTime(4999);
    expect(stuck).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(stuck).toHaveBeenCalledTimes(1);
    expect(w.armed).toBe(false);
    vi.advanceTimersByTime(60_000);
    expect(stuck).toHaveBeenCalledTimes(1);
  });

  it("is answered by the Worker's idle state after the stop, or by the next run's state", () => {
    const stuck = vi.fn();
    const w = new StopWatch(5000, stuck);
    w.arm('run-a');
    w.state(null);
    expect(w.armed).toBe(false);
    w.arm('run-a');
    vi.advanceTimersByTime(3000);
    w.state('run-b');
    vi.advanceTimersByTime(10_000);
    expect(stuck).not.toHaveBeenCalled();
  });

  it('keeps the first deadline when armed again, and can be cleared', () => {
    const stuck = vi.fn();
    const w = new StopWatch(5000, stuck);
    w.arm('run-a');
    vi.advanceTimersByTime(4000);
    w.arm('run-a');
    vi.advanceTimersByTime(1000);
    expect(stuck).toHaveBeenCalledTimes(1);
    w.arm(null);
    w.clear();
    vi.advanceTimersByTime(10_000);
    expect(stuck).toHaveBeenCalledTimes(1);
  });
});
