/** The trainer end to end on the GPU (tiny presets): steps, metrics, evaluation, checkpoints, replay. */
import { webgpuBackend } from '../../src/model/gpu-engine';
import { describe, expect, it } from 'vitest';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { MagicTrainer } from '../../src/rl/trainer';
import { STEP_METRIC_KEY_LIST } from '../../src/rl/metrics';
import { gpu } from '../gpu/harness';
import { stripPerf } from './trainer-fixtures';

describe('MagicTrainer (magic-tiny)', () => {
  it('runs steps with every metric, evaluates, and finishes the schedule', async () => {
    const rt = await gpu();
    const t = await MagicTrainer.create(webgpuBackend(rt), getPreset('magic-tiny'));
    const res = await t.trainStep();
    for (const k of STEP_METRIC_KEY_LIST) expect(typeof res.record[k], k).toBe('number');
    expect(res.record.step).toBe(1);
    // Counts for the page's explanations: groups sampled (D_R, drop mode: no refill) and the active pool.
    expect(res.record['batch/groups']).toBe(getPreset('magic-tiny').rollout.batchPrompts);
    expect(res.record['data/pool_size']).toBe(t.poolSize);
    expect(res.record['critic/score/mean']).toBeGreaterThanOrEqual(0);
    expect(res.samples.length).toBeGreaterThan(0);
    expect(res.samples[0].tokens.length).toBe(res.samples[0].logp.length);
    let last = res;
    while (!t.done) last = await t.trainStep();
    expect(t.step).toBe(4);
    expect(last.record.stage).toBe(1);
    expect(last.eval).toBeDefined();
    expect(last.eval!['val/avg@2/t1.0']).toBeGreaterThanOrEqual(0);
    // The coverage curve rides along: pass@1 is the mean per-sample accuracy (= avg@k), and each family has its own curve.
    expect(last.eval!['val/pass@1/t1.0']).toBeCloseTo(last.eval!['val/avg@2/t1.0'], 12);
    expect(last.eval!['val/addition/pass@2/t1.0']).toBeGreaterThanOrEqual(0);
    expect(last.eval!['val/countdown/pass@1/t1.0']).toBeGreaterThanOrEqual(0);
    await expect(t.trainStep()).rejects.toThrow(/finished/);
  });

  it('replays bit for bit: 2N steps equal N steps + checkpoint + resume + N steps', async () => {
    const rt = await gpu();
    // An untrained policy solves nothing, so every group would be rejected; keep them and use a
    // constant entropy bonus so every step has a gradient and changes the next step's rollouts.
    const cfg = validateRunConfig({
      ...getPreset('magic-tiny'),
      stages: [{ maxResponseLength: 10, steps: 4 }],
      rejection: { mode: 'off' },
      loss: { ...getPreset('magic-tiny').loss, entropy: { ...getPreset('magic-tiny').loss.entropy, mode: 'constant', constantCoef: 0.05 } },
      update: { ...getPreset('magic-tiny').update, lr: 1e-2 },
      eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
    });
    const a = await MagicTrainer.create(webgpuBackend(rt), cfg);
    const straight = [];
    for (let i = 0; i < 4; i++) straight.push(stripPerf((await a.trainStep()).record));
    const b = await MagicTrainer.create(webgpuBackend(rt), cfg);
    const resumed = [];
    for (let i = 0; i < 2; i++) resumed.push(stripPerf((await b.trainStep()).record));
    const bytes = await b.saveCheckpoint();
    const c = await MagicTrainer.create(webgpuBackend(rt), getPreset('grpo-tiny'), { checkpoint: bytes });
    expect(c.step).toBe(2);
    expect(c.config).toEqual(cfg);
    for (let i = 0; i < 2; i++) resumed.push(stripPerf((await c.trainStep()).record));
    expect(resumed).toEqual(straight);
    expect(straight.every((r) => r['actor/grad_norm'] > 0)).toBe(true);
    expect(new Set(straight.map((r) => r['actor/entropy'])).size).toBe(4);
    expect(new Set(straight.map((r) => r['actor/entropy_sampled'])).size).toBe(4);
  });

  it('kl-on-tiny replays bit for bit across the stage boundary where β switches on (π_ref taken there, carried by the checkpoint)', async () => {
    const rt = await gpu();
    const kl = getPreset('kl-on-tiny');
    // As above: every group kept and a constant entropy bonus, so every step updates. Stage 1 has β = 1e-3.
    const cfg = validateRunConfig({
      ...kl,
      stages: [{ maxResponseLength: 10, steps: 2 }, { maxResponseLength: 10, steps: 3, klBeta: 1e-3 }],
      rejection: { mode: 'off' },
      loss: { ...kl.loss, entropy: { ...kl.loss.entropy, mode: 'constant', constantCoef: 0.05 } },
      update: { ...kl.update, lr: 1e-2 },
      eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
    });
    const run = async (c: typeof cfg, steps: number) => {
      const t = await MagicTrainer.create(webgpuBackend(rt), c);
      const recs = [];
      for (let i = 0; i < steps; i++) recs.push(stripPerf((await t.trainStep()).record));
      return { t, recs };
    };
    const straight = (await run(cfg, 5)).recs;
    // Cut before π_ref exists (end of stage 0) and after it was taken (first step of stage 1).
    for (const cut of [2, 3]) {
      const first = await run(cfg, cut);
      expect(first.t.hasReference, `cut ${cut}`).toBe(cut > 2);
      const resumed = await MagicTrainer.create(webgpuBackend(rt), getPreset('magic-tiny'), { checkpoint: await first.t.saveCheckpoint() });
      expect(resumed.hasReference, `cut ${cut}`).toBe(cut > 2);
      const recs = [...first.recs];
      for (let i = cut; i < 5; i++) recs.push(stripPerf((await resumed.trainStep()).record));
      expect(recs, `cut ${cut}`).toEqual(straight);
      first.t.destroy();
      resumed.destroy();
    }
    // The same run without the stage's β: identical through stage 0; at the first β > 0 step π_ref is
    // the policy itself (the KL term and its gradient are 0); afterwards the KL term changes the update.
    const noKl = (await run(validateRunConfig({ ...cfg, stages: [cfg.stages[0], { maxResponseLength: 10, steps: 3 }] }), 4)).recs;
    expect(noKl.slice(0, 2)).toEqual(straight.slice(0, 2));
    expect(noKl[2]['actor/entropy']).toBe(straight[2]['actor/entropy']);
    expect(noKl[2]['actor/grad_norm']).toBeCloseTo(straight[2]['actor/grad_norm'], 4);
    expect(noKl[3]['actor/grad_norm']).not.toBe(straight[3]['actor/grad_norm']);
  });
});
