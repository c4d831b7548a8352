/** The recovery policy shared by the CLI and the Worker: bounded retries with back-off, and what the user reads. */
import { describe, expect, it } from 'vitest';
import { DeviceLostError, GpuUncapturedError } from '../../src/model/engine';
import { mayRecover, RecoveryFailed, recoveredNotice, reopenWithBackoff, rerunText } from '../../src/rl/recovery';

const lost = new DeviceLostError({ reason: 'unknown', message: 'A valid external Instance reference no longer exists.' });
const policy = { attempts: 3, backoffMs: [10, 100], maxLossesWithoutProgress: 2 };

describe('device recovery', () => {
  it('retries a bounded number of times, waiting longer before each attempt', async () => {
    const waits: number[] = [];
    let calls = 0;
    const got = await reopenWithBackoff(
      async () => {
        if (++calls < 3) throw new Error(`no adapter yet (${calls})`);
        return 'device';
      },
      { policy, wait: async (ms) => void waits.push(ms) },
    );
    expect(got).toBe('device');
    expect(waits).toEqual([10, 100, 100]);
    const err = await reopenWithBackoff(
      async () => {
        throw new Error('no adapter');
      },
      { policy, wait: async () => undefined },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecoveryFailed);
    expect((err as Error).message).toBe('no new GPU device after 3 attempts (no adapter)');
  });

  it('stops trying when cancelled (the run was stopped meanwhile)', async () => {
    let calls = 0;
    const got = await reopenWithBackoff(async () => ++calls, { policy, wait: async () => undefined, cancelled: () => true });
    expect(got).toBeNull();
    expect(calls).toBe(0);
  });

  it('recovers from device faults only, and not forever without progress', () => {
    expect(mayRecover(lost, 1, policy)).toBe(true);
    expect(mayRecover(lost, 2, policy)).toBe(true);
    expect(mayRecover(lost, 3, policy)).toBe(false);
    expect(mayRecover(new GpuUncapturedError('out-of-memory', ['oom']), 1, policy)).toBe(true);
    expect(mayRecover(new GpuUncapturedError('validation', ['bad bind group']), 1, policy)).toBe(false);
    expect(mayRecover(new Error('the run diverged'), 1, policy)).toBe(false);
  });

  it('says what was lost and which steps are re-run', () => {
    expect(rerunText(4, 7)).toBe('steps 5–7 are re-run');
    expect(rerunText(4, 5)).toBe('step 5 is re-run');
    expect(rerunText(4, 4)).toBe('no steps are lost');
    expect(recoveredNotice(lost, 7, 4)).toBe(
      'The GPU device was lost (reason unknown: A valid external Instance reference no longer exists.) after step 7; resumed from the checkpoint at step 4 — steps 5–7 are re-run.',
    );
    expect(recoveredNotice(lost, 2, null)).toMatch(/after step 2; restarted the run from its start \(no checkpoint yet\) — steps 1–2 are re-run\.$/);
  });
});
