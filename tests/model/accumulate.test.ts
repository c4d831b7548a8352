/**
 * Gradient accumulation (UpdateOptions.accumulate) on both engines: a mini-batch trained in 2 to 4
 * micro-batches (src/rl/micro-batch.ts) gives the unsplit update's gradients, AdamW moments,
 * parameters and combined statistics, for token-mean and seq-mean weights, with the grad clip
 * binding or not. AdamW's first step is nearly scale-free, so the gradients and moments are
 * compared too: a micro-batch weighed wrong would show there.
 */
import { describe, expect, it } from 'vitest';
import { combineStepStats, type PolicyEngine, type StepStats, type UpdateBatch } from '../../src/model/engine';
import { tokenWeights, type LossAggregation } from '../../src/rl/aggregation';
import { accumulatedUpdate, sliceRows } from '../../src/rl/micro-batch';
import { Rng } from '../../src/util/rng';
import { ADAMW, CASES, ENGINES, LOSS, policyOn, randomSetup, TEMP } from './engines';

const ROWS = 4;
const T = 7;
const cfg = CASES[0].cfg;

/** Four rows of different response lengths (seq-mean differs from token-mean), off-policy with a reference. */
function batchOf(aggregation: LossAggregation, seed: number): UpdateBatch {
  const rng = new Rng(seed);
  const tokens = Uint32Array.from({ length: ROWS * T }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = new Uint32Array(ROWS * T);
  for (let r = 0; r < ROWS; r++) for (let t = 0; t < T - 1; t++) targets[r * T + t] = tokens[r * T + t + 1];
  const lengths = [5, 2, 4, 1];
  const perRow = tokenWeights(lengths, aggregation, undefined, T);
  const mask = new Float32Array(ROWS * T);
  const weights = new Float32Array(ROWS * T);
  const advantages = new Float32Array(ROWS * T);
  const oldLogp = new Float32Array(ROWS * T);
  const refLogp = new Float32Array(ROWS * T);
  for (let r = 0; r < ROWS; r++) {
    const a = rng.normal();
    for (let j = 0; j < lengths[r]; j++) {
      const i = r * T + 1 + j;
      mask[i] = 1;
      weights[i] = perRow[r * T + j];
      advantages[i] = a;
      // Far enough from the policy's log-probs that clipping binds on some tokens.
      oldLogp[i] = -2.4 + 0.6 * rng.normal();
      refLogp[i] = -2.4 + 0.3 * rng.normal();
    }
  }
  return { rows: ROWS, T, temperature: TEMP, tokens, targets, mask, weights, advantages, oldLogp, refLogp };
}

// eps 1e-4: Adam divides by |g|, so summation-order round-off on a gradient that is ~0 (the
// attention key bias) would otherwise move a weight by up to lr in either run.
const adamw = (maxGradNorm: number) => ({ ...ADAMW, eps: 1e-4, maxGradNorm });

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};
const maxAbs = (a: ArrayLike<number>) => maxAbsDiff(a, new Float32Array(a.length));

function expectStatsClose(split: StepStats, whole: StepStats): void {
  for (const k of ['loss', 'pgLoss', 'klSum', 'entSum', 'clipfrac', 'clipfracLower', 'ppoKl', 'gradNorm'] as const) {
    expect(Math.abs(split[k] - whole[k]), k).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(whole[k])));
  }
  expect(split.maskCount).toBe(whole.maskCount);
  expect(split.applied).toBe(whole.applied);
}

