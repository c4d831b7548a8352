import { describe, it, expect } from 'vitest';
import {
  BOS_ID,
  CHARS,
  decode,
  encode,
  encodePrompt,
  encodeResponse,
  EOS_ID,
  PAD_ID,
  splitResponse,
  THINK_CLOSE_ID,
  THINK_OPEN_ID,
  VOCAB,
  VOCAB_SIZE,
} from '../../src/tasks/index';
import { DEFAULT_MODEL_CONFIG } from '../../src/model/config';

describe('vocabulary', () => {
  it('fits the default model and has fixed special ids', () => {
    expect(VOCAB_SIZE).toBe(24);
    expect(VOCAB_SIZE).toBeLessThanOrEqual(DEFAULT_MODEL_CONFIG.vocabSize);
    expect([PAD_ID, BOS_ID, EOS_ID, THINK_OPEN_ID, THINK_CLOSE_ID]).toEqual([0, 1, 2, 3, 4]);
    expect(VOCAB.slice(0, 5)).toEqual(['<pad>', '<bos>', '<eos>', '<think>', '</think>']);
    expect(VOCAB.slice(5).join('')).toBe(CHARS);
    expect(new Set(VOCAB).size).toBe(VOCAB_SIZE);
  });
});

describe('encode/decode', () => {
  it('round-trips every character and the think tags as single tokens', () => {
    const text = `<think>${CHARS}</think>0123`;
    const ids = encode(text);
    expect(ids.length).toBe(CHARS.length + 2 + 4);
    expect(ids[0]).toBe(THINK_OPEN_ID);
    expect(ids[CHARS.length + 1]).toBe(THINK_CLOSE_ID);
    expect(decode(ids)).toBe(text);
  });

  it('encodes concrete ids', () => {
    expect(encode('12+3=')).toEqual([6, 7, 15, 8, 20]);
    expect(encode('<think>1</think>')).toEqual([3, 6, 4]);
    expect(encode('')).toEqual([]);
  });

  it('throws naming the offending character and its index', () => {
    expect(() => encode('1+a')).toThrow(/character "a" \(U\+0061\) at index 2/);
    expect(() => encode('8/2')).toThrow(/"\/"/);
    expect(() => encode('<think')).toThrow(/"<" .* at index 0/);
    expect(() => encode('12\n')).toThrow(/U\+000A/);
    expect(() => encode('😀')).toThrow(/U\+1F600/);
  });

  it('hides PAD/BOS/EOS by default and shows markers on request', () => {
    const ids = [BOS_ID, 6, EOS_ID, PAD_ID];
    expect(decode(ids)).toBe('1');
    expect(decode(ids, { showSpecials: true })).toBe('<bos>1<eos><pad>');
  });

  it('rejects ids outside the vocabulary', () => {
    expect(() => decode([5, 24])).toThrow(/token id 24 at position 1/);
    expect(() => decode([-1])).toThrow(/token id -1/);
    expect(() => decode([1.5])).toThrow(/token id 1.5/);
  });

  it('adds BOS to prompts and EOS to responses', () => {
    expect(encodePrompt('1+2=')).toEqual([BOS_ID, 6, 15, 7, 20]);
    expect(encodeResponse('<think></think>3')).toEqual([THINK_OPEN_ID, THINK_CLOSE_ID, 8, EOS_ID]);
  });
});

describe('splitResponse', () => {
  it('splits a well-formed response', () => {
    expect(splitResponse('<think>1+2=3</think>3')).toEqual({ think: '1+2=3', answer: '3', closed: true });
  });
  it('reports an unclosed think block', () => {
    expect(splitResponse('<think>1+2=3')).toEqual({ think: '1+2=3', answer: '', closed: false });
  });
  it('requires the opener first', () => {
    expect(splitResponse('3</think>3').closed).toBe(false);
    expect(splitResponse(' <think></think>3').closed).toBe(false);
  });
  it('splits at the first closer', () => {
    expect(splitResponse('<think>a</think>1</think>2')).toEqual({ think: 'a', answer: '1</think>2', closed: true });
  });
});
