import { describe, expect, it } from 'vitest';
import { isEmptyFailedStart } from '../../src/ui/lib/failed-start';

const empty = { steps: [], evals: [] };
const starting = { liveRunId: 'r1', runState: 'starting' };

describe('a failed start leaves no empty run', () => {
  it('drops the run whose start failed before it recorded anything', () => {
    expect(isEmptyFailedStart({ runId: 'r1', state: 'error' }, starting, empty)).toBe(true);
  });
  it('keeps a run with a step or an evaluation, a run that failed while training, and other runs', () => {
    expect(isEmptyFailedStart({ runId: 'r1', state: 'error' }, starting, { steps: [{}], evals: [] })).toBe(false);
    expect(isEmptyFailedStart({ runId: 'r1', state: 'error' }, starting, { steps: [], evals: [{}] })).toBe(false);
    expect(isEmptyFailedStart({ runId: 'r1', state: 'error' }, { liveRunId: 'r1', runState: 'running' }, empty)).toBe(false);
    expect(isEmptyFailedStart({ runId: 'r1', state: 'error' }, { liveRunId: 'r0', runState: 'starting' }, empty)).toBe(false);
    expect(isEmptyFailedStart({ runId: 'r1', state: 'paused' }, starting, empty)).toBe(false);
    expect(isEmptyFailedStart({ runId: null, state: 'error' }, starting, empty)).toBe(false);
    expect(isEmptyFailedStart({ runId: 'r1', state: 'error' }, starting, undefined)).toBe(false);
  });
});
