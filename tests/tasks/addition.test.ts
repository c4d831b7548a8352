import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import { addition, CONCISE_STYLE, makeAdditionProblem, normalizeInteger, type Problem } from '../../src/tasks/index';

const p = makeAdditionProblem(47, 85, 2); // 132
const r = (answer: string) => `<think>7+5=12,4+8+1=13</think>${answer}`;

describe('normalizeInteger', () => {
  it('normalises signs, zeros and surrounding spaces', () => {
    expect(normalizeInteger('007')).toBe('7');
    expect(normalizeInteger(' +12 ')).toBe('12');
    expect(normalizeInteger('-0')).toBe('0');
    expect(normalizeInteger('-007')).toBe('-7');
    expect(normalizeInteger('0')).toBe('0');
  });
  it('rejects anything that is not one integer', () => {
    for (const bad of ['', ' ', '12 13', '1.0', '--1', '+-1', '- 1', '1e3', 'x', '12,', '0x1']) expect(normalizeInteger(bad), bad).toBeNull();
  });
});

describe('addition problem', () => {
  it('has the documented format', () => {
    expect(p).toMatchObject({ family: 'addition', prompt: '47+85=', answer: '132', id: '47+85', data: { a: 47, b: 85 } });
    expect(addition.trace(p, new Rng(1), CONCISE_STYLE)).toBe('<think>7+5=12,4+8+1=13</think>132');
  });

  it('generates operands with the requested number of digits', () => {
    const rng = new Rng(5);
    for (let i = 0; i < 300; i++) {
      const q = addition.generate(rng, 3) as Problem<{ a: number; b: number }>;
      const lens = [String(q.data.a).length, String(q.data.b).length];
      expect(Math.max(...lens)).toBe(3);
      expect(q.answer).toBe(String(q.data.a + q.data.b));
      expect(q.prompt).toBe(`${q.data.a}+${q.data.b}=`);
    }
    expect(() => addition.generate(rng, 0)).toThrow(/difficulty must be an integer in \[1, 8\]/);
    expect(() => addition.generate(rng, 2.5)).toThrow(/difficulty/);
  });

  it('canonical key ignores operand order', () => {
    expect(addition.canonicalKey(makeAdditionProblem(85, 47, 2))).toBe(addition.canonicalKey(p));
    expect(addition.canonicalKey(makeAdditionProblem(84, 47, 2))).not.toBe(addition.canonicalKey(p));
  });
});

describe('addition verifier', () => {
  it('accepts the right answer, normalised', () => {
    for (const a of ['132', ' 132', '132 ', '0132', '+132']) expect(addition.verify(p, r(a)), a).toBe(1);
    expect(addition.verify(p, '<think></think>132')).toBe(1);
  });

  it('rejects wrong answers', () => {
    for (const a of ['131', '-132', '1320', '13 2', '132 133', '132,', '132=', '1.32e2']) expect(addition.verify(p, r(a)), a).toBe(0);
  });

  it('rejects malformed responses', () => {
    expect(addition.verify(p, '')).toBe(0);
    expect(addition.verify(p, '132')).toBe(0);
    expect(addition.verify(p, '<think>7+5=12,4+8+1=13 so 132')).toBe(0);
    expect(addition.verify(p, '<think>132</think>')).toBe(0); // answer only inside think
    expect(addition.verify(p, '</think>132')).toBe(0);
    expect(addition.verify(p, '<think></think><think>132</think>132')).toBe(0);
    expect(addition.verify(p, '<think></think>\u0000132')).toBe(0);
    expect(addition.verify(p, r('9'.repeat(100000)))).toBe(0);
  });

  it('scores truncated responses 0 even when the answer is right', () => {
    expect(addition.verify(p, r('132'), { truncated: true })).toBe(0);
    expect(addition.verify(p, r('132'), { truncated: false })).toBe(1);
  });

  it('never throws, even on non-strings or broken problems', () => {
    expect(addition.verify(p, undefined as unknown as string)).toBe(0);
    expect(addition.verify(null as unknown as Problem, r('132'))).toBe(0);
    expect(addition.verify({ ...p, answer: 5 as unknown as string }, r('5'))).toBe(0);
  });

  it('handles zero sums and leading zeros', () => {
    const z = makeAdditionProblem(0, 0, 1);
    expect(z.answer).toBe('0');
    expect(addition.verify(z, '<think></think>000')).toBe(1);
    expect(addition.verify(z, '<think></think>-0')).toBe(1);
    const seven = makeAdditionProblem(3, 4, 1);
    expect(addition.verify(seven, '<think></think>007')).toBe(1);
  });
});

describe('addition traces', () => {
  it('show the carry into a new leading digit', () => {
    expect(addition.trace(makeAdditionProblem(999, 1, 3), new Rng(0), CONCISE_STYLE)).toBe('<think>9+1=10,9+0+1=10,9+0+1=10</think>1000');
  });
  it('a slipped column always yields a wrong sum', () => {
    const rng = new Rng(11);
    for (let i = 0; i < 500; i++) {
      const q = addition.generate(rng, 1 + (i % 5));
      expect(addition.verify(q, addition.trace(q, rng, { wrongStepRate: 1, verboseRate: 0 }))).toBe(0);
    }
  });
});
