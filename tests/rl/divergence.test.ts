/**
 * Divergence in the trainer (CPU engine, magic-tiny): an optimizer step whose loss or gradient
 * norm is not finite is rejected by the engine, counted in actor/nonfinite_steps and not counted
 * as an AdamW step; update.maxNonfiniteSteps rejections in a row stop the run with a
 * DivergenceError naming the step, the quantity and its value, after which the trainer neither
 * steps nor saves. Non-finite steps are injected on chosen update calls: advantages of NaN (the
 * engine computes a NaN loss and gradient and rejects the step), or — for a finite loss with an
 * infinite gradient norm, which the engines' own tests produce — the engine's answer to such a
 * step (gradients computed, nothing applied, grad norm Infinity).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/model/config';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import type { Backend } from '../../src/model/engine';
import { DEFAULT_RUN_CONFIG, getPreset, presetNames, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/model/checkpoint';
import { DivergenceError } from '../../src/rl/divergence';
import { MagicTrainer } from '../../src/rl/trainer';
import { interceptUpdates } from '../update-hook';

let shared: Promise<WasmBackend> | null = null;
const cpu = () => (shared ??= wasmBackend({ threads: 1 }));
afterAll(async () => (await shared)?.destroy());

type Poison = { advantage: number } | 'infinite-grad-norm';

/** The backend with the actor's update calls (1-based) that `poison` names made non-finite. */
function injecting(backend: Backend, poison: (call: number) => Poison | null): Backend {
  return interceptUpdates(
    backend,
    async (call, update, b, loss, o) => {
      const what = poison(call);
      if (what === null) return update(b, loss, o);
      if (what === 'infinite-grad-norm') return { ...(await update(b, loss, { ...o, update: false })), gradNorm: Infinity, applied: false };
      return update({ ...b, advantages: b.advantages!.map((x, i) => (b.mask[i] ? what.advantage : x)) }, loss, o);
    },
    'actor',
  );
}

/** magic-tiny where every step updates (every group kept, a constant entropy bonus), N_SGD = 2. */
function config(maxNonfiniteSteps: number, miniBatches = 2): RunConfig {
  const tiny = getPreset('magic-tiny');
  return validateRunConfig({
    ...tiny,
    stages: [{ maxResponseLength: 10, steps: 8 }],
    rejection: { mode: 'off' },
    loss: { ...tiny.loss, entropy: { ...tiny.loss.entropy, mode: 'constant', constantCoef: 0.05 } },
    update: { ...tiny.update, lr: 1e-2, miniBatches, maxNonfiniteSteps },
    eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
  });
}

describe('update.maxNonfiniteSteps', () => {
  it('defaults to 3 in every preset and takes an integer ≥ 1', () => {
    expect(DEFAULT_RUN_CONFIG.update.maxNonfiniteSteps).toBe(3);
    for (const name of presetNames()) expect(getPreset(name).update.maxNonfiniteSteps, name).toBe(3);
    // A config written before the field existed takes the default.
    const { maxNonfiniteSteps: _, ...older } = DEFAULT_RUN_CONFIG.update;
    expect(validateRunConfig({ update: older }).update.maxNonfiniteSteps).toBe(3);
    expect(validateRunConfig({ update: { maxNonfiniteSteps: 1 } }).update.maxNonfiniteSteps).toBe(1);
    for (const bad of [0, -1, 1.5, NaN, '3', null]) {
      expect(() => validateRunConfig({ update: { maxNonfiniteSteps: bad } }), String(bad)).toThrow(ConfigError);
      expect(() => validateRunConfig({ update: { maxNonfiniteSteps: bad } }), String(bad)).toThrow(/update\.maxNonfiniteSteps/);
    }
  });
});

