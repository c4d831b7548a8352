/** The UI's handle on the lab Worker. */
import type { FromWorker, ToWorker } from './protocol';

export class LabClient {
  private worker: Worker;
  constructor(onMessage: (m: FromWorker) => void) {
    this.worker = new Worker(new URL('./lab.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => onMessage(ev.data);
    this.worker.onerror = (ev) => onMessage({ type: 'error', message: ev.message || 'worker failed to start' });
  }
  /** Sends a command; `transfer` moves ArrayBuffers (e.g. a checkpoint) instead of copying them. */
  send(m: ToWorker, transfer: Transferable[] = []): void {
    this.worker.postMessage(m, transfer);
  }
  terminate(): void {
    this.worker.terminate();
  }
}
