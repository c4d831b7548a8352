/**
 * Staggered rendering: recharts re-renders a chart through its own internal store, which
 * cannot be time-sliced by React, and eight charts updated together make one long main-thread
 * task. useStaggered hands a component a value that follows `value` but changes at most every
 * `minIntervalMs`, and at most one staggered component per task (a shared queue, one update
 * per PUMP_MS), so each chart's update is its own short task.
 */
import { useEffect, useRef, useState } from 'react';

const PUMP_MS = 12;
const queue: (() => void)[] = [];
let pumping = false;

function pump() {
  const f = queue.shift();
  f?.();
  if (queue.length) setTimeout(pump, PUMP_MS);
  else pumping = false;
}

function enqueue(f: () => void) {
  queue.push(f);
  if (!pumping) {
    pumping = true;
    setTimeout(pump, 0);
  }
}

export function useStaggered<T>(value: T, minIntervalMs: number): T {
  const [shown, setShown] = useState(value);
  const latest = useRef(value);
  const queued = useRef(false);
  const lastShown = useRef(0);
  const alive = useRef(true);
  latest.current = value;
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  useEffect(() => {
    if (queued.current || Object.is(value, shown)) return;
    queued.current = true;
    const wait = Math.max(0, lastShown.current + minIntervalMs - performance.now());
    setTimeout(
      () =>
        enqueue(() => {
          queued.current = false;
          if (!alive.current) return;
          lastShown.current = performance.now();
          setShown(() => latest.current);
        }),
      wait,
    );
  }, [value, shown, minIntervalMs]);
  return shown;
}
