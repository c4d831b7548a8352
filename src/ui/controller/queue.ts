/** The run queue of "Run this finding here": a reference's presets × seeds in the Worker, one after another. */
import { presetNames, type RunConfig } from '../../rl/config';
import type { ToWorker } from '../../worker/protocol';
import { currentIndex, nextToStart, planQueue, queuedRunConfig, queueReducer, stepLimit, type QueueEvent, type RunQueue } from '../lib/queue';
import type { ReferenceFile } from '../lib/reference';
import { isLive } from '../store';
import type { Lab } from './lab-store';

/** What the queue drives: the controller's run actions. */
export interface QueueHost {
  send(m: ToWorker): void;
  stopWorkerRun(): void;
  persistRun(runId: string, now?: boolean): void;
  /** Starts a run of `setup` (null: not started; the reason is on the page). */
  startNewRun(opts: { setup: { preset: string; config: RunConfig }; name: string; paused: boolean }): string | null;
  loadReference(name: string): Promise<ReferenceFile | null>;
}

export function queueRunner(store: Lab, host: QueueHost) {
  const get = () => store.getState();

  /** Step limit of the live run when it is the queue's running item with a shortened schedule. */
  function queuedLimit(runId: string): number | null {
    const s = get();
    const q = s.queue;
    const i = q ? currentIndex(q) : -1;
    if (!q || i < 0 || q.items[i].runId !== runId || !s.runs[runId]) return null;
    return stepLimit(q, s.runs[runId].config);
  }

  /** Exactly n more steps, then the Worker pauses (it runs queued `step` commands one by one). */
  function sendSteps(n: number) {
    for (let i = 0; i < n; i++) host.send({ type: 'step' });
  }

  function onQueueEvent(ev: QueueEvent) {
    const s = get();
    const q = s.queue;
    if (!q || q.status !== 'running') return;
    const i = currentIndex(q);
    const runId = i >= 0 ? q.items[i].runId : null;
    const limit = runId ? queuedLimit(runId) : null;
    const next = queueReducer(q, ev, limit);
    if (next === q) return;
    s.setQueue(next);
    if (runId && next.items[i].status === 'done') {
      if (!s.runs[runId]?.done) s.patchRun(runId, { done: true });
      host.persistRun(runId, true);
      // A run stopped at its step limit stands paused in the Worker: free it when no run follows
      // (a next run's start replaces it anyway), so Play cannot carry it past the reference's steps.
      if (limit !== null && next.status !== 'running') {
        host.send({ type: 'stop' });
        s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
      }
    }
    if (next.status === 'error' && next.message) s.setError(next.message);
    startNextQueued();
  }

  function startNextQueued() {
    const q = get().queue;
    const i = nextToStart(q);
    if (!q || i === null) return;
    const item = q.items[i];
    let config: RunConfig;
    try {
      config = queuedRunConfig(item);
    } catch (e) {
      get().setQueue({ ...queueReducer(q, { type: 'cancel' }), status: 'error', message: `${item.name}: ${(e as Error).message}` });
      return;
    }
    const limit = stepLimit(q, config);
    const id = host.startNewRun({ setup: { preset: item.preset, config }, name: item.name, paused: limit !== null });
    if (!id) return;
    get().setQueue(queueReducer(q, { type: 'started', index: i, runId: id }));
    if (limit !== null) sendSteps(limit);
  }

  /** Queues the presets × seeds of the reference `name` (its own seeds and steps; the page's base checkpoint) and starts the first. */
  async function runFinding(name: string): Promise<void> {
    const s = get();
    if (s.device.status !== 'ready') return s.setError('The engine is not ready yet.');
    const ref = await host.loadReference(name);
    if (!ref) return get().setError(`Reference ${name} is not loaded.`);
    let q;
    try {
      q = planQueue(ref, presetNames());
    } catch (e) {
      return get().setError((e as Error).message);
    }
    cancelQueue('another queue was started');
    const now = get();
    if (now.liveRunId && isLive(now.runState)) host.stopWorkerRun(); // the live run stays in the list
    now.setQueue(q);
    startNextQueued();
  }

  /** Replaces any running queue with `q` (planned elsewhere: a Try-this card's arms) and starts its first pending run. */
  function startQueue(q: RunQueue): void {
    cancelQueue('another queue was started');
    const now = get();
    if (q.status === 'running' && now.liveRunId && isLive(now.runState)) host.stopWorkerRun(); // the live run stays in the list
    now.setQueue(q);
    startNextQueued();
  }

  /** Cancels the queue (if one runs) and stops its live run, which stays in the run list. */
  function cancelQueue(why = 'cancelled'): void {
    const s = get();
    const q = s.queue;
    if (!q || q.status !== 'running') return;
    const i = currentIndex(q);
    const runId = i >= 0 ? q.items[i].runId : null;
    s.setQueue(queueReducer(q, { type: 'cancel', message: why }));
    if (runId && s.liveRunId === runId && isLive(s.runState)) {
      host.stopWorkerRun();
      s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
    }
  }

  return { queuedLimit, sendSteps, onQueueEvent, runFinding, startQueue, cancelQueue };
}
