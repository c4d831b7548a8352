import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getPreset } from '../../../src/rl/config';
import { WorkerLink, type WorkerClient } from '../../../src/ui/controller/worker-link';
import type { Schedule } from '../../../src/ui/lib/frame-batch';
import type { FromWorker, ToWorker } from '../../../src/worker/protocol';

interface FakeWorker extends WorkerClient {
  sent: ToWorker[];
  terminated: boolean;
  report: (m: FromWorker) => void;
}

function setup(stopAnswerMs = 5000, schedule?: Schedule) {
  const workers: FakeWorker[] = [];
  const received: FromWorker[] = [];
  const onStuck = vi.fn();
  const link = new WorkerLink({
    spawn: (report) => {
      const w: FakeWorker = { sent: [], terminated: false, report, send: (m) => w.sent.push(m), terminate: () => (w.terminated = true) };
      workers.push(w);
      return w;
    },
    onMessage: (m) => received.push(m),
    stopAnswerMs,
    onStuck,
    ...(schedule ? { schedule } : {}),
  });
  return { link, workers, received, onStuck };
}

const start = (runId: string): ToWorker => ({ type: 'start', runId, config: getPreset('magic-tiny') });
const state = (runId: string | null, s: 'starting' | 'paused' | 'idle'): FromWorker => ({ type: 'state', runId, state: s, step: 0, stage: 0 });
const init: ToWorker = { type: 'init', backend: 'auto' };

describe('WorkerLink (a Worker that cannot be wedged, #14)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('refuses to send with no Worker open; a reply then is dropped', () => {
    const { link } = setup();
    expect(() => link.send({ type: 'pause' })).toThrow('the lab Worker is not running');
    expect(() => link.reply({ type: 'drawn', id: 1 })).not.toThrow();
  });

  it('a restart resends the unanswered start of the live run and the commands after it (not drawn / token-probs)', () => {
    const { link, workers } = setup();
    link.open({});
    link.send(start('run-a'));
    expect(link.starting).toBe(true);
    link.send({ type: 'step' });
    link.send({ type: 'drawn', id: 3 });
    link.send({ type: 'token-probs', requestId: 1, runId: 'run-a', prompt: '', tokens: [], position: 0, temperatures: [1], k: 1 });
    workers[0].report(state('run-a', 'starting')); // still setting up: not an answer
    expect(link.starting).toBe(true);
    const forget = vi.fn();
    link.restart(init, 'run-a', forget);
    expect(forget).toHaveBeenCalledTimes(1);
    expect(workers[0].terminated).toBe(true);
    expect(workers[1].sent).toEqual([init, start('run-a'), { type: 'step' }]);
    expect(link.starting).toBe(true); // the resent start waits for its answer again
  });

  it('nothing is resent for another live run, after the start was answered, or when it moved a buffer', () => {
    const { link, workers } = setup();
    link.open({});
    link.send(start('run-a'));
    link.restart(init, 'run-b', () => undefined);
    expect(workers[1].sent).toEqual([init]);
    link.send(start('run-a'));
    link.send({ type: 'resume' });
    workers[1].report(state('run-a', 'paused'));
    expect(link.starting).toBe(false);
    link.restart(init, 'run-a', () => undefined);
    expect(workers[2].sent).toEqual([init]);
    const buf = new ArrayBuffer(8);
    link.send({ ...start('run-c'), checkpoint: buf } as ToWorker, [buf]);
    expect(link.starting).toBe(false);
    link.restart(init, 'run-c', () => undefined);
    expect(workers[3].sent).toEqual([init]);
  });

  it("drops the messages of a Worker that was replaced, and passes on the current one's", () => {
    const { link, workers, received } = setup();
    link.open({});
    link.restart(init, null, () => undefined);
    workers[0].report({ type: 'error', message: 'old' });
    workers[1].report({ type: 'error', message: 'new' });
    expect(received).toEqual([{ type: 'error', message: 'new' }]);
    link.reply({ type: 'drawn', id: 2 });
    expect(workers[1].sent).toEqual([init, { type: 'drawn', id: 2 }]);
  });

  it('a stop that gets no answer in time finds the Worker stuck; a state for another run answers it', () => {
    const { link, workers, onStuck } = setup(5000);
    link.open({});
    link.stop('run-a');
    expect(workers[0].sent).toEqual([{ type: 'stop' }]);
    workers[0].report(state('run-a', 'paused')); // the stopped run's own late batch is no answer
    vi.advanceTimersByTime(5000);
    expect(onStuck).toHaveBeenCalledTimes(1);
    link.stop('run-a');
    workers[0].report(state(null, 'idle'));
    vi.advanceTimersByTime(10_000);
    expect(onStuck).toHaveBeenCalledTimes(1);
    link.stop('run-a');
    link.restart(init, null, () => undefined); // a restart ends the wait
    vi.advanceTimersByTime(10_000);
    expect(onStuck).toHaveBeenCalledTimes(1);
  });

  it("a start's close ends its Worker, and the replacement only while it still owns the link (StrictMode)", () => {
    const { link, workers } = setup();
    const first = {};
    const a = link.open(first);
    const second = {};
    link.open(second);
    link.close(first, a);
    expect(workers[0].terminated).toBe(true);
    expect(workers[1].terminated).toBe(false);
    link.send({ type: 'pause' });
    link.restart(init, null, () => undefined);
    link.close(second, workers[1]);
    expect(workers[2].terminated).toBe(true);
    expect(() => link.send({ type: 'pause' })).toThrow('not running');
  });
});

describe('WorkerLink with a schedule (one batch of messages per frame)', () => {
  it('hands messages on in order at the frame; a replaced Worker\'s waiting messages are handled before restart', () => {
    const waiting: (() => void)[] = [];
    const { link, workers, received } = setup(5000, (cb) => void waiting.push(cb));
    link.open({});
    workers[0].report(state('r1', 'starting'));
    workers[0].report(state('r1', 'paused'));
    expect(received).toEqual([]);
    expect(waiting).toHaveLength(1);
    waiting.shift()!();
    // A state ends its batch: each is drawn.
    expect(received.map((m) => m.type === 'state' && m.state)).toEqual(['starting']);
    waiting.shift()!();
    expect(received.map((m) => m.type === 'state' && m.state)).toEqual(['starting', 'paused']);
    // Waiting when the Worker is replaced: handled first, as they arrived before the restart.
    workers[0].report(state('r1', 'idle'));
    link.restart(init, null, () => received.push({ type: 'error', message: 'forgotten' }));
    expect(received.slice(2).map((m) => m.type)).toEqual(['state', 'error']);
    // The old Worker's later messages are dropped, in the frame or not.
    workers[0].report(state('r1', 'paused'));
    workers[1].report(state(null, 'idle'));
    waiting.splice(0).forEach((cb) => cb());
    expect(received).toHaveLength(5);
    expect(received[4]).toEqual(state(null, 'idle'));
  });
});
