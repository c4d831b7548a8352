/**
 * A sweep refused before or between its runs for something the user can fix: a mismatching OUT
 * or run pool, an unknown preset or variant, a busy directory. One line; the CLI maps it to exit 2.
 */
export class SweepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepError';
  }
}
