import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import {
  buildDataset,
  deduplicateProblems,
  FAMILIES,
  generateProblems,
  makeAdditionProblem,
  makeArithProblem,
  makeCountdownProblem,
  ProblemFilter,
  problemsFromJsonl,
  problemsToJsonl,
  type DatasetReport,
  type Problem,
} from '../../src/tasks/index';

const ALL = ['addition', 'countdown', 'arith'] as const;

describe('generateProblems', () => {
  it('interleaves families evenly and uses per-family difficulty', () => {
    const ps = generateProblems(new Rng(1), { families: ['arith', 'addition'], difficulty: { arith: 3, addition: 1 }, count: 5 });
    expect(ps.map((p) => p.family)).toEqual(['arith', 'addition', 'arith', 'addition', 'arith']);
    expect(ps.map((p) => p.difficulty)).toEqual([3, 1, 3, 1, 3]);
  });

  it('is deterministic in the rng', () => {
    const opts = { families: [...ALL], difficulty: 2, count: 30 };
    expect(generateProblems(new Rng(4), opts)).toEqual(generateProblems(new Rng(4), opts));
    expect(generateProblems(new Rng(4), opts)).not.toEqual(generateProblems(new Rng(5), opts));
  });

  it('rejects bad options', () => {
    const rng = new Rng(1);
    expect(() => generateProblems(rng, { families: [], difficulty: 1, count: 1 })).toThrow(/non-empty/);
    expect(() => generateProblems(rng, { families: ['algebra' as 'arith'], difficulty: 1, count: 1 })).toThrow(/unknown task family "algebra"/);
    expect(() => generateProblems(rng, { families: ['arith', 'arith'], difficulty: 1, count: 1 })).toThrow(/listed twice/);
    expect(() => generateProblems(rng, { families: ['arith'], difficulty: 1, count: -1 })).toThrow(/count/);
    expect(() => generateProblems(rng, { families: ['countdown'], difficulty: 9, count: 1 })).toThrow(/countdown: difficulty must be an integer in \[1, 5\]/);
  });
});

describe('deduplicateProblems', () => {
  it('removes exact duplicates, near duplicates and contaminated problems', () => {
    const test = [makeAdditionProblem(1, 2, 1), makeCountdownProblem([2, 9], 18, '2*9', 1)];
    const candidates: Problem[] = [
      makeAdditionProblem(3, 4, 1), // keep
      makeAdditionProblem(3, 4, 1), // exact
      makeAdditionProblem(4, 3, 1), // near: a+b vs b+a
      makeArithProblem('3+4', 1), // exact: same prompt in another family
      makeArithProblem('2*4+3', 2), // keep
      makeArithProblem('3+4*2', 2), // near: commuted
      makeArithProblem('3+(4*2)', 2), // near: redundant brackets, different prompt
      makeCountdownProblem([3, 5, 7], 22, '5*3+7', 2), // keep
      makeCountdownProblem([7, 3, 5], 22, '7+3*5', 2), // near: numbers reordered
      makeAdditionProblem(2, 1, 1), // contaminated (near a test problem)
      makeArithProblem('1+2', 1), // contaminated (same prompt as a test problem)
      makeCountdownProblem([9, 2], 18, '9*2', 1), // contaminated
    ];
    const r = deduplicateProblems(candidates, test);
    expect(r.kept.map((p) => p.prompt)).toEqual(['3+4=', '2*4+3=', '3,5,7:22']);
    expect(r.exactDuplicatesRemoved).toBe(2);
    expect(r.nearDuplicatesRemoved).toBe(4);
    expect(r.decontaminatedRemoved).toBe(3);
  });

  it('ProblemFilter reports each verdict', () => {
    const f = new ProblemFilter([makeAdditionProblem(5, 5, 1)]);
    expect(f.admit(makeAdditionProblem(1, 9, 1))).toBe('keep');
    expect(f.admit(makeAdditionProblem(1, 9, 1))).toBe('exact');
    expect(f.admit(makeAdditionProblem(9, 1, 1))).toBe('near');
    expect(f.admit(makeAdditionProblem(5, 5, 1))).toBe('contaminated');
  });
});

function checkInvariants(ds: { train: Problem[]; test: Problem[]; report: DatasetReport }): void {
  const { train, test, report } = ds;
  const key = (p: Problem) => FAMILIES[p.family].canonicalKey(p);
  expect(report.generated).toBe(
    report.trainSize + report.testSize + report.exactDuplicatesRemoved + report.nearDuplicatesRemoved + report.decontaminatedRemoved,
  );
  expect(new Set(train.map((p) => p.prompt)).size).toBe(train.length);
  expect(new Set(train.map(key)).size).toBe(train.length);
  expect(new Set(test.map(key)).size).toBe(test.length);
  const testKeys = new Set(test.map(key));
  expect(train.filter((p) => testKeys.has(key(p)))).toEqual([]);
  for (const p of [...train, ...test]) expect(p.id).toBe(key(p));
}

