import { describe, expect, it } from 'vitest';
import { parseCsv, parseJsonl, runToCsv, runToJsonl } from '../../src/io/runfile';
import { fakeRun } from '../ui/helpers';
import {
  LATER_STEP_METRIC_KEYS,
  STEP_METRIC_KEY_LIST,
  avgAtK,
  batchMetrics,
  evalKey,
  evalMetrics,
  majorityVote,
  meanPassAtK,
  normalizeAnswer,
  passAtK,
  type EvalSample,
} from '../../src/rl/metrics';

/** Fraction of k-subsets of n samples (c correct) containing a correct one, by enumeration. */
function bruteForcePassAtK(n: number, c: number, k: number): number {
  let hit = 0;
  let total = 0;
  const rec = (start: number, left: number, anyCorrect: boolean) => {
    if (left === 0) {
      total++;
      if (anyCorrect) hit++;
      return;
    }
    for (let i = start; i <= n - left; i++) rec(i + 1, left - 1, anyCorrect || i < c);
  };
  rec(0, k, false);
  return hit / total;
}

describe('pass@k', () => {
  it('equals brute-force enumeration for every n ≤ 7', () => {
    for (let n = 1; n <= 7; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= n; k++) {
      expect(passAtK(n, c, k)).toBeCloseTo(bruteForcePassAtK(n, c, k), 12);
    }
  });
  it('known values and stability for large n', () => {
    expect(passAtK(5, 1, 1)).toBeCloseTo(0.2, 15);
    expect(passAtK(10, 0, 3)).toBe(0);
    expect(passAtK(10, 8, 3)).toBe(1); // fewer than k wrong samples
    expect(passAtK(1000, 1, 1)).toBeCloseTo(0.001, 12);
    const big = passAtK(2000, 700, 500); // C(2000, 500) overflows a double
    expect(Number.isFinite(big)).toBe(true);
    expect(big).toBeLessThanOrEqual(1);
  });
  it('rejects k > n', () => {
    expect(() => passAtK(2, 1, 3)).toThrow(/1 ≤ k ≤ n/);
  });
  it('meanPassAtK and avg@k average over problems', () => {
    const probs = [[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0]];
    expect(avgAtK(probs)).toBeCloseTo((0.5 + 1 + 0) / 3, 15);
    expect(meanPassAtK(probs, 1)).toBeCloseTo(0.5, 15);
    expect(meanPassAtK(probs, 4)).toBeCloseTo(2 / 3, 15);
  });
});

describe('maj@k', () => {
  const s = (answer: string | null, correct: boolean) => ({ answer, correct });
  it('a tie goes to the answer seen first', () => {
    expect(majorityVote([s('12', true), s('13', false), s('13', false), s('12', true)])).toEqual({ answer: '12', count: 2, correct: true });
    expect(majorityVote([s('13', false), s('12', true), s('12', true), s('13', false)])).toEqual({ answer: '13', count: 2, correct: false });
  });
  it('votes on normalised answers and ignores unparsable ones', () => {
    expect(normalizeAnswer(' 0 07 ')).toBe('7');
    expect(normalizeAnswer('+7')).toBe('7');
    expect(normalizeAnswer('-0')).toBe('0');
    expect(normalizeAnswer('-012')).toBe('-12');
    expect(majorityVote([s('8', false), s(' 007', true), s('7', true), s('8', false), s('+7', true), s(null, false), s(null, false)])).toEqual({
      answer: '7',
      count: 3,
      correct: true,
    });
    expect(majorityVote([s(null, true)])).toEqual({ answer: null, count: 0, correct: false });
  });
});

describe('evalMetrics', () => {
  it('keys carry k and the temperature; values are avg/pass/maj and length stats', () => {
    const e = (answer: string, correct: boolean, length = 4, truncated = false): EvalSample => ({ answer, correct, length, truncated });
    const probs = [
      [e('3', true), e('4', false, 8, true)],
      [e('5', false), e('5', false)],
    ];
    expect(evalMetrics(probs, 2, 1.0)).toEqual({
      'val/avg@2/t1.0': 0.25,
      'val/pass@2/t1.0': 0.5,
      'val/maj@2/t1.0': 0.5,
      'val/response_length/mean/t1.0': 5,
      'val/response_length/clip_ratio/t1.0': 0.25,
    });
    expect(evalKey('maj', 8, 0.6)).toBe('val/maj@8/t0.6');
    expect(() => evalMetrics(probs, 3, 1)).toThrow(/fewer than k=3/);
  });
});

