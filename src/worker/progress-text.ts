/** The state line during the step-0 evaluation of the start weights (before step 1, which can take minutes at the larger rungs). */
export function evalProgressText(done: number, total: number): string {
  return `evaluating the start weights before step 1: ${done} of ${total} held-out responses`;
}
