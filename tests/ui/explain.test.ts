import { describe, expect, it } from 'vitest';
import { getPreset, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { lrFactor } from '../../src/rl/lr-schedule';
import { STEP_METRIC_KEY_LIST } from '../../src/rl/metrics';
import type { EvalRecord, StepRecord } from '../../src/rl/trainer-types';
import { avgAtKSE, chartEvents, controllerSpans, explainCharts, heldOutTrend, runEvents, type RunLike } from '../../src/ui/lib/explain';

/** A step record with plausible defaults: 16 groups, 9 kept (5 solved by all, 2 by none), e_k 0.2, controller off. */
function rec(step: number, over: Record<string, number> = {}): StepRecord {
  const r: Record<string, number> = { step, time_ms: step * 1000 };
  for (const k of STEP_METRIC_KEY_LIST) r[k] = 0;
  Object.assign(r, {
    'actor/entropy': 0.2,
    'actor/entropy_sampled': 0.21,
    'actor/entropy_coeff': 1,
    'actor/entropy_coeff_realized': 0,
    'actor/grad_norm': 0.5,
    'critic/score/mean': 0.4,
    'response_length/mean': 20,
    'response_length/clip_ratio': 0.1,
    'batch/groups': 16,
    'batch/kept_groups': 9,
    'batch/solve_all': 5,
    'batch/solve_none': 2,
    'data/pool_size': 600,
    stage: 0,
  });
  return { ...r, ...over } as StepRecord;
}

const run = (steps: StepRecord[], config: RunConfig = getPreset('magic'), evals: EvalRecord[] = []): RunLike => ({ config, steps, evals });
const range = (n: number, f: (step: number) => StepRecord) => Array.from({ length: n }, (_, i) => f(i + 1));

describe('explanations with no steps yet', () => {
  it('every chart says so, and there are no events', () => {
    const r = run([]);
    expect(runEvents(r)).toEqual([]);
    const ex = explainCharts(r);
    for (const id of ['entropy', 'entropy-coeff', 'reward', 'length', 'clipfrac', 'groups', 'grad-norm', 'lr']) expect(ex[id], id).toMatch(/^No steps yet/);
  });
  it('the start evaluation (step 0) already reads on the reward chart', () => {
    const ex = explainCharts(run([], getPreset('magic'), [{ step: 0, 'val/avg@8/t1.0': 0.21, 'val/avg@8/t0.6': 0.33 } as EvalRecord]));
    expect(ex.reward).toBe(
      'Held-out avg@8 at τ = 1.0: 21.0% ± 1.8 (SE, 64 problems × 8) at step 0. Held-out avg@8 at τ = 0.6: 33.0% ± 2.1 (SE, 64 problems × 8) at step 0.',
    );
  });
});

describe('adaptive entropy controller', () => {
  it('never on: no controller event, and the text says why', () => {
    const steps = range(10, (s) => rec(s, { 'actor/entropy_coeff': 1 - 0.005 * (s - 1) }));
    const r = run(steps);
    expect(runEvents(r).filter((e) => e.kind.startsWith('controller'))).toEqual([]);
    expect(explainCharts(r)['entropy-coeff']).toBe(
      'The controller never switched on: e_k stayed at or above the target 0.1 on all 10 steps, so α = 0, and c drifted from 1 to 0.955 (−Δ = 0.005 per step, floor c_min = 0).',
    );
  });

  it('at c₀ = 0 a step below the target applies no bonus: the two sentences agree (no "stayed above" beside "below it on 1")', () => {
    const cfg = validateRunConfig({ loss: { entropy: { c0: 0 } } }, getPreset('magic'));
    const r = run([rec(1, { 'actor/entropy': 0.05, 'actor/entropy_coeff': 0 })], cfg);
    const ex = explainCharts(r);
    expect(ex.entropy).toContain('e_k was below it on 1 of 1 step.');
    expect(ex['entropy-coeff']).toBe(
      'α stayed 0: e_k fell below the target 0.1 on 1 of 1 step, but c was 0 on those steps (c starts at c₀ = 0), and α = c·1{e_k < target}; c is 0 at step 1 (+Δ = 0.005 after each step below the target, −Δ otherwise, within [0, 2]).',
    );
    expect(ex['entropy-coeff']).not.toMatch(/never switched on|stayed at or above/);
  });

  it('switches on when e_k falls below the target, and off when it is back', () => {
    const e = [0.2, 0.15, 0.12, 0.09, 0.08, 0.11, 0.13, 0.14, 0.15, 0.15, 0.15, 0.15, 0.15];
    const steps = e.map((x, i) => rec(i + 1, { 'actor/entropy': x, 'actor/entropy_coeff_realized': x < 0.1 ? 1 : 0 }));
    const r = run(steps);
    const ev = runEvents(r).filter((x) => x.kind.startsWith('controller'));
    expect(ev.map((x) => [x.kind, x.step])).toEqual([
      ['controller-on', 4],
      ['controller-off', 6],
    ]);
    expect(ev[0].detail).toBe('Entropy control switched on at step 4: e_k = 0.09 fell below the target 0.1, so α = c = 1.');
    expect(ev[1].detail).toBe('Entropy control switched off at step 6: e_k = 0.11 is back at or above the target 0.1, so α = 0.');
    expect(explainCharts(r)['entropy-coeff']).toMatch(/^Entropy control switched on at step 4: .* α was applied on 2 of 13 steps; at step 13 it is off \(α = 0\), and c = 1 /);
    // Marked on the entropy charts, not on the groups chart.
    expect(chartEvents(runEvents(r), 'entropy-coeff').map((x) => x.kind)).toEqual(['controller-on', 'controller-off']);
    expect(chartEvents(runEvents(r), 'groups')).toEqual([]);
  });

  it('merges on/off flicker shorter than the merge gap into one span', () => {
    const on = new Set([3, 5, 7, 20]);
    const steps = range(24, (s) => rec(s, { 'actor/entropy_coeff_realized': on.has(s) ? 0.5 : 0, 'actor/entropy': on.has(s) ? 0.09 : 0.12 }));
    expect(controllerSpans(run(steps))).toEqual([
      { start: 3, end: 7 },
      { start: 20, end: 20 },
    ]);
    expect(runEvents(run(steps)).filter((x) => x.kind.startsWith('controller')).map((x) => `${x.kind}@${x.step}`)).toEqual(['controller-on@3', 'controller-off@8', 'controller-on@20', 'controller-off@21']);
  });

  it("a step that trained nothing does not switch the controller off (α is logged 0 there)", () => {
    const steps = [rec(1, { 'actor/entropy': 0.09, 'actor/entropy_coeff_realized': 1 }), rec(2, { 'batch/kept_groups': 0, 'actor/entropy_coeff_realized': 0 })];
    expect(runEvents(run(steps)).filter((x) => x.kind.startsWith('controller')).map((x) => x.kind)).toEqual(['controller-on']);
  });

  it('the lagged gate names e_{k−1}', () => {
    const cfg = getPreset('magic');
    cfg.loss.entropy.gate = 'lagged';
    const steps = [rec(1, { 'actor/entropy': 0.08 }), rec(2, { 'actor/entropy': 0.12, 'actor/entropy_coeff_realized': 1 })];
    expect(runEvents(run(steps, cfg))[0].detail).toBe('Entropy control switched on at step 2: e_k−1 = 0.08 fell below the target 0.1, so α = c = 1.');
  });

  it('reads the sampled estimate when the controller does', () => {
    const cfg = getPreset('magic');
    cfg.loss.entropy.estimator = 'sampled';
    const steps = [rec(1, { 'actor/entropy': 0.2, 'actor/entropy_sampled': 0.07, 'actor/entropy_coeff_realized': 1 })];
    expect(runEvents(run(steps, cfg))[0].detail).toMatch(/e_k = 0\.07 fell below/);
  });

  it('constant and off modes have no controller, and say so', () => {
    const steps = range(3, (s) => rec(s, { 'actor/entropy_coeff_realized': 0.5 }));
    expect(explainCharts(run(steps, getPreset('const-entropy-large')))['entropy-coeff']).toBe('Constant α = 0.5 on every step that updates: no controller, nothing reacts to e_k.');
    expect(runEvents(run(steps, getPreset('const-entropy-large'))).filter((x) => x.kind.startsWith('controller'))).toEqual([]);
    expect(explainCharts(run(steps, getPreset('grpo')))['entropy-coeff']).toBe('No entropy term in this run (loss.entropy.mode = off): c = α = 0 throughout.');
  });
});

describe('entropy collapse and blow-up warnings', () => {
  it('collapse: the 5-step mean below half the target (adaptive)', () => {
    const steps = range(12, (s) => rec(s, { 'actor/entropy': s <= 5 ? 0.2 : 0.03 }));
    const ev = runEvents(run(steps)).filter((x) => x.kind === 'entropy-collapse');
    // Means over steps 6–10… : 0.2·4+0.03 → 0.166, …, step 10: 0.03 < 0.05.
    expect(ev.map((x) => x.step)).toEqual([10]);
    expect(ev[0].detail).toBe('Entropy collapse warning at step 10: the 5-step mean of e_k (0.03 nats) fell below 0.05, half the target 0.1.');
    expect(explainCharts(run(steps)).entropy).toContain('Entropy collapse warning at step 10');
  });
  it('blow-up without a target: twice where the run started; fires once until it comes back', () => {
    const e = [0.25, 0.25, 0.25, 0.25, 0.25, 0.4, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9];
    const steps = e.map((x, i) => rec(i + 1, { 'actor/entropy': x }));
    const ev = runEvents(run(steps, getPreset('const-entropy-large'))).filter((x) => x.kind === 'entropy-blowup');
    expect(ev.map((x) => x.step)).toEqual([9]);
    expect(ev[0].detail).toBe('Entropy blow-up warning at step 9: the 5-step mean of e_k (0.59 nats) rose above 0.5, twice the start 0.25.');
  });
  it('a run holding near its target has no warning, and the text gives the band', () => {
    const steps = range(12, (s) => rec(s, { 'actor/entropy': s % 2 ? 0.12 : 0.09 }));
    expect(runEvents(run(steps)).filter((x) => x.kind.startsWith('entropy'))).toEqual([]);
    expect(explainCharts(run(steps)).entropy).toBe(
      'e_k is 0.09 nats at step 12 (0.12 at step 1). Target 0.1: e_k was below it on 6 of 12 steps. No collapse or blow-up warning (the 5-step mean stayed between 0.05 and 0.216 nats).',
    );
  });
  it('fewer than 5 steps: no warning yet', () => {
    expect(runEvents(run(range(4, (s) => rec(s, { 'actor/entropy': 0.001 }))))).toEqual([]);
  });
});

describe('groups, rejection and filters', () => {
  it('the latest step in words: kept of sampled, solved by all, by none', () => {
    const ex = explainCharts(run([rec(1)]));
    expect(ex.groups).toBe(
      'Step 1: 9 of 16 groups kept: 5 were solved by every response, 2 by none; those have zero advantage and were dropped. The offline filter kept 600 of 1024 training prompts (those the base solved sometimes, not always or never).',
    );
  });
  it('one group solved by every response reads "1 was solved", not "1 were solved"', () => {
    const one = rec(1, { 'batch/kept_groups': 13, 'batch/solve_all': 1, 'batch/solve_none': 2 });
    expect(explainCharts(run([one])).groups).toMatch(/^Step 1: 13 of 16 groups kept: 1 was solved by every response, 2 by none;/);
  });
  it('all groups dropped: an event (consecutive steps merged) and no update', () => {
    const drop = { 'batch/kept_groups': 0, 'batch/solve_all': 10, 'batch/solve_none': 6, 'actor/grad_norm': NaN };
    const steps = [rec(1), rec(2, drop), rec(3, drop), rec(4), rec(5, drop)];
    const ev = runEvents(run(steps)).filter((x) => x.kind === 'all-dropped');
    expect(ev.map((x) => x.step)).toEqual([2, 5]);
    expect(ev[0].detail).toBe('No group kept at steps 2–3: every group was solved by all of its responses or by none (zero advantage), so there was no update.');
    expect(explainCharts(run(steps)).groups).toMatch(/^Step 5: all of 16 groups dropped — 10 solved by every response, 6 by none — so no update this step\./);
    expect(chartEvents(runEvents(run(steps)), 'groups').map((x) => x.kind)).toEqual(['all-dropped', 'all-dropped']);
  });
  it('every step dropped: grad norm has nothing to say', () => {
    const steps = range(3, (s) => rec(s, { 'batch/kept_groups': 0, 'actor/grad_norm': NaN, 'actor/entropy_coeff_realized': 0 }));
    const ex = explainCharts(run(steps));
    expect(ex['grad-norm']).toBe('No update yet, so no gradient norm.');
    expect(runEvents(run(steps)).map((x) => x.kind)).toEqual(['all-dropped']);
  });
  it('stage switch with an online-filter drop', () => {
    const steps = [rec(1), rec(2), rec(3, { stage: 1, 'data/pool_size': 563 }), rec(4, { stage: 1, 'data/pool_size': 563 })];
    const ev = runEvents(run(steps));
    expect(ev.map((x) => `${x.kind}@${x.step}`)).toEqual(['stage@3', 'online-filter@3']);
    expect(ev[1].label).toBe('−37 prompts');
    expect(ev[1].detail).toBe('Online filter at the start of stage 2 (step 3): dropped 37 prompts solved in every rollout of stage 1 (pool 600 → 563).');
    expect(explainCharts(run(steps)).length).toContain('Stage 2 began at step 3: responses may now be 40 tokens long.');
  });
  it('a stage switch where the online filter dropped nothing says so', () => {
    const steps = [rec(1), rec(2, { stage: 1 })];
    expect(explainCharts(run(steps)).groups).toContain('The online filter dropped no prompt at the stage starts so far');
  });
  it('rejection off keeps every group; records without batch/groups fall back to the counts', () => {
    const old = rec(1, { 'batch/groups': NaN, 'data/pool_size': NaN, 'batch/kept_groups': 16 });
    expect(explainCharts(run([old], getPreset('no-rejection'))).groups).toBe('Step 1: rejection sampling is off, so all of 16 groups train, 7 of them with zero advantage (5 solved by every response, 2 by none).');
    const oldDrop = rec(1, { 'batch/groups': NaN, 'data/pool_size': NaN });
    expect(explainCharts(run([oldDrop])).groups).toBe('Step 1: 9 of 16 groups kept: 5 were solved by every response, 2 by none; those have zero advantage and were dropped.');
  });
});

describe('held-out accuracy with its standard error', () => {
  it('SE = √(p(1−p)/(P·k))', () => {
    expect(avgAtKSE(0.5, 256, 8)).toBeCloseTo(Math.sqrt(0.25 / 2048), 12);
    expect(avgAtKSE(NaN, 64, 8)).toBeNaN();
    expect(avgAtKSE(0.5, 0, 8)).toBeNaN();
  });
  it('a gain larger than 2 SE of the difference is called real, a small one within noise', () => {
    const evals = [{ step: 0, 'val/avg@8/t1.0': 0.21 }, { step: 20, 'val/avg@8/t1.0': 0.3 }] as EvalRecord[];
    const r = run([rec(1)], getPreset('magic'), evals);
    expect(heldOutTrend(r, 1)).toBe(
      "Held-out avg@8 at τ = 1.0: 21.0% (step 0) → 30.0% (step 20), +9.0 points; the difference's SE is 2.7 points (64 problems × 8 each), so this is a real gain (more than 2 SE).",
    );
    const small = run([rec(1)], getPreset('magic'), [{ step: 0, 'val/avg@8/t1.0': 0.21 }, { step: 20, 'val/avg@8/t1.0': 0.19 }] as EvalRecord[]);
    expect(heldOutTrend(small, 1)).toMatch(/−2\.0 points; .* so this is within noise \(not more than 2 SE\)\.$/);
    expect(heldOutTrend(small, 0.6)).toBeNull();
  });
  it('no evaluation yet, or none in this run', () => {
    expect(explainCharts(run([rec(1)])).reward).toBe('Train reward 0.4 (mean of the last step; 0.4 over the first). No held-out evaluation yet (every 20 steps and at the end).');
    const cfg = getPreset('magic');
    cfg.eval.everySteps = 0;
    expect(explainCharts(run([rec(1)], cfg)).reward).toMatch(/No held-out evaluation during this run/);
  });
});

describe('the other charts', () => {
  it('clip fractions: on-policy says the clip never acts; off-policy gives the fractions', () => {
    expect(explainCharts(run([rec(1)])).clipfrac).toBe('On-policy (N_SGD = 1): each rollout batch gives one update, so ρ = π_θ/π_old = 1 and the clip never acts (clipfrac 0.0%).');
    const off = explainCharts(run([rec(1, { 'actor/pg_clipfrac': 0.032, 'actor/pg_clipfrac_lower': 0.011 })], getPreset('off-policy-nsgd4'))).clipfrac;
    expect(off).toBe('Off-policy: N_SGD = 4 updates per rollout batch (4 mini-batches × 1 epoch); after the first, π_θ drifts from π_old and 3.2% of tokens hit the upper clip 1 + ε_high = 1.2, 1.1% the lower 1 − ε_low = 0.8 (the last step).');
  });
  it('length and grad norm', () => {
    const steps = range(6, (s) => rec(s, { 'response_length/mean': 26 - s, 'actor/grad_norm': s === 6 ? 1.5 : 0.5 }));
    const ex = explainCharts(run(steps));
    expect(ex.length).toBe('Responses average 22 tokens over the last 5 steps (23 over the first); the limit is 24 in stage 1. 10.0% were truncated at the limit and earn reward 0, so the policy learns to finish in time.');
    expect(ex['grad-norm']).toBe('Gradient norm 0.7 (before clipping; mean of the last 5 steps). 1 of 6 steps went above 1 and were scaled down to it.');
  });
  it('learning rate: the current η and the schedule that set it; none for records made before actor/lr', () => {
    expect(explainCharts(run([rec(1, { 'actor/lr': 6e-4 }), rec(2, { 'actor/lr': 6e-4 })])).lr).toBe('η = 0.0006 at step 2: constant at 0.0006.');
    const cosine = validateRunConfig({ update: { lr: 1e-3, lrSchedule: { mode: 'cosine', warmupSteps: 10, minRatio: 0.1 } } });
    const at150 = 1e-3 * lrFactor(cosine.update.lrSchedule, 150, 400);
    expect(explainCharts(run([rec(150, { 'actor/lr': at150 })], cosine)).lr).toBe(`η = ${Number(at150.toPrecision(3))} at step 150: after a linear warmup over the first 10 steps, a cosine from 0.001 down to 0.0001 at the last step.`);
    // verl's own lr in an imported run is not the lab config's: only the logged value is told
    expect(explainCharts(run([rec(3, { 'actor/lr': 1e-6 })])).lr).toBe('η = 0.000001 at step 3.');
    expect(explainCharts(run([rec(1, { 'actor/lr': NaN })])).lr).toMatch(/^No learning rate recorded/);
  });
  it('imported records without the lab keys do not throw', () => {
    const bare = { step: 1, time_ms: 0 } as StepRecord;
    expect(() => explainCharts(run([bare]))).not.toThrow();
    expect(runEvents(run([bare, { ...bare, step: 2 }]))).toEqual([]);
  });
});

describe('groups edge case', () => {
  it('every group mixed: all kept, nothing to drop', () => {
    const ex = explainCharts(run([rec(1, { 'batch/kept_groups': 16, 'batch/solve_all': 0, 'batch/solve_none': 0 })]));
    expect(ex.groups).toMatch(/^Step 1: all 16 groups kept: each had some right and some wrong answers, so every one carries a learning signal\./);
  });
});
