/**
 * The decoder's weights by their Hugging Face names (transformers' modeling_llama / modeling_qwen2):
 * loaded from `model.safetensors` or a sharded set listed in `model.safetensors.index.json`, and
 * written back the same way with a config.json that the loader reads.
 *
 * Linear weights are stored as PyTorch does, [out, in] row-major: y_o = Σ_i W[o, i] x_i (+ b_o).
 */
import { hfConfigJson, parseHfConfig, type HfDecoderConfig } from './config';
import { ModelFolderError, readJsonObject, type ModelFiles } from './files';
import { encodeSafetensors, readSafetensorsHeader, readTensor, type FloatDtype, type SafetensorsFile, type TensorToWrite } from './safetensors';

export interface HfLayerWeights {
  inputNorm: Float32Array;
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
  o: Float32Array;
  /** Qwen2's projection biases (null for llama). */
  qBias: Float32Array | null;
  kBias: Float32Array | null;
  vBias: Float32Array | null;
  postNorm: Float32Array;
  gate: Float32Array;
  up: Float32Array;
  down: Float32Array;
}

export interface HfWeights {
  config: HfDecoderConfig;
  /** model.embed_tokens.weight [V, d]. */
  embed: Float32Array;
  layers: HfLayerWeights[];
  /** model.norm.weight [d]. */
  norm: Float32Array;
  /** lm_head.weight [V, d], or null when tied to the embedding. */
  lmHead: Float32Array | null;
}

export const CONFIG_FILE = 'config.json';
export const SINGLE_FILE = 'model.safetensors';
export const INDEX_FILE = 'model.safetensors.index.json';
const MAX_CONFIG_BYTES = 1 << 20;
const MAX_INDEX_BYTES = 64 << 20;
/** A shard's name as the Hub writes them; nothing with a path separator. */
const SHARD_NAME = /^[A-Za-z0-9_.-]+\.safetensors$/;

type LayerKey = Exclude<keyof HfLayerWeights, never>;
const LAYER_TENSORS: readonly [LayerKey, string][] = [
  ['inputNorm', 'input_layernorm.weight'],
  ['q', 'self_attn.q_proj.weight'],
  ['k', 'self_attn.k_proj.weight'],
  ['v', 'self_attn.v_proj.weight'],
  ['o', 'self_attn.o_proj.weight'],
  ['qBias', 'self_attn.q_proj.bias'],
  ['kBias', 'self_attn.k_proj.bias'],
  ['vBias', 'self_attn.v_proj.bias'],
  ['postNorm', 'post_attention_layernorm.weight'],
  ['gate', 'mlp.gate_proj.weight'],
  ['up', 'mlp.up_proj.weight'],
  ['down', 'mlp.down_proj.weight'],
];

/** Every tensor the config calls for, with its Hugging Face name and shape, in the order the writer stores them. */
export function expectedTensors(c: HfDecoderConfig): { name: string; shape: number[]; layer: number; key: string }[] {
  const d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim, m = c.intermediateSize;
  const shapes: Record<LayerKey, number[] | null> = {
    inputNorm: [d], q: [q, d], k: [kv, d], v: [kv, d], o: [d, q],
    qBias: c.qkvBias ? [q] : null, kBias: c.qkvBias ? [kv] : null, vBias: c.qkvBias ? [kv] : null,
    postNorm: [d], gate: [m, d], up: [m, d], down: [d, m],
  };
  const out = [{ name: 'model.embed_tokens.weight', shape: [c.vocabSize, d], layer: -1, key: 'embed' }];
  for (let i = 0; i < c.numLayers; i++)
    for (const [key, suffix] of LAYER_TENSORS) {
      const shape = shapes[key];
      if (shape) out.push({ name: `model.layers.${i}.${suffix}`, shape, layer: i, key });
    }
  out.push({ name: 'model.norm.weight', shape: [d], layer: -1, key: 'norm' });
  if (!c.tieWordEmbeddings) out.push({ name: 'lm_head.weight', shape: [c.vocabSize, d], layer: -1, key: 'lmHead' });
  return out;
}

/** Names a checkpoint may hold that the decoder does not use: RoPE's cached frequencies (older Llama exports). */
const IGNORED = /^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$/;

export async function loadHfConfig(files: ModelFiles): Promise<HfDecoderConfig> {
  const raw = await readJsonObject(files, CONFIG_FILE, MAX_CONFIG_BYTES);
  return parseHfConfig(raw, `${files.name}/${CONFIG_FILE}`);
}

