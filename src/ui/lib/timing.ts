/**
 * The "Step time by phase" chart: each step's `timing_s/*` (src/rl/phase-timer.ts, verl's names) as a stack whose
 * top is the whole step, and its one-line reading. Pure: the chart draws what timingRun derives.
 */
import type { RunData } from '../../io/runfile';
import { TIMING_PHASES, TIMING_STEP_KEY, timingKey, type TimingPhase } from '../../rl/phase-timer';

/** The step's time outside every phase (metrics, sample records; in a verl run also its other timers). */
export const TIMING_OTHER_KEY = 'timing_s/other';

const LABELS: Record<TimingPhase, string> = { gen: 'generate', reward: 'reward', old_log_prob: 'π_old', ref: 'π_ref', adv: 'advantages', update_actor: 'update', testing: 'evaluation' };

/** The stacked series, bottom first: every phase, then the rest of the step. */
export const TIMING_SERIES: { key: string; label: string; source: 'step' }[] = [
  ...TIMING_PHASES.map((p) => ({ key: timingKey(p), label: LABELS[p], source: 'step' as const })),
  { key: TIMING_OTHER_KEY, label: 'other', source: 'step' },
];

/** The whole step in seconds: timing_s/step, else perf/step_s (a verl import renames timing_s/step to it). */
function stepSeconds(r: Record<string, number>): number {
  const t = r[TIMING_STEP_KEY];
  return t !== undefined && Number.isFinite(t) ? t : r['perf/step_s'];
}

/**
 * A step record's stack: each phase in seconds (0 when the step did not run it, e.g. testing between
 * evaluations) and `timing_s/other` = the step less its phases (never below 0); null for a record with
 * no phase timing at all (runs written before timings existed).
 */
export function phaseStack(r: Record<string, number>): Record<string, number> | null {
  if (!TIMING_PHASES.some((p) => Number.isFinite(r[timingKey(p)]))) return null;
  const out: Record<string, number> = {};
  let sum = 0;
  for (const p of TIMING_PHASES) {
    const v = r[timingKey(p)];
    out[timingKey(p)] = Number.isFinite(v) ? v : 0;
    sum += out[timingKey(p)];
  }
  const step = stepSeconds(r);
  out[TIMING_OTHER_KEY] = Number.isFinite(step) ? Math.max(0, step - sum) : NaN;
  return out;
}

const cache = new WeakMap<RunData, RunData>();
/** The run with each step record's phaseStack in place of its timings (cached per run object: runs are replaced, not mutated). */
export function timingRun(run: RunData): RunData {
  let out = cache.get(run);
  if (!out) {
    const steps = run.steps.map((s) => {
      const stack = phaseStack(s as unknown as Record<string, number>);
      return { ...s, ...(stack ?? Object.fromEntries(TIMING_SERIES.map((x) => [x.key, NaN]))) };
    });
    out = { ...run, steps };
    cache.set(run, out);
  }
  return out;
}

/**
 * "Over the last 20 steps a step took 0.41 s: generate 62%, update 30%, evaluation 5%." — the mean of each
 * phase's seconds over the last `window` timed steps, as shares of the mean step (phases under 1% left out).
 */
export function explainTiming(run: RunData, window = 20): string | undefined {
  const stacks = run.steps
    .map((s) => ({ stack: phaseStack(s as unknown as Record<string, number>), step: stepSeconds(s as unknown as Record<string, number>) }))
    .filter((x): x is { stack: Record<string, number>; step: number } => x.stack !== null && Number.isFinite(x.step) && x.step > 0)
    .slice(-window);
  if (!stacks.length) return undefined;
  const mean = (f: (x: (typeof stacks)[number]) => number) => stacks.reduce((a, x) => a + f(x), 0) / stacks.length;
  const step = mean((x) => x.step);
  const parts = TIMING_SERIES.map((s) => ({ label: s.label, share: mean((x) => x.stack[s.key] || 0) / step }))
    .filter((p) => p.share >= 0.01)
    .sort((a, b) => b.share - a.share)
    .map((p) => `${p.label} ${Math.round(p.share * 100)}%`);
  const over = stacks.length === 1 ? 'At the last step' : `Over the last ${stacks.length} steps`;
  return `${over} a step took ${step < 0.1 ? step.toPrecision(2) : step.toFixed(2)} s: ${parts.join(', ')}.`;
}
