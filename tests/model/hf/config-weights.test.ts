/**
 * config.json mapping (llama, qwen2; everything else refused with the field named) and the weights'
 * load / write round trip: sharded equals single-file, BF16 loads exactly what was written, and a
 * folder that is missing a tensor, has a wrong shape, an extra tensor, or an index that lies is
 * one message naming the file and tensor.
 */
import { describe, expect, it } from 'vitest';
import { hfConfigJson, hfParamCount, parseHfConfig } from '../../../src/model/hf/config';
import { memoryFolder, ModelFolderError } from '../../../src/model/hf/files';
import { decodeFloats, encodeSafetensors, floatToBf16Bits, type TensorToWrite } from '../../../src/model/hf/safetensors';
import { tinyHfConfig, tinyHfFolder, tinyHfWeights } from '../../../src/model/hf/tiny';
import { encodeHfFolder, expectedTensors, INDEX_FILE, loadHfWeights, type HfWeights } from '../../../src/model/hf/weights';

// SmolLM2-135M's and Qwen2.5-0.5B's config.json (the fields that matter, as published).
const SMOLLM2_135M = {
  architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_act: 'silu', hidden_size: 576, intermediate_size: 1536,
  num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, rms_norm_eps: 1e-5, rope_theta: 100000,
  rope_scaling: null, tie_word_embeddings: true, vocab_size: 49152, max_position_embeddings: 8192, attention_bias: false, mlp_bias: false,
};
const QWEN25_05B = {
  architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', hidden_act: 'silu', hidden_size: 896, intermediate_size: 4864,
  num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000,
  tie_word_embeddings: true, vocab_size: 151936, max_position_embeddings: 32768, use_sliding_window: false, sliding_window: 32768,
};

const refusedConfig = (raw: Record<string, unknown>, msg: RegExp) => {
  let err: unknown = null;
  try {
    parseHfConfig(raw, 'm/config.json');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ModelFolderError);
  expect((err as Error).message).toMatch(/^m\/config\.json: /);
  expect((err as Error).message).toMatch(msg);
};

describe('config.json', () => {
  it("maps SmolLM2-135M's and Qwen2.5-0.5B's configs and counts their published parameters", () => {
    const s = parseHfConfig(SMOLLM2_135M, 'c');
    expect(s).toMatchObject({ modelType: 'llama', hiddenSize: 576, numHeads: 9, numKvHeads: 3, headDim: 64, ropeTheta: 1e5, tieWordEmbeddings: true, qkvBias: false, vocabSize: 49152 });
    expect(hfParamCount(s)).toBe(134_515_008);
    const q = parseHfConfig(QWEN25_05B, 'c');
    expect(q).toMatchObject({ modelType: 'qwen2', headDim: 64, numKvHeads: 2, qkvBias: true, rmsNormEps: 1e-6, ropeTheta: 1e6 });
    expect(hfParamCount(q)).toBe(494_032_768);
  });
  it('round-trips through hfConfigJson', () => {
    for (const arch of ['llama', 'qwen2'] as const) expect(parseHfConfig(hfConfigJson(tinyHfConfig(arch)), 'c')).toEqual(tinyHfConfig(arch));
    const odd = { ...tinyHfConfig('llama'), headDim: 16 };
    expect(parseHfConfig(hfConfigJson(odd), 'c')).toEqual(odd);
  });
  it('refuses other model types and anything computed differently, naming the field', () => {
    refusedConfig({ ...SMOLLM2_135M, model_type: 'gpt2' }, /model_type "gpt2" is not supported \(supported: llama, qwen2\)/);
    refusedConfig({ ...SMOLLM2_135M, model_type: undefined }, /model_type/);
    refusedConfig({ ...SMOLLM2_135M, rope_scaling: { rope_type: 'llama3', factor: 8 } }, /rope_scaling .* not supported/);
    refusedConfig({ ...SMOLLM2_135M, hidden_act: 'gelu' }, /hidden_act "gelu"/);
    refusedConfig({ ...SMOLLM2_135M, attention_bias: true }, /attention_bias true/);
    refusedConfig({ ...QWEN25_05B, use_sliding_window: true }, /use_sliding_window true/);
    refusedConfig({ ...SMOLLM2_135M, num_key_value_heads: 4 }, /num_key_value_heads 4 must divide num_attention_heads 9/);
    refusedConfig({ ...SMOLLM2_135M, hidden_size: undefined }, /hidden_size is missing/);
    refusedConfig({ ...SMOLLM2_135M, vocab_size: 1.5 }, /vocab_size must be an integer/);
    refusedConfig({ ...SMOLLM2_135M, rms_norm_eps: -1 }, /rms_norm_eps must be a positive number/);
    refusedConfig({ ...SMOLLM2_135M, tie_word_embeddings: 'yes' }, /tie_word_embeddings must be true or false/);
    refusedConfig({ ...SMOLLM2_135M, hidden_size: 577 }, /num_attention_heads 9 must divide hidden_size 577/);
  });
});

