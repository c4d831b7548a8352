/**
 * The Worker's commands, handled one after another in arrival order (a `step` sent right after
 * `start` waits for the trainer to exist). A failed command is reported and does not block the next.
 */
export class CommandQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly onError: (e: unknown) => void) {}

  /** Runs `f` after every command before it. */
  enqueue(f: () => Promise<unknown>): void {
    this.tail = this.tail.then(f).then(() => undefined, this.onError);
  }
}
