import { describe, it, expect } from 'vitest';
import { canonicalExpr, evalExpr, parseExpr, renderExpr } from '../../src/tasks/index';
import { bin, num, reduceLeftmost, applyOp } from '../../src/tasks/expr';

describe('parseExpr/evalExpr', () => {
  it('respects precedence, associativity and parentheses', () => {
    expect(evalExpr(parseExpr('3+4*2-5'))).toBe(6);
    expect(evalExpr(parseExpr('10-3-2'))).toBe(5);
    expect(evalExpr(parseExpr('10-(3-2)'))).toBe(9);
    expect(evalExpr(parseExpr('(1+2)*(3+4)'))).toBe(21);
    expect(evalExpr(parseExpr(' 2 * 3 '))).toBe(6);
  });

  it('rejects malformed input with ExprError', () => {
    for (const bad of ['', ' ', '1+', '(1', '1)', '-1', '1--1', '8/2', '1 2', '1+a', '()', '2**3']) {
      expect(() => parseExpr(bad), bad).toThrow(/./);
    }
  });

  it('bounds nesting depth, length and literal size', () => {
    expect(evalExpr(parseExpr(`${'('.repeat(10)}7${')'.repeat(10)}`))).toBe(7);
    expect(() => parseExpr(`${'('.repeat(40)}7${')'.repeat(40)}`)).toThrow(/nested deeper than 32/);
    expect(() => parseExpr('('.repeat(100000))).toThrow(/longer than 512/);
    expect(() => parseExpr('1234567890123456')).toThrow(/more than 15 digits/);
    expect(() => evalExpr(parseExpr('999999999999999*999999999999999'))).toThrow(/safe integer/);
  });
});

describe('renderExpr', () => {
  it('uses the fewest parentheses that keep the tree', () => {
    for (const src of ['3+4*2-5', '(3+4)*2', '10-(3-2)', '10-3-2', '2*(3*4)', '(1+2)*(3+4)', '7-(2+3)']) {
      expect(renderExpr(parseExpr(src))).toBe(src);
    }
    expect(renderExpr(parseExpr('((3))+((4*2))'))).toBe('3+4*2');
  });
  it('brackets negative literals unless they lead', () => {
    expect(renderExpr(bin('*', num(3), num(-4)))).toBe('3*(-4)');
    expect(renderExpr(bin('-', num(-4), num(3)))).toBe('-4-3');
    expect(renderExpr(bin('*', bin('+', num(-4), num(1)), num(2)))).toBe('(-4+1)*2');
  });
});

describe('reduceLeftmost', () => {
  it('reduces in precedence order', () => {
    const seq: string[] = [];
    let e = parseExpr('2*3+4*5');
    for (let n = reduceLeftmost(e, applyOp); n; n = reduceLeftmost(e, applyOp)) seq.push(renderExpr((e = n)));
    expect(seq).toEqual(['6+4*5', '6+20', '26']);
  });
});

describe('canonicalExpr', () => {
  const key = (s: string) => canonicalExpr(parseExpr(s));
  it('is invariant to commutation, spacing, leading zeros and redundant parentheses', () => {
    expect(key('3+4')).toBe(key('4+3'));
    expect(key('3 + 4')).toBe(key('3+4'));
    expect(key('03+4')).toBe(key('3+4'));
    expect(key('2*3+4')).toBe(key('4+3*2'));
    expect(key('(1+2)+3')).toBe(key('1+(2+3)'));
    expect(key('5-(2-1)')).toBe(key('5+1-2'));
    expect(key('3+4')).toBe('3+4');
    expect(key('4-9')).toBe('4-9');
  });
  it('distinguishes different problems', () => {
    expect(key('3-4')).not.toBe(key('4-3'));
    expect(key('(1+2)*3')).not.toBe(key('1+2*3'));
    expect(key('2*3')).not.toBe(key('2+3'));
  });
});
