/**
 * Every -tiny preset through the real trainer on the GPU, starting from the shipped tiny base
 * policy (so some groups earn mixed rewards and updates happen), each with the rule its
 * ablation changes checked on the step records.
 */
import { webgpuBackend } from '../../src/model/gpu-engine';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getPreset, presetNames } from '../../src/rl/config';
import { MagicTrainer, type StepRecord, type TrainStepResult } from '../../src/rl/trainer';
import type { OfflineFilterCache } from '../../src/rl/offline-sampling';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/model/checkpoint';
import { gpu } from '../gpu/harness';

const BASE_TINY = new Uint8Array(readFileSync(new URL('../../public/checkpoints/base-tiny.mlck', import.meta.url)));

async function runAll(name: string, overrides: object = {}) {
  const rt = await gpu();
  const cfg = { ...getPreset(name), ...overrides };
  // More prompts per step than the tests' default so that mixed-reward groups occur.
  const t = await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: BASE_TINY });
  const results: TrainStepResult[] = [];
  while (!t.done) results.push(await t.trainStep());
  return { t, results, records: results.map((r) => r.record) };
}

const updated = (r: StepRecord) => r['batch/kept_groups'] > 0;

describe('tiny presets through the trainer', () => {
  // One test per preset, so each has the whole time limit on a loaded machine.
  it.each(presetNames().filter((n) => n.endsWith('-tiny')))('%s runs its whole schedule and evaluates at the end', async (name) => {
    const { t, results } = await runAll(name);
    expect(t.step, name).toBe(getPreset(name).stages.reduce((a, s) => a + (s.steps ?? 0), 0));
    expect(results[results.length - 1].eval, name).toBeDefined();
    t.destroy();
  });

  it('magic: adaptive α is c when e_k < target and 0 otherwise (e_k = the configured estimate); rejection keeps exactly the mixed groups', async () => {
    const tiny = getPreset('magic-tiny');
    const target = tiny.loss.entropy.target;
    for (const estimator of ['exact', 'sampled'] as const) {
      const key = estimator === 'exact' ? 'actor/entropy' : 'actor/entropy_sampled';
      const { records } = await runAll('magic-tiny', { rollout: { ...tiny.rollout, batchPrompts: 8 }, loss: { ...tiny.loss, entropy: { ...tiny.loss.entropy, estimator } } });
      for (const r of records) {
        expect(r['batch/kept_groups']).toBe(8 - r['batch/solve_none'] - r['batch/solve_all']);
        if (updated(r)) expect(r['actor/entropy_coeff_realized'], estimator).toBe(r[key] < target ? r['actor/entropy_coeff'] : 0);
        // Both estimates are logged every step, and they are different numbers.
        expect(r['actor/entropy']).toBeGreaterThan(0);
        expect(r['actor/entropy_sampled']).toBeGreaterThan(0);
        expect(r['actor/entropy']).not.toBe(r['actor/entropy_sampled']);
      }
      expect(records.some(updated)).toBe(true);
    }
  });

  it('no-rejection keeps every group; const-entropy-small / -large apply their fixed α', async () => {
    const nr = await runAll('no-rejection-tiny');
    for (const r of nr.records) expect(r['batch/kept_groups']).toBe(getPreset('no-rejection-tiny').rollout.batchPrompts);
    for (const name of ['const-entropy-small-tiny', 'const-entropy-large-tiny']) {
      const ce = await runAll(name, { rejection: { mode: 'off', maxRefillRounds: 0 } });
      for (const r of ce.records) expect(r['actor/entropy_coeff_realized'], name).toBe(getPreset(name).loss.entropy.constantCoef);
    }
  });

  it('off-policy N_SGD=4 takes exactly 4 optimizer steps per rollout batch, however many groups rejection keeps; on-policy takes one', async () => {
    // Rejection on (the preset as is): 4 prompts per step keep 0…4 groups; a step that keeps any takes exactly 4 steps.
    const rt = await gpu();
    const tiny = getPreset('off-policy-nsgd4-tiny');
    const t = await MagicTrainer.create(webgpuBackend(rt), { ...tiny, rollout: { ...tiny.rollout, batchPrompts: 4 } }, { checkpoint: BASE_TINY });
    const kept: number[] = [];
    while (!t.done) {
      const before = t.optimizerSteps;
      const r = (await t.trainStep()).record;
      kept.push(r['batch/kept_groups']);
      expect(t.optimizerSteps - before, `step ${r.step}, ${r['batch/kept_groups']} groups kept`).toBe(r['batch/kept_groups'] > 0 ? 4 : 0);
    }
    // Some step kept fewer groups than N_SGD (the old group-wise split took only that many steps).
    expect(kept.some((k) => k > 0 && k < 4), JSON.stringify(kept)).toBe(true);
    const off = await runAll('off-policy-nsgd4-tiny', { rejection: { mode: 'off', maxRefillRounds: 0 } });
    expect(off.t.optimizerSteps).toBe(4 * off.t.step);
    const on = await runAll('magic-tiny', { rejection: { mode: 'off', maxRefillRounds: 0 } });
    expect(on.t.optimizerSteps).toBe(on.t.step);
    // Every step after the first mini-batch sees a moved policy: ρ ≠ 1 shows up as a non-zero ppo_kl.
    expect(off.records.some((r) => r['actor/ppo_kl'] !== 0)).toBe(true);
    expect(on.records.every((r) => Math.abs(r['actor/ppo_kl']) < 1e-6)).toBe(true);
    // clip-high presets are off-policy-nsgd4 with another ε_high: also exactly 4 steps each.
    const ch = await runAll('clip-high-0.28-tiny', { rejection: { mode: 'off', maxRefillRounds: 0 } });
    expect(ch.t.optimizerSteps).toBe(4 * ch.t.step);
  });

  it('KL on takes π_ref when the later stage starts; masks zero the advantage of truncated responses', async () => {
    const rt = await gpu();
    const kl = await MagicTrainer.create(webgpuBackend(rt), getPreset('kl-on-tiny'), { checkpoint: BASE_TINY });
    await kl.trainStep();
    await kl.trainStep();
    expect(kl.hasReference).toBe(false); // stage 0: β = 0, no reference policy
    await kl.trainStep();
    expect(kl.hasReference).toBe(true);
    expect((await runAll('grpo-tiny')).t.hasReference).toBe(true); // β > 0 from the start
    expect((await runAll('magic-tiny')).t.hasReference).toBe(false);
    for (const name of ['adv-mask-before-tiny', 'adv-mask-after-tiny']) {
      const { results } = await runAll(name, { stages: [{ maxResponseLength: 6, steps: 2 }] });
      const samples = results.flatMap((r) => r.samples);
      expect(samples.some((s) => s.truncated), name).toBe(true);
      for (const s of samples) if (s.truncated) expect(s.advantage, name).toBe(0);
    }
  });

  it('single-stage stays in stage 0; the two-stage schedule moves to stage 1 with the longer limit', async () => {
    const single = await runAll('single-stage-tiny');
    expect(single.records.every((r) => r.stage === 0)).toBe(true);
    const multi = await runAll('magic-tiny');
    expect(multi.records.map((r) => r.stage)).toEqual([0, 0, 1, 1]);
  });
});

