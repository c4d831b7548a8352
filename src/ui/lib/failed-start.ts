/**
 * A start that failed before its run recorded anything (a missing base, a model too big, a refused
 * config): its row would read "0 steps" and hold nothing, so the page drops it; the error line says why.
 */
export interface LiveBefore {
  liveRunId: string | null;
  runState: string;
}

/** Is this `state` message the failure of `runId`'s start, leaving a run with no step and no evaluation? */
export function isEmptyFailedStart(
  m: { runId: string | null; state: string },
  before: LiveBefore,
  run: { steps: readonly unknown[]; evals: readonly unknown[] } | undefined,
): boolean {
  return !!m.runId && m.state === 'error' && before.liveRunId === m.runId && before.runState === 'starting' && !!run && run.steps.length === 0 && run.evals.length === 0;
}
