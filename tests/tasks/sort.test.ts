import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import {
  buildDataset,
  CONCISE_STYLE,
  deduplicateProblems,
  encodePrompt,
  encodeResponse,
  makeAdditionProblem,
  makeCountdownProblem,
  makeSortProblem,
  sort,
  SORT_LEVELS,
  TaskFieldError,
  type Problem,
  type SortData,
} from '../../src/tasks/index';
import { distinctProblemCount, sortKeyCount, usableProblemCount } from '../../src/tasks/capacity';

const p = makeSortProblem([53, 9, 71, 4, 20], 3);
const r = (answer: string) => `<think>4:53,9,71,20 9:53,71,20 20:53,71 53:71</think>${answer}`;

describe('sort problem', () => {
  it('has the documented format', () => {
    expect(p).toMatchObject({ family: 'sort', prompt: '(53,9,71,4,20)=', answer: '4,9,20,53,71', id: '(4,9,20,53,71)', data: { numbers: [53, 9, 71, 4, 20] } });
    expect(sort.trace(p, new Rng(1), CONCISE_STYLE)).toBe(r('4,9,20,53,71'));
  });

  it('keeps duplicates: each step removes one occurrence', () => {
    const q = makeSortProblem([7, 3, 7, 3], 2);
    expect(q.answer).toBe('3,3,7,7');
    expect(sort.trace(q, new Rng(1), CONCISE_STYLE)).toBe('<think>3:7,7,3 3:7,7 7:7</think>3,3,7,7');
  });

  it('generates lists of the level size and range at every difficulty', () => {
    const rng = new Rng(5);
    for (let d = 1; d <= sort.maxDifficulty; d++) {
      const { count, maxNumber } = SORT_LEVELS[d - 1];
      let largest = 0;
      for (let i = 0; i < 300; i++) {
        const q = sort.generate(rng, d) as Problem<SortData>;
        expect(q.difficulty).toBe(d);
        expect(q.data.numbers).toHaveLength(count);
        for (const n of q.data.numbers) expect(n >= 0 && n <= maxNumber && Number.isInteger(n)).toBe(true);
        largest = Math.max(largest, ...q.data.numbers);
        expect(() => sort.validate(q)).not.toThrow();
      }
      expect(largest).toBeGreaterThan(maxNumber * 0.8); // the range is used, not just its bottom
    }
    expect(sort.maxDifficulty).toBe(6);
    expect(() => sort.generate(rng, 0)).toThrow(/sort: difficulty must be an integer in \[1, 6\]/);
    expect(() => sort.generate(rng, 7)).toThrow(/difficulty/);
  });

  it('canonical key is the multiset: permutations collide, other lists do not', () => {
    expect(sort.canonicalKey(makeSortProblem([20, 4, 71, 9, 53], 3))).toBe(sort.canonicalKey(p));
    expect(sort.canonicalKey(makeSortProblem([20, 4, 71, 9, 52], 3))).not.toBe(sort.canonicalKey(p));
    expect(sort.canonicalKey(makeSortProblem([1, 1, 2], 1))).not.toBe(sort.canonicalKey(makeSortProblem([1, 2, 2], 1)));
  });

  it('maxPromptTokens: BOS ( numbers commas ) =', () => {
    expect(sort.maxPromptTokens(1)).toBe(9);
    expect(sort.maxPromptTokens(6)).toBe(27);
    expect(encodePrompt(makeSortProblem([10, 20, 30, 40, 50, 60, 70, 80], 6).prompt)).toHaveLength(27);
  });
});

