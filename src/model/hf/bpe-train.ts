/**
 * A small deterministic byte-level BPE trainer that writes a Hugging Face `tokenizer.json` (the
 * GPT-2 / SmolLM layout: ByteLevel pre-tokenizer with the GPT-2 split pattern, BPE model, ByteLevel
 * decoder). It exists so tests and tiny fixture models have a real tokenizer made in the repo, not
 * downloaded: ids 0–255 are the 256 bytes (as GPT-2's printable stand-ins), then one id per merge
 * in the order learned, then the special tokens.
 *
 * Training is the classic algorithm: split the corpus into words with the pattern, count words,
 * then repeatedly merge the most frequent adjacent pair (ties: the lexicographically smallest
 * "left right"), until the vocabulary is full or no pair occurs twice.
 */

/** GPT-2's split pattern (the ByteLevel pre-tokenizer's with use_regex). */
export const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Qwen2's split pattern as its tokenizer.json writes it (Oniguruma: an inline case-insensitive group; digits one at a time). */
export const QWEN2_SPLIT_SOURCE = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** The same pattern in JavaScript (the case-insensitive contractions spelled out). */
export const QWEN2_SPLIT = /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** GPT-2's bytes_to_unicode: each byte → a printable character (printable Latin-1 bytes map to themselves). */
export function byteToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const out: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) out[b] = keep.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  return out;
}

/** A word (one piece of the split) as its byte characters. */
export function wordSymbols(piece: string, table: readonly string[]): string[] {
  return [...new TextEncoder().encode(piece)].map((b) => table[b]);
}

export interface BpeTrainOptions {
  /** Total vocabulary including the 256 bytes and the special tokens. */
  vocabSize: number;
  /** Added as special tokens after the merges (e.g. "<|endoftext|>"). */
  specialTokens?: string[];
  /**
   * How text is split before BPE: "gpt2" (GPT-2 / SmolLM: ByteLevel with its own regex) or "qwen2" (Qwen2's layout:
   * NFC normalizer, a Split pre-tokenizer with Qwen2's pattern, then ByteLevel without a regex). Default gpt2.
   */
  style?: 'gpt2' | 'qwen2';
}

/** Trains on `corpus` and returns the tokenizer.json object. */
export function trainByteLevelBpe(corpus: readonly string[], opts: BpeTrainOptions): Record<string, unknown> {
  const table = byteToUnicode();
  const specials = opts.specialTokens ?? [];
  const maxMerges = opts.vocabSize - 256 - specials.length;
  if (maxMerges < 0) throw new RangeError(`trainByteLevelBpe: vocabSize ${opts.vocabSize} is below 256 bytes + ${specials.length} special tokens`);
  const qwen = opts.style === 'qwen2';
  const counts = new Map<string, number>();
  for (const raw of corpus) {
    const text = qwen ? raw.normalize('NFC') : raw;
    for (const m of text.matchAll(qwen ? QWEN2_SPLIT : GPT2_SPLIT)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  }
  const words = [...counts.keys()].sort().map((w) => ({ syms: wordSymbols(w, table), n: counts.get(w)! }));
  const vocab: Record<string, number> = {};
  table.forEach((ch, b) => (vocab[ch] = b));
  const merges: [string, string][] = [];
  while (merges.length < maxMerges) {
    const pairs = new Map<string, number>();
    for (const { syms, n } of words) for (let i = 0; i + 1 < syms.length; i++) {
      const key = `${syms[i]} ${syms[i + 1]}`;
      pairs.set(key, (pairs.get(key) ?? 0) + n);
    }
    let best = '', bestN = 1;
    for (const [key, n] of pairs) if (n > bestN || (n === bestN && n > 1 && key < best)) (best = key), (bestN = n);
    if (bestN < 2) break;
    const [a, b] = best.split(' ');
    const merged = a + b;
    if (merged in vocab) break; // cannot happen with byte-level symbols, but never assign one string two ids
    merges.push([a, b]);
    vocab[merged] = 256 + merges.length - 1;
    for (const w of words) {
      const out: string[] = [];
      for (let i = 0; i < w.syms.length; i++)
        if (i + 1 < w.syms.length && w.syms[i] === a && w.syms[i + 1] === b) out.push(merged), i++;
        else out.push(w.syms[i]);
      w.syms = out;
    }
  }
  const firstSpecial = 256 + merges.length;
  const byteLevel = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content, i) => ({ id: firstSpecial + i, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: qwen ? { type: 'NFC' } : null,
    pre_tokenizer: qwen
      ? { type: 'Sequence', pretokenizers: [
          { type: 'Split', pattern: { Regex: QWEN2_SPLIT_SOURCE }, behavior: 'Isolated', invert: false },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
        ] }
      : { type: 'ByteLevel', ...byteLevel },
    post_processor: { type: 'ByteLevel', ...byteLevel, trim_offsets: false },
    decoder: { type: 'ByteLevel', ...byteLevel },
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges,
    },
  };
}
