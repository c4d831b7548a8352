/**
 * The whole policy in float64: forward, backward, the GRPO policy loss, the SFT cross-entropy
 * and one AdamW train step, all on the flat parameter layout of `layoutParams(cfg)`.
 *
 * This is the readable twin of the GPU model: the GPU must match it to float32 tolerance, and
 * it is itself checked by finite differences. Architecture (GPT-2 style, pre-norm):
 *   x = wte[tok] + wpe[t]
 *   for each block: x += proj(attn(qkv(norm1(x))));  x += fcproj(gelu(fc(norm2(x))))
 *   logits = normf(x) · headᵀ   (head = wte when tied, else lm_head.w; no bias)
 */

import { headName, layerNames, layoutParams, type ModelConfig, type ParamLayout } from '../config';
import {
  adamwStep,
  attentionBackward,
  attentionForward,
  clipGradNorm,
  encoderBackward,
  encoderForward,
  geluBackward,
  geluForward,
  grpoTokenLoss,
  layernormBackward,
  layernormForward,
  linearBackward,
  linearForward,
  logSoftmaxEntropyBackward,
  logSoftmaxEntropyForward,
  rmsnormBackward,
  rmsnormForward,
  type GrpoLossOptions,
  type GrpoTokenInputs,
  type TokenArray,
} from './ops';

// ---------------------------------------------------------------------------------------------
// Parameter access
// ---------------------------------------------------------------------------------------------

/** A view (no copy) of one named tensor inside the flat array. */
function tensor(layout: ParamLayout, flat: Float64Array, name: string): Float64Array {
  const spec = layout.byName.get(name);
  if (!spec) throw new Error(`no tensor named ${name}`);
  return flat.subarray(spec.offset, spec.offset + spec.size);
}

/** Adds `g` into the named tensor's slot of the flat gradient array. */
function accumulate(layout: ParamLayout, grads: Float64Array, name: string, g: Float64Array): void {
  const dst = tensor(layout, grads, name);
  if (g.length > dst.length) throw new Error(`gradient for ${name} too long: ${g.length} > ${dst.length}`);
  // g may be shorter than dst (wpe: only the first T rows are used).
  for (let i = 0; i < g.length; i++) dst[i] += g[i];
}

// ---------------------------------------------------------------------------------------------
// Norm dispatch (rmsnorm: weight only; layernorm: weight and bias)
// ---------------------------------------------------------------------------------------------

interface NormCache {
  input: Float64Array;
  out: Float64Array;
  /** Only for layernorm. */
  mean: Float64Array | null;
  rstd: Float64Array;
}

function normForward(
  cfg: ModelConfig,
  x: Float64Array,
  w: Float64Array,
  b: Float64Array | null,
  rows: number,
): NormCache {
  const C = cfg.dModel;
  if (cfg.norm === 'layernorm') {
    const r = layernormForward(x, w, b as Float64Array, rows, C);
    return { input: x, out: r.out, mean: r.mean, rstd: r.rstd };
  }
  const r = rmsnormForward(x, w, rows, C);
  return { input: x, out: r.out, mean: null, rstd: r.rstd };
}

function normBackward(
  cfg: ModelConfig,
  dout: Float64Array,
  cache: NormCache,
  w: Float64Array,
  rows: number,
): { dx: Float64Array; dw: Float64Array; db: Float64Array | null } {
  const C = cfg.dModel;
  if (cfg.norm === 'layernorm') {
    return layernormBackward(dout, cache.input, w, cache.mean as Float64Array, cache.rstd, rows, C);
  }
  const r = rmsnormBackward(dout, cache.input, w, cache.rstd, rows, C);
  return { dx: r.dx, dw: r.dw, db: null };
}

// ---------------------------------------------------------------------------------------------
// Forward
// ---------------------------------------------------------------------------------------------