describe('sort verifier', () => {
  it('accepts the sorted list, trimmed', () => {
    for (const a of ['4,9,20,53,71', ' 4,9,20,53,71', '4,9,20,53,71\n', '\n\n4,9,20,53,71 ']) expect(sort.verify(p, r(a)), a).toBe(1);
    expect(sort.verify(p, '<think></think>4,9,20,53,71')).toBe(1);
  });

  it('rejects wrong or non-exact lists', () => {
    for (const a of ['4,9,20,71,53', '53,9,71,4,20', '4,9,20,53', '4,9,20,53,71,71', '4, 9, 20, 53, 71', '04,9,20,53,71', '4,9,20,53,71,', '(4,9,20,53,71)', '4 9 20 53 71', '', '71,53,20,9,4']) {
      expect(sort.verify(p, r(a)), a).toBe(0);
    }
  });

  it('rejects malformed responses', () => {
    expect(sort.verify(p, '')).toBe(0);
    expect(sort.verify(p, '4,9,20,53,71')).toBe(0);
    expect(sort.verify(p, '<think>4:53,9,71,20 so 4,9,20,53,71')).toBe(0);
    expect(sort.verify(p, '<think>4,9,20,53,71</think>')).toBe(0);
    expect(sort.verify(p, '</think>4,9,20,53,71')).toBe(0);
    expect(sort.verify(p, '<think></think>4,9,20,53,71</think>4,9,20,53,71')).toBe(0);
    expect(sort.verify(p, r('9,'.repeat(100000)))).toBe(0);
  });

  it('scores truncated responses 0 even when the answer is right', () => {
    expect(sort.verify(p, r('4,9,20,53,71'), { truncated: true })).toBe(0);
    expect(sort.verify(p, r('4,9,20,53,71'), { truncated: false })).toBe(1);
  });

  it('never throws, even on non-strings or broken problems', () => {
    expect(sort.verify(p, undefined as unknown as string)).toBe(0);
    expect(sort.verify(null as unknown as Problem, r('4,9,20,53,71'))).toBe(0);
    expect(sort.verify({ ...p, answer: 5 as unknown as string }, r('5'))).toBe(0);
    expect(sort.verify({ ...p, answer: '' }, r(''))).toBe(0);
  });
});

describe('sort traces', () => {
  it('every concise trace verifies and fits 256 tokens with its prompt', () => {
    const rng = new Rng(21);
    for (let d = 1; d <= sort.maxDifficulty; d++) {
      for (let i = 0; i < 400; i++) {
        const q = sort.generate(rng, d);
        const t = sort.trace(q, rng, CONCISE_STYLE);
        expect(sort.verify(q, t), `${q.prompt} ${t}`).toBe(1);
        expect(encodePrompt(q.prompt).length + encodeResponse(t).length).toBeLessThanOrEqual(256);
      }
    }
  });

  it('wrongStepRate 1 never verifies, at any difficulty, duplicates included', () => {
    const rng = new Rng(22);
    for (let d = 1; d <= sort.maxDifficulty; d++) {
      for (let i = 0; i < 300; i++) {
        const q = sort.generate(rng, d);
        expect(sort.verify(q, sort.trace(q, rng, { wrongStepRate: 1, verboseRate: 0.5 }))).toBe(0);
      }
    }
    // All equal: no larger number to pick, so the slip drops a copy.
    const same = makeSortProblem([5, 5, 5], 1);
    expect(sort.trace(same, new Rng(1), { wrongStepRate: 1, verboseRate: 0 })).toBe('<think>5:5</think>5,5');
  });

  it('one slip anywhere propagates to a wrong answer', () => {
    const rng = new Rng(23);
    let slipped = 0;
    for (let i = 0; i < 2000; i++) {
      const q = sort.generate(rng, 1 + (i % 6));
      const t = sort.trace(q, rng, { wrongStepRate: 0.1, verboseRate: 0 });
      const concise = sort.trace(q, rng, CONCISE_STYLE);
      if (t !== concise) {
        slipped++;
        expect(sort.verify(q, t), t).toBe(0);
      } else {
        expect(sort.verify(q, t)).toBe(1);
      }
    }
    expect(slipped).toBeGreaterThan(200);
  });

  it('verbose steps repeat a step verbatim and keep the answer', () => {
    const t = sort.trace(p, new Rng(3), { wrongStepRate: 0, verboseRate: 1 });
    expect(sort.verify(p, t)).toBe(1);
    const steps = t.slice('<think>'.length, t.indexOf('</think>')).split(' ');
    expect([...new Set(steps)]).toEqual(['4:53,9,71,20', '9:53,71,20', '20:53,71', '53:71']);
    expect(steps.length).toBeGreaterThan(4);
  });
});