/** Which file holds each tensor: the single file, or the index's weight_map (shards opened once each). */
async function openTensorFiles(files: ModelFiles): Promise<Map<string, SafetensorsFile>> {
  const byTensor = new Map<string, SafetensorsFile>();
  if (await files.has(SINGLE_FILE)) {
    const f = await readSafetensorsHeader(await files.open(SINGLE_FILE));
    for (const name of f.tensors.keys()) byTensor.set(name, f);
    return byTensor;
  }
  if (!(await files.has(INDEX_FILE))) throw new ModelFolderError(`${files.name}: no ${SINGLE_FILE} and no ${INDEX_FILE}`);
  const where = `${files.name}/${INDEX_FILE}`;
  const index = await readJsonObject(files, INDEX_FILE, MAX_INDEX_BYTES);
  const map = index.weight_map;
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw new ModelFolderError(`${where}: weight_map must be an object of tensor name → file`);
  const shards = new Map<string, SafetensorsFile>();
  for (const [tensor, file] of Object.entries(map as Record<string, unknown>)) {
    if (typeof file !== 'string' || !SHARD_NAME.test(file) || file === '.safetensors')
      throw new ModelFolderError(`${where}: weight_map[${JSON.stringify(tensor)}] = ${JSON.stringify(file)} is not a shard file name in this folder`);
    let shard = shards.get(file);
    if (!shard) shards.set(file, (shard = await readSafetensorsHeader(await files.open(file))));
    if (!shard.tensors.has(tensor)) throw new ModelFolderError(`${where}: weight_map puts ${JSON.stringify(tensor)} in ${file}, whose header has no such tensor`);
    byTensor.set(tensor, shard);
  }
  for (const [file, shard] of shards)
    for (const name of shard.tensors.keys())
      if (byTensor.get(name) !== shard) throw new ModelFolderError(`${files.name}/${file}: holds ${JSON.stringify(name)}, which ${INDEX_FILE}'s weight_map does not list there`);
  return byTensor;
}

/** The config and every weight of a model folder, widened to f32, each checked against the config's shape. */
export async function loadHfWeights(files: ModelFiles): Promise<HfWeights> {
  const config = await loadHfConfig(files);
  const byTensor = await openTensorFiles(files);
  const expected = expectedTensors(config);
  const wanted = new Set(expected.map((t) => t.name));
  for (const [name, f] of byTensor) {
    if (wanted.has(name) || IGNORED.test(name)) continue;
    if (name === 'lm_head.weight' && config.tieWordEmbeddings) continue; // some exports store the tied head too; the embedding is used
    throw new ModelFolderError(`${f.source.name}: tensor ${JSON.stringify(name)} is not part of a ${config.modelType} model with this config.json`);
  }
  const w: HfWeights = { config, embed: new Float32Array(0), layers: [], norm: new Float32Array(0), lmHead: null };
  for (let i = 0; i < config.numLayers; i++)
    w.layers.push({ inputNorm: null!, q: null!, k: null!, v: null!, o: null!, qBias: null, kBias: null, vBias: null, postNorm: null!, gate: null!, up: null!, down: null! });
  for (const t of expected) {
    const f = byTensor.get(t.name);
    if (!f) throw new ModelFolderError(`${files.name}: tensor ${JSON.stringify(t.name)} is missing (config.json's model_type ${config.modelType} needs it)`);
    const entry = f.tensors.get(t.name)!;
    if (entry.shape.length !== t.shape.length || entry.shape.some((s, j) => s !== t.shape[j]))
      throw new ModelFolderError(`${f.source.name}: tensor ${JSON.stringify(t.name)} has shape ${JSON.stringify(entry.shape)}, config.json implies ${JSON.stringify(t.shape)}`);
    const data = await readTensor(f, t.name);
    if (t.layer >= 0) (w.layers[t.layer] as unknown as Record<string, Float32Array>)[t.key] = data;
    else (w as unknown as Record<string, Float32Array>)[t.key] = data;
  }
  return w;
}

export interface WriteOptions {
  /** How the weights are stored (BF16 and F16 round to nearest, ties to even). */
  dtype: FloatDtype;
  /** 1: model.safetensors; more: model-0000K-of-0000N.safetensors with the index. */
  shards: number;
}

/** The weights as the files of a model folder (config.json, safetensors, and the index when sharded). */
export function encodeHfFolder(w: HfWeights, opts: WriteOptions): Map<string, Uint8Array | string> {
  const c = w.config;
  const tensors: TensorToWrite[] = expectedTensors(c).map((t) => ({
    name: t.name,
    shape: t.shape,
    dtype: opts.dtype,
    data: t.layer >= 0 ? (w.layers[t.layer] as unknown as Record<string, Float32Array>)[t.key] : (w as unknown as Record<string, Float32Array>)[t.key],
  }));
  const out = new Map<string, Uint8Array | string>();
  out.set(CONFIG_FILE, JSON.stringify({ ...hfConfigJson(c), torch_dtype: { F32: 'float32', F16: 'float16', BF16: 'bfloat16' }[opts.dtype] }, null, 2) + '\n');
  const meta = { format: 'pt' };
  if (opts.shards <= 1) {
    out.set(SINGLE_FILE, encodeSafetensors(tensors, meta));
    return out;
  }
  const n = Math.min(opts.shards, tensors.length);
  const pad = (k: number) => String(k).padStart(5, '0');
  const weightMap: Record<string, string> = {};
  let total = 0;
  for (let s = 0; s < n; s++) {
    const part = tensors.slice(Math.floor((s * tensors.length) / n), Math.floor(((s + 1) * tensors.length) / n));
    const file = `model-${pad(s + 1)}-of-${pad(n)}.safetensors`;
    for (const t of part) weightMap[t.name] = file;
    total += part.reduce((a, t) => a + t.data.length * (opts.dtype === 'F32' ? 4 : 2), 0);
    out.set(file, encodeSafetensors(part, meta));
  }
  out.set(INDEX_FILE, JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2) + '\n');
  return out;
}