interface LayerCache {
  ln1: NormCache;
  qkv: Float64Array;
  att: Float64Array;
  /** Attention output before the projection. */
  attOut: Float64Array;
  /** Residual stream after the attention block (input of norm2). */
  ln2: NormCache;
  /** fc output before GELU. */
  fcPre: Float64Array;
  /** GELU output (input of the MLP projection). */
  fcAct: Float64Array;
}

export interface ReferenceCache {
  cfg: ModelConfig;
  layout: ParamLayout;
  params: Float64Array;
  tokens: TokenArray;
  B: number;
  T: number;
  layers: LayerCache[];
  lnf: NormCache;
}

function checkInputs(cfg: ModelConfig, params: Float64Array, tokens: TokenArray, B: number, T: number): ParamLayout {
  const layout = layoutParams(cfg);
  if (params.length !== layout.totalFloats) {
    throw new Error(`params has ${params.length} floats, layout needs ${layout.totalFloats}`);
  }
  if (T < 1 || T > cfg.contextLength) throw new Error(`T=${T} outside 1..${cfg.contextLength}`);
  if (tokens.length !== B * T) throw new Error(`tokens has ${tokens.length} entries, expected B·T=${B * T}`);
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (!Number.isInteger(tok) || tok < 0 || tok >= cfg.vocabSize) throw new Error(`token ${tok} at ${i} out of range`);
  }
  return layout;
}

/** Logits [B·T × V] for tokens [B × T], plus everything the backward pass needs. */
export function referenceForward(
  cfg: ModelConfig,
  params: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
): { logits: Float64Array; cache: ReferenceCache } {
  const layout = checkInputs(cfg, params, tokens, B, T);
  const P = (name: string) => tensor(layout, params, name);
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const V = cfg.vocabSize;
  const rows = B * T;
  const ln = cfg.norm === 'layernorm';

  let x = encoderForward(tokens, P('wte'), P('wpe'), B, T, C);
  const layers: LayerCache[] = [];
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = layerNames(l);
    // Attention block.
    const ln1 = normForward(cfg, x, P(n.ln1w), ln ? P(n.ln1b) : null, rows);
    const qkv = linearForward(ln1.out, P(n.qkvw), P(n.qkvb), rows, C, 3 * C);
    const { out: attOut, att } = attentionForward(qkv, B, T, C, cfg.nHeads);
    const proj = linearForward(attOut, P(n.projw), P(n.projb), rows, C, C);
    const x1 = addArrays(x, proj);
    // MLP block.
    const ln2 = normForward(cfg, x1, P(n.ln2w), ln ? P(n.ln2b) : null, rows);
    const fcPre = linearForward(ln2.out, P(n.fcw), P(n.fcb), rows, C, F);
    const fcAct = geluForward(fcPre);
    const mlp = linearForward(fcAct, P(n.fcprojw), P(n.fcprojb), rows, F, C);
    x = addArrays(x1, mlp);
    layers.push({ ln1, qkv, att, attOut, ln2, fcPre, fcAct });
  }
  const lnf = normForward(cfg, x, P('lnf.w'), ln ? P('lnf.b') : null, rows);
  const logits = linearForward(lnf.out, P(headName(cfg)), null, rows, C, V);
  return { logits, cache: { cfg, layout, params, tokens, B, T, layers, lnf } };
}

