import { getPreset } from '../../src/rl/config';
import { STEP_METRIC_KEY_LIST } from '../../src/rl/metrics';
import type { EvalRecord, StepRecord } from '../../src/rl/trainer-types';
import type { RunData } from '../../src/io/runfile';

export function fakeStep(step: number, stage = 0, over: Partial<Record<string, number>> = {}): StepRecord {
  const r: Record<string, number> = { step, time_ms: step * 100 };
  STEP_METRIC_KEY_LIST.forEach((k, i) => (r[k] = (step * 0.1 + i) / 10));
  r.stage = stage;
  r['actor/pg_clipfrac_lower'] = NaN;
  return { ...r, ...over } as StepRecord;
}

export function fakeRun(id: string, steps = 4, preset = 'magic-tiny'): RunData {
  const evals: EvalRecord[] = [{ step: 2, 'val/avg@2/t1.0': 0.25, 'val/pass@2/t1.0': 0.5, 'val/avg@2/t0.6': 0.125, 'val/pass@2/t0.6': 0.25 } as EvalRecord];
  return {
    id,
    name: `run ${id}`,
    preset,
    createdAt: 1700000000000,
    config: getPreset(preset),
    steps: Array.from({ length: steps }, (_, i) => fakeStep(i + 1, i < steps / 2 ? 0 : 1)),
    evals,
  };
}
