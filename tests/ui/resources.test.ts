import { describe, expect, it } from 'vitest';
import { createLabStore } from '../../src/ui/store';

describe('config panel: resource refusals while editing', () => {
  it('shows more problems than the families can generate, or more rollouts than the heap holds, as the config error', () => {
    const s = createLabStore('magic-tiny');
    s.getState().setField('data.trainSize', 1_000_000);
    expect(s.getState().configError).toMatch(/^data\.trainSize: 1000000 training \+ 8 test problems .* addition has only 55 at difficulty 1/);
    s.getState().setField('data.trainSize', 16);
    expect(s.getState().configError).toBeNull();
    s.getState().setField('rollout.batchPrompts', 100_000);
    s.getState().setField('rollout.groupSize', 1024);
    expect(s.getState().configError).toMatch(/^rollout\.batchPrompts: the run would hold [\d.]+ GiB of JS objects/);
  });
});
