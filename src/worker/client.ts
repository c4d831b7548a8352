/** The UI's handle on the lab Worker. */
import type { FromWorker, ToWorker } from './protocol';

/** `url` resolved against the page's base (absolute URLs pass unchanged). */
export const pageUrl = (url: string, base: string = document.baseURI): string => new URL(url, base).href;

export class LabClient {
  private worker: Worker;
  constructor(onMessage: (m: FromWorker) => void) {
    this.worker = new Worker(new URL('./lab.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => onMessage(ev.data);
    this.worker.onerror = (ev) => onMessage({ type: 'error', message: ev.message || 'worker failed to start' });
  }
  /** Sends a command; `transfer` moves ArrayBuffers (e.g. a checkpoint) instead of copying them. */
  send(m: ToWorker, transfer: Transferable[] = []): void {
    // The Worker resolves relative URLs against its own script (assets/…), not the page: send the
    // base checkpoint's URL resolved against the page's base, so a build under any sub-path finds it.
    if (m.type === 'start' && m.baseCheckpointUrl) m = { ...m, baseCheckpointUrl: pageUrl(m.baseCheckpointUrl) };
    this.worker.postMessage(m, transfer);
  }
  terminate(): void {
    this.worker.terminate();
  }
}
