import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import {
  buildDataset,
  CONCISE_STYLE,
  deduplicateProblems,
  distinctProblemCount,
  encodePrompt,
  encodeResponse,
  makeMultiplyProblem,
  maxPromptTokens,
  multiply,
  problemsFromJsonl,
  problemsToJsonl,
  TaskFieldError,
  type Problem,
} from '../../src/tasks/index';
import { DISTINCT_PROBLEMS, multiplyKeyCount } from '../../src/tasks/capacity';
import { MULTIPLY_LEVELS, multiplyOperandRange } from '../../src/tasks/multiply';

const p = makeMultiplyProblem(347, 86, 3); // 29842
const REF = '<think>7*6=42,4*6+4=28,3*6+2=20,2082,7*8=56,4*8+5=37,3*8+3=27,2082+27760=29842</think>29842';
const r = (answer: string) => REF.replace(/29842$/, answer);

describe('multiply problem', () => {
  it('has the documented format and worked trace', () => {
    expect(p).toMatchObject({ family: 'multiply', prompt: '347*86=', answer: '29842', id: '347*86', data: { a: 347, b: 86 } });
    expect(multiply.trace(p, new Rng(1), CONCISE_STYLE)).toBe(REF);
    // The longer operand is the one multiplied digit by digit, whichever side it is on.
    expect(multiply.trace(makeMultiplyProblem(86, 347, 3), new Rng(1), CONCISE_STYLE)).toBe(REF);
    expect(multiply.trace(makeMultiplyProblem(34, 7, 1), new Rng(1), CONCISE_STYLE)).toBe('<think>4*7=28,3*7+2=23,238</think>238');
    // A zero digit still gets its row; its partial is 0.
    expect(multiply.trace(makeMultiplyProblem(12, 10, 2), new Rng(1), CONCISE_STYLE)).toBe('<think>2*0=0,1*0=0,0,2*1=2,1*1=1,0+120=120</think>120');
  });

  it('generates operands with the level digits, in either order', () => {
    const rng = new Rng(5);
    for (let d = 1; d <= multiply.maxDifficulty; d++) {
      const { long, short } = MULTIPLY_LEVELS[d - 1];
      let firstShorter = 0;
      for (let i = 0; i < 200; i++) {
        const q = multiply.generate(rng, d) as Problem<{ a: number; b: number }>;
        const [la, lb] = [String(q.data.a).length, String(q.data.b).length];
        expect([Math.max(la, lb), Math.min(la, lb)]).toEqual([long, short]);
        expect(Math.min(q.data.a, q.data.b)).toBeGreaterThanOrEqual(2);
        expect(q.answer).toBe(String(q.data.a * q.data.b));
        expect(q.prompt).toBe(`${q.data.a}*${q.data.b}=`);
        expect(q.difficulty).toBe(d);
        expect(() => multiply.validate(q)).not.toThrow();
        if (la < lb) firstShorter++;
      }
      if (long !== short) expect(firstShorter).toBeGreaterThan(50);
    }
    expect(() => multiply.generate(rng, 0)).toThrow(/multiply: difficulty must be an integer in \[1, 6\]/);
    expect(() => multiply.generate(rng, 7)).toThrow(/difficulty/);
    expect(() => multiply.generate(rng, 1.5)).toThrow(/difficulty/);
  });

  it('canonical key ignores operand order', () => {
    expect(multiply.canonicalKey(makeMultiplyProblem(86, 347, 3))).toBe(multiply.canonicalKey(p));
    expect(multiply.canonicalKey(makeMultiplyProblem(347, 87, 3))).not.toBe(multiply.canonicalKey(p));
    expect(multiply.canonicalKey(p)).toBe(p.id);
  });

  it('maxPromptTokens is BOS + both operands + "*" and "="', () => {
    expect(maxPromptTokens('multiply', 1)).toBe(6);
    expect(maxPromptTokens('multiply', 6)).toBe(11);
    expect(encodePrompt(makeMultiplyProblem(9999, 9999, 6).prompt)).toHaveLength(11);
  });

  it('validate names the offending field', () => {
    const bad = (patch: Partial<Problem>, field: string) => {
      let err: unknown;
      try {
        multiply.validate({ ...p, ...patch } as Problem);
      } catch (e) {
        err = e;
      }
      expect(err, field).toBeInstanceOf(TaskFieldError);
      expect((err as TaskFieldError).field).toBe(field);
    };
    expect(() => multiply.validate(p)).not.toThrow();
    bad({ family: 'addition' }, 'family');
    bad({ answer: '29843' }, 'answer');
    bad({ prompt: '347*87=' }, 'prompt');
    bad({ id: '86*347' }, 'id');
    bad({ difficulty: 2 }, 'difficulty'); // a 3-digit operand at a (2, 2) level
    bad({ difficulty: 7 }, 'difficulty');
    bad({ data: { a: 347 } as unknown as Problem['data'] }, 'data.b');
    bad({ data: { a: -1, b: 86 } }, 'data.a');
    bad({ data: { a: 3.5, b: 86 } }, 'data.a');
    bad({ data: { a: 100000, b: 86 } }, 'data.a');
    bad({ data: null as unknown as Problem['data'] }, 'data');
  });
});

