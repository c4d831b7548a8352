/**
 * Staggered rendering: recharts re-renders a chart through its own internal store, which
 * cannot be time-sliced by React, and eight charts updated together make one long main-thread
 * task. useStaggered hands a component a value that follows `value` but changes at most every
 * `minIntervalMs`, and at most one staggered component per task (a shared queue, one update
 * per PUMP_MS), so each chart's update is its own short task.
 *
 * `whenDrawn` tells when every staggered update is on screen: the Worker waits for it before
 * its next GPU step when the GPU is emulated on the CPU (see lab.worker.ts), so the page draws
 * while the CPU is free rather than competing with the GPU emulation for it.
 */
import { useEffect, useRef, useState } from 'react';

const PUMP_MS = 12;

export interface StaggerQueue {
  /** Runs `f` in its own task, after the updates queued before it, PUMP_MS apart. */
  enqueue(f: () => void): void;
  /** An update is due (queued, its interval over) from `schedule()` until `settled()`. */
  schedule(): void;
  settled(): void;
  /** Updates due and not yet drawn. */
  readonly pending: number;
  /**
   * Calls `cb` once no update is due and the page has had an idle moment (so renders set off by
   * the updates are done), or after `maxWaitMs` whatever happens. An update still inside its
   * redraw interval does not count: with fast steps (tiny presets) waiting for it would hold
   * every step back to the interval; with slow ones (seconds) no chart is inside it.
   */
  whenDrawn(cb: () => void, maxWaitMs?: number): void;
}

/** An idle moment: requestIdleCallback where the browser has it, else the next macrotask. */
type IdleFn = (cb: () => void) => void;
const browserIdle: IdleFn = (cb) => {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => cb(), { timeout: 250 });
  else setTimeout(cb, 0);
};

export function createStaggerQueue(pumpMs = PUMP_MS, idle: IdleFn = browserIdle): StaggerQueue {
  const queue: (() => void)[] = [];
  let pumping = false;
  let pending = 0;
  let waiters: (() => void)[] = [];

  // Waiters resume one pump interval after the last update: its render runs first.
  const release = () => {
    if (pending > 0 || pumping || !waiters.length) return;
    const w = waiters;
    waiters = [];
    setTimeout(() => w.forEach((f) => f()), pumpMs);
  };

  const pump = () => {
    const f = queue.shift();
    f?.();
    if (queue.length) setTimeout(pump, pumpMs);
    else {
      pumping = false;
      release();
    }
  };

  // Idle twice in a row with nothing scheduled: the first idle lets React finish the renders a
  // message started (they schedule new staggered updates from their effects), the second
  // confirms no update was scheduled meanwhile.
  const check = (cb: () => void, calm: boolean, isDone: () => boolean) => {
    if (isDone()) return;
    if (pending > 0 || pumping) {
      waiters.push(() => idle(() => check(cb, false, isDone)));
      return;
    }
    if (calm) cb();
    else idle(() => check(cb, true, isDone));
  };

  return {
    enqueue(f) {
      queue.push(f);
      if (!pumping) {
        pumping = true;
        setTimeout(pump, 0);
      }
    },
    schedule() {
      pending++;
    },
    settled() {
      pending = Math.max(0, pending - 1);
      release();
    },
    get pending() {
      return pending;
    },
    whenDrawn(cb, maxWaitMs = 3000) {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        cb();
      };
      const timer = setTimeout(finish, maxWaitMs);
      idle(() => check(finish, false, () => done));
    },
  };
}

/** The page's one queue: every chart draws through it. */
export const staggerQueue = createStaggerQueue();

/**
 * How long (ms) until a changed value may be drawn: what is left of the redraw interval since the
 * last draw, or null while the component is off screen (nobody sees the redraw; it is held, and
 * drawn as soon as the component is back in view, if its interval is over).
 */
export function redrawWait(now: number, lastShown: number, minIntervalMs: number, visible: boolean): number | null {
  if (!visible) return null;
  return Math.max(0, lastShown + minIntervalMs - now);
}

/**
 * Whether the rollout viewer draws new batches: on screen, or whenever no run is training (a run
 * that stopped shows its last step at once, wherever the viewer is); off screen while training
 * runs it holds them (nobody sees them, and a group's cards cost more to render than a chart).
 */
export function rolloutsDrawn(onScreen: boolean, training: boolean): boolean {
  return onScreen || !training;
}

/**
 * `value`, updated at most every `minIntervalMs`, one staggered component per task; while
 * `visible` is false (off screen) updates are held, not drawn.
 */
