import { describe, expect, it } from 'vitest';
import { perSequenceTokenWeight, tokenWeights } from '../../src/rl/aggregation';

const sum = (a: ArrayLike<number>) => Array.from(a).reduce((x, y) => x + y, 0);

describe('loss aggregation weights', () => {
  const lengths = [2, 3, 5];
  it('token-mean: every token weighs 1/T_k, weights sum to 1', () => {
    expect(Array.from(perSequenceTokenWeight(lengths, 'token-mean'))).toEqual([0.1, 0.1, 0.1]);
    const w = tokenWeights(lengths, 'token-mean');
    expect(w.length).toBe(10);
    expect(sum(w)).toBeCloseTo(1, 6);
  });
  it('seq-mean-token-mean: each sequence totals 1/numSeqs over its own tokens', () => {
    const per = perSequenceTokenWeight(lengths, 'seq-mean-token-mean');
    expect(per[0]).toBeCloseTo(1 / 6, 15);
    expect(per[1]).toBeCloseTo(1 / 9, 15);
    expect(per[2]).toBeCloseTo(1 / 15, 15);
    const w = tokenWeights(lengths, 'seq-mean-token-mean');
    expect(sum(w.subarray(0, 2))).toBeCloseTo(1 / 3, 6);
    expect(sum(w.subarray(2, 5))).toBeCloseTo(1 / 3, 6);
    expect(sum(w.subarray(5))).toBeCloseTo(1 / 3, 6);
  });
  it('excluded and empty sequences get 0 and do not count in the denominators', () => {
    expect(Array.from(perSequenceTokenWeight([2, 3, 5, 0], 'token-mean', [1, 0, 1, 1]))).toEqual([1 / 7, 0, 1 / 7, 0]);
    expect(Array.from(perSequenceTokenWeight([2, 3, 5, 0], 'seq-mean-token-mean', [true, false, true, true]))).toEqual([1 / 4, 0, 1 / 10, 0]);
  });
  it('padded layout puts each row at i·rowStride and zeros the padding', () => {
    const w = tokenWeights([1, 2], 'token-mean', undefined, 3);
    expect(Array.from(w).map((x) => +x.toFixed(6))).toEqual([0.333333, 0, 0, 0.333333, 0.333333, 0]);
    expect(() => tokenWeights([4], 'token-mean', undefined, 3)).toThrow(/rowStride/);
  });
  it('an empty batch yields zeros, not NaN', () => {
    expect(Array.from(perSequenceTokenWeight([0, 0], 'token-mean'))).toEqual([0, 0]);
  });
});