for (const engine of ENGINES) {
  describe(`gradient accumulation on ${engine.name}`, () => {
    const run = async (batch: UpdateBatch, micro: number | null, maxGradNorm: number, steps: number) => {
      const pol: PolicyEngine = await policyOn(await engine.backend(), cfg, randomSetup(cfg, 5).p32);
      const stats: StepStats[] = [];
      for (let k = 1; k <= steps; k++) stats.push(await accumulatedUpdate(pol, batch, { kind: 'grpo', opts: LOSS }, { step: k, adamw: adamw(maxGradNorm) }, micro));
      const out = { stats, grads: await engine.grads(pol), params: await pol.getParams(), ...(await pol.getAdamState()) };
      pol.destroy();
      return out;
    };

    for (const aggregation of ['token-mean', 'seq-mean-token-mean'] as const) {
      for (const [clip, maxGradNorm] of [['binding', 1e-3], ['not binding', 1e6]] as const) {
        it(`${aggregation}, clip ${clip}: 2 to 4 micro-batches give the unsplit update`, async () => {
          const batch = batchOf(aggregation, 11);
          const whole = await run(batch, null, maxGradNorm, 2);
          const s0 = whole.stats[0];
          if (clip === 'binding') expect(s0.gradNorm).toBeGreaterThan(10 * maxGradNorm);
          else expect(s0.gradNorm).toBeLessThan(maxGradNorm);
          expect(s0.clipfrac + s0.clipfracLower).toBeGreaterThan(0);
          for (const micro of [1, 2, 3]) {
            const split = await run(batch, micro, maxGradNorm, 2);
            split.stats.forEach((s, k) => expectStatsClose(s, whole.stats[k]));
            const g = maxAbs(whole.grads);
            expect(maxAbsDiff(split.grads, whole.grads), 'grads').toBeLessThanOrEqual(1e-5 * g);
            expect(maxAbsDiff(split.m, whole.m), 'AdamW m').toBeLessThanOrEqual(1e-5 * maxAbs(whole.m));
            expect(maxAbsDiff(split.v, whole.v), 'AdamW v').toBeLessThanOrEqual(1e-4 * maxAbs(whole.v));
            expect(maxAbsDiff(split.params, whole.params), 'params').toBeLessThanOrEqual(1e-5);
          }
        });
      }
    }

    it('null or a micro size ≥ the rows is the plain update, bit for bit', async () => {
      const batch = batchOf('token-mean', 3);
      const a = await run(batch, null, 1, 1);
      const b = await run(batch, ROWS, 1, 1);
      expect(b.stats).toEqual(a.stats);
      expect(Buffer.from(b.params.buffer)).toEqual(Buffer.from(a.params.buffer));
    });

    it('a micro-batch weighed on its own (not the whole mini-batch) is told apart', async () => {
      // The test's own control: renormalising each half's weights to sum to 1 changes the step.
      const batch = batchOf('token-mean', 11);
      const whole = await run(batch, null, 1e6, 1);
      const pol = await policyOn(await engine.backend(), cfg, randomSetup(cfg, 5).p32);
      const parts: StepStats[] = [];
      for (const [i, from] of [0, 2].entries()) {
        const part = sliceRows(batch, from, 2);
        const sum = part.weights.reduce((s, w) => s + w, 0);
        parts.push(await pol.update({ ...part, weights: part.weights.map((w) => w / sum) }, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: adamw(1e6), accumulate: i === 0 ? 'first' : 'last' }));
      }
      const grads = await engine.grads(pol);
      pol.destroy();
      expect(maxAbsDiff(grads, whole.grads)).toBeGreaterThan(1e-3 * maxAbs(whole.grads));
      expect(Math.abs(combineStepStats(parts).loss - whole.stats[0].loss)).toBeGreaterThan(1e-4);
    });

    it("refuses 'middle' or 'last' without a 'first', and applies nothing after a non-finite micro-batch", async () => {
      const batch = batchOf('token-mean', 4);
      const setup = randomSetup(cfg, 5);
      const pol = await policyOn(await engine.backend(), cfg, setup.p32);
      const o = { step: 1, adamw: ADAMW };
      await expect(pol.update(batch, { kind: 'grpo', opts: LOSS }, { ...o, accumulate: 'last' })).rejects.toThrow(/without a 'first'/);
      const bad = sliceRows(batch, 0, 2);
      bad.advantages = bad.advantages!.map((a, i) => (bad.mask[i] ? NaN : a));
      const first = await pol.update(bad, { kind: 'grpo', opts: LOSS }, { ...o, accumulate: 'first' });
      expect(Number.isNaN(first.loss)).toBe(true);
      expect(first.applied).toBe(false);
      expect(Number.isNaN(first.gradNorm)).toBe(true);
      const last = await pol.update(sliceRows(batch, 2, 2), { kind: 'grpo', opts: LOSS }, { ...o, accumulate: 'last' });
      expect(last.applied).toBe(false);
      expect(combineStepStats([first, last]).applied).toBe(false);
      expect(Buffer.from((await pol.getParams()).buffer)).toEqual(Buffer.from(setup.p32.buffer));
      // The next full update applies as usual.
      expect((await pol.update(batch, { kind: 'grpo', opts: LOSS }, o)).applied).toBe(true);
      pol.destroy();
    });
  });
}
