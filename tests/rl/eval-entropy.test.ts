/**
 * The held-out evaluation logs the mean entropy of what it sampled at each temperature
 * (val/entropy/t…): the token mean of the samples' H_t, as actor/entropy is for rollouts, so a run
 * whose rollouts sample at τ = 0.6 still has an entropy at τ = 1.0 on every other run's scale.
 */
import { describe, expect, it } from 'vitest';
import type { GenerateRequest, GenerateResult } from '../../src/model/engine-types';
import type { PolicyEngine } from '../../src/model/engine';
import { evalEntropyKey } from '../../src/rl/metrics';
import { evaluatePolicy } from '../../src/rl/rollout';
import { EOS_ID, generateProblems } from '../../src/tasks';
import { Rng } from '../../src/util/rng';

/**
 * A policy whose every call answers with responses of varying length (1–4 tokens, EOS last except
 * when truncated) and per-token entropies drawn from the request's seed and temperature, recorded
 * so the test can recompute the token mean on its own.
 */
function fakePolicy(seen: { temperature: number; entropy: number[][] }[]): PolicyEngine {
  return {
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const rng = new Rng(req.seed ^ Math.round(req.temperature * 1000));
      const B = req.prompts.length;
      const res: GenerateResult = { responses: [], finish: [], logp: [], entropy: [], steps: req.maxResponseLength, liveSlots: [] };
      for (let b = 0; b < B; b++) {
        const len = 1 + Math.floor(rng.next() * Math.min(4, req.maxResponseLength));
        const truncated = len === req.maxResponseLength;
        const tokens = Array.from({ length: len }, (_, i) => (i === len - 1 && !truncated ? EOS_ID : 10 + i));
        res.responses.push(tokens);
        res.finish.push(truncated ? 'truncated' : 'eos');
        res.logp.push(tokens.map(() => -rng.next()));
        res.entropy.push(tokens.map(() => req.temperature * (0.05 + rng.next())));
      }
      seen.push({ temperature: req.temperature, entropy: res.entropy });
      return res;
    },
  } as unknown as PolicyEngine;
}

describe('evaluatePolicy: val/entropy/t…', () => {
  it('is the token mean of the sampled responses\' H_t at each temperature, over the real rows only', async () => {
    const problems = generateProblems(new Rng(7), { families: ['addition'], difficulty: 1, count: 5 });
    const seen: { temperature: number; entropy: number[][] }[] = [];
    // 5 problems × k = 3 = 15 samples in batches of 4: the last batch is padded with one copy, not counted.
    const rec = await evaluatePolicy(fakePolicy(seen), problems, { k: 3, temperatures: [1, 0.6], maxResponseLength: 6, topP: 1, batch: 4, seed: 11 });
    expect(evalEntropyKey(1)).toBe('val/entropy/t1.0');
    expect(evalEntropyKey(0.6)).toBe('val/entropy/t0.6');
    for (const t of [1, 0.6]) {
      const rows = seen.filter((s) => s.temperature === t).flatMap((s) => s.entropy).slice(0, 15);
      const tokens = rows.flat();
      const expected = tokens.reduce((a, b) => a + b, 0) / tokens.length;
      expect(rec[evalEntropyKey(t)]).toBeCloseTo(expected, 12);
    }
    // The fake's entropy scales with τ: the two temperatures are reported apart, never mixed.
    expect(rec['val/entropy/t0.6']).toBeLessThan(rec['val/entropy/t1.0']);
  });
});
