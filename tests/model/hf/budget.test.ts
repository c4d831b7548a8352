/** The budget arithmetic, on SmolLM2-135M's and Qwen2.5-0.5B's published configs: the figures docs/real-models.md quotes. */
import { describe, expect, it } from 'vitest';
import { hfBudget } from '../../../src/model/hf/budget';
import { parseHfConfig } from '../../../src/model/hf/config';

const GIB = 1024 ** 3;
const smol = parseHfConfig({ model_type: 'llama', hidden_size: 576, intermediate_size: 1536, num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, rms_norm_eps: 1e-5, rope_theta: 1e5, tie_word_embeddings: true, vocab_size: 49152 }, 'smol');
const qwen = parseHfConfig({ model_type: 'qwen2', hidden_size: 896, intermediate_size: 4864, num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1e6, tie_word_embeddings: true, vocab_size: 151936 }, 'qwen');
const step = { sequences: 64, tokens: 256 };

describe('the budget of one GRPO step of 64 × 256 tokens', () => {
  it('SmolLM2-135M: ≈ 17.6 TFLOP, 2.0 GiB with full AdamW, 4.9M LoRA r=16 parameters, 3.0 GiB of full logits', () => {
    const b = hfBudget(smol, step, 16);
    expect(b.params).toBe(134_515_008);
    expect(b.stepFlop / 1e12).toBeCloseTo(17.6, 1);
    expect(b.fullAdamBytes / GIB).toBeCloseTo(2.0, 1);
    expect(b.loraParams).toBe(16 * 30 * (1152 + 2 * 768 + 1152 + 2 * 2112 + 2112));
    expect(b.loraParams / 1e6).toBeCloseTo(4.9, 1);
    expect(b.fullLogitsBytes / GIB).toBeCloseTo(3.0, 1);
  });
  it('Qwen2.5-0.5B: ≈ 65 TFLOP, 7.4 GiB full, 8.8M LoRA parameters and ~1 GB with LoRA over f16, 9.3 GiB of full logits', () => {
    const b = hfBudget(qwen, step, 16);
    expect(b.params).toBe(494_032_768);
    expect(b.stepFlop / 1e12).toBeCloseTo(64.8, 1);
    expect(b.fullAdamBytes / GIB).toBeCloseTo(7.36, 2);
    expect(b.loraParams / 1e6).toBeCloseTo(8.8, 1);
    expect(b.loraBytes / 1e9).toBeCloseTo(1.13, 2);
    expect(b.fullLogitsBytes / GIB).toBeCloseTo(9.27, 2);
  });
  it('scales with the rank and the step', () => {
    expect(hfBudget(smol, step, 8).loraParams * 2).toBe(hfBudget(smol, step, 16).loraParams);
    expect(hfBudget(smol, { sequences: 32, tokens: 256 }, 16).stepFlop * 2).toBe(hfBudget(smol, step, 16).stepFlop);
  });
});
