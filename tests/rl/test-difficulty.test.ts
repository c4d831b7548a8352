/** data.testDifficulty: a held-out split harder than training (a knob of the coverage regime). */
import { describe, expect, it } from 'vitest';
import { buildRunDataset, DEFAULT_RUN_CONFIG, getPreset, validateRunConfig } from '../../src/rl/config';
import { offlineFilterKey } from '../../src/rl/offline-sampling';

describe('data.testDifficulty', () => {
  it('absent by default and when null: a validated config serialises as before it existed', () => {
    const cfg = validateRunConfig({});
    expect('testDifficulty' in cfg.data).toBe(false);
    expect(JSON.stringify(cfg)).not.toContain('testDifficulty');
    expect('testDifficulty' in validateRunConfig({ data: { testDifficulty: null } }).data).toBe(false);
    expect(offlineFilterKey(cfg, 'crc')).not.toContain('testDifficulty');
  });

  it('builds the test set at its level and the training set at data.difficulty', () => {
    const cfg = validateRunConfig({ data: { families: ['multiply', 'sort'], difficulty: 2, testDifficulty: 4, trainSize: 40, testSize: 20 }, eval: { testProblems: 20 } });
    const ds = buildRunDataset(cfg);
    expect(new Set(ds.test.map((p) => p.difficulty))).toEqual(new Set([4]));
    expect(new Set(ds.train.map((p) => p.difficulty))).toEqual(new Set([2]));
    // Without it the test set is at the training level; the training set's own draws keep their stream.
    const plain = buildRunDataset(validateRunConfig({ data: { families: ['multiply', 'sort'], difficulty: 2, trainSize: 40, testSize: 20 }, eval: { testProblems: 20 } }));
    expect(new Set(plain.test.map((p) => p.difficulty))).toEqual(new Set([2]));
    expect(offlineFilterKey(cfg, 'crc')).toContain('"testDifficulty":4');
  });

  it('bad values are one error naming the field', () => {
    expect(() => validateRunConfig({ data: { difficulty: 2, testDifficulty: 2 } })).toThrow(/^data\.testDifficulty: must be an integer in \[3, 5\], got 2/);
    expect(() => validateRunConfig({ data: { testDifficulty: 2.5 } })).toThrow(/data\.testDifficulty/);
    expect(() => validateRunConfig({ data: { testDifficulty: 'hard' } })).toThrow(/data\.testDifficulty: must be an integer, got/);
  });

  it('refuses a test level whose prompts do not fit the context with the longest stage', () => {
    const tiny = getPreset('magic-tiny');
    // The tiny rung's context is 64 tokens; the longest stage 24 tokens; sort at level 6 has 27-token prompts (9 at level 1).
    expect(() => validateRunConfig({ data: { families: ['sort'], difficulty: 1, testDifficulty: 6 }, stages: [{ maxResponseLength: 48, steps: 2 }] }, tiny)).toThrow(/^data\.testDifficulty: .*exceed model\.contextLength 64/);
    expect(DEFAULT_RUN_CONFIG.data.testDifficulty).toBeUndefined();
  });
});

describe('the coverage regime\'s knobs at the small rung', () => {
  it('filter off, a held-out split two levels up and a third stage (800 steps in all) make a valid config', () => {
    const small = getPreset('magic', 'small');
    const last = small.stages[small.stages.length - 1];
    const cfg = validateRunConfig({ data: { offlineFilter: { enabled: false }, testDifficulty: small.data.difficulty + 2 }, stages: [...small.stages, { maxResponseLength: last.maxResponseLength, steps: 400 }] }, small);
    expect(cfg.stages).toHaveLength(3);
    expect(cfg.stages.reduce((a, s) => a + (s.steps ?? 0), 0)).toBe(800);
    expect(cfg.data.testDifficulty).toBe(5);
    expect(cfg.data.offlineFilter.enabled).toBe(false);
  });
});
