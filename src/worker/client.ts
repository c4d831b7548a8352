/** The UI's handle on the lab Worker. */
import type { FromWorker, ToWorker } from './protocol';

export class LabClient {
  private worker: Worker;
  constructor(onMessage: (m: FromWorker) => void) {
    this.worker = new Worker(new URL('./lab.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => onMessage(ev.data);
    this.worker.onerror = (ev) => onMessage({ type: 'error', message: ev.message || 'worker failed to start' });
  }
  send(m: ToWorker): void {
    this.worker.postMessage(m);
  }
  terminate(): void {
    this.worker.terminate();
  }
}