describe('MagicTrainer with non-finite steps (CPU engine)', () => {
  it('rejects and counts them, keeps AdamW t at the applied steps, and stops after K in a row', async () => {
    // Updates 1 (ok), 2 (NaN), 3 (ok), then 4, 5, 6 NaN: the streak reaches K = 3 at update 6, in RL step 3.
    const poisoned = new Set([2, 4, 5, 6]);
    const t = await MagicTrainer.create(injecting(await cpu(), (c) => (poisoned.has(c) ? { advantage: NaN } : null)), config(3));
    const r1 = await t.trainStep();
    expect(r1.record['actor/nonfinite_steps']).toBe(1);
    expect(Number.isNaN(r1.record['actor/pg_loss'])).toBe(true); // the rejected step's NaN loss is in the step's mean
    expect(t.optimizerSteps).toBe(1);
    const r2 = await t.trainStep();
    expect(r2.record['actor/nonfinite_steps']).toBe(1);
    expect(t.optimizerSteps).toBe(2);
    // What a checkpoint holds now: finite weights, t = the 2 applied steps.
    const saved = await t.saveCheckpoint();
    expect(saved.length).toBeGreaterThan(0);
    const err = await t.trainStep().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DivergenceError);
    const d = err as DivergenceError;
    expect([d.step, d.quantity, d.consecutive]).toEqual([3, 'loss', 3]);
    expect(Number.isNaN(d.value)).toBe(true);
    expect(d.message).toBe('the run diverged at step 3: 3 optimizer steps in a row rejected as non-finite (last: loss NaN)');
    expect(t.optimizerSteps).toBe(2);
    expect(t.step).toBe(2);
    // The trainer is mid-step: it refuses to go on or to write a checkpoint of that state.
    await expect(t.trainStep()).rejects.toBe(err);
    await expect(t.saveCheckpoint()).rejects.toBe(err);
    t.destroy();
  });

  it('an applied step resets the streak; a finite loss with an infinite gradient norm is named by the norm', async () => {
    // K = 2 with N_SGD = 1: updates 2 and 4 rejected alone go on; 6 and 7 in a row stop the run at step 7.
    const poisoned = new Set([2, 4, 6, 7]);
    const t = await MagicTrainer.create(injecting(await cpu(), (c) => (poisoned.has(c) ? 'infinite-grad-norm' : null)), config(2, 1));
    const counts: number[] = [];
    for (let i = 0; i < 6; i++) counts.push((await t.trainStep()).record['actor/nonfinite_steps']);
    expect(counts).toEqual([0, 1, 0, 1, 0, 1]);
    expect(t.optimizerSteps).toBe(3);
    const err = (await t.trainStep().catch((e: unknown) => e)) as DivergenceError;
    expect(err).toBeInstanceOf(DivergenceError);
    expect([err.step, err.quantity, err.value, err.consecutive]).toEqual([7, 'grad norm', Infinity, 2]);
    t.destroy();
  });

  it('the streak is part of the run state: a run resumed mid-streak stops after the same K', async () => {
    // N_SGD = 2, K = 3: both updates of step 2 rejected (streak 2), checkpoint, then the first update after the resume.
    const cfg = config(3);
    const t = await MagicTrainer.create(injecting(await cpu(), (c) => (c === 3 || c === 4 ? { advantage: NaN } : null)), cfg);
    await t.trainStep();
    expect((await t.trainStep()).record['actor/nonfinite_steps']).toBe(2);
    const bytes = await t.saveCheckpoint();
    t.destroy();
    expect((decodeCheckpoint(bytes).meta.state as { nonfiniteStreak?: number }).nonfiniteStreak).toBe(2);
    const resumed = await MagicTrainer.create(injecting(await cpu(), (c) => (c === 1 ? { advantage: NaN } : null)), cfg, { checkpoint: bytes });
    const err = (await resumed.trainStep().catch((e: unknown) => e)) as DivergenceError;
    expect(err).toBeInstanceOf(DivergenceError);
    expect([err.step, err.consecutive]).toEqual([3, 3]);
    resumed.destroy();

    // A streak at or past K (a stopped run saves nothing, so only an edited file holds one) is refused, naming the field.
    const ck = decodeCheckpoint(bytes);
    const edited = encodeCheckpoint({ ...ck, meta: { ...ck.meta, state: { ...(ck.meta.state as object), nonfiniteStreak: 3 } } });
    await expect(MagicTrainer.create(await cpu(), cfg, { checkpoint: edited })).rejects.toThrow(/run state nonfiniteStreak must be an integer from 1 to 2/);
  });

  it('a run whose steps are all finite counts 0 and is what it was without the check', async () => {
    const t = await MagicTrainer.create(injecting(await cpu(), () => null), config(1));
    for (let i = 0; i < 3; i++) {
      const r = await t.trainStep();
      expect(r.record['actor/nonfinite_steps']).toBe(0);
      expect(Number.isFinite(r.record['actor/grad_norm'])).toBe(true);
    }
    expect(t.optimizerSteps).toBe(6);
    // No streak, no field: a finite run's checkpoint is byte for byte what it was before the field existed.
    expect('nonfiniteStreak' in (decodeCheckpoint(await t.saveCheckpoint()).meta.state as object)).toBe(false);
    t.destroy();
  });
});

describe('non-finite forward passes and temperatures (issue #27)', () => {
  it('a temperature outside the finite-arithmetic range is refused with its bound, per field', async () => {
    const { validateRunConfig } = await import('../../src/rl/config');
    expect(() => validateRunConfig({ rollout: { temperature: 1e-320 } })).toThrow('rollout.temperature: must be in [0.01, 10], got 1e-320');
    expect(() => validateRunConfig({ eval: { temperatures: [1, 0.001] } })).toThrow(/eval\.temperatures(\[1\])?: must be in \[0\.01, 10\], got 0\.001/);
    expect(validateRunConfig({ rollout: { temperature: 0.01 } }).rollout.temperature).toBe(0.01);
  });

  it('guardForward turns a non-finite log-prob or entropy into a DivergenceError where it arises', async () => {
    const { checkFiniteSamples, guardForward, DivergenceError } = await import('../../src/rl/divergence');
    expect(() => checkFiniteSamples([{ logp: [-0.5, -1], entropy: [0.3, 0.2] }])).not.toThrow();
    let kept: unknown = null;
    const bad = guardForward(7, 'rollout', (d) => (kept = d), async () => checkFiniteSamples([{ logp: [-0.5], entropy: [Infinity] }]));
    await expect(bad).rejects.toThrow("the run diverged at step 7: a response token's entropy is Infinity: the policy's forward pass overflowed in the step's rollouts");
    expect(kept).toBeInstanceOf(DivergenceError);
    await expect(guardForward(1, 'evaluation', () => {}, async () => { throw new TypeError('other'); })).rejects.toThrow(TypeError);
  });
});
