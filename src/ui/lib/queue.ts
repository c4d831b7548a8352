/**
 * The run queue of "Run this finding here": a reference's presets × seeds, run in the Worker one
 * after another (it trains one run at a time). Pure: planning, a reducer over what the Worker
 * reports, and which run starts next; src/ui/lab.ts sends the messages.
 *
 * Each queued run is the reference's own: same preset, same seed, same number of steps (the
 * reference's `--steps`, or the preset's whole schedule), from the page's base checkpoint.
 */
import { DEFAULT_RUNG, fixedRunSteps, getPreset, validateRunConfig, type RunConfig } from '../../rl/config';
import type { RunState } from '../../worker/protocol';
import { referenceRung, type ReferenceFile } from './reference';

export type QueuedRunStatus = 'pending' | 'running' | 'done' | 'error' | 'cancelled';

export interface QueuedRun {
  preset: string;
  seed: number;
  /** "<reference> · <preset> · seed S" */
  name: string;
  runId: string | null;
  status: QueuedRunStatus;
  /** The run's whole config when it is not the preset's (a Try-this arm); the seed is its own. */
  config?: RunConfig;
  /** Done from the start: an identical finished run was reused (a shared baseline). */
  reused?: boolean;
}

export interface RunQueue {
  /** The reference (finding or sweep) name. */
  reference: string;
  /** Stop each run after this many steps (the reference's --steps); null = each preset's whole schedule. */
  steps: number | null;
  items: QueuedRun[];
  status: 'running' | 'done' | 'cancelled' | 'error';
  message: string | null;
}

export type QueueEvent =
  /** The run of item `index` was sent to the Worker as `runId`. */
  | { type: 'started'; index: number; runId: string }
  /** The Worker's state message. */
  | { type: 'run-state'; runId: string | null; state: RunState; step: number; message?: string }
  | { type: 'cancel'; message?: string };

export const queuedRunName = (reference: string, preset: string, seed: number) => `${reference} · ${preset} · seed ${seed}`;

/** The queue of a reference: presets in the file's order, each over its own seeds (as a sweep runs them). Throws when a preset is unknown here. */
export function planQueue(ref: ReferenceFile, knownPresets: readonly string[]): RunQueue {
  const missing = Object.keys(ref.presets).filter((p) => !knownPresets.includes(p));
  if (missing.length) throw new Error(`${ref.name}: this page has no preset ${missing.join(', ')}`);
  const items: QueuedRun[] = [];
  // A reference made at another rung (entropy-control-small) queues its presets at that rung, as its runs were.
  const rung = referenceRung(ref);
  const atRung = (preset: string) => (rung === DEFAULT_RUNG ? {} : { config: getPreset(preset, rung) });
  for (const [preset, p] of Object.entries(ref.presets)) for (const seed of p.seeds) items.push({ preset, seed, name: queuedRunName(ref.name, preset, seed), runId: null, status: 'pending', ...atRung(preset) });
  return { reference: ref.name, steps: ref.schedule.steps, items, status: items.length ? 'running' : 'done', message: null };
}

/** The config of a queued run: the preset (or the item's own config) with the item's seed. */
export function queuedRunConfig(item: Pick<QueuedRun, 'preset' | 'seed' | 'config'>): RunConfig {
  return validateRunConfig({ ...(item.config ?? getPreset(item.preset)), seed: item.seed });
}

/**
 * Steps after which the page stops the run itself (pausing the Worker there), or null when the run
 * ends with its schedule: the reference's --steps when shorter than the schedule.
 */
export function stepLimit(q: Pick<RunQueue, 'steps'>, cfg: RunConfig): number | null {
  if (q.steps === null) return null;
  const total = fixedRunSteps(cfg);
  return total !== null && q.steps >= total ? null : q.steps;
}

/** A queued run is finished when its schedule is done, or it stands paused at its step limit. */
export function runFinished(state: RunState, step: number, limit: number | null): boolean {
  return state === 'done' || (limit !== null && state === 'paused' && step >= limit);
}

export const currentIndex = (q: RunQueue): number => q.items.findIndex((i) => i.status === 'running');

/** The item to start now: the first pending one, when the queue runs and none is running. */
export function nextToStart(q: RunQueue | null): number | null {
  if (!q || q.status !== 'running' || currentIndex(q) >= 0) return null;
  const i = q.items.findIndex((x) => x.status === 'pending');
  return i >= 0 ? i : null;
}

const withItem = (q: RunQueue, i: number, patch: Partial<QueuedRun>): RunQueue => ({ ...q, items: q.items.map((x, j) => (j === i ? { ...x, ...patch } : x)) });

/** `limit`: the running item's step limit (see stepLimit); events that change nothing return `q` itself. */
export function queueReducer(q: RunQueue, ev: QueueEvent, limit: number | null = null): RunQueue {
  switch (ev.type) {
    case 'started': {
      if (q.status !== 'running' || q.items[ev.index]?.status !== 'pending') return q;
      return withItem(q, ev.index, { status: 'running', runId: ev.runId });
    }
    case 'run-state': {
      const i = currentIndex(q);
      if (q.status !== 'running' || i < 0 || q.items[i].runId !== ev.runId) return q;
      if (ev.state === 'error') {
        const failed = withItem(q, i, { status: 'error' });
        return { ...failed, status: 'error', message: `${q.items[i].name} failed${ev.message ? `: ${ev.message}` : ''}; the queue stopped` };
      }
      if (!runFinished(ev.state, ev.step, limit)) return q;
      const done = withItem(q, i, { status: 'done' });
      return done.items.some((x) => x.status === 'pending') ? done : { ...done, status: 'done' };
    }
    case 'cancel': {
      if (q.status !== 'running') return q;
      return {
        ...q,
        // The running run is cancelled; the ones never started stay pending (the queue no longer starts them).
        items: q.items.map((x) => (x.status === 'running' ? { ...x, status: 'cancelled' } : x)),
        status: 'cancelled',
        message: ev.message ?? null,
      };
    }
  }
}

/** "run i of n" (i = the running item, or the last finished one). */
export function queueProgress(q: RunQueue): { index: number; total: number; done: number } {
  const running = currentIndex(q);
  const done = q.items.filter((x) => x.status === 'done').length;
  const lastTouched = q.items.reduce((a, x, j) => (x.status !== 'pending' ? j : a), -1);
  return { index: (running >= 0 ? running : Math.max(0, lastTouched)) + 1, total: q.items.length, done };
}
