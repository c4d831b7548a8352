/**
 * The group inspector's trainer side (src/rl/inspect.ts): which groups a step records, the clip
 * rule, and — on the CPU engine — that inspecting changes nothing in the run (records and weights
 * bit for bit, on-policy and off-policy) while it adds ρ, clip marks and prompt ids to the samples.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import type { Backend } from '../../src/model/engine';
import { webgpuBackend } from '../../src/model/gpu-engine';
import { getPreset, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { clippedBranch, groupInspector, inspectedGroups, nextTokenLogp, responseLogp, watchedPrompts } from '../../src/rl/inspect';
import type { Rollout } from '../../src/rl/rollout';
import { MagicTrainer, type SampleRecord } from '../../src/rl/trainer';
import { encodePrompt, VOCAB } from '../../src/tasks';
import { gpu } from '../gpu/harness';
import { stripPerf } from './trainer-fixtures';

describe('recorded groups', () => {
  it('watches the lowest prompt ids of the pool', () => {
    expect(watchedPrompts([9, 3, 7, 1, 4])).toEqual([1, 3]);
    expect(watchedPrompts([5])).toEqual([5]);
  });
  it('records the first groups and every later group of a watched prompt', () => {
    expect(inspectedGroups([8, 2, 1, 9, 3, 1], 2, new Set([1, 3]))).toEqual([0, 1, 2, 4, 5]);
    expect(inspectedGroups([8, 2, 5], 2, new Set())).toEqual([0, 1]);
  });
});

describe('clip rule', () => {
  // The loss's own test: the clipped term max(−Aρ, −A·clip(ρ)) is strictly larger than the unclipped one.
  const reference = (r: number, A: number, lo: number, hi: number) => -A * Math.min(Math.max(r, 1 - lo), 1 + hi) > -A * r;
  it('agrees with the loss on a grid of ratios and advantages', () => {
    for (const r of [0.5, 0.79, 0.8, 0.81, 1, 1.19, 1.2, 1.21, 1.28, 2]) {
      for (const A of [-1.5, -0.1, 0, 0.1, 1.5]) expect(clippedBranch(r, A, 0.2, 0.28), `ρ ${r} A ${A}`).toBe(reference(r, A, 0.2, 0.28));
    }
  });
  it('clips only on the side the advantage pushes', () => {
    expect(clippedBranch(1.3, 1, 0.2, 0.2)).toBe(true);
    expect(clippedBranch(1.3, -1, 0.2, 0.2)).toBe(false);
    expect(clippedBranch(0.7, -1, 0.2, 0.2)).toBe(true);
    expect(clippedBranch(0.7, 1, 0.2, 0.2)).toBe(false);
    expect(clippedBranch(1.2, 1, 0.2, 0.2)).toBe(false); // at the bound: the unclipped branch (ties)
  });
});

let backendP: Promise<WasmBackend> | null = null;
const backend = () => (backendP ??= wasmBackend({ threads: 1 }));
afterAll(async () => {
  if (backendP) (await backendP).destroy();
});

/** The shipped tiny base: it solves some prompts, so groups have nonzero advantages (and off-policy updates clip). */
const BASE = new Uint8Array(readFileSync('public/checkpoints/base-tiny.mlck'));

/** A tiny run that updates every step (rejection off, a constant entropy bonus, a large lr), as the trainer's replay test. */
function tinyConfig(update: Partial<RunConfig['update']> = {}): RunConfig {
  const base = getPreset('magic-tiny');
  return validateRunConfig({
    ...base,
    stages: [{ maxResponseLength: 10, steps: 6 }],
    rejection: { mode: 'off' },
    loss: { ...base.loss, entropy: { ...base.loss.entropy, mode: 'constant', constantCoef: 0.05 } },
    update: { ...base.update, lr: 1e-2, ...update },
    eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
  });
}

async function run(cfg: RunConfig, inspect: boolean, on?: Backend) {
  const t = await MagicTrainer.create(on ?? (await backend()), cfg, { inspector: inspect ? groupInspector() : undefined, checkpoint: BASE });
  const records: Record<string, number>[] = [];
  const samples: SampleRecord[][] = [];
  while (!t.done) {
    const r = await t.trainStep();
    records.push(stripPerf(r.record));
    samples.push(r.samples);
  }
  const params = await t.policy.getParams();
  const adam = await t.policy.getAdamState();
  t.destroy();
  return { records, samples, params, adam };
}