function addArrays(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Backward
// ---------------------------------------------------------------------------------------------

/**
 * Gradients of Σ dlogits·logits with respect to every parameter, in the flat layout
 * (padding stays 0). Tied embeddings: the head and the embedding contributions both land in wte.
 */
export function referenceBackward(
  cfg: ModelConfig,
  params: Float64Array,
  cache: ReferenceCache,
  dlogits: Float64Array,
): Float64Array {
  const { layout, tokens, B, T } = cache;
  const P = (name: string) => tensor(layout, params, name);
  const grads = new Float64Array(layout.totalFloats);
  const add = (name: string, g: Float64Array) => accumulate(layout, grads, name, g);
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const V = cfg.vocabSize;
  const rows = B * T;
  const ln = cfg.norm === 'layernorm';

  // Head and final norm.
  const head = linearBackward(dlogits, cache.lnf.out, P(headName(cfg)), rows, C, V);
  add(headName(cfg), head.dw);
  const lnf = normBackward(cfg, head.dx, cache.lnf, P('lnf.w'), rows);
  add('lnf.w', lnf.dw);
  if (ln) add('lnf.b', lnf.db as Float64Array);
  // dres: gradient flowing along the residual stream.
  let dres = lnf.dx;

  for (let l = cfg.nLayers - 1; l >= 0; l--) {
    const n = layerNames(l);
    const c = cache.layers[l];
    // MLP block: x2 = x1 + fcproj(gelu(fc(norm2(x1)))).
    const fcproj = linearBackward(dres, c.fcAct, P(n.fcprojw), rows, F, C);
    add(n.fcprojw, fcproj.dw);
    add(n.fcprojb, fcproj.db);
    const dfcPre = geluBackward(c.fcPre, fcproj.dx);
    const fc = linearBackward(dfcPre, c.ln2.out, P(n.fcw), rows, C, F);
    add(n.fcw, fc.dw);
    add(n.fcb, fc.db);
    const ln2 = normBackward(cfg, fc.dx, c.ln2, P(n.ln2w), rows);
    add(n.ln2w, ln2.dw);
    if (ln) add(n.ln2b, ln2.db as Float64Array);
    dres = addArrays(dres, ln2.dx);
    // Attention block: x1 = x0 + proj(attn(qkv(norm1(x0)))).
    const proj = linearBackward(dres, c.attOut, P(n.projw), rows, C, C);
    add(n.projw, proj.dw);
    add(n.projb, proj.db);
    const dqkv = attentionBackward(proj.dx, c.qkv, c.att, B, T, C, cfg.nHeads);
    const qkv = linearBackward(dqkv, c.ln1.out, P(n.qkvw), rows, C, 3 * C);
    add(n.qkvw, qkv.dw);
    add(n.qkvb, qkv.db);
    const ln1 = normBackward(cfg, qkv.dx, c.ln1, P(n.ln1w), rows);
    add(n.ln1w, ln1.dw);
    if (ln) add(n.ln1b, ln1.db as Float64Array);
    dres = addArrays(dres, ln1.dx);
  }

  const enc = encoderBackward(dres, tokens, B, T, C, V);
  add('wte', enc.dwte);
  add('wpe', enc.dwpe);
  return grads;
}

// ---------------------------------------------------------------------------------------------
// Losses
// ---------------------------------------------------------------------------------------------

/**
 * Next-token targets: position t predicts tokens[t+1]. The last position of each sequence has
 * no next token; it gets token 0 and must carry weight 0.
 */
export function nextTokenTargets(tokens: TokenArray, B: number, T: number): Int32Array {
  const targets = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T - 1; t++) targets[b * T + t] = tokens[b * T + t + 1];
  }
  return targets;
}

function checkLastPositionWeights(weights: Float64Array, B: number, T: number): void {
  if (weights.length !== B * T) throw new Error(`weights has ${weights.length} entries, expected B·T=${B * T}`);
  for (let b = 0; b < B; b++) {
    if (weights[b * T + T - 1] !== 0) throw new Error(`weight at the last position of sequence ${b} must be 0 (no next token)`);
  }
}

/** Forward → per-token logp/entropy → caller's loss on them → backward. Shared by RL and SFT. */
function tokenLossAndGrads<R extends { loss: number; dlogp: Float64Array; dent: Float64Array }>(
  cfg: ModelConfig,
  params: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
  temperature: number,
  weights: Float64Array,
  lossFn: (logp: Float64Array, entropy: Float64Array) => R,
): { result: R; grads: Float64Array; logp: Float64Array; entropy: Float64Array } {
  checkLastPositionWeights(weights, B, T);
  const V = cfg.vocabSize;
  const rows = B * T;
  const { logits, cache } = referenceForward(cfg, params, tokens, B, T);
  const targets = nextTokenTargets(tokens, B, T);
  const { logp, entropy } = logSoftmaxEntropyForward(logits, targets, rows, V, temperature);
  const result = lossFn(logp, entropy);
  const dlogits = logSoftmaxEntropyBackward(result.dlogp, result.dent, logits, targets, rows, V, temperature);
  const grads = referenceBackward(cfg, params, cache, dlogits);
  return { result, grads, logp, entropy };
}