describe('step metrics', () => {
  it('names are exactly the verl/Skywork keys (plus the sampled entropy estimate under its own name)', () => {
    expect([...STEP_METRIC_KEY_LIST].sort()).toEqual(
      [
        'actor/entropy', 'actor/entropy_sampled', 'actor/entropy_coeff', 'actor/entropy_coeff_realized', 'actor/pg_loss', 'actor/pg_clipfrac',
        'actor/pg_clipfrac_lower', 'actor/ppo_kl', 'actor/grad_norm', 'actor/nonfinite_steps', 'critic/score/mean', 'response_length/mean',
        'response_length/clip_ratio', 'batch/solve_none', 'batch/solve_all', 'batch/kept_groups', 'stage',
        'perf/tokens_per_s', 'perf/step_s', 'batch/groups', 'data/pool_size', 'actor/lr',
      ].sort(),
    );
  });
  it('run files written before actor/entropy_sampled existed still import, with NaN for it', () => {
    expect(LATER_STEP_METRIC_KEYS).toEqual(['actor/entropy_sampled', 'actor/nonfinite_steps', 'batch/groups', 'data/pool_size', 'actor/lr']);
    const run = fakeRun('a', 3);
    const [header, ...rest] = runToJsonl(run).trim().split('\n');
    // Such files are version-1 exports: no end record with a checksum.
    const oldHeader = JSON.stringify({ ...JSON.parse(header), version: 1 });
    const old = rest
      .filter((l) => JSON.parse(l).type !== 'end')
      .map((l) => {
        const o = JSON.parse(l);
        for (const k of LATER_STEP_METRIC_KEYS) delete o[k];
        return JSON.stringify(o);
      });
    const back = parseJsonl([oldHeader, ...old].join('\n'), 'old.jsonl');
    for (const k of LATER_STEP_METRIC_KEYS) expect(back.steps.map((s) => s[k]), k).toEqual([NaN, NaN, NaN]);
    expect(back.steps.map((s) => s['actor/entropy'])).toEqual(run.steps.map((s) => s['actor/entropy']));
    // CSV: the column may be missing too; any other step column is still required.
    const csv = runToCsv(run).split('\n').map((l) => l.split(','));
    const col = csv[0].indexOf('actor/entropy_sampled');
    const oldCsv = csv.map((cells) => cells.filter((_, j) => j !== col).join(',')).join('\n');
    expect(parseCsv(oldCsv, 'old.csv').steps.every((s) => Number.isNaN(s['actor/entropy_sampled']))).toBe(true);
    const noEntropy = csv.map((cells) => cells.filter((_, j) => j !== csv[0].indexOf('actor/entropy')).join(',')).join('\n');
    expect(() => parseCsv(noEntropy, 'bad.csv')).toThrow(/missing column "actor\/entropy"/);
  });
  it('batchMetrics counts solve-none / solve-all groups, mean score, length and clip ratio', () => {
    const m = batchMetrics({
      rewards: [1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 1],
      lengths: [2, 2, 2, 2, 10, 10, 10, 10, 4, 4, 4, 4],
      truncated: [0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0],
      groupSize: 4,
    });
    expect(m).toEqual({
      'critic/score/mean': 0.5,
      'response_length/mean': 16 / 3,
      'response_length/clip_ratio': 0.25,
      'batch/solve_none': 1,
      'batch/solve_all': 1,
      'batch/kept_groups': 1,
    });
    expect(batchMetrics({ rewards: [1, 0], lengths: [1, 1], truncated: [0, 0], groupSize: 2, keptGroups: 0 })['batch/kept_groups']).toBe(0);
  });
});
