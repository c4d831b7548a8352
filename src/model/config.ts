/**
 * The policy's size and shape, its validation, and the flat parameter layout shared by the
 * GPU model, the float64 reference, checkpoints and AdamW.
 *
 * Parameters live in ONE flat f32 array (as in llm.c): a single AdamW dispatch and a single
 * grad-norm reduction cover every tensor, and a checkpoint is one blob. Each tensor starts
 * at a multiple of 64 floats (256 bytes) because WebGPU storage-buffer binding offsets must be
 * 256-byte aligned. Tensors with weight decay come first, so AdamW runs as two contiguous
 * ranges (decayed, not decayed).
 *
 * Weight convention (llm.c): a linear layer's weight is [out, in] and y = x · Wᵀ + b.
 */

export interface ModelConfig {
  /** V: vocabulary size (number of token ids). */
  vocabSize: number;
  /** T: maximum sequence length (prompt + response) the position table covers. */
  contextLength: number;
  /** L: number of transformer blocks. */
  nLayers: number;
  /** C: residual-stream width. */
  dModel: number;
  /** H: attention heads; head size is C / H. */
  nHeads: number;
  /** MLP hidden width = mlpRatio · C. */
  mlpRatio: number;
  /** Pre-norm flavour: RMSNorm (weight only) or LayerNorm (weight and bias). */
  norm: 'rmsnorm' | 'layernorm';
  /** Tied unembedding: logits use the token-embedding table wte instead of a separate head. */
  tiedEmbeddings: boolean;
}

export const DEFAULT_MODEL_CONFIG: ModelConfig = {
  vocabSize: 32,
  contextLength: 64,
  nLayers: 2,
  dModel: 64,
  nHeads: 4,
  mlpRatio: 4,
  norm: 'rmsnorm',
  tiedEmbeddings: true,
};