describe('inspecting leaves the run as it was (CPU engine)', () => {
  for (const [name, update] of [
    ['on-policy', {}],
    ['off-policy, N_SGD = 2', { miniBatches: 2 }],
  ] as const) {
    it(`${name}: same records, weights and moments; samples gain ρ, clip marks and prompt ids`, async () => {
      const cfg = tinyConfig(update);
      const plain = await run(cfg, false);
      const inspected = await run(cfg, true);
      expect(inspected.records).toEqual(plain.records);
      expect(Buffer.from(inspected.params.buffer).equals(Buffer.from(plain.params.buffer))).toBe(true);
      expect(Buffer.from(inspected.adam.m.buffer).equals(Buffer.from(plain.adam.m.buffer))).toBe(true);
      expect(Buffer.from(inspected.adam.v.buffer).equals(Buffer.from(plain.adam.v.buffer))).toBe(true);
      // The same responses are sampled either way.
      expect(inspected.samples.map((ss) => ss.map((s) => s.response))).toEqual(plain.samples.map((ss) => ss.map((s) => s.response)));
      for (const s of plain.samples.flat()) {
        expect(s.ratio).toBeUndefined();
        expect(typeof s.promptId).toBe('number');
      }
      for (const s of inspected.samples.flat()) {
        expect(s.ratio).toHaveLength(s.tokens.length);
        expect(s.ratio!.every((r) => r > 0 && Number.isFinite(r))).toBe(true);
        expect(Array.isArray(s.clipped)).toBe(true);
        for (const j of s.clipped!) expect(j).toBeLessThan(s.tokens.length);
      }
      // An update at lr 1e-2 moves the sampled tokens' probabilities: ρ is not 1 everywhere.
      expect(inspected.samples.flat().some((s) => s.ratio!.some((r) => Math.abs(r - 1) > 1e-3))).toBe(true);
      // magic-tiny rolls out 2 groups a step and both are recorded: a step clipped some token iff its marks say so.
      const clips = inspected.samples.map((ss) => ss.reduce((a, s) => a + s.clipped!.length, 0));
      expect(clips.map((c) => c > 0)).toEqual(plain.records.map((r) => r['actor/pg_clipfrac'] > 0));
      if (name === 'on-policy') expect(clips.every((c) => c === 0)).toBe(true); // ρ ≡ 1 at an on-policy update
      else expect(clips.some((c) => c > 0)).toBe(true);
    }, 120_000);
  }
});

describe('inspecting leaves the run as it was (WebGPU)', () => {
  it('off-policy, N_SGD = 2: same records and weights; clip marks agree with pg_clipfrac', async () => {
    const b = webgpuBackend(await gpu());
    const cfg = tinyConfig({ miniBatches: 2 });
    const plain = await run(cfg, false, b);
    const inspected = await run(cfg, true, b);
    expect(inspected.records).toEqual(plain.records);
    expect(Buffer.from(inspected.params.buffer).equals(Buffer.from(plain.params.buffer))).toBe(true);
    const clips = inspected.samples.map((ss) => ss.reduce((a, s) => a + s.clipped!.length, 0));
    expect(clips.map((c) => c > 0)).toEqual(plain.records.map((r) => r['actor/pg_clipfrac'] > 0));
    expect(inspected.samples.flat().every((s) => s.ratio?.length === s.tokens.length)).toBe(true);
  }, 300_000);
});

describe('token alternatives (CPU engine)', () => {
  it('one τ = 1 forward of V copies gives a normalised distribution whose sampled entry is the token log-prob', async () => {
    const cfg = tinyConfig();
    const t = await MagicTrainer.create(await backend(), cfg);
    const prompt = encodePrompt(t.data.train[0].prompt);
    const response = [VOCAB.indexOf('<think>'), VOCAB.indexOf('1'), VOCAB.indexOf('+'), VOCAB.indexOf('2')];
    const T = cfg.model.contextLength;
    const lp = await nextTokenLogp(t.policy, prompt, response, 2, T);
    expect(lp).toHaveLength(cfg.model.vocabSize);
    const total = lp.reduce((a, l) => a + Math.exp(l), 0);
    expect(total).toBeCloseTo(1, 5);
    const roll = { prompt, response, logp: [], entropy: [] } as unknown as Rollout;
    const [direct] = await responseLogp(t.policy, [roll], T, 1);
    expect(lp[response[2]]).toBeCloseTo(direct[2], 5);
    await expect(nextTokenLogp(t.policy, prompt, response, 4, T)).rejects.toThrow(/position/);
    t.destroy();
  }, 60_000);
});
