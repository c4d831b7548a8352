/** The controller's side of the run queue: what it sends the Worker and how it moves through the items. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../../src/rl/config';
import { queueRunner, type QueueHost } from '../../../src/ui/controller/queue';
import { validateReferenceFile } from '../../../src/ui/lib/reference';
import { createLabStore } from '../../../src/ui/store';
import type { ToWorker } from '../../../src/worker/protocol';

const ref = (name: string) => validateReferenceFile(JSON.parse(readFileSync(`e2e/fixtures/reference/${name}.json`, 'utf8')), `reference/${name}.json`);

function setup() {
  const store = createLabStore();
  const sent: ToWorker[] = [];
  const started: { setup: { preset: string; config: RunConfig }; name: string; paused: boolean }[] = [];
  let stops = 0;
  const host: QueueHost = {
    send: (m) => sent.push(m),
    stopWorkerRun: () => stops++,
    persistRun: () => undefined,
    startNewRun: (opts) => {
      started.push(opts);
      const id = `run-${started.length}`;
      store.getState().addRun({ id, name: opts.name, preset: opts.setup.preset, createdAt: 0, config: opts.setup.config, steps: [], evals: [] }, { activate: true });
      store.getState().setLiveState({ runId: id, state: 'starting', step: 0, stage: 0 });
      return id;
    },
    loadReference: async (name) => (name === 'missing' ? null : ref(name)),
  };
  const q = queueRunner(store, host);
  store.getState().setDevice({ status: 'ready', engine: { backend: 'wasm', choice: 'auto', description: 'cpu', threads: 1, adapter: null, cpuBound: true } });
  return { store, sent, started, stops: () => stops, q };
}

describe('the queue runner', () => {
  it('needs a ready engine and a loaded reference', async () => {
    const { store, q, started } = setup();
    await q.runFinding('missing');
    expect(store.getState().error).toBe('Reference missing is not loaded.');
    store.getState().setDevice({ status: 'starting' });
    await q.runFinding('tiny-demo');
    expect(store.getState().error).toBe('The engine is not ready yet.');
    expect(started).toEqual([]);
  });

  it('starts each item when the one before is done, and finishes', async () => {
    const { store, q, started, sent } = setup();
    await q.runFinding('tiny-demo');
    expect(started.map((s) => [s.name, s.paused])).toEqual([['tiny-demo · magic-tiny · seed 101', false]]);
    expect(started[0].setup.config.seed).toBe(101);
    q.onQueueEvent({ type: 'run-state', runId: 'run-1', state: 'running', step: 2 });
    expect(started).toHaveLength(1);
    for (let n = 1; n <= 4; n++) q.onQueueEvent({ type: 'run-state', runId: `run-${n}`, state: 'done', step: 4 });
    expect(started.map((s) => s.name)).toEqual(['tiny-demo · magic-tiny · seed 101', 'tiny-demo · magic-tiny · seed 102', 'tiny-demo · grpo-tiny · seed 101', 'tiny-demo · grpo-tiny · seed 102']);
    expect(store.getState().queue?.status).toBe('done');
    expect(store.getState().runs['run-4'].done).toBe(true);
    expect(sent).toEqual([]); // whole schedules: the Worker runs them to the end by itself
  });

  it('a shortened schedule is sent as single steps; the last run stopped at its limit is freed', async () => {
    const { store, q, started, sent } = setup();
    await q.runFinding('tiny-steps2');
    const n = store.getState().queue!.items.length;
    expect(started[0].paused).toBe(true);
    expect(sent).toEqual([{ type: 'step' }, { type: 'step' }]);
    expect(q.queuedLimit('run-1')).toBe(2);
    for (let i = 1; i <= n; i++) q.onQueueEvent({ type: 'run-state', runId: `run-${i}`, state: 'paused', step: 2 });
    expect(store.getState().queue?.status).toBe('done');
    expect(sent.at(-1)).toEqual({ type: 'stop' });
    expect(store.getState().liveRunId).toBeNull();
  });

  it('cancel stops the live queued run (kept in the list); a failed run stops the queue with its message', async () => {
    const { store, q, stops } = setup();
    await q.runFinding('tiny-demo');
    store.getState().setLiveState({ runId: 'run-1', state: 'running', step: 1, stage: 0 });
    q.cancelQueue('reset');
    expect(store.getState().queue).toMatchObject({ status: 'cancelled', message: 'reset' });
    expect(stops()).toBe(1);
    expect(store.getState().runs['run-1']).toBeDefined();
    q.cancelQueue('again'); // no running queue: nothing happens
    expect(stops()).toBe(1);
    await q.runFinding('tiny-demo');
    q.onQueueEvent({ type: 'run-state', runId: 'run-2', state: 'error', step: 1, message: 'boom' });
    expect(store.getState().queue?.status).toBe('error');
    expect(store.getState().error).toMatch(/failed: boom; the queue stopped$/);
  });
});
