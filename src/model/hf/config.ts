/**
 * A Hugging Face `config.json` of the Llama family, mapped to the fields the lab's decoder needs.
 * Two `model_type`s are read: "llama" (Llama 2/3, SmolLM, SmolLM2) and "qwen2" (Qwen2, Qwen2.5),
 * which differ here only in Qwen2's q/k/v projection biases. Anything the decoder would compute
 * differently from transformers' modeling_llama / modeling_qwen2 (RoPE scaling, a sliding window,
 * an activation other than SiLU, Llama's o_proj or MLP biases) is refused with the field named,
 * rather than loaded and run wrong.
 */
import { ModelFolderError } from './files';

export type HfModelType = 'llama' | 'qwen2';
export const HF_MODEL_TYPES: readonly HfModelType[] = ['llama', 'qwen2'];

export interface HfDecoderConfig {
  modelType: HfModelType;
  /** `vocab_size`: rows of the embedding and of the output head. */
  vocabSize: number;
  /** `hidden_size` d: the residual stream's width. */
  hiddenSize: number;
  /** `intermediate_size`: the SwiGLU MLP's inner width. */
  intermediateSize: number;
  /** `num_hidden_layers`. */
  numLayers: number;
  /** `num_attention_heads`: query heads. */
  numHeads: number;
  /** `num_key_value_heads`: key/value heads (grouped-query attention; = numHeads when absent). */
  numKvHeads: number;
  /** `head_dim` (Llama may set it; otherwise hidden_size / num_attention_heads). */
  headDim: number;
  /** `rope_theta` θ: RoPE's base, inv_freq_j = θ^(−2j/headDim). */
  ropeTheta: number;
  /** `rms_norm_eps` ε of every RMSNorm. */
  rmsNormEps: number;
  /** `tie_word_embeddings`: the output head is the embedding (no lm_head.weight). */
  tieWordEmbeddings: boolean;
  /** Biases on the q, k and v projections (always for qwen2, never for llama here). */
  qkvBias: boolean;
  /** `max_position_embeddings`: the longest sequence the model was trained for (inputs beyond it are refused). */
  maxPositions: number;
}

const MAX_DIM = 1 << 20;

/** Maps a parsed config.json; `file` names it in messages. */
export function parseHfConfig(raw: Record<string, unknown>, file: string): HfDecoderConfig {
  const bad = (field: string, why: string): never => {
    throw new ModelFolderError(`${file}: ${field} ${why}`);
  };
  const int = (field: string, fallback?: number): number => {
    const v = raw[field] ?? fallback;
    if (v === undefined) return bad(field, 'is missing');
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_DIM) return bad(field, `must be an integer in [1, ${MAX_DIM}], got ${JSON.stringify(v)}`);
    return v;
  };
  const pos = (field: string, fallback: number): number => {
    const v = raw[field] ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return bad(field, `must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  };
  const bool = (field: string, fallback: boolean): boolean => {
    const v = raw[field] ?? fallback;
    if (typeof v !== 'boolean') return bad(field, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  };
  const modelType = raw.model_type;
  if (typeof modelType !== 'string' || !(HF_MODEL_TYPES as readonly string[]).includes(modelType))
    bad('model_type', `${JSON.stringify(modelType)} is not supported (supported: ${HF_MODEL_TYPES.join(', ')})`);
  const mt = modelType as HfModelType;
  const act = raw.hidden_act ?? 'silu';
  if (act !== 'silu') bad('hidden_act', `${JSON.stringify(act)} is not supported (only "silu", SwiGLU)`);
  if (raw.rope_scaling !== undefined && raw.rope_scaling !== null) {
    const t = (raw.rope_scaling as Record<string, unknown>)?.rope_type ?? (raw.rope_scaling as Record<string, unknown>)?.type;
    if (t !== 'default') bad('rope_scaling', `${JSON.stringify(raw.rope_scaling)} is not supported yet (plain RoPE only)`);
  }
  if (mt === 'llama') {
    if (bool('attention_bias', false)) bad('attention_bias', 'true is not supported for llama (its o_proj bias is not implemented)');
    if (bool('mlp_bias', false)) bad('mlp_bias', 'true is not supported');
  } else if (bool('use_sliding_window', false)) bad('use_sliding_window', 'true is not supported (full attention only)');
  const hiddenSize = int('hidden_size');
  const numHeads = int('num_attention_heads');
  const numKvHeads = int('num_key_value_heads', numHeads);
  if (numHeads % numKvHeads !== 0) bad('num_key_value_heads', `${numKvHeads} must divide num_attention_heads ${numHeads}`);
  const headDimRaw = raw.head_dim;
  if ((headDimRaw === undefined || headDimRaw === null) && hiddenSize % numHeads !== 0)
    bad('num_attention_heads', `${numHeads} must divide hidden_size ${hiddenSize} when head_dim is absent`);
  const headDim = headDimRaw === undefined || headDimRaw === null ? hiddenSize / numHeads : int('head_dim');
  if (headDim % 2 !== 0) bad('head_dim', `${headDim} must be even (RoPE rotates halves)`);
  return {
    modelType: mt,
    vocabSize: int('vocab_size'),
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    numLayers: int('num_hidden_layers'),
    numHeads,
    numKvHeads,
    headDim,
    ropeTheta: pos('rope_theta', 10000),
    rmsNormEps: pos('rms_norm_eps', 1e-6),
    tieWordEmbeddings: bool('tie_word_embeddings', false),
    qkvBias: mt === 'qwen2',
    maxPositions: int('max_position_embeddings', 2048),
  };
}

/** The config.json that parseHfConfig maps back to `c` (what the writer ships with the weights). */
export function hfConfigJson(c: HfDecoderConfig): Record<string, unknown> {
  return {
    architectures: [c.modelType === 'llama' ? 'LlamaForCausalLM' : 'Qwen2ForCausalLM'],
    model_type: c.modelType,
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    ...(c.headDim !== c.hiddenSize / c.numHeads ? { head_dim: c.headDim } : {}),
    hidden_act: 'silu',
    max_position_embeddings: c.maxPositions,
    rope_theta: c.ropeTheta,
    rms_norm_eps: c.rmsNormEps,
    tie_word_embeddings: c.tieWordEmbeddings,
    ...(c.modelType === 'llama' ? { attention_bias: false, mlp_bias: false } : { use_sliding_window: false }),
    torch_dtype: 'float32',
  };
}

/** Parameters of the decoder (embedding, layers, final norm, and the head when untied). */
export function hfParamCount(c: HfDecoderConfig): number {
  const d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim;
  const attn = d * q + 2 * d * kv + q * d + (c.qkvBias ? q + 2 * kv : 0);
  const layer = 2 * d + attn + 3 * d * c.intermediateSize;
  return c.vocabSize * d * (c.tieWordEmbeddings ? 1 : 2) + c.numLayers * layer + d;
}
