/**
 * Character-level tokenizer. The default policy has vocabSize 32, so the task formats use a
 * small alphabet: digits, `+ - * ( ) = , :` and space, plus five special tokens.
 */

export const PAD = '<pad>';
export const BOS = '<bos>';
export const EOS = '<eos>';
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

/** Every plain character the tasks use, in id order after the specials. */
export const CHARS = '0123456789+-*()=,: ';

/** Token strings by id. Specials first so their ids stay fixed if CHARS grows. */
export const VOCAB: readonly string[] = Object.freeze([PAD, BOS, EOS, THINK_OPEN, THINK_CLOSE, ...CHARS]);
export const VOCAB_SIZE = VOCAB.length;

export const PAD_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;
export const THINK_OPEN_ID = 3;
export const THINK_CLOSE_ID = 4;

const CHAR_IDS = new Map<string, number>([...CHARS].map((ch, i) => [ch, 5 + i]));

export class TokenizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerError';
  }
}

/** Encodes text; `<think>` and `</think>` become single tokens. Throws on any other character outside VOCAB. */
export function encode(text: string): number[] {
  const ids: number[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith(THINK_OPEN, i)) {
      ids.push(THINK_OPEN_ID);
      i += THINK_OPEN.length;
      continue;
    }
    if (text.startsWith(THINK_CLOSE, i)) {
      ids.push(THINK_CLOSE_ID);
      i += THINK_CLOSE.length;
      continue;
    }
    const id = CHAR_IDS.get(text[i]);
    if (id === undefined) {
      const cp = text.codePointAt(i) ?? 0;
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      throw new TokenizerError(
        `encode: character ${JSON.stringify(String.fromCodePoint(cp))} (U+${hex}) at index ${i} is not in the vocabulary`,
      );
    }
    ids.push(id);
    i += 1;
  }
  return ids;
}

export interface DecodeOptions {
  /** Render PAD/BOS/EOS as `<pad>`/`<bos>`/`<eos>` (for display) instead of dropping them. */
  showSpecials?: boolean;
}

/** Decodes ids; think tags are always rendered so the result can be verified. Throws on an id outside VOCAB. */
export function decode(ids: ArrayLike<number>, opts: DecodeOptions = {}): string {
  let out = '';
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (!Number.isInteger(id) || id < 0 || id >= VOCAB_SIZE) {
      throw new TokenizerError(`decode: token id ${id} at position ${i} is outside 0..${VOCAB_SIZE - 1}`);
    }
    if (id === PAD_ID || id === BOS_ID || id === EOS_ID) {
      if (opts.showSpecials) out += VOCAB[id];
    } else {
      out += VOCAB[id];
    }
  }
  return out;
}

/** BOS followed by the prompt's tokens: what the policy is conditioned on. */
export function encodePrompt(prompt: string): number[] {
  return [BOS_ID, ...encode(prompt)];
}

/** The response's tokens followed by EOS: what the policy must generate. */
export function encodeResponse(response: string): number[] {
  return [...encode(response), EOS_ID];
}

export interface SplitResponse {
  /** Text inside the think block (everything after `<think>` if it never closes). */
  think: string;
  /** Text after the first `</think>`; empty unless closed. */
  answer: string;
  /** The response starts with `<think>` and contains `</think>`. */
  closed: boolean;
}

/** Splits `<think>THINK</think>ANSWER`. The opener must come first: the format reward is strict. */
export function splitResponse(text: string): SplitResponse {
  const opened = text.startsWith(THINK_OPEN);
  const body = opened ? text.slice(THINK_OPEN.length) : text;
  const close = body.indexOf(THINK_CLOSE);
  if (!opened || close < 0) return { think: body, answer: '', closed: false };
  return { think: body.slice(0, close), answer: body.slice(close + THINK_CLOSE.length), closed: true };
}