/** Per-token RL inputs; logp and entropy come from the model. All have length B·T. */
export type PolicyLossInputs = Omit<GrpoTokenInputs, 'logp' | 'entropy'>;

export interface PolicyLossResult {
  loss: number;
  grads: Float64Array;
  logp: Float64Array;
  entropy: Float64Array;
  pgLoss: number;
  klSum: number;
  entSum: number;
  clipfrac: number;
  clipfracLower: number;
  ppoKl: number;
}

/** GRPO loss (clipped surrogate − α·entropy + β·KL) and its gradient for one batch. */
export function referencePolicyLoss(
  cfg: ModelConfig,
  params: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
  temperature: number,
  lossInputs: PolicyLossInputs,
  lossOpts: GrpoLossOptions,
): PolicyLossResult {
  const { result, grads, logp, entropy } = tokenLossAndGrads(
    cfg,
    params,
    tokens,
    B,
    T,
    temperature,
    lossInputs.weights,
    (lp, ent) => grpoTokenLoss({ ...lossInputs, logp: lp, entropy: ent }, lossOpts),
  );
  return {
    loss: result.loss,
    grads,
    logp,
    entropy,
    pgLoss: result.pgLoss,
    klSum: result.klSum,
    entSum: result.entSum,
    clipfrac: result.clipfrac,
    clipfracLower: result.clipfracLower,
    ppoKl: result.ppoKl,
  };
}

/** SFT: loss = −Σ w_t·logp_t (weights include normalisation; last positions weight 0). */
export function referenceCrossEntropy(
  cfg: ModelConfig,
  params: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
  weights: Float64Array,
  temperature = 1,
): { loss: number; grads: Float64Array; logp: Float64Array; entropy: Float64Array } {
  const { result, grads, logp, entropy } = tokenLossAndGrads(cfg, params, tokens, B, T, temperature, weights, (lp) => {
    let loss = 0;
    const dlogp = new Float64Array(lp.length);
    for (let i = 0; i < lp.length; i++) {
      loss -= weights[i] * lp[i];
      dlogp[i] = -weights[i];
    }
    return { loss, dlogp, dent: new Float64Array(lp.length) };
  });
  return { loss: result.loss, grads, logp, entropy };
}

// ---------------------------------------------------------------------------------------------
// Train step
// ---------------------------------------------------------------------------------------------

export interface TrainStepOptions {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** 1-based AdamW step. */
  step: number;
  /** Global grad-norm clip threshold (Infinity: no clipping). */
  maxGradNorm: number;
}

/**
 * Policy loss gradients → global-norm clip → AdamW, updating params, m and v in place.
 * Weight decay covers [0, layout.decayEnd) (matrices and embeddings).
 */
export function referenceTrainStep(
  cfg: ModelConfig,
  params: Float64Array,
  m: Float64Array,
  v: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
  temperature: number,
  lossInputs: PolicyLossInputs,
  lossOpts: GrpoLossOptions,
  optim: TrainStepOptions,
): PolicyLossResult & { gradNorm: number; gradScale: number } {
  const res = referencePolicyLoss(cfg, params, tokens, B, T, temperature, lossInputs, lossOpts);
  const { norm, scale } = clipGradNorm(res.grads, optim.maxGradNorm);
  adamwStep(params, res.grads, m, v, {
    lr: optim.lr,
    beta1: optim.beta1,
    beta2: optim.beta2,
    eps: optim.eps,
    weightDecay: optim.weightDecay,
    step: optim.step,
    gradScale: scale,
    decayEnd: layoutParams(cfg).decayEnd,
  });
  return { ...res, gradNorm: norm, gradScale: scale };
}
