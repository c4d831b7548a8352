/** `bench --rl-parts`: the report's medians, ratios and sum of parts; a missing phase is an error; the recorder passes calls through. */
import { describe, expect, it } from 'vitest';
import { rlPartsReport, rlPartsTable, type RlPartsRound } from '../../src/run/rl-parts-report';
import { recordingPolicy } from '../../src/run/rl-parts';
import type { GenerateRequest, PolicyEngine, UpdateBatch, UpdateLoss, UpdateOptions } from '../../src/model/engine';

/** A round whose phases are the given seconds (reward, old_log_prob, ref, adv fixed), step = Σ + other. */
function round(gen: number, upd: number, aloneGen: number, aloneUpd: number, other = 0, evalS = 1, genTokens = 100, evalTokens = 800): RlPartsRound {
  const host = { 'timing_s/reward': 0.01, 'timing_s/old_log_prob': 0.002, 'timing_s/ref': 0, 'timing_s/adv': 0.003 };
  return {
    step: { 'timing_s/gen': gen, 'timing_s/update_actor': upd, ...host, 'timing_s/step': gen + upd + 0.015 + other },
    alone: { gen: aloneGen, update_actor: aloneUpd },
    genTokens,
    eval: { s: evalS, tokens: evalTokens },
  };
}

describe('rlPartsReport', () => {
  it('takes medians after the warm-up round, ratios per phase, and the step against the sum of parts alone', () => {
    const rounds = [
      round(9, 9, 9, 9, 0, 99), // warm-up: left out
      round(0.2, 0.5, 0.1, 0.4, 0.1, 1.2),
      round(0.4, 0.3, 0.2, 0.2, 0, 0.8),
      round(0.3, 0.4, 0.15, 0.3, 0.02, 1.0),
    ];
    const r = rlPartsReport(rounds);
    expect(r.rounds).toBe(3);
    const row = (p: string) => r.phases.find((x) => x.phase === p)!;
    expect(row('gen')).toMatchObject({ in_step_s: 0.3, alone_s: 0.15 });
    expect(row('gen').ratio).toBeCloseTo(2, 12);
    expect(row('update_actor')).toMatchObject({ in_step_s: 0.4, alone_s: 0.3 });
    expect(row('reward')).toMatchObject({ in_step_s: 0.01, alone_s: null, ratio: null });
    expect(r.phases.map((p) => p.phase)).not.toContain('testing');
    // steps: 0.815, 0.715, 0.735 → median 0.735; parts: 0.15 + 0.3 + 0.015 host
    expect(r.step_s).toBeCloseTo(0.735, 12);
    expect(r.sum_of_parts_s).toBeCloseTo(0.465, 12);
    expect(r.step_over_parts).toBeCloseTo(0.735 / 0.465, 12);
    // eval 1.2/800, 0.8/800, 1.0/800 → 1/800 s per token; rollout 0.1/100, 0.2/100, 0.15/100 → 0.0015
    expect(r.eval.s_per_token).toBeCloseTo(1 / 800, 12);
    expect(r.eval.rollout_s_per_token).toBeCloseTo(0.0015, 12);
    expect(r.eval.rollout_of_equal_tokens_s).toBeCloseTo(1.2, 12);
    expect(r.eval.ratio).toBeCloseTo(1 / 800 / 0.0015, 12);
    const table = rlPartsTable(r).join('\n');
    expect(table).toContain('| timing_s/gen | 0.3000 s | 0.1500 s | 2.00× |');
    expect(table).toMatch(/1\.58× \(> 1\.3 ✗\)/);
    expect(table).toMatch(/0\.83× \(≤ 2 ✓\)/);
  });

  it('compares decode slots (rows decoded, summed over steps) when the rounds have them', () => {
    const withSlots = (evalS: number, gen: number) => ({ ...round(0.1, 0.1, gen, 0.1, 0, evalS, 100, 800), genSlots: 200, eval: { s: evalS, tokens: 800, slots: 3200 } });
    const r = rlPartsReport([withSlots(1.6, 0.1), withSlots(3.2, 0.2), withSlots(2.4, 0.15)], 0);
    // tokens per slot 0.25 vs 0.5; seconds per slot 2.4/3200 vs 0.15/200 → 1×
    expect(r.eval.slots).toEqual({ tokens_per_slot: 0.25, rollout_tokens_per_slot: 0.5, s_per_slot_ratio: 1 });
    expect(r.eval.ratio).toBeCloseTo(2, 12);
    expect(rlPartsReport([round(0.1, 0.1, 0.1, 0.1)], 0).eval.slots).toBeUndefined();
  });

  it('averages the middle two of an even count', () => {
    const r = rlPartsReport([round(0.1, 0.1, 0.1, 0.1), round(0.3, 0.1, 0.1, 0.1)], 0);
    expect(r.phases[0].in_step_s).toBeCloseTo(0.2, 12);
  });

  it('refuses a round whose step record lacks a phase, and no rounds after warm-up', () => {
    const bad = round(0.1, 0.1, 0.1, 0.1);
    delete bad.step['timing_s/old_log_prob'];
    expect(() => rlPartsReport([round(1, 1, 1, 1), bad])).toThrow(/round 2: the step record has no timing_s\/old_log_prob/);
    const noStep = round(0.1, 0.1, 0.1, 0.1);
    delete noStep.step['timing_s/step'];
    expect(() => rlPartsReport([noStep], 0)).toThrow(/timing_s\/step/);
    expect(() => rlPartsReport([round(1, 1, 1, 1)])).toThrow(/no rounds after 1 warm-up/);
    const noAlone = round(0.1, 0.1, 0.1, NaN);
    expect(() => rlPartsReport([noAlone], 0)).toThrow(/no alone time for timing_s\/update_actor/);
  });
});

