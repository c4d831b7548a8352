/**
 * Real verl logs (tests/verl/fixtures/real-logs/, origins in ORIGIN.md) import with entropy, score
 * and response-length series, and Skywork-OR1's names map to the lab's (src/verl/fork-names.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forkRenames } from '../../src/verl/fork-names';
import { importVerlRun } from '../../src/verl/import';

const read = (name: string) => ({ name, text: readFileSync(new URL(`./fixtures/real-logs/${name}`, import.meta.url), 'utf8') });
const series = (steps: Record<string, number>[], key: string) => steps.map((s) => s[key]).filter((v) => Number.isFinite(v));

describe('real-log fixtures', () => {
  for (const name of ['upstream-v0.4-gsm8k.txt', 'verl-sglang-project.txt', 'skywork-or1-fork.txt']) {
    it(`${name}: entropy, score and response length present`, () => {
      const r = importVerlRun([read(name)], { val: { n: 8 } });
      expect(r.formats).toEqual(['verl-console']);
      const steps = r.steps as unknown as Record<string, number>[];
      expect(steps.length).toBeGreaterThan(0);
      for (const key of ['actor/entropy', 'critic/score/mean', 'response_length/mean']) expect(series(steps, key).length, key).toBe(steps.length);
    });
  }
  it("the fork's entropy and two-temperature validation land on the lab's series", () => {
    const r = importVerlRun([read('skywork-or1-fork.txt')], { val: { n: 8 } });
    const steps = r.steps as unknown as Record<string, number>[];
    expect(series(steps, 'actor/entropy')).toEqual([0.612, 0.598]);
    expect(steps[0]['actor/entropy_loss']).toBeUndefined();
    const ev = r.evals[0] as unknown as Record<string, number>;
    expect(ev['val/avg@8/t0.6']).toBe(0.412);
    expect(ev['val/avg@8/t1.0']).toBe(0.371);
    expect(ev['val/magic/lab/countdown/avg@8/t0.6']).toBe(0.304);
    expect(r.mappedEvalKeys).toContain('val/avg@8/t0.6');
  });
});

describe('forkRenames', () => {
  it('maps entropy_loss unless actor/entropy is there already', () => {
    const notes: string[] = [];
    expect(forkRenames(new Set(['actor/entropy_loss']), undefined, notes).get('actor/entropy_loss')).toBe('actor/entropy');
    expect(forkRenames(new Set(['actor/entropy_loss', 'actor/entropy']), undefined, notes).size).toBe(0);
  });
  it('keeps the fork validation keys, and says why, when n_val is unknown', () => {
    const notes: string[] = [];
    expect(forkRenames(new Set(['val/math_t0.6', 'val/math/aime24_t0.6']), undefined, notes).size).toBe(0);
    expect(notes.join('\n')).toMatch(/--val-n/);
  });
  it('several top-level sources: each keeps its own name (no aggregate guessed)', () => {
    const r = forkRenames(new Set(['val/math_t0.6', 'val/code_t0.6']), 4, []);
    expect([...r.values()].sort()).toEqual(['val/code/avg@4/t0.6', 'val/math/avg@4/t0.6']);
  });
});
