/**
 * A GPU device lost in the middle of `magic-lab train --backend webgpu` (issue #13): the device is
 * destroyed from a test hook after a step, as a GPU process crash or driver reset would lose it.
 * The run must open a new device, resume from its last checkpoint in the run directory (every N
 * steps and at each stage boundary), and end with the same journal as an undisturbed run — the
 * steps since the checkpoint replay bit for bit — with no step missing or written twice. When no
 * new device can be opened, it stops with one line naming the last good checkpoint (exit 1).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunFailure } from '../../src/cli/args';
import { train, type TrainHooks } from '../../src/cli/train';
import type { WebGpuBackend } from '../../src/model/gpu-engine';

const dir = mkdtempSync(join(tmpdir(), 'magic-devloss-'));
const cfg = join(dir, 'config.json');
// Two stages of 3 steps (a boundary after step 3), a checkpoint every 4 steps: checkpoints at 3, 4 and the end.
// Rejection off and the warm-started tiny base, so every step updates the weights the next one samples from.
writeFileSync(
  cfg,
  JSON.stringify({
    stages: [
      { maxResponseLength: 16, steps: 3 },
      { maxResponseLength: 24, steps: 3 },
    ],
    rejection: { mode: 'off' },
    eval: { everySteps: 3 },
    checkpoint: { everySteps: 4 },
  }),
);
const argv = (out: string) => ['--preset', 'magic-tiny', '--config', cfg, '--base', 'public/checkpoints/base-tiny.mlck', '--backend', 'webgpu', '--seed', '7', '--out', out, '--quiet'];

async function runTrain(out: string, hooks: TrainHooks = {}) {
  const lines: string[] = [];
  await train(argv(out), (s) => lines.push(s), hooks);
  return lines;
}

const journal = (out: string, file: string) =>
  readFileSync(join(out, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
// Wall-clock fields differ between any two runs; everything else must not.
const stripTimes = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'time_ms' && !k.startsWith('perf/') && !k.startsWith('timing_s/')));

/** Destroys the device once after each of `steps` (not again when the step is re-run). */
function loseDeviceAfter(...steps: number[]): TrainHooks {
  const pending = new Set(steps);
  return {
    recovery: { attempts: 3, backoffMs: [0, 50], maxLossesWithoutProgress: 3 },
    afterStep: (step, backend) => {
      if (!pending.delete(step)) return;
      (backend as WebGpuBackend).rt.device.destroy();
    },
  };
}

describe('magic-lab train: the GPU device is lost mid-run', () => {
  const straight = join(dir, 'straight');
  let straightDone: Promise<string[]> | null = null;
  const undisturbed = () => (straightDone ??= runTrain(straight));

  it('opens a new device, resumes from the last checkpoint (at a stage boundary, every N steps, or the start) and writes the undisturbed run’s journal', async () => {
    await undisturbed();
    const out = join(dir, 'lost');
    // After step 2: no checkpoint yet (the run starts again). After step 3: the stage-boundary
    // checkpoint (nothing lost). After step 5: the step-4 checkpoint (step 5 is re-run).
    const log = await runTrain(out, loseDeviceAfter(2, 3, 5));
    const warnings = log.filter((l) => l.startsWith('warning:'));
    expect(warnings.filter((l) => /opening a new device/.test(l))).toHaveLength(3);
    expect(log.join('\n')).toMatch(/The GPU device was lost \(reason destroyed: .*\) after step 2; restarted the run from its start \(no checkpoint yet\) — steps 1–2 are re-run\./);
    expect(log.join('\n')).toMatch(/after step 3; resumed from .*checkpoint\.mlck at step 3 — no steps are lost\./);
    expect(log.join('\n')).toMatch(/after step 5; resumed from .*checkpoint\.mlck at step 4 — step 5 is re-run\./);
    expect(log.at(-1)).toMatch(/^done: 6 steps/);

    const metrics = journal(out, 'metrics.jsonl');
    expect(metrics.filter((r) => r.type === 'step').map((r) => r.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(metrics.filter((r) => r.type === 'eval').map((r) => r.step)).toEqual([0, 3, 6]);
    expect(metrics.map(stripTimes)).toEqual(journal(straight, 'metrics.jsonl').map(stripTimes));
    expect(journal(out, 'samples.jsonl')).toEqual(journal(straight, 'samples.jsonl'));
    // The run learned something, so equal journals are not equal by accident.
    expect(new Set(metrics.filter((r) => r.type === 'step').map((r) => r['actor/grad_norm'])).size).toBeGreaterThan(1);
  }, 240_000);

  it('when no new device opens, stops after the bounded retries with one line naming the last good checkpoint', async () => {
    const out = join(dir, 'no-device');
    const icd = process.env.VK_ICD_FILENAMES;
    const pending = new Set([5]);
    const hooks: TrainHooks = {
      recovery: { attempts: 2, backoffMs: [0, 10], maxLossesWithoutProgress: 3 },
      afterStep: (step, backend) => {
        if (!pending.delete(step)) return;
        (backend as WebGpuBackend).rt.device.destroy();
        // Dawn finds no Vulkan driver from now on: every request for a new adapter fails.
        process.env.VK_ICD_FILENAMES = join(dir, 'no-such-icd.json');
      },
    };
    try {
      const err = await runTrain(out, hooks).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunFailure);
      const msg = (err as Error).message;
      expect(msg.split('\n')).toHaveLength(1);
      expect(msg).toMatch(/^the GPU device was lost \(reason destroyed: .*\) after step 5, and no new GPU device after 2 attempts \(WebGPU found no adapter/);
      expect(msg).toContain(`the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step 4): continue with magic-lab train --resume ${out}`);
    } finally {
      if (icd === undefined) delete process.env.VK_ICD_FILENAMES;
      else process.env.VK_ICD_FILENAMES = icd;
    }
    // The journal holds the steps written before the loss; --resume continues from the named checkpoint to the undisturbed run's end.
    expect(journal(out, 'metrics.jsonl').filter((r) => r.type === 'step').map((r) => r.step)).toEqual([1, 2, 3, 4, 5]);
    const resumed: string[] = [];
    await train(['--resume', out, '--backend', 'webgpu', '--quiet'], (s) => resumed.push(s));
    expect(resumed.join('\n')).toMatch(/resumed .* at step 4/);
    await undisturbed();
    expect(journal(out, 'metrics.jsonl').map(stripTimes)).toEqual(journal(straight, 'metrics.jsonl').map(stripTimes));
  }, 240_000);
});
