/**
 * The page's link to the lab Worker, built so that a Worker cannot be wedged. Set-up work
 * (building a large model, generating a large data set, the offline filter) and a step run inside
 * the Worker without reading its messages in between, and its commands are handled in order, so a
 * `stop` — and every command after it — can wait behind them for minutes. Reset during a start
 * therefore terminates the Worker and opens a new one (the run stays in the list); after a run has
 * started, Reset sends `stop` and restarts a Worker that has not answered it within stopAnswerMs.
 */
import type { FromWorker, ToWorker } from '../../worker/protocol';
import { FrameBatch, frameSchedule, pageHidden, type Schedule } from '../lib/frame-batch';
import { StopWatch } from '../lib/watchdog';

/** What the link needs of a Worker (LabClient has it). */
export interface WorkerClient {
  send(m: ToWorker, transfer?: Transferable[]): void;
  terminate(): void;
}

type StartMessage = Extract<ToWorker, { type: 'start' }>;

export class WorkerLink {
  private client: WorkerClient | null = null;
  /** The startLab call the Worker belongs to (a restarted Worker stays its). */
  private owner: object | null = null;
  /** The last `start` sent, until the Worker answers it (a state for its run other than `starting`), and what was sent after it. */
  private pendingStart: StartMessage | null = null;
  private sinceStart: ToWorker[] = [];
  private readonly stopWatch: StopWatch;
  /** Messages waiting for their batch (opts.schedule), with the Worker that sent them. */
  private readonly inbox: FrameBatch<{ from: WorkerClient; m: FromWorker }> | null;

  /**
   * `spawn` opens a Worker that reports to the callback it is given; `onMessage` gets the
   * current Worker's messages; `onStuck` runs when a `stop` was not answered within stopAnswerMs.
   * In a page (or with `schedule`) the messages are handed on in batches, in order
   * (lib/frame-batch.ts: one store update per animation frame, not one per message; a `state` ends
   * its batch, so every step and state reported is drawn); `immediate`
   * says when not to wait (by default: while the page is hidden, it draws nothing). Elsewhere (Node,
   * tests) each is handed on as it arrives.
   */
  constructor(
    private readonly opts: {
      spawn: (onMessage: (m: FromWorker) => void) => WorkerClient;
      onMessage: (m: FromWorker) => void;
      stopAnswerMs: number;
      onStuck: () => void;
      schedule?: Schedule;
      immediate?: () => boolean;
    },
  ) {
    this.stopWatch = new StopWatch(opts.stopAnswerMs, opts.onStuck);
    const schedule = opts.schedule ?? (typeof requestAnimationFrame === 'function' ? frameSchedule : null);
    this.inbox = schedule ? new FrameBatch(({ from, m }) => this.fromWorker(from, m), schedule, opts.immediate ?? pageHidden, ({ m }) => m.type === 'state') : null;
  }

  /** A `start` was sent that the Worker has not answered yet. */
  get starting(): boolean {
    return this.pendingStart !== null;
  }

  /** Opens the Worker of the startLab call `owner`. */
  open(owner: object): WorkerClient {
    this.owner = owner;
    return this.spawn();
  }

  /** Ends what the startLab call `owner` opened: `mine`, and the Worker that replaced it while `owner` still owns the link. */
  close(owner: object, mine: WorkerClient): void {
    this.inbox?.flush();
    mine.terminate();
    if (this.owner !== owner) return;
    this.stopWatch.clear();
    this.client?.terminate();
    this.client = null;
    this.owner = null;
    this.pendingStart = null;
    this.sinceStart = [];
  }

  /** Sends a command; a `start` and what follows it are kept until the Worker answers the start. */
  send(m: ToWorker, transfer?: Transferable[]): void {
    if (!this.client) throw new Error('the lab Worker is not running');
    this.client.send(m, transfer);
    // Kept until the Worker answers the start: restart may send them again (never with transferred buffers).
    if (m.type === 'start') {
      this.pendingStart = transfer?.length ? null : m;
      this.sinceStart = [];
    } else if (this.pendingStart && m.type !== 'drawn' && m.type !== 'token-probs') this.sinceStart.push(m);
  }

  /** An answer to the Worker (`drawn`): not kept, and dropped when no Worker runs. */
  reply(m: ToWorker): void {
    this.client?.send(m);
  }

  /** Sends `stop` for the live run `liveRunId`; a Worker that does not answer in time is found stuck (onStuck). */
  stop(liveRunId: string | null): void {
    this.send({ type: 'stop' });
    this.stopWatch.arm(liveRunId);
  }

  /**
   * Terminates the Worker and opens a new one, sent `init`. With `resendFor` (the live run's id),
   * a start of that run that was not answered (it waits in the old Worker's queue) is sent to the
   * new one, with the commands sent after it. `forget` runs between the two: what the old Worker
   * will never answer.
   */
  restart(init: ToWorker, resendFor: string | null, forget: () => void): void {
    // What the old Worker sent before this is handled first, as when each message was handled on arrival.
    this.inbox?.flush();
    this.stopWatch.clear();
    this.client?.terminate();
    const again = resendFor !== null && this.pendingStart && this.pendingStart.runId === resendFor ? [this.pendingStart, ...this.sinceStart] : [];
    this.pendingStart = null;
    this.sinceStart = [];
    forget();
    const c = this.spawn();
    c.send(init);
    for (const m of again) this.send(m);
  }

  private spawn(): WorkerClient {
    const c: WorkerClient = this.opts.spawn((m) => (this.inbox ? this.inbox.push({ from: c, m }) : this.fromWorker(c, m)));
    this.client = c;
    return c;
  }

  /** Messages from a Worker that was terminated or replaced (before or while they waited in the inbox) are dropped. */
  private fromWorker(from: WorkerClient, m: FromWorker): void {
    if (this.client === from) this.received(m);
  }

  private received(m: FromWorker): void {
    if (m.type === 'state') {
      this.stopWatch.state(m.runId);
      if (this.pendingStart && m.runId === this.pendingStart.runId && m.state !== 'starting') {
        this.pendingStart = null;
        this.sinceStart = [];
      }
    }
    this.opts.onMessage(m);
  }
}
