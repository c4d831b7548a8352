/**
 * The Benchmark view's controller: a button press asks the Worker to run `magic-lab bench`'s
 * measurement on the open engine (`bench`) of the model the page is on; its progress and result go to the store, stamped with
 * the mode and time for the JSON download (lib/bench.ts). One measurement at a time.
 */
import type { FromWorker, ToWorker } from '../../worker/protocol';
import { benchExport, benchModelOf, type BenchMode } from '../lib/bench';
import type { Lab } from './lab-store';

export function benchControl(store: Lab, send: (m: ToWorker) => void, now: () => Date = () => new Date()) {
  const get = () => store.getState();
  let nextId = 1;

  /** Starts a measurement unless one is running or no engine is open (the view says why). */
  function run(mode: BenchMode): void {
    const s = get();
    if (s.bench.status === 'running') return;
    if (s.device.status !== 'ready') return s.setBench({ status: 'error', message: 'no engine is open yet' });
    const requestId = nextId++;
    s.setBench({ status: 'running', requestId, mode, phase: 'starting', done: 0, total: 1 });
    try {
      // The rung the page is on (its draft's model), not the CLI's fixed bench model.
      send({ type: 'bench', requestId, thorough: mode === 'thorough', model: benchModelOf(s.draft, s.preset) });
    } catch (e) {
      s.setBench({ status: 'error', message: (e as Error).message });
    }
  }

  function onMessage(m: Extract<FromWorker, { type: 'bench-progress' | 'bench-result' }>): void {
    const b = get().bench;
    if (b.status !== 'running' || b.requestId !== m.requestId) return;
    if (m.type === 'bench-progress') return get().setBench({ ...b, phase: m.phase, done: m.done, total: m.total });
    get().setBench('error' in m ? { status: 'error', message: m.error } : { status: 'done', result: benchExport(m.result, b.mode, now()) });
  }

  // A restarted Worker or a switched engine (the device goes back to starting) never answers the request.
  store.subscribe((s) => {
    if (s.device.status !== 'ready' && s.bench.status === 'running') s.setBench({ status: 'error', message: 'the engine was restarted' });
  });

  return { run, onMessage };
}
