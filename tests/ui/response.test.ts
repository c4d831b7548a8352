import { describe, expect, it } from 'vitest';
import { splitThink, thinkMask } from '../../src/ui/lib/response';

describe('think / answer split', () => {
  it('splits a closed think block', () => {
    expect(splitThink('<think>1+2=3</think>3')).toEqual({ think: '1+2=3', answer: '3', closed: true });
  });
  it('handles an unclosed block and a bare answer', () => {
    expect(splitThink('<think>1+2')).toEqual({ think: '1+2', answer: '', closed: false });
    expect(splitThink('42')).toEqual({ think: '', answer: '42', closed: false });
  });
  it('marks think tokens', () => {
    expect(thinkMask(['<think>', '1', '</think>', '3'])).toEqual([true, true, true, false]);
  });
});