describe('sort validate', () => {
  const field = (q: unknown): string => {
    try {
      sort.validate(q as Problem);
    } catch (err) {
      expect(err).toBeInstanceOf(TaskFieldError);
      return (err as TaskFieldError).field;
    }
    return 'none';
  };

  it('accepts a consistent problem and names the field of an inconsistent one', () => {
    expect(field(p)).toBe('none');
    expect(field({ ...p, family: 'addition' })).toBe('family');
    expect(field({ ...p, difficulty: 9 })).toBe('difficulty');
    expect(field({ ...p, difficulty: 4 })).toBe('difficulty'); // 6 numbers at difficulty 4
    expect(field(makeSortProblem([10, 2, 3], 1))).toBe('difficulty'); // 10 > 9 at difficulty 1
    expect(field({ ...p, data: null })).toBe('data');
    expect(field({ ...p, data: { numbers: 'x' } })).toBe('data.numbers');
    expect(field({ ...p, data: { numbers: [53, 9, -1, 4, 20] } })).toBe('data.numbers[2]');
    expect(field({ ...p, data: { numbers: [53, 9, 7.5, 4, 20] } })).toBe('data.numbers[2]');
    expect(field({ ...p, prompt: '(4,9,20,53,71)=' })).toBe('prompt');
    expect(field({ ...p, answer: '4,9,20,71,53' })).toBe('answer');
    expect(field({ ...p, id: '4,9,20,53,71' })).toBe('id');
    expect(field({ ...p, data: { numbers: [53, 9, 71, 4, 20, 1, 2, 3, 4] } })).toBe('data.numbers'); // over 8
  });
});

describe('sort datasets and capacity', () => {
  it('dedup drops permutations; decontamination drops a permutation of a test list', () => {
    const test = [makeSortProblem([3, 1, 2], 1)];
    const candidates = [
      makeSortProblem([5, 4, 6], 1), // keep
      makeSortProblem([5, 4, 6], 1), // exact
      makeSortProblem([6, 5, 4], 1), // near: same multiset
      makeSortProblem([2, 3, 1], 1), // contaminated: a permutation of the test list
      makeSortProblem([2, 3, 2], 1), // keep
      makeAdditionProblem(4, 5, 1), // keep: other families never share a sort key
      makeCountdownProblem([4, 5], 9, '4+5', 1), // keep
    ];
    const res = deduplicateProblems(candidates, test);
    expect(res.kept.map((q) => q.prompt)).toEqual(['(5,4,6)=', '(2,3,2)=', '4+5=', '4,5:9']);
    expect([res.exactDuplicatesRemoved, res.nearDuplicatesRemoved, res.decontaminatedRemoved]).toEqual([1, 1, 1]);
  });

  it('key counts: closed form matches enumeration of every reachable multiset', () => {
    for (const d of [1, 2]) {
      const { count, maxNumber } = SORT_LEVELS[d - 1];
      const keys = new Set<string>();
      const walk = (prefix: number[]) => {
        if (prefix.length === count) {
          keys.add(sort.canonicalKey(makeSortProblem(prefix, d)));
          return;
        }
        for (let v = 0; v <= maxNumber; v++) walk([...prefix, v]); // every ordered list
      };
      walk([]);
      expect(sortKeyCount(d)).toBe(keys.size);
    }
    expect([sortKeyCount(1), sortKeyCount(2)]).toEqual([220, 715]);
    expect(sortKeyCount(3)).toBe(Infinity); // C(104, 5) = 91,962,520 ≥ DISTINCT_CAP
    expect(distinctProblemCount('sort', 2)).toBe(715);
    expect(usableProblemCount('sort', 1)).toBe(220);
    expect(() => sortKeyCount(7)).toThrow(/difficulty 7/);
  });

  it('buildDataset draws all 220 difficulty-1 problems and no more, train disjoint from test', () => {
    const ds = buildDataset({ seed: 3, families: ['sort'], difficulty: 1, trainSize: 200, testSize: 20 });
    expect(ds.train.length + ds.test.length).toBe(220);
    const testKeys = new Set(ds.test.map((q) => sort.canonicalKey(q)));
    for (const q of ds.train) expect(testKeys.has(sort.canonicalKey(q))).toBe(false);
    expect(() => buildDataset({ seed: 3, families: ['sort'], difficulty: 1, trainSize: 201, testSize: 20 })).toThrow(/distinct/);
  });
});
