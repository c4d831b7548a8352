/** "Run both" (lib/try-play.ts): the arms' queue with a shared baseline reused, and the computed comparison line. */
import { describe, expect, it } from 'vitest';
import type { RunData } from '../../src/io/runfile';
import { EXPERIMENTS, experimentConfig } from '../../src/ui/lib/experiments';
import { activeArmIndex, canonicalJson, cardReferenceEntries, cardRunNames, compareArms, drawnAs, planCardQueue, runKey } from '../../src/ui/lib/try-play';
import type { ReferenceIndexEntry } from '../../src/ui/lib/reference';

const card = (id: string) => EXPERIMENTS.find((e) => e.id === id)!;
const run = (id: string, preset: string, config = experimentConfig(card('temperature').setups[0]), extra: Partial<RunData> = {}): RunData => ({
  id,
  name: id,
  preset,
  createdAt: 0,
  config,
  steps: [{ step: 1 } as RunData['steps'][number]],
  evals: [],
  done: true,
  note: 'started from the base checkpoint checkpoints/base.mlck',
  ...extra,
});

describe('planCardQueue', () => {
  it('queues every arm with its own config when nothing can be reused', () => {
    const q = planCardQueue(card('temperature'), {}, []);
    expect(q.reference).toBe('try:temperature');
    expect(q.status).toBe('running');
    expect(q.items.map((x) => [x.preset, x.status, x.config?.stages[0].steps])).toEqual([
      ['magic', 'pending', 40],
      ['temp-0.6', 'pending', 40],
    ]);
  });

  it('reuses a finished run of an identical setup (same config, seed, base) and only that', () => {
    const e = card('temperature');
    const a = experimentConfig(e.setups[0]);
    const runs = {
      same: run('same', 'magic', a),
      unfinished: run('unfinished', 'magic', a, { done: false }),
      otherSeed: run('otherSeed', 'magic', { ...a, seed: a.seed + 1 }),
      randomInit: run('randomInit', 'magic', a, { note: 'started from random init: base checkpoint missing' }),
      uploaded: run('uploaded', 'magic', a, { note: 'resumed from a checkpoint at step 3' }),
    };
    const q = planCardQueue(e, runs, ['same', 'unfinished', 'otherSeed', 'randomInit', 'uploaded']);
    expect(planCardQueue(e, runs, ['unfinished', 'otherSeed', 'randomInit', 'uploaded']).items[0].status).toBe('pending');
    expect(q.items[0]).toMatchObject({ status: 'done', runId: 'same', reused: true });
    expect(q.items[1]).toMatchObject({ status: 'pending', runId: null });
    // The baseline of one card is the baseline of another (magic, 2 × 40 steps).
    const q2 = planCardQueue(card('off-policy'), runs, ['same']);
    expect(q2.items[0].runId).toBe('same');
    // Every arm finished already: the queue is done at once.
    const both = planCardQueue(e, { ...runs, b: run('b', 'temp-0.6', experimentConfig(e.setups[1])) }, ['same', 'b']);
    expect(both.status).toBe('done');
  });

  it("the active arm is the card's activeArm among the arms played, else the first", () => {
    expect(card('first-look').activeArm).toBe('b');
    expect(activeArmIndex(card('first-look'))).toBe(1);
    expect(activeArmIndex(card('temperature'))).toBe(0);
    expect(activeArmIndex({ ...card('first-look'), setups: card('first-look').setups }, ['b', 'a'])).toBe(1);
    expect(activeArmIndex({ setups: card('entropy-control').setups, activeArm: 'c' }, ['a', 'c'])).toBe(1);
    expect(activeArmIndex({ setups: card('entropy-control').setups, activeArm: 'z' })).toBe(0);
  });

  it('a lesson plays a subset of the arms', () => {
    expect(planCardQueue(card('entropy-control'), {}, [], ['a', 'c']).items.map((x) => x.preset)).toEqual(['magic', 'const-entropy-large']);
  });

  it('keys runs by the canonical config: key order does not matter, the base does', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    const cfg = experimentConfig(card('first-look').setups[0]);
    expect(runKey(cfg, 'magic-tiny')).not.toBe(runKey(cfg, 'magic'));
  });
});