describe('recordingPolicy', () => {
  it('passes every call through and records generate and update calls until taken', async () => {
    const seen: string[] = [];
    const inner = {
      backend: 'wasm',
      cfg: {},
      async generate(req: GenerateRequest) {
        seen.push('generate');
        return { responses: req.prompts.map(() => [1, 2, 3]), finish: [], logp: [], entropy: [], steps: 3, liveSlots: [2, 2, 1] };
      },
      async update() {
        seen.push('update');
        return { applied: true };
      },
      getParams() {
        return Promise.resolve(new Float32Array([this === inner ? 1 : 0]));
      },
    } as unknown as PolicyEngine;
    const rec = recordingPolicy(inner);
    const req = { prompts: [[0], [0]], maxResponseLength: 4, temperature: 1, topP: 1, seed: 1, eosId: 9, padId: 0 };
    await rec.policy.generate(req);
    await rec.policy.update({} as UpdateBatch, {} as UpdateLoss, { step: 1 } as UpdateOptions);
    expect(seen).toEqual(['generate', 'update']);
    expect(Array.from(await rec.policy.getParams())).toEqual([1]); // other methods bound to the inner policy
    const calls = rec.take();
    expect(calls.generate).toEqual([{ req, tokens: 6, slots: 5 }]); // 2 + 2 + 1 rows decoded
    expect(calls.update[0].o).toEqual({ step: 1 });
    expect(rec.take()).toEqual({ generate: [], update: [] });
  });
});

describe('benchRlParts on the CPU engine', () => {
  it('replays each step\'s decode and update exactly and leaves the run where the step left it', async () => {
    const { wasmBackend } = await import('../../src/model/cpu-policy');
    const { benchRlParts } = await import('../../src/run/rl-parts');
    const backend = await wasmBackend({ threads: 1 });
    try {
      let now = 0;
      const clock = () => (now += 1); // 1 ms per read: the timing is not under test, the bookkeeping is
      const r = await benchRlParts(backend, { rounds: 2, clock });
      expect(r.replay_exact).toEqual({ gen: true, update_actor: true });
      expect(r.eval).toEqual({ testProblems: 64, k: 8, temperatures: [1, 0.6] });
      for (const round of r.rounds) {
        expect(round.genTokens).toBeGreaterThan(0);
        expect(round.eval.tokens).toBeGreaterThan(round.genTokens); // 1,024 responses against 128
        expect(round.eval.slots).toBeGreaterThanOrEqual(round.eval.tokens);
        expect(round.step['timing_s/testing']).toBeUndefined(); // evaluation off in the step
      }
      expect(r.report.rounds).toBe(1);
      // Two plain steps from the same base, no bench around them: the same weights.
      const { getPreset } = await import('../../src/rl/config');
      const { MagicTrainer } = await import('../../src/rl/trainer');
      const { weightsChecksum } = await import('../../src/rl/offline-sampling');
      const { shippedBaseFor } = await import('../../src/run/rl-parts');
      const preset = getPreset('magic');
      const config = { ...preset, eval: { ...preset.eval, everySteps: 0 } };
      const plain = await MagicTrainer.create(backend, config, { checkpoint: shippedBaseFor(config) });
      await plain.trainStep();
      await plain.trainStep();
      expect(r.end_weights).toBe(weightsChecksum(await plain.policy.getParams()));
      plain.destroy();
    } finally {
      backend.destroy();
    }
  }, 120_000);
});
