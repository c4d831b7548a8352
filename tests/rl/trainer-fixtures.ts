/** What the trainer tests share: a step record without its wall-clock fields, and a run config in which every step has a gradient. */
import { getPreset, validateRunConfig, type RunConfig } from '../../src/rl/config';

/** A step record without its timings (perf/*, timing_s/*, time_ms), which differ between identical runs. */
export const stripPerf = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('perf/') && !k.startsWith('timing_s/') && k !== 'time_ms'));

/**
 * magic-tiny with every group kept, a constant entropy bonus and KL on, so every step has a gradient and
 * a π_ref forward; 3 steps of one stage, evaluation off but for a 2-problem check.
 */
export function everyStepGradientConfig(o: { maxResponseLength: number; batchPrompts?: number }, update: Partial<RunConfig['update']>): RunConfig {
  const tiny = getPreset('magic-tiny');
  return validateRunConfig({
    ...tiny,
    stages: [{ maxResponseLength: o.maxResponseLength, steps: 3 }],
    rollout: { ...tiny.rollout, batchPrompts: o.batchPrompts ?? tiny.rollout.batchPrompts },
    rejection: { mode: 'off' },
    loss: { ...tiny.loss, entropy: { ...tiny.loss.entropy, mode: 'constant', constantCoef: 0.05 }, kl: { beta: 0.1, type: 'k3' } },
    update: { ...tiny.update, lr: 1e-2, ...update },
    eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
  });
}