describe('buildDataset', () => {
  const opts = { seed: 42, families: [...ALL], difficulty: 2, trainSize: 600, testSize: 90 };

  it('is deterministic: same seed, same datasets', () => {
    const a = buildDataset(opts);
    const b = buildDataset({ ...opts, families: [...ALL] });
    expect(a).toEqual(b);
    expect(problemsToJsonl(a.train)).toBe(problemsToJsonl(b.train));
    const c = buildDataset({ ...opts, seed: 43 });
    expect(c.train.map((p) => p.prompt)).not.toEqual(a.train.map((p) => p.prompt));
  });

  it('has the requested sizes, interleaved families and clean splits', () => {
    const ds = buildDataset(opts);
    expect(ds.train.length).toBe(600);
    expect(ds.test.length).toBe(90);
    expect(ds.report.trainSize).toBe(600);
    expect(ds.report.testSize).toBe(90);
    expect(ds.train.slice(0, 6).map((p) => p.family)).toEqual(['addition', 'countdown', 'arith', 'addition', 'countdown', 'arith']);
    expect(ds.train.filter((p) => p.family === 'countdown').length).toBe(200);
    checkInvariants(ds);
  });

  it('draws the test set from its own stream: it does not depend on trainSize', () => {
    expect(buildDataset({ ...opts, trainSize: 10 }).test).toEqual(buildDataset(opts).test);
  });

  it('counts every kind of removal in a small problem space', () => {
    // 1-digit addition: 100 prompts but only 55 canonical keys (a+b ≡ b+a).
    const ds = buildDataset({ seed: 7, families: ['addition'], difficulty: 1, trainSize: 40, testSize: 10 });
    expect(ds.report.exactDuplicatesRemoved).toBeGreaterThan(0);
    expect(ds.report.nearDuplicatesRemoved).toBeGreaterThan(0);
    expect(ds.report.decontaminatedRemoved).toBeGreaterThan(0);
    checkInvariants(ds);
  });

  it('fails clearly when the problem space is exhausted', () => {
    // 55 keys minus 10 test keys leaves 45 < 50.
    expect(() => buildDataset({ seed: 7, families: ['addition'], difficulty: 1, trainSize: 50, testSize: 10 })).toThrow(
      /found only 45 of 50 distinct addition problems \(difficulty 1\) for the train set after \d+ attempts; the problem space is \(nearly\) exhausted/,
    );
    expect(() => buildDataset({ seed: 7, families: ['addition'], difficulty: 1, trainSize: 0, testSize: 56 })).toThrow(/for the test set/);
  });

  it('validates options', () => {
    expect(() => buildDataset({ ...opts, trainSize: -1 })).toThrow(/trainSize must be a non-negative integer/);
    expect(() => buildDataset({ ...opts, seed: 1.5 })).toThrow(/seed must be an integer/);
    expect(() => buildDataset({ ...opts, difficulty: 0 })).toThrow(/difficulty/);
  });
});

describe('JSON lines', () => {
  const ds = buildDataset({ seed: 3, families: [...ALL], difficulty: 3, trainSize: 60, testSize: 0 });
  const text = problemsToJsonl(ds.train);
  const lines = text.trimEnd().split('\n');
  const withLine = (i: number, edit: (o: Record<string, unknown>) => void): string => {
    const copy = [...lines];
    const o = JSON.parse(copy[i]) as Record<string, unknown>;
    edit(o);
    copy[i] = JSON.stringify(o);
    return copy.join('\n');
  };

  it('round-trips', () => {
    expect(lines.length).toBe(60);
    expect(problemsFromJsonl(text)).toEqual(ds.train);
    expect(problemsFromJsonl(`\n${text}\n\n`)).toEqual(ds.train);
    expect(JSON.parse(lines[0])).toEqual({
      family: ds.train[0].family,
      id: ds.train[0].id,
      difficulty: 3,
      prompt: ds.train[0].prompt,
      answer: ds.train[0].answer,
      data: ds.train[0].data,
    });
  });

  it('names the line and field of a bad record', () => {
    // Lines are addition, countdown, arith, addition, ...
    expect(() => problemsFromJsonl(lines[0] + '\n{oops')).toThrow(/^line 2: \(json\): invalid JSON/);
    expect(() => problemsFromJsonl('[1]')).toThrow(/^line 1: \(record\): expected a JSON object/);
    expect(() => problemsFromJsonl(withLine(1, (o) => delete o.answer))).toThrow(/^line 2: answer: missing/);
    expect(() => problemsFromJsonl(withLine(0, (o) => (o.extra = 1)))).toThrow(/^line 1: extra: unknown field/);
    expect(() => problemsFromJsonl(withLine(2, (o) => (o.family = 'algebra')))).toThrow(/^line 3: family: unknown task family "algebra"/);
    expect(() => problemsFromJsonl(withLine(3, (o) => (o.answer = '1')))).toThrow(/^line 4: answer: is "1" but the data imply/);
    expect(() => problemsFromJsonl(withLine(0, (o) => ((o.data as Record<string, unknown>).a = -1)))).toThrow(/^line 1: data\.a: must be an integer/);
    expect(() => problemsFromJsonl(withLine(0, (o) => (o.prompt = '1+1=')))).toThrow(/^line 1: prompt:/);
    expect(() => problemsFromJsonl(withLine(1, (o) => (o.answer = '1+1')))).toThrow(/^line 2: answer: "1\+1" does not reach/);
    expect(() => problemsFromJsonl(withLine(1, (o) => (o.answer = '1/1')))).toThrow(/^line 2: answer: is not a valid expression/);
    expect(() => problemsFromJsonl(withLine(1, (o) => ((o.data as Record<string, unknown>).numbers = [1, 'x'])))).toThrow(
      /^line 2: data\.numbers\[1\]: must be an integer/,
    );
    expect(() => problemsFromJsonl(withLine(2, (o) => ((o.data as Record<string, unknown>).expression = '1+')))).toThrow(
      /^line 3: data\.expression: is not a valid expression/,
    );
    expect(() => problemsFromJsonl(withLine(2, (o) => (o.difficulty = 2)))).toThrow(/^line 3: difficulty: is 2 but the expression has 3 operations/);
    expect(() => problemsFromJsonl(withLine(2, (o) => (o.id = 'x')))).toThrow(/^line 3: id:/);
    expect(() => problemsFromJsonl(withLine(2, (o) => (o.data = null)))).toThrow(/^line 3: data: must be an object/);
  });
});
