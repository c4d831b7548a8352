import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import { arith, CONCISE_STYLE, evalExpr, makeArithProblem, parseExpr, type ArithData, type Problem } from '../../src/tasks/index';
import { countOps } from '../../src/tasks/expr';

const p = makeArithProblem('3+4*2-5', 3);
const r = (answer: string) => `<think>3+8-5,11-5,6</think>${answer}`;

describe('arith problem', () => {
  it('has the documented format and reduction trace', () => {
    expect(p).toMatchObject({ family: 'arith', prompt: '3+4*2-5=', answer: '6', data: { expression: '3+4*2-5' } });
    expect(arith.trace(p, new Rng(1), CONCISE_STYLE)).toBe('<think>3+8-5,11-5,6</think>6');
  });

  it('traces negative intermediates in brackets', () => {
    const q = makeArithProblem('2*(3-8)-1', 3);
    expect(q.answer).toBe('-11');
    expect(arith.trace(q, new Rng(1), CONCISE_STYLE)).toBe('<think>2*(-5)-1,-10-1,-11</think>-11');
  });

  it('generates difficulty-many operations with bounded values', () => {
    const rng = new Rng(9);
    let sawParens = false;
    let sawNegative = false;
    for (let d = 1; d <= 6; d++) {
      for (let i = 0; i < 200; i++) {
        const q = arith.generate(rng, d) as Problem<ArithData>;
        const tree = parseExpr(q.data.expression);
        expect(countOps(tree)).toBe(d);
        expect(q.answer).toBe(String(evalExpr(tree)));
        expect(Math.abs(Number(q.answer))).toBeLessThanOrEqual(999);
        sawParens ||= q.prompt.includes('(');
        sawNegative ||= q.answer.startsWith('-');
      }
    }
    expect(sawParens).toBe(true);
    expect(sawNegative).toBe(true);
  });

  it('canonical key ignores commutation and redundant brackets', () => {
    expect(arith.canonicalKey(makeArithProblem('2*4+3-5', 3))).toBe(arith.canonicalKey(p));
    expect(arith.canonicalKey(makeArithProblem('(3+4)*2-5', 3))).not.toBe(arith.canonicalKey(p));
  });
});

describe('arith verifier', () => {
  it('accepts the right value, normalised', () => {
    for (const a of ['6', '06', '+6', ' 6 ']) expect(arith.verify(p, r(a)), a).toBe(1);
    const neg = makeArithProblem('1-8', 1);
    expect(arith.verify(neg, '<think></think>-7')).toBe(1);
    expect(arith.verify(neg, '<think></think>-007')).toBe(1);
    const zero = makeArithProblem('4-4', 1);
    expect(arith.verify(zero, '<think></think>-0')).toBe(1);
  });

  it('rejects wrong, extra or junk answers', () => {
    for (const a of ['7', '-6', '6 6', '12 13', '3+4*2-5', '6=6', '6)', '', '(6)']) expect(arith.verify(p, r(a)), a).toBe(0);
    expect(arith.verify(makeArithProblem('1-8', 1), '<think></think>7')).toBe(0);
    expect(arith.verify(makeArithProblem('1-8', 1), '<think></think>- 7')).toBe(0);
  });

  it('rejects malformed and truncated responses', () => {
    expect(arith.verify(p, '')).toBe(0);
    expect(arith.verify(p, '<think>3+8-5,11-5,6')).toBe(0);
    expect(arith.verify(p, '<think>6</think>')).toBe(0);
    expect(arith.verify(p, '6')).toBe(0);
    expect(arith.verify(p, r('6'), { truncated: true })).toBe(0);
  });
});