describe('cardReferenceEntries', () => {
  const entry = (name: string, presets: string[]) => ({ name, presets }) as unknown as ReferenceIndexEntry;
  it('finds a file for every arm, or none', () => {
    const entries = [entry('temperature', ['magic', 'temp-0.6']), entry('entropy-coef', ['magic', 'entropy-off'])];
    expect(cardReferenceEntries(card('temperature'), entries)!.map((e) => e.name)).toEqual(['temperature']);
    expect(cardReferenceEntries(card('entropy-control'), entries)).toBeNull(); // C (const-entropy-large) is in no file here
    const withC = [...entries, entry('entropy-coef-large', ['const-entropy-large'])];
    expect(cardReferenceEntries(card('entropy-control'), withC)!.map((e) => e.name)).toEqual(['temperature', 'entropy-coef-large']);
    expect(cardReferenceEntries(card('first-look'), entries)).toBeNull(); // tiny arms have no reference runs
  });
});

describe('compareArms', () => {
  const s = (label: string, values: number[]) => ({ label, steps: values.map((_, i) => i + 1), values });
  it('names the step where an arm fell below the target, and the arm that never did', () => {
    const text = compareArms([s('A: τ = 1.0', [0.3, 0.2, 0.15, 0.12, 0.11]), s('B: τ = 0.6', [0.2, 0.12, 0.09, 0.08, 0.07])], 0.1);
    expect(text).toBe("B's entropy fell below the target 0.1 at step 3; A's never did. Mean entropy over the last 20% of steps: A 0.110, B 0.070 nats.");
  });
  it('says when neither did, and compares only what is there', () => {
    expect(compareArms([s('A: x', [0.3, 0.2]), s('B: y', [0.25, 0.3])], 0.1)).toMatch(/^Neither run's entropy fell below the target 0.1\. Mean entropy over the last 20% of steps: A 0.200, B 0.300 nats\.$/);
    expect(compareArms([s('A: x', [0.3])], 0.1)).toBe('');
    expect(compareArms([s('A: x', [0.3, 0.05]), s('B: y', [0.02, 0.3])], null)).toBe('Mean entropy over the last 20% of steps: A 0.050, B 0.300 nats.');
  });
  it("arms with their own targets are each read against theirs (the first look's B at 3 nats, not A's 0.1)", () => {
    const a = { ...s('A: MAGIC, tiny', [1.5, 1.4]), target: 0.1 };
    const b = { ...s('B: target 3', [1.6, 1.5]), target: 3 };
    expect(compareArms([a, b], 0.1)).toBe("A's never fell below its target 0.1; B's entropy fell below its target 3 at step 1. Mean entropy over the last 20% of steps: A 1.400, B 1.500 nats.");
    // Equal targets read as before.
    expect(compareArms([{ ...a, target: 0.1 }, { ...b, target: 0.1 }], 0.1)).toMatch(/^Neither run's entropy fell below the target 0\.1\./);
    expect(compareArms([a, { ...b, target: null }], 0.1)).toMatch(/^A's never fell below its target 0\.1; B has no entropy target\./);
  });
});

describe("a reused baseline is drawn under the played card's own arm name", () => {
  it("the off-policy card's finished magic run, reused by the filtering card, is drawn as the filtering card's A", () => {
    const base = run('r1', 'magic', experimentConfig(card('off-policy').setups[0]), { name: 'A: on-policy (N_SGD = 1) · On-policy vs off-policy updates' });
    const q = planCardQueue(card('filtering'), { r1: base }, ['r1']);
    expect(q.items[0].runId).toBe('r1'); // reused
    q.items[1].runId = 'r2';
    const names = cardRunNames({ cardId: 'filtering', mode: 'runs' }, q, EXPERIMENTS);
    expect(names).toEqual({ r1: 'A: rejection on (MAGIC) · Prompt filtering and rejection sampling', r2: 'B: rejection off · Prompt filtering and rejection sampling' });
    const drawn = drawnAs(base, names.r1);
    expect(drawn.name).toBe(names.r1);
    expect(drawn.steps).toBe(base.steps);
    expect(drawnAs(base, names.r1)).toBe(drawn); // the same view while the run is: the charts' memo holds
    expect(drawnAs(base, undefined)).toBe(base);
    // Reference mode, another card's queue, or no card: nothing renamed.
    expect(cardRunNames({ cardId: 'filtering', mode: 'reference' }, q, EXPERIMENTS)).toEqual({});
    expect(cardRunNames({ cardId: 'off-policy', mode: 'runs' }, q, EXPERIMENTS)).toEqual({});
    expect(cardRunNames(null, q, EXPERIMENTS)).toEqual({});
  });
});