/** Thrown for any invalid configuration; `field` names the offending field. */
export class ConfigError extends Error {
  constructor(
    public readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Limits an adapter imposes on the model (subset of GPUSupportedLimits). */
export interface ModelLimits {
  maxStorageBufferBindingSize: number;
  maxComputeWorkgroupsPerDimension: number;
}

/**
 * Largest context a model may have: the WebGPU decode kernel's limit, ATTENTION_MAX_CONTEXT in
 * src/gpu/kernels/attention.ts (a row of scores stays in workgroup memory); both engines share one
 * model config. Restated, not imported: the page's main thread imports this module and never
 * src/gpu (tests/model/config.test.ts checks the two agree).
 */
export const MAX_CONTEXT_LENGTH = 1024;

/** A bad value in a message: JSON, shortened to one readable line; one JSON cannot write (nested too deep, a bigint) by its kind. */
function shown(v: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  if (text === undefined) return Array.isArray(v) ? 'a deeply nested array' : `a ${typeof v === 'object' && v !== null ? 'deeply nested object' : typeof v}`;
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function checkInt(cfg: Record<string, unknown>, field: string, min: number, max: number): void {
  const v = cfg[field];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConfigError(field, `must be a number, got ${shown(v)}`);
  if (!Number.isInteger(v)) throw new ConfigError(field, `must be an integer, got ${v}`);
  if (v < min || v > max) throw new ConfigError(field, `must be between ${min} and ${max}, got ${v}`);
}

/** [min, max] of each integer field, in the order they are checked (the page's model fields read them too). */
export const MODEL_INT_BOUNDS: Readonly<Record<'vocabSize' | 'contextLength' | 'nLayers' | 'dModel' | 'nHeads' | 'mlpRatio', readonly [number, number]>> = {
  vocabSize: [2, 65536],
  contextLength: [1, MAX_CONTEXT_LENGTH],
  nLayers: [1, 64],
  dModel: [1, 4096],
  nHeads: [1, 256],
  mlpRatio: [1, 16],
};

/**
 * Validates a (possibly partial, possibly untrusted) model config and returns a complete one.
 * Unknown fields are rejected so that a typo does not silently fall back to a default.
 * With `limits`, also checks that the largest buffers fit the adapter.
 */
export function validateModelConfig(input: unknown, limits?: ModelLimits): ModelConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ConfigError('model', 'must be an object');
  }
  const known = Object.keys(DEFAULT_MODEL_CONFIG);
  for (const k of Object.keys(input)) {
    if (!known.includes(k)) throw new ConfigError(k, `unknown model config field (known: ${known.join(', ')})`);
  }
  const cfg = { ...DEFAULT_MODEL_CONFIG, ...(input as Partial<ModelConfig>) } as unknown as Record<string, unknown>;
  for (const [field, [min, max]] of Object.entries(MODEL_INT_BOUNDS)) checkInt(cfg, field, min, max);
  if ((cfg.dModel as number) % (cfg.nHeads as number) !== 0) {
    throw new ConfigError('dModel', `must be divisible by nHeads (${cfg.dModel} % ${cfg.nHeads} != 0)`);
  }
  if ((cfg.dModel as number) / (cfg.nHeads as number) > 256) {
    throw new ConfigError('nHeads', `head size dModel/nHeads must be at most 256, got ${(cfg.dModel as number) / (cfg.nHeads as number)}`);
  }
  if (cfg.norm !== 'rmsnorm' && cfg.norm !== 'layernorm') {
    throw new ConfigError('norm', `must be "rmsnorm" or "layernorm", got ${shown(cfg.norm)}`);
  }
  if (typeof cfg.tiedEmbeddings !== 'boolean') {
    throw new ConfigError('tiedEmbeddings', `must be true or false, got ${shown(cfg.tiedEmbeddings)}`);
  }
  const out = cfg as unknown as ModelConfig;
  if (limits) checkModelFitsLimits(out, 1, limits);
  return out;
}

/**
 * Checks that training `batch` sequences of full context fits the adapter's buffer-binding
 * limit (largest activations: attention probabilities B·H·T·T and the MLP hidden B·T·4C).
 */
export function checkModelFitsLimits(cfg: ModelConfig, batch: number, limits: ModelLimits): void {
  const T = cfg.contextLength;
  const bytes = (n: number) => n * 4;
  const att = bytes(batch * cfg.nHeads * T * T);
  const logits = bytes(batch * T * cfg.vocabSize);
  const hidden = bytes(batch * T * cfg.mlpRatio * cfg.dModel);
  const largest = Math.max(att, logits, hidden, bytes(layoutParams(cfg).totalFloats));
  if (largest > limits.maxStorageBufferBindingSize) {
    throw new ConfigError(
      'contextLength',
      `model too large for this adapter: a ${largest}-byte buffer exceeds maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}`,
    );
  }
}

export interface TensorSpec {
  /** Stable name used in checkpoints, e.g. "h0.attn.qkv.w". */
  name: string;
  shape: number[];
  /** Element count (product of shape). */
  size: number;
  /** Offset into the flat parameter array, in floats (multiple of PARAM_ALIGN_FLOATS). */
  offset: number;
  /** AdamW decoupled weight decay applies (matrices and embeddings, not norms or biases). */
  decay: boolean;
  /** How to initialise it. */
  init: 'normal' | 'normal-residual' | 'zeros' | 'ones';
}

export interface ParamLayout {
  tensors: TensorSpec[];
  byName: Map<string, TensorSpec>;
  /** Floats in the flat array including alignment padding. */
  totalFloats: number;
  /** [0, decayEnd) holds the decayed tensors, [decayEnd, totalFloats) the rest. */
  decayEnd: number;
  /** Number of real parameters (no padding). */
  count: number;
}

/** 256 bytes: WebGPU's minStorageBufferOffsetAlignment. */
export const PARAM_ALIGN_FLOATS = 64;

const alignUp = (n: number, a: number) => Math.ceil(n / a) * a;

/** Tensor names for layer l. */
export const layerNames = (l: number) => ({
  ln1w: `h${l}.ln1.w`,
  ln1b: `h${l}.ln1.b`,
  qkvw: `h${l}.attn.qkv.w`,
  qkvb: `h${l}.attn.qkv.b`,
  projw: `h${l}.attn.proj.w`,
  projb: `h${l}.attn.proj.b`,
  ln2w: `h${l}.ln2.w`,
  ln2b: `h${l}.ln2.b`,
  fcw: `h${l}.mlp.fc.w`,
  fcb: `h${l}.mlp.fc.b`,
  fcprojw: `h${l}.mlp.proj.w`,
  fcprojb: `h${l}.mlp.proj.b`,
});

/** Builds the flat layout. Order is part of the checkpoint format: do not reorder casually. */
export function layoutParams(cfg: ModelConfig): ParamLayout {
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const V = cfg.vocabSize;
  const T = cfg.contextLength;
  const layerNorm = cfg.norm === 'layernorm';
  const specs: Omit<TensorSpec, 'offset' | 'size'>[] = [];
  const add = (name: string, shape: number[], decay: boolean, init: TensorSpec['init']) => specs.push({ name, shape, decay, init });
  // Decayed tensors first.
  add('wte', [V, C], true, 'normal');
  add('wpe', [T, C], true, 'normal');
  if (!cfg.tiedEmbeddings) add('lm_head.w', [V, C], true, 'normal');
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = layerNames(l);
    add(n.qkvw, [3 * C, C], true, 'normal');
    add(n.projw, [C, C], true, 'normal-residual');
    add(n.fcw, [F, C], true, 'normal');
    add(n.fcprojw, [C, F], true, 'normal-residual');
  }
  const decayCount = specs.length;
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = layerNames(l);
    add(n.ln1w, [C], false, 'ones');
    if (layerNorm) add(n.ln1b, [C], false, 'zeros');
    add(n.qkvb, [3 * C], false, 'zeros');
    add(n.projb, [C], false, 'zeros');
    add(n.ln2w, [C], false, 'ones');
    if (layerNorm) add(n.ln2b, [C], false, 'zeros');
    add(n.fcb, [F], false, 'zeros');
    add(n.fcprojb, [C], false, 'zeros');
  }
  add('lnf.w', [C], false, 'ones');
  if (layerNorm) add('lnf.b', [C], false, 'zeros');

  const tensors: TensorSpec[] = [];
  let offset = 0;
  let decayEnd = 0;
  let count = 0;
  specs.forEach((s, i) => {
    const size = s.shape.reduce((a, b) => a * b, 1);
    tensors.push({ ...s, size, offset });
    offset = alignUp(offset + size, PARAM_ALIGN_FLOATS);
    count += size;
    if (i === decayCount - 1) decayEnd = offset;
  });
  return { tensors, byName: new Map(tensors.map((t) => [t.name, t])), totalFloats: offset, decayEnd, count };
}

/** Head tensor name: the unembedding matrix [V, C]. */
export const headName = (cfg: ModelConfig) => (cfg.tiedEmbeddings ? 'wte' : 'lm_head.w');

/** Initialisation std (GPT-2): 0.02, residual projections scaled by 1/sqrt(2L). */
export const INIT_STD = 0.02;