export function useStaggered<T>(value: T, minIntervalMs: number, q: StaggerQueue = staggerQueue, visible = true): T {
  const [shown, setShown] = useState(value);
  const onScreen = useRef(visible);
  onScreen.current = visible;
  const latest = useRef(value);
  /** An update is waiting for its interval or in the queue. */
  const queued = useRef(false);
  /** It is in the queue (counted by q.pending; an update still inside its interval is not). */
  const due = useRef(false);
  const lastShown = useRef(0);
  const alive = useRef(true);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  latest.current = value;
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      clearTimeout(timer.current);
      queued.current = false;
      if (due.current) {
        due.current = false;
        q.settled();
      }
    };
  }, [q]);
  useEffect(() => {
    if (queued.current || Object.is(value, shown)) return;
    const wait = redrawWait(performance.now(), lastShown.current, minIntervalMs, visible);
    if (wait === null) return;
    queued.current = true;
    timer.current = setTimeout(() => {
      if (!alive.current || !queued.current) return;
      // Scrolled out of view while waiting: held until it is back (this effect runs again then).
      if (!onScreen.current) {
        queued.current = false;
        return;
      }
      due.current = true;
      q.schedule();
      q.enqueue(() => {
        if (!due.current) return;
        queued.current = false;
        due.current = false;
        lastShown.current = performance.now();
        setShown(() => latest.current);
        q.settled();
      });
    }, wait);
  }, [value, shown, minIntervalMs, q, visible]);
  return shown;
}

/**
 * A redraw's budget: a chart whose redraws cost `costMs` (smoothed) redraws at most every
 * costMs × COST_SHARE, never more often than `minMs` nor less often than MAX_REDRAW_MS. On the built
 * page a redraw costs 15–50 ms and the interval stays ~1 s; on the dev server (React's development
 * build, every render twice under StrictMode) one costs several times more, and the charts drawing
 * every second took more of the two cores than the training did.
 */
export const COST_SHARE = 40;
export const MAX_REDRAW_MS = 4000;
export function redrawInterval(minMs: number, costMs: number): number {
  return Math.min(MAX_REDRAW_MS, Math.max(minMs, costMs * COST_SHARE));
}
/** The smoothed cost after one more measured redraw (half the old, half the new). */
export function nextCost(prev: number, measuredMs: number): number {
  return prev === 0 ? measuredMs : (prev + measuredMs) / 2;
}

/**
 * The charts' shared redraw budget: the charts on screen together spend at most 1/share of the main
 * thread's time on their redraws. Each chart's interval is the sum of their smoothed costs × share
 * (between minMs and maxMs), so with N charts in view each redraws N times less often than alone,
 * and charts off screen (they do not draw) leave the sum.
 */
export const BUDGET_SHARE = 20;
export interface RedrawBudget {
  /** A component's smoothed redraw cost (ms), or null: off screen or gone, not in the sum. */
  set(id: object, costMs: number | null): void;
  /** The sum of the costs in it. */
  total(): number;
  interval(minMs: number): number;
}
export function createRedrawBudget(share = BUDGET_SHARE, maxMs = MAX_REDRAW_MS): RedrawBudget {
  const costs = new Map<object, number>();
  const total = () => {
    let t = 0;
    for (const c of costs.values()) t += c;
    return t;
  };
  return {
    set(id, costMs) {
      if (costMs === null) costs.delete(id);
      else costs.set(id, costMs);
    },
    total,
    interval: (minMs) => Math.min(maxMs, Math.max(minMs, total() * share)),
  };
}
/** The one budget every MetricChart draws under. */
export const chartBudget = createRedrawBudget();

/**
 * The interval for a component whose drawn value is `drawn`: times each redraw from the render
 * that starts it to the end of the task that runs its passive effects (recharts' store updates).
 * With a `budget`, the component's cost joins it while `visible`, and the interval is the longer of
 * its own and the budget's.
 */
export function useRedrawInterval(drawn: unknown, minMs: number, label = '', budget?: RedrawBudget, visible = true): number {
  const id = useRef({}).current;
  const shown = useRef(visible);
  shown.current = visible;
  useEffect(() => {
    if (!budget) return;
    budget.set(id, visible && cost.current > 0 ? cost.current : null);
    return () => budget.set(id, null);
  }, [budget, visible, id]);
  const cost = useRef(0);
  const started = useRef<number | null>(null);
  const last = useRef(drawn);
  if (!Object.is(last.current, drawn) && started.current === null) started.current = performance.now();
  // Timed to the end of the task after the passive effects: recharts registers its parts and
  // updates its store in passive effects, and re-renders every part from there; ending at the
  // layout effect (as before) saw ~0.5 s of the charts' ~9 s of main-thread time in 30 s (BENCHMARKS.md).
  useEffect(() => {
    last.current = drawn;
    const t0 = started.current;
    if (t0 === null) return;
    const end = setTimeout(() => {
      const ms = performance.now() - t0;
      cost.current = nextCost(cost.current, ms);
      started.current = null;
      if (shown.current) budget?.set(id, cost.current);
      recordRedraw(label, t0, ms);
    }, 0);
    return () => clearTimeout(end);
  }, [drawn]);
  const own = redrawInterval(minMs, cost.current);
  return budget ? Math.max(own, budget.interval(minMs)) : own;
}

/** One measured redraw: who, when it started (performance.now()), how long to the end of its task. */
export interface RedrawRecord {
  label: string;
  start: number;
  ms: number;
}
/**
 * Appends a redraw to `globalThis.__chartRedraws` when a profiler made that array (scripts/bench-ui.mjs
 * does, to attribute main-thread time and long tasks to charts); otherwise nothing is kept.
 */
export function recordRedraw(label: string, start: number, ms: number): void {
  const sink = (globalThis as { __chartRedraws?: RedrawRecord[] }).__chartRedraws;
  if (Array.isArray(sink)) sink.push({ label, start, ms });
}
