/**
 * Time before a long action: a run's (or a card's) whole-run estimate from the measured seconds per step at its
 * rung, and the calibration of that figure from the steps a run actually took. Pure.
 */
import type { RunConfig } from '../../rl/config';

/** A run's steps: the fixed stages' sum, with a convergence stage counted at its most (`atMost`). */
export function plannedRunSteps(cfg: Pick<RunConfig, 'stages'>): { steps: number; atMost: boolean } {
  let steps = 0;
  let atMost = false;
  for (const s of cfg.stages) {
    if (s.steps !== null) steps += s.steps;
    else {
      steps += s.convergence?.maxSteps ?? 0;
      atMost = true;
    }
  }
  return { steps, atMost };
}

/** "45 s", "12 min", "2.1 h": two significant figures at most, the unit a person reads at a glance. */
export function formatDuration(seconds: number): string {
  if (!(seconds >= 0) || !Number.isFinite(seconds)) return '?';
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const min = seconds / 60;
  if (min < 90) return `${Math.round(min)} min`;
  const h = min / 60;
  return `${h < 10 ? h.toFixed(1) : Math.round(h)} h`;
}

/** The first steps of a run carry its warm-up (pipelines, caches): left out of the measured step. */
export const WARMUP_STEPS = 1;
/** Steps a run must have taken past its warm-up before its step time replaces the rung's benchmark. */
export const CALIBRATION_STEPS = 3;

/**
 * The median seconds per training step of a run's records (`timing_s/step`, the warm-up left out), or null with
 * fewer than CALIBRATION_STEPS timed steps. The median: a step held back by the page (a redraw, a checkpoint) does
 * not move it.
 */
export function measuredStepSeconds(steps: readonly Record<string, number>[]): { seconds: number; steps: number } | null {
  const t = steps
    .slice(WARMUP_STEPS)
    .map((s) => s['timing_s/step'])
    .filter((x) => typeof x === 'number' && Number.isFinite(x) && x > 0)
    .sort((a, b) => a - b);
  if (t.length < CALIBRATION_STEPS) return null;
  const mid = t.length >> 1;
  return { seconds: t.length % 2 ? t[mid] : (t[mid - 1] + t[mid]) / 2, steps: t.length };
}

/**
 * Whether a run's measured step stands for its rung's figure: the same rollouts per step (D_R · G) and first-stage
 * response limit as the rung's default preset, which is what the rung's row times.
 */
export function sameStepShape(run: Pick<RunConfig, 'rollout' | 'stages'>, rungDefault: Pick<RunConfig, 'rollout' | 'stages'>): boolean {
  // A stage may set its own batch and group size.
  const shape = (c: Pick<RunConfig, 'rollout' | 'stages'>) => [c.stages[0]?.batchPrompts ?? c.rollout.batchPrompts, c.stages[0]?.groupSize ?? c.rollout.groupSize, c.stages[0]?.maxResponseLength].join();
  return shape(run) === shape(rungDefault);
}

/** "400 steps ≈ 25 min at ~3.7 s/step" (a convergence stage: "at most …"), for one run or several back to back. */
export function wholeRunText(runs: readonly Pick<RunConfig, 'stages'>[], secondsPerStep: number): string {
  let steps = 0;
  let atMost = false;
  for (const r of runs) {
    const p = plannedRunSteps(r);
    steps += p.steps;
    atMost ||= p.atMost;
  }
  const per = secondsPerStep >= 10 ? secondsPerStep.toFixed(0) : secondsPerStep >= 1 ? secondsPerStep.toFixed(1) : secondsPerStep.toPrecision(2);
  const what = runs.length > 1 ? `${runs.length} runs, ${steps} steps in all` : `${steps} steps`;
  return `${what} ${atMost ? '≤' : '≈'} ${formatDuration(steps * secondsPerStep)} at ~${per} s/step`;
}

/**
 * A card's "Run both" time: each arm's steps at its own rung's s/step, back to back ("2 runs, 160 steps in all
 * ≈ 4 min"); null when an arm's rung has no figure yet (nothing is better than a guess).
 */
export function runsTimeText(arms: readonly { config: Pick<RunConfig, 'stages'>; secondsPerStep: number | null }[]): string | null {
  if (!arms.length || arms.some((a) => a.secondsPerStep === null)) return null;
  let steps = 0;
  let seconds = 0;
  let atMost = false;
  for (const a of arms) {
    const p = plannedRunSteps(a.config);
    steps += p.steps;
    seconds += p.steps * a.secondsPerStep!;
    atMost ||= p.atMost;
  }
  return `${arms.length} runs, ${steps} steps in all ${atMost ? '≤' : '≈'} ${formatDuration(seconds)}`;
}