describe('offline filter', () => {
  it('keeps prompts solved sometimes but not always; a result stored in the base checkpoint is reused exactly', async () => {
    const rt = await gpu();
    const tiny = getPreset('magic-tiny');
    const cfg = { ...tiny, data: { ...tiny.data, trainSize: 40, testSize: 8, offlineFilter: { enabled: true, samples: 4 } } };
    const fresh = await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: BASE_TINY });
    const report = fresh.offlineReport!;
    expect(report.keep.length).toBeGreaterThan(0);
    expect(report.keep.length + report.droppedUnsolved + report.droppedSolved).toBe(40);
    for (const i of report.keep) expect(fresh.offlineCorrect![i] > 0 && fresh.offlineCorrect![i] < 4).toBe(true);
    expect(fresh.poolSize).toBe(report.keep.length);

    const base = decodeCheckpoint(BASE_TINY);
    const withCache = encodeCheckpoint({ ...base, meta: { ...base.meta, offlineFilter: { key: fresh.offlineFilterKey(), correct: fresh.offlineCorrect } } });
    const messages: string[] = [];
    const cachedRun = await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: withCache, onProgress: (m) => messages.push(m) });
    expect(messages.join('\n')).toMatch(/using the result stored in the base checkpoint/);
    expect(cachedRun.offlineReport).toEqual(report);
    // Another seed samples other prompts: the stored result does not apply and is recomputed.
    const other: string[] = [];
    await MagicTrainer.create(webgpuBackend(rt), { ...cfg, seed: 2 }, { checkpoint: withCache, onProgress: (m) => other.push(m) });
    expect(other.join('\n')).toMatch(/sampling 4 responses for each of 40 prompts/);
    // Other weights under the same meta (a re-run sft, an edited file): the stored result is stale and is recomputed.
    const nudged = Float32Array.from(base.params);
    nudged[0] += 1e-3;
    const otherWeights = encodeCheckpoint({ ...base, params: nudged, meta: { ...base.meta, offlineFilter: { key: fresh.offlineFilterKey(), correct: fresh.offlineCorrect } } });
    const stale: string[] = [];
    await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: otherWeights, onProgress: (m) => stale.push(m) });
    expect(stale.join('\n')).toMatch(/sampling 4 responses for each of 40 prompts/);
    expect(stale.join('\n')).not.toMatch(/using the result stored/);
  });

  it('a shared cache: the first run samples and writes it, the next with the same key reads it; the base\'s stored result wins', async () => {
    const rt = await gpu();
    const tiny = getPreset('magic-tiny');
    const cfg = { ...tiny, data: { ...tiny.data, trainSize: 40, testSize: 8, offlineFilter: { enabled: true, samples: 4 } } };
    const store = new Map<string, readonly number[]>();
    const calls: string[] = [];
    const cache: OfflineFilterCache = {
      name: 'the test cache',
      get: (key, size) => (calls.push('get'), store.get(key)?.length === size ? [...store.get(key)!] : undefined),
      put: (key, correct) => (calls.push('put'), store.set(key, [...correct])),
    };
    const m1: string[] = [];
    const first = await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: BASE_TINY, offlineFilterCache: cache, onProgress: (m) => m1.push(m) });
    expect(m1.join('\n')).toMatch(/sampling 4 responses for each of 40 prompts/);
    expect(calls).toEqual(['get', 'put']);
    expect(store.get(first.offlineFilterKey())).toEqual(first.offlineCorrect);
    const m2: string[] = [];
    const second = await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: BASE_TINY, offlineFilterCache: cache, onProgress: (m) => m2.push(m) });
    expect(m2.join('\n')).toMatch(/using the result stored in the test cache/);
    expect(calls).toEqual(['get', 'put', 'get']); // read, not written again
    expect(second.offlineReport).toEqual(first.offlineReport);
    // A base that stores the result: the cache is not consulted.
    const base = decodeCheckpoint(BASE_TINY);
    const withStored = encodeCheckpoint({ ...base, meta: { ...base.meta, offlineFilter: { key: first.offlineFilterKey(), correct: first.offlineCorrect } } });
    const m3: string[] = [];
    await MagicTrainer.create(webgpuBackend(rt), cfg, { checkpoint: withStored, offlineFilterCache: cache, onProgress: (m) => m3.push(m) });
    expect(m3.join('\n')).toMatch(/stored in the base checkpoint/);
    expect(calls.length).toBe(3);
  });
});

describe('shipped base checkpoint', () => {
  it('carries a current offline-filter result for every full-size preset that filters, so the lab starts RL without re-sampling', async () => {
    const rt = await gpu();
    const base = new Uint8Array(readFileSync(new URL('../../public/checkpoints/base.mlck', import.meta.url)));
    const names = presetNames().filter((n) => !n.endsWith('-tiny') && getPreset(n).data.offlineFilter.enabled);
    expect(names).toContain('magic');
    for (const name of names) {
      const messages: string[] = [];
      // Sampling the whole train pool at full size takes minutes here: fail at once instead.
      const stop = (m: string) => {
        messages.push(m);
        if (/sampling/.test(m)) throw new Error(`${name}: the stored result does not match (${m}); rebuild it with \`magic-lab data filter --write\``);
      };
      const t = await MagicTrainer.create(webgpuBackend(rt), getPreset(name), { checkpoint: base, onProgress: stop });
      expect(messages.join('\n'), name).toMatch(/using the result stored in the base checkpoint/);
      expect(t.poolSize, name).toBeGreaterThan(0);
      t.destroy();
    }
  });
});
