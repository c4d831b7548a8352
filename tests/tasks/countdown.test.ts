import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import { CONCISE_STYLE, countdown, evalExpr, makeCountdownProblem, parseExpr, type CountdownData, type Problem } from '../../src/tasks/index';

const p = makeCountdownProblem([3, 5, 7], 22, '5*3+7', 2);
const r = (answer: string) => `<think>5*3=15,15+7=22</think>${answer}`;

describe('countdown problem', () => {
  it('has the documented format', () => {
    expect(p).toMatchObject({ family: 'countdown', prompt: '3,5,7:22', answer: '5*3+7', id: '3,5,7:22' });
    expect(countdown.trace(p, new Rng(1), CONCISE_STYLE)).toBe('<think>5*3=15,15+7=22</think>5*3+7');
  });

  it("generates solvable problems with each level's sizes", () => {
    const rng = new Rng(3);
    const counts = [2, 3, 4, 4, 4];
    const maxima = [9, 12, 20, 50, 100];
    for (let d = 1; d <= 5; d++) {
      for (let i = 0; i < 200; i++) {
        const q = countdown.generate(rng, d) as Problem<CountdownData>;
        expect(q.data.numbers.length).toBe(counts[d - 1]);
        expect(Math.max(...q.data.numbers)).toBeLessThanOrEqual(maxima[d - 1]);
        expect(q.data.target).toBeGreaterThanOrEqual(1);
        expect(q.data.target).toBeLessThanOrEqual(999);
        expect(q.data.numbers).not.toContain(q.data.target);
        expect(evalExpr(parseExpr(q.answer))).toBe(q.data.target);
        expect(countdown.verify(q, `<think></think>${q.answer}`)).toBe(1);
      }
    }
  });

  it('canonical key ignores number order', () => {
    const q = makeCountdownProblem([7, 3, 5], 22, '7+3*5', 2);
    expect(countdown.canonicalKey(q)).toBe(countdown.canonicalKey(p));
    expect(countdown.canonicalKey(makeCountdownProblem([7, 3, 5], 23, '7*3+5-3', 2))).not.toBe(countdown.canonicalKey(p));
  });
});

describe('countdown verifier', () => {
  it('accepts any valid solution, not just the reference', () => {
    for (const a of ['5*3+7', '7+3*5', '(3*5)+7', ' 7 + 5 * 3 ', '((7))+(5*3)']) expect(countdown.verify(p, r(a)), a).toBe(1);
    const q = makeCountdownProblem([2, 2, 10], 14, '10+2+2', 2);
    expect(countdown.verify(q, r('10+2*2'))).toBe(1); // duplicate numbers may each be used once
    const subset = makeCountdownProblem([3, 5, 7], 12, '5+7', 2);
    expect(countdown.verify(subset, r('5+7'))).toBe(1); // "at most once": unused numbers are fine
  });

  it('rejects wrong values', () => {
    for (const a of ['5*3', '5*3+7+3', '5+3+7', '3*7']) expect(countdown.verify(p, r(a)), a).toBe(0);
  });

  it('rejects reused, unavailable or rewritten numbers', () => {
    expect(countdown.verify(p, r('7+7+5+3'))).toBe(0); // 7 twice
    expect(countdown.verify(makeCountdownProblem([2, 10, 3], 14, '10+2*2', 2), r('10+2*2'))).toBe(0);
    expect(countdown.verify(p, r('22'))).toBe(0); // the target is not a given number
    expect(countdown.verify(p, r('11*2'))).toBe(0);
    expect(countdown.verify(p, r('05*3+7'))).toBe(0);
  });

  it('rejects division, unary minus, equations and junk', () => {
    const q = makeCountdownProblem([30, 5, 2], 3, '5-2', 2);
    expect(countdown.verify(q, r('30/5-3'))).toBe(0);
    expect(countdown.verify(q, r('30/(5*2)'))).toBe(0);
    expect(countdown.verify(p, r('-3+5*5'))).toBe(0);
    for (const a of ['', ' ', '5*3+7=22', '22=5*3+7', '5*3+7 12', '5*3+7,', '(5*3+7', '5*3+7)', 'x', '5**3', '5 3+7']) {
      expect(countdown.verify(p, r(a)), a).toBe(0);
    }
  });

  it('accepts whitespace and newlines around the answer (R1-style "</think>\\n\\n…"), not inside it', () => {
    for (const a of ['\n5*3+7', '\n\n5*3+7\n', '5*3+7\r\n', '\r\n5*3+7  ', '\t 5*3+7 \u00a0']) expect(countdown.verify(p, r(a)), JSON.stringify(a)).toBe(1);
    for (const a of ['\n', ' \r\n \t', '5*3+7\n5*3+7', '5*3\n+7', '5*3+7\n22']) expect(countdown.verify(p, r(a)), JSON.stringify(a)).toBe(0);
    expect(countdown.verify(p, '<think>\n5*3+7\n')).toBe(0); // no </think>
  });

  it('survives huge numbers and deep parentheses', () => {
    expect(countdown.verify(p, r('99999999999999999999999*0+5*3+7'))).toBe(0);
    expect(countdown.verify(p, r(`${'('.repeat(10)}5*3${')'.repeat(10)}+7`))).toBe(1);
    expect(countdown.verify(p, r(`${'('.repeat(5000)}5*3${')'.repeat(5000)}+7`))).toBe(0);
    expect(countdown.verify(p, r('3+'.repeat(50000) + '7'))).toBe(0);
  });

  it('scores malformed and truncated responses 0', () => {
    expect(countdown.verify(p, '')).toBe(0);
    expect(countdown.verify(p, '5*3+7')).toBe(0);
    expect(countdown.verify(p, '<think>5*3+7')).toBe(0);
    expect(countdown.verify(p, '<think>5*3+7</think>')).toBe(0);
    expect(countdown.verify(p, r('5*3+7'), { truncated: true })).toBe(0);
    expect(countdown.verify({ ...p, data: { numbers: 'nope' } }, r('5*3+7'))).toBe(0);
    expect(countdown.verify(p, 42 as unknown as string)).toBe(0);
  });
});
