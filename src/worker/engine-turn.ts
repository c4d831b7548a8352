/** Training steps and the inspector's forward passes (token-probs) take the engine one at a time. */
export class EngineTurn {
  private last: Promise<unknown> = Promise.resolve();

  /** Runs `f` after every call before it has settled; a failure does not block the next. */
  exclusive<T>(f: () => Promise<T>): Promise<T> {
    const run = this.last.then(f);
    this.last = run.catch(() => undefined);
    return run;
  }
}
