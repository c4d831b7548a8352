/**
 * Real-model prompts: every family renders as text ending in the opened think block, and a decoded response
 * is scored by the family's own verifier (the right answer after </think> is 1, a wrong one, an unclosed
 * block or a truncated response 0). The end-of-sequence token and the CPU engine's memory estimate too.
 */
import { describe, expect, it } from 'vitest';
import { renderHfPrompt, scoreHfResponse, THINK_PREFIX } from '../../src/rl/hf-prompts';
import { FAMILIES, FAMILY_NAMES } from '../../src/tasks';
import { Rng } from '../../src/util/rng';
import { tokenizerFromJson, resolveEosId } from '../../src/model/hf/tokenizer';
import { trainByteLevelBpe } from '../../src/model/hf/bpe-train';
import { TINY_CORPUS, TINY_SPECIAL, tinyHfConfig } from '../../src/model/hf/tiny';
import { hfBudget, hfCpuTrainBytes } from '../../src/model/hf/budget';
import { parseHfConfig } from '../../src/model/hf/config';

describe('hf prompts', () => {
  for (const family of FAMILY_NAMES)
    it(`${family}: rendered as text, verified on decoded text`, () => {
      const rng = new Rng(3);
      for (let i = 0; i < 20; i++) {
        const p = FAMILIES[family].generate(rng, 2);
        const text = renderHfPrompt(p);
        expect(text.endsWith(THINK_PREFIX)).toBe(true);
        expect(text).not.toContain('undefined');
        expect(scoreHfResponse(p, ` let me think </think>${p.answer}`, false)).toBe(1);
        expect(scoreHfResponse(p, ` let me think </think>${p.answer}`, true)).toBe(0);
        expect(scoreHfResponse(p, ` no close ${p.answer}`, false)).toBe(0);
        expect(scoreHfResponse(p, ` </think>${p.answer}9,9`, false)).toBe(0);
      }
    });
});

describe('end of sequence and memory', () => {
  const json = trainByteLevelBpe(TINY_CORPUS, { vocabSize: 300, specialTokens: [TINY_SPECIAL] });
  it('eos: config.json eos_token_id, else tokenizer_config eos_token, else <|endoftext|>; refused by name otherwise', () => {
    const tok = tokenizerFromJson(json, {}, 't');
    const endoftext = tok.tokenToId(TINY_SPECIAL)!;
    expect(resolveEosId({ eos_token_id: 7 }, tok, 320, 'm')).toBe(7);
    expect(resolveEosId({ eos_token_id: [9, 7] }, tok, 320, 'm')).toBe(9);
    expect(resolveEosId({}, tok, 320, 'm')).toBe(endoftext);
    const withCfg = tokenizerFromJson(json, { eos_token: { content: 'e' } }, 't');
    expect(resolveEosId({}, withCfg, 320, 'm')).toBe(withCfg.tokenToId('e'));
    expect(() => resolveEosId({ eos_token_id: 320 }, tok, 320, 'm')).toThrow(/m\/config.json: eos_token_id 320/);
    const noSpecial = tokenizerFromJson(trainByteLevelBpe(TINY_CORPUS, { vocabSize: 280, specialTokens: [] }), {}, 't');
    expect(() => resolveEosId({}, noSpecial, 320, 'm')).toThrow(/m: no end-of-sequence token/);
  });

  it('the CPU engine memory: 16 B per parameter full, 4 B + 16 B per adapter parameter with LoRA, plus activations', () => {
    const smol = parseHfConfig({ model_type: 'llama', vocab_size: 49152, hidden_size: 576, intermediate_size: 1536, num_hidden_layers: 30, num_attention_heads: 9, num_key_value_heads: 3, max_position_embeddings: 8192, rope_theta: 100000, rms_norm_eps: 1e-5, tie_word_embeddings: true, hidden_act: 'silu' }, 'c');
    const b = hfBudget(smol, { sequences: 1, tokens: 256 }, 16);
    const full = hfCpuTrainBytes(smol, 256, 0), lora = hfCpuTrainBytes(smol, 256, 16);
    expect(full).toBeGreaterThan(16 * b.params);
    expect(full).toBeLessThan(16 * b.params * 1.2);
    expect(lora).toBeGreaterThan(4 * b.params + 16 * b.loraParams);
    expect(lora).toBeLessThan(full / 2);
    expect(hfCpuTrainBytes(tinyHfConfig('qwen2'), 512, 0)).toBeGreaterThan(hfCpuTrainBytes(tinyHfConfig('qwen2'), 256, 0));
  });
});
