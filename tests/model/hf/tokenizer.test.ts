/**
 * tokenizer.json through @huggingface/tokenizers, on byte-level BPE tokenizers trained in the repo
 * (src/model/hf/bpe-train.ts): the library's ids equal an independent BPE encoder written here
 * (GPT-2 split, bytes → printable stand-ins, lowest-rank merge first), text round-trips through
 * encode/decode for any Unicode, special tokens keep their ids, and the trainer is deterministic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteToUnicode, GPT2_SPLIT, QWEN2_SPLIT, trainByteLevelBpe } from '../../../src/model/hf/bpe-train';
import { memoryFolder, ModelFolderError } from '../../../src/model/hf/files';
import { loadHfTokenizer, tokenizerFromJson } from '../../../src/model/hf/tokenizer';
import { TINY_CORPUS, TINY_SPECIAL } from '../../../src/model/hf/tiny';

const json = trainByteLevelBpe(TINY_CORPUS, { vocabSize: 300, specialTokens: [TINY_SPECIAL] });
const tok = tokenizerFromJson(json, {}, 'tokenizer.json');

/** BPE as the original GPT-2 encoder does it, from the vocab and merges alone. */
function referenceEncode(text: string, spec: Record<string, unknown>, style: 'gpt2' | 'qwen2' = 'gpt2'): number[] {
  const model = spec.model as { vocab: Record<string, number>; merges: [string, string][] };
  const rank = new Map(model.merges.map(([a, b], i) => [`${a} ${b}`, i]));
  const table = byteToUnicode();
  const ids: number[] = [];
  for (const m of (style === 'qwen2' ? text.normalize('NFC') : text).matchAll(style === 'qwen2' ? QWEN2_SPLIT : GPT2_SPLIT)) {
    let syms = [...new TextEncoder().encode(m[0])].map((b) => table[b]);
    for (;;) {
      let best = -1, bestRank = Infinity;
      for (let i = 0; i + 1 < syms.length; i++) {
        const r = rank.get(`${syms[i]} ${syms[i + 1]}`);
        if (r !== undefined && r < bestRank) (bestRank = r), (best = i);
      }
      if (best < 0) break;
      const [a, b] = [syms[best], syms[best + 1]];
      const out: string[] = [];
      for (let i = 0; i < syms.length; i++)
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) out.push(a + b), i++;
        else out.push(syms[i]);
      syms = out;
    }
    for (const s of syms) ids.push(model.vocab[s]);
  }
  return ids;
}

// Text made of the corpus's own pieces (so merges fire) and arbitrary Unicode.
const corpusish = fc.array(fc.constantFrom(...TINY_CORPUS.join(' ').split(/(?=\s)/), ' ', '  ', '\n', '42', "'s", 'é', '数'), { maxLength: 12 }).map((p) => p.join(''));
const anyText = fc.oneof(corpusish, fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }));

describe('byte-level BPE tokenizer.json', () => {
  it('the trainer learns the most frequent pairs first, ties broken by the smaller pair, deterministically', () => {
    const t = trainByteLevelBpe(['ab ab ab cd cd cd xy'], { vocabSize: 262 });
    // Counts: "a b" 3, "Ġ a" 2, "c d" 3, "Ġ c" 3 … the top pairs at 3 sorted as strings: "a b" < "c d" < "Ġ a"… (Ġ is U+0120, after ASCII).
    expect((t.model as { merges: string[][] }).merges.slice(0, 2)).toEqual([['a', 'b'], ['c', 'd']]);
    expect(JSON.stringify(trainByteLevelBpe(TINY_CORPUS, { vocabSize: 300, specialTokens: [TINY_SPECIAL] }))).toBe(JSON.stringify(json));
    const vocab = (json.model as { vocab: Record<string, number> }).vocab;
    expect(Object.keys(vocab)).toHaveLength(299);
    expect(new Set(Object.values(vocab)).size).toBe(299);
    expect(vocab.A).toBe(65);
    expect(() => trainByteLevelBpe([], { vocabSize: 200 })).toThrow(/below 256 bytes/);
  });

  it("the library's ids equal the reference BPE encoder's, on corpus-like and arbitrary text", () => {
    fc.assert(fc.property(anyText, (text) => {
      expect(tok.encode(text)).toEqual(referenceEncode(text, json));
    }), { numRuns: 300, seed: 44 });
    expect(tok.encode('the answer is correct')).toEqual(referenceEncode('the answer is correct', json));
    expect(tok.encode('the answer is correct').length).toBeLessThan(6); // merges, not bytes
  });

  it("Qwen2's layout (NFC, a Split pre-tokenizer with its Oniguruma pattern, ByteLevel without regex): ids equal the reference", () => {
    const qjson = trainByteLevelBpe(TINY_CORPUS, { vocabSize: 300, specialTokens: [TINY_SPECIAL], style: 'qwen2' });
    const qtok = tokenizerFromJson(qjson, {}, 'tokenizer.json');
    fc.assert(fc.property(anyText, (text) => {
      expect(qtok.encode(text)).toEqual(referenceEncode(text, qjson, 'qwen2'));
      expect(qtok.decode(qtok.encode(text))).toBe(text.normalize('NFC'));
    }), { numRuns: 300, seed: 46 });
    // Digits split one at a time, contractions case-insensitively — unlike GPT-2's split.
    const v = (qjson.model as { vocab: Record<string, number> }).vocab;
    expect(qtok.encode('42')).toEqual([v['4'], v['2']]);
    expect(qtok.encode("IT'S")).toEqual(referenceEncode("IT'S", qjson, 'qwen2'));
    expect([...("IT'S".matchAll(QWEN2_SPLIT))].map((m) => m[0])).toEqual(['IT', "'S"]);
  });

  it('decode(encode(text)) is the text, for any Unicode', () => {
    fc.assert(fc.property(anyText, (text) => {
      expect(tok.decode(tok.encode(text))).toBe(text);
    }), { numRuns: 300, seed: 45 });
  });

  it('a special token keeps its id and round-trips', () => {
    const ids = tok.encode(`the answer${TINY_SPECIAL}42`);
    expect(ids).toContain(299);
    expect(tok.decode(ids)).toBe(`the answer${TINY_SPECIAL}42`);
    expect(tok.size).toBe(300);
  });

  it('loads from a folder with tokenizer_config.json, and refuses non-BPE or broken files naming them', async () => {
    const files = new Map<string, string>([['tokenizer.json', JSON.stringify(json)], ['tokenizer_config.json', JSON.stringify({ eos_token: TINY_SPECIAL })]]);
    expect((await loadHfTokenizer(memoryFolder('m', files))).encode('the')).toEqual(tok.encode('the'));
    await expect(loadHfTokenizer(memoryFolder('m', new Map([['tokenizer.json', '{"model": {"type": "Unigram"}}']])))).rejects.toThrow(/^m\/tokenizer\.json: model\.type "Unigram" is not supported yet/);
    await expect(loadHfTokenizer(memoryFolder('m', new Map([['tokenizer.json', '[1']])))).rejects.toThrow(ModelFolderError);
    await expect(loadHfTokenizer(memoryFolder('m', new Map()))).rejects.toThrow(/m\/tokenizer\.json: no such file/);
  });
});