const allTensors = (w: HfWeights) => expectedTensors(w.config).map((t) => (t.layer >= 0 ? (w.layers[t.layer] as unknown as Record<string, Float32Array>)[t.key] : (w as unknown as Record<string, Float32Array>)[t.key]));
const bf16Round = (a: Float32Array) => { const b = new Uint8Array(2 * a.length); const dv = new DataView(b.buffer); a.forEach((x, i) => dv.setUint16(2 * i, floatToBf16Bits(x), true)); return decodeFloats(b, 'BF16'); };

async function refusedFolder(files: Map<string, Uint8Array | string>, msg: RegExp) {
  const err = await loadHfWeights(memoryFolder('m', files)).then(() => null, (e) => e);
  expect(err).toBeInstanceOf(ModelFolderError);
  expect(err.message).not.toMatch(/\n/);
  expect(err.message).toMatch(msg);
}

describe('weights: write, load back', () => {
  for (const arch of ['llama', 'qwen2'] as const)
    it(`${arch}: F32 single file and F32 in 1…5 shards load the same weights, exactly`, async () => {
      const w = tinyHfWeights(tinyHfConfig(arch), 7);
      const single = await loadHfWeights(memoryFolder('m', encodeHfFolder(w, { dtype: 'F32', shards: 1 })));
      expect(single.config).toEqual(w.config);
      expect(allTensors(single)).toEqual(allTensors(w));
      expect(single.lmHead === null).toBe(arch === 'llama');
      expect(single.layers[0].qBias === null).toBe(arch === 'llama');
      for (const shards of [2, 3, 5]) {
        const files = encodeHfFolder(w, { dtype: 'F32', shards });
        expect([...files.keys()].filter((f) => f.endsWith('.safetensors'))).toHaveLength(shards);
        expect(files.has(INDEX_FILE)).toBe(true);
        expect(allTensors(await loadHfWeights(memoryFolder('m', files)))).toEqual(allTensors(single));
      }
    });

  it('BF16 loads exactly the rounded values written, F16 likewise', async () => {
    const w = tinyHfWeights(tinyHfConfig('qwen2'), 3);
    const back = await loadHfWeights(memoryFolder('m', encodeHfFolder(w, { dtype: 'BF16', shards: 2 })));
    expect(allTensors(back)).toEqual(allTensors(w).map(bf16Round));
    expect(JSON.parse(encodeHfFolder(w, { dtype: 'BF16', shards: 1 }).get('config.json') as string).torch_dtype).toBe('bfloat16');
    const f16 = await loadHfWeights(memoryFolder('m', encodeHfFolder(w, { dtype: 'F16', shards: 1 })));
    const maxErr = Math.max(...allTensors(f16).map((a, i) => Math.max(...a.map((x, j) => Math.abs(x - allTensors(w)[i][j]) / Math.max(1e-3, Math.abs(allTensors(w)[i][j]))))));
    expect(maxErr).toBeLessThan(1e-3);
  });

  it('a tied checkpoint that also stores lm_head.weight, and an old inv_freq buffer, still load', async () => {
    const w = tinyHfWeights(tinyHfConfig('llama'), 1);
    const named: TensorToWrite[] = expectedTensors(w.config).map((t, i) => ({ name: t.name, shape: t.shape, dtype: 'F32' as const, data: allTensors(w)[i] }));
    named.push({ name: 'lm_head.weight', shape: [320, 32], dtype: 'F32', data: w.embed });
    named.push({ name: 'model.layers.0.self_attn.rotary_emb.inv_freq', shape: [4], dtype: 'F32', data: new Float32Array(4) });
    const files = encodeHfFolder(w, { dtype: 'F32', shards: 1 });
    files.set('model.safetensors', encodeSafetensors(named));
    expect((await loadHfWeights(memoryFolder('m', files))).lmHead).toBeNull();
  });

  it('refuses a missing tensor, a wrong shape, an unknown tensor, no weights, a lying index', async () => {
    const w = tinyHfWeights(tinyHfConfig('qwen2'), 1);
    const named: TensorToWrite[] = expectedTensors(w.config).map((t, i) => ({ name: t.name, shape: t.shape, dtype: 'F32' as const, data: allTensors(w)[i] }));
    const withTensors = (list: typeof named) => { const f = encodeHfFolder(w, { dtype: 'F32', shards: 1 }); f.set('model.safetensors', encodeSafetensors(list)); return f; };
    await refusedFolder(withTensors(named.filter((t) => t.name !== 'model.layers.1.self_attn.k_proj.bias')), /tensor "model\.layers\.1\.self_attn\.k_proj\.bias" is missing/);
    await refusedFolder(withTensors(named.map((t) => (t.name === 'model.norm.weight' ? { ...t, shape: [16, 2] } : t))), /m\/model\.safetensors: tensor "model\.norm\.weight" has shape \[16,2\], config\.json implies \[32\]/);
    await refusedFolder(withTensors([...named, { name: 'model.layers.2.mlp.up_proj.weight', shape: [1], dtype: 'F32', data: new Float32Array(1) }]), /tensor "model\.layers\.2\.mlp\.up_proj\.weight" is not part of a qwen2 model/);
    const none = encodeHfFolder(w, { dtype: 'F32', shards: 1 });
    none.delete('model.safetensors');
    await refusedFolder(none, /^m: no model\.safetensors and no model\.safetensors\.index\.json$/);
    const noConfig = encodeHfFolder(w, { dtype: 'F32', shards: 1 });
    noConfig.delete('config.json');
    await refusedFolder(noConfig, /m\/config\.json: no such file/);

    const bigConfig = encodeHfFolder(w, { dtype: 'F32', shards: 1 });
    bigConfig.set('config.json', ' '.repeat((1 << 20) + 1));
    await refusedFolder(bigConfig, /m\/config\.json: 1048577 bytes, more than a config\.json may be \(1048576\)/);
    const listConfig = encodeHfFolder(w, { dtype: 'F32', shards: 1 });
    listConfig.set('config.json', '[]');
    await refusedFolder(listConfig, /m\/config\.json: expected a JSON object/);
    const binConfig = encodeHfFolder(w, { dtype: 'F32', shards: 1 });
    binConfig.set('config.json', new Uint8Array([0x7b, 0xff, 0x7d]));
    await refusedFolder(binConfig, /m\/config\.json: not UTF-8 text/);

    const sharded = () => encodeHfFolder(w, { dtype: 'F32', shards: 2 });
    const withIndex = (edit: (map: Record<string, string>) => void) => {
      const f = sharded();
      const idx = JSON.parse(f.get(INDEX_FILE) as string);
      edit(idx.weight_map);
      f.set(INDEX_FILE, JSON.stringify(idx));
      return f;
    };
    await refusedFolder(withIndex((m) => (m['model.norm.weight'] = '../../etc/passwd.safetensors')), /weight_map\["model\.norm\.weight"\] = "\.\.\/\.\.\/etc\/passwd\.safetensors" is not a shard file name/);
    await refusedFolder(withIndex((m) => (m['model.norm.weight'] = 'model-00009-of-00009.safetensors')), /m\/model-00009-of-00009\.safetensors: no such file/);
    await refusedFolder(withIndex((m) => (m['model.norm.weight'] = 'model-00001-of-00002.safetensors')), /weight_map puts "model\.norm\.weight" in model-00001-of-00002\.safetensors, whose header has no such tensor/);
    await refusedFolder(withIndex((m) => delete m['model.norm.weight']), /model-00002-of-00002\.safetensors: holds "model\.norm\.weight", which model\.safetensors\.index\.json's weight_map does not list there/);
    const badJson = sharded();
    badJson.set(INDEX_FILE, '{"weight_map": ');
    await refusedFolder(badJson, /m\/model\.safetensors\.index\.json: not valid JSON/);
  });
});

describe('the tiny fixture checkpoints', () => {
  it('are deterministic from the seed, small, and of the promised kinds', () => {
    const size = (m: Map<string, Uint8Array | string>) => [...m.values()].reduce((a, v) => a + (typeof v === 'string' ? v.length : v.length), 0);
    for (const arch of ['llama', 'qwen2'] as const) {
      const a = tinyHfFolder(arch, 1), b = tinyHfFolder(arch, 1), c = tinyHfFolder(arch, 2);
      expect([...a.keys()]).toEqual([...b.keys()]);
      for (const [k, v] of a) expect(Buffer.from(b.get(k)!).equals(Buffer.from(v))).toBe(true);
      expect(Buffer.from(c.get('config.json')!).equals(Buffer.from(a.get('config.json')!))).toBe(true);
      const weightFile = [...a.keys()].find((k) => k.endsWith('.safetensors'))!;
      expect(Buffer.from(c.get(weightFile)!).equals(Buffer.from(a.get(weightFile)!))).toBe(false);
      expect(size(a)).toBeLessThan(200_000);
    }
    const llama = tinyHfFolder('llama'), qwen = tinyHfFolder('qwen2');
    expect(JSON.parse(llama.get('config.json') as string)).toMatchObject({ model_type: 'llama', torch_dtype: 'bfloat16', tie_word_embeddings: true, num_key_value_heads: 1, num_attention_heads: 4 });
    expect([...llama.keys()].sort()).toEqual(['config.json', 'model.safetensors', 'tokenizer.json']);
    expect(JSON.parse(qwen.get('config.json') as string)).toMatchObject({ model_type: 'qwen2', torch_dtype: 'float32', tie_word_embeddings: false, num_key_value_heads: 2 });
    expect([...qwen.keys()].filter((k) => /^model-0000\d-of-00003\.safetensors$/.test(k))).toHaveLength(3);
  });
});
