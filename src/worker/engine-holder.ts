/**
 * The Worker's open engine: the backend, what the page is told about it, the engine the page
 * asked for last, and the watch on its GPU device. At most one is open; opening another closes it.
 */
import type { Backend, BackendChoice, DeviceLossInfo } from '../model/engine';
import type { EngineSummary } from './protocol';

export interface OpenedEngine {
  backend: Backend;
  summary: EngineSummary;
}

export class EngineHolder {
  private open_: OpenedEngine | null = null;
  private unwatchDevice: (() => void) | null = null;
  private recovery: Promise<boolean> | null = null;
  /** The engine the page asked for last (init), used when a start finds none open. */
  choice: BackendChoice = 'auto';

  /**
   * `acquire` opens an engine; `onLost` hears of a lost GPU device of the engine `lost`
   * (which may have been replaced since: compare it with `backend`).
   */
  constructor(
    private readonly acquire: (choice: BackendChoice) => Promise<OpenedEngine>,
    private readonly onLost: (info: DeviceLossInfo, lost: Backend) => void,
  ) {}

  get backend(): Backend | null {
    return this.open_?.backend ?? null;
  }

  get summary(): EngineSummary | null {
    return this.open_?.summary ?? null;
  }

  /** The device recovery in progress, if any (one at a time). */
  get recovering(): Promise<boolean> | null {
    return this.recovery;
  }

  /** Runs `recover` as the recovery in progress until it settles; returns its outcome. */
  recoverWith(recover: () => Promise<boolean>): Promise<boolean> {
    this.recovery = recover().finally(() => (this.recovery = null));
    return this.recovery;
  }

  /** Closes the open engine (if any) and opens `choice`. */
  async open(choice: BackendChoice): Promise<void> {
    this.close();
    this.choice = choice;
    this.use(await this.acquire(choice));
  }

  /** Opens the last chosen engine without making it the open one (device recovery decides). */
  acquireAgain(): Promise<OpenedEngine> {
    return this.acquire(this.choice);
  }

  close(): void {
    this.unwatchDevice?.();
    this.unwatchDevice = null;
    this.open_?.backend.destroy();
    this.open_ = null;
  }

  /** Makes `opened` the engine and watches its GPU device. */
  use(opened: OpenedEngine): void {
    this.open_ = opened;
    const mine = opened.backend;
    this.unwatchDevice = mine.onLost?.((info) => this.onLost(info, mine)) ?? null;
  }
}