describe('multiply verifier', () => {
  it('accepts the reference and normalised answers', () => {
    for (const a of ['29842', ' 29842', '029842', '+29842']) expect(multiply.verify(p, r(a)), a).toBe(1);
    expect(multiply.verify(p, '<think></think>29842')).toBe(1);
  });

  it('rejects wrong, truncated and malformed responses without throwing', () => {
    for (const a of ['29843', '-29842', '2984', '298420', '29 842', '2082', '29842,', '']) expect(multiply.verify(p, r(a)), a).toBe(0);
    expect(multiply.verify(p, REF, { truncated: true })).toBe(0);
    expect(multiply.verify(p, '29842')).toBe(0);
    expect(multiply.verify(p, REF.replace('</think>', ''))).toBe(0);
    expect(multiply.verify(p, '<think>29842</think>')).toBe(0);
    expect(multiply.verify(p, undefined as unknown as string)).toBe(0);
    expect(multiply.verify(null as unknown as Problem, REF)).toBe(0);
    expect(multiply.verify(p, r('9'.repeat(100000)))).toBe(0);
  });
});

describe('multiply traces', () => {
  it('every concise trace verifies and fits a 256-token context with its prompt', () => {
    const rng = new Rng(21);
    for (let d = 1; d <= multiply.maxDifficulty; d++) {
      for (let i = 0; i < 400; i++) {
        const q = multiply.generate(rng, d);
        const t = multiply.trace(q, rng, CONCISE_STYLE);
        expect(multiply.verify(q, t), `${q.prompt} ${t}`).toBe(1);
        expect(encodePrompt(q.prompt).length + encodeResponse(t).length).toBeLessThanOrEqual(d <= 2 ? 64 : 256);
      }
    }
    // The longest at the top level: all-9 operands (every product and carry two digits).
    const top = makeMultiplyProblem(9999, 9999, 6);
    expect(encodeResponse(multiply.trace(top, new Rng(0), CONCISE_STYLE)).length).toBe(221);
  });

  it('with wrongStepRate 1 a trace never verifies, at any difficulty', () => {
    const rng = new Rng(22);
    for (let i = 0; i < 1200; i++) {
      const q = multiply.generate(rng, 1 + (i % multiply.maxDifficulty));
      const t = multiply.trace(q, rng, { wrongStepRate: 1, verboseRate: 0 });
      expect(() => encodeResponse(t)).not.toThrow();
      expect(multiply.verify(q, t), t).toBe(0);
    }
  });

  it('a slip shows in the answer even when slips of two rows would cancel', () => {
    // Many rows and a low rate: single slips and cancelling pairs both occur; every slipped
    // trace (one that differs from the concise one in a computed value) must end wrong.
    const rng = new Rng(23);
    let slipped = 0;
    for (let i = 0; i < 3000; i++) {
      const q = multiply.generate(rng, 2 + (i % 5));
      const t = multiply.trace(q, rng, { wrongStepRate: 0.1, verboseRate: 0 });
      if (t !== multiply.trace(q, rng, CONCISE_STYLE)) {
        slipped++;
        expect(multiply.verify(q, t), t).toBe(0);
      } else expect(multiply.verify(q, t)).toBe(1);
    }
    expect(slipped).toBeGreaterThan(1000);
  });

  it('verbose steps repeat a step and keep the trace correct', () => {
    const t = multiply.trace(p, new Rng(3), { wrongStepRate: 0, verboseRate: 1 });
    expect(multiply.verify(p, t)).toBe(1);
    expect(t.length).toBeGreaterThan(REF.length);
    const steps = t.slice('<think>'.length, t.indexOf('</think>')).split(',');
    expect([...new Set(steps)]).toEqual(REF.slice('<think>'.length, REF.indexOf('</think>')).split(','));
  });
});

describe('multiply datasets and capacity', () => {
  it('dedup drops swapped operands; decontamination keeps test problems out of train', () => {
    const test = [makeMultiplyProblem(12, 7, 1)];
    const candidates = [makeMultiplyProblem(34, 7, 1), makeMultiplyProblem(7, 34, 1), makeMultiplyProblem(7, 12, 1), makeMultiplyProblem(35, 7, 1)];
    const res = deduplicateProblems(candidates, test);
    expect(res.kept.map((q) => q.prompt)).toEqual(['34*7=', '35*7=']);
    expect([res.nearDuplicatesRemoved, res.decontaminatedRemoved]).toEqual([1, 1]);
    const ds = buildDataset({ seed: 4, families: ['multiply'], difficulty: 2, trainSize: 300, testSize: 50 });
    const testKeys = new Set(ds.test.map((q) => multiply.canonicalKey(q)));
    expect(ds.train.some((q) => testKeys.has(multiply.canonicalKey(q)))).toBe(false);
    expect(new Set(ds.train.map((q) => multiply.canonicalKey(q))).size).toBe(300);
    expect(problemsFromJsonl(problemsToJsonl(ds.test))).toEqual(ds.test);
  });

  it('the closed-form count matches an enumeration of the generator ranges', () => {
    for (const d of [1, 2, 3]) {
      const { long, short } = MULTIPLY_LEVELS[d - 1];
      const [L, S] = [multiplyOperandRange(long), multiplyOperandRange(short)];
      const keys = new Set<string>();
      for (let x = L.lo; x <= L.hi; x++) for (let y = S.lo; y <= S.hi; y++) keys.add(multiply.canonicalKey(makeMultiplyProblem(y, x, d)));
      expect(multiplyKeyCount(d), `difficulty ${d}`).toBe(keys.size);
    }
    expect(DISTINCT_PROBLEMS.multiply).toEqual([720, 4095, 81000, 405450, Infinity, Infinity]);
    expect(DISTINCT_PROBLEMS.multiply).toHaveLength(multiply.maxDifficulty);
    expect(distinctProblemCount('multiply', 4)).toBe(405450);
  });

  it('buildDataset draws every difficulty-1 problem and fails at one more', () => {
    const n = distinctProblemCount('multiply', 1);
    const ds = buildDataset({ seed: 3, families: ['multiply'], difficulty: 1, trainSize: n - 5, testSize: 5 });
    expect(ds.train.length + ds.test.length).toBe(n);
    expect(() => buildDataset({ seed: 3, families: ['multiply'], difficulty: 1, trainSize: n - 4, testSize: 5 })).toThrow(/distinct/);
  });
});
