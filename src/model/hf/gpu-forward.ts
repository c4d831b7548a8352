/**
 * A Llama / Qwen2 decoder on WebGPU, forward: per-token log-probs and entropies of B equal-length token
 * sequences, from the kernels in shaders/ (norm, matmul, rope, gqa, swiglu, elementwise, vocab). The same
 * computation as the float64 reference (reference-forward.ts), in f32:
 *
 *   h₀ = embed[tokens]                                       vocab.wgsl embed_rows (row-split table)
 *   per layer: a = RMSNorm(h)·w₁                             norm.wgsl rmsnorm_forward (the config's ε)
 *              q, k, v = a·Wᵀ (+ b, Qwen2)                    matmul.wgsl (the `_bias` entries for Qwen2)
 *              RoPE on q and k (rotate_half, θ)              rope.wgsl, cos/sin tables from float64
 *              grouped-query causal attention                gqa.wgsl
 *              h₁ = h + o_proj(·)                            matmul + elementwise add
 *              h  = h₁ + down(silu(gate(RMSNorm(h₁)·w₂)) ⊙ up(·))   norm, matmul, swiglu.wgsl, add
 *   log-probs and entropies of RMSNorm(h)·w_f against the head, chunk by chunk   vocab.wgsl (+ matmul)
 *
 * Every activation the backward needs is kept per layer in named buffers (`hf.act.*`), so a backward
 * can follow the same recorded forward. The names are fixed: a runtime holds one model (`hf.w.*`) and one
 * recorded forward at a time; uploading or recording again at a larger size replaces the buffers the
 * earlier one used. The embedding and head are RowSplitTables (buffers of whole rows
 * under maxStorageBufferBindingSize); any other tensor over that limit is refused by name.
 */
import { add } from '../../gpu/kernels/elementwise';
import { gqaForward } from '../../gpu/kernels/gqa';
import { matmul } from '../../gpu/kernels/matmul';
import { normForward } from '../../gpu/kernels/norm';
import { ropeRotate, ropeTables } from '../../gpu/kernels/rope';
import { swigluForward } from '../../gpu/kernels/swiglu';
import { embedRows, uploadRowSplit, vocabHeadForward, type RowSplitTable } from '../../gpu/kernels/vocab';
import type { Dispatch, GpuRuntime } from '../../gpu/runtime';
import { NO_TARGET } from '../reference/ops/vocab';
import type { HfDecoderConfig } from './config';
import { DEFAULT_VOCAB_CHUNK, type TokenLogprobs } from './reference-forward';
import type { HfLayerWeights, HfWeights } from './weights';

/** One layer's weights on the device (biases null for Llama). */
export type HfGpuLayer = Record<keyof HfLayerWeights, GPUBuffer | null>;

export interface HfGpuWeights {
  config: HfDecoderConfig;
  embed: RowSplitTable;
  /** The output head: lm_head's table, or `embed` itself when tied. */
  head: RowSplitTable;
  layers: HfGpuLayer[];
  norm: GPUBuffer;
}

/** Uploads a model's weights as named buffers `hf.w.*`. `maxTableBytes` caps the embedding's / head's parts (default: the device's binding limit). */
export function uploadHfWeights(rt: GpuRuntime, w: HfWeights, maxTableBytes?: number): HfGpuWeights {
  const c = w.config;
  const limit = Math.min(rt.limits.maxStorageBufferBindingSize, rt.limits.maxBufferSize);
  const put = (name: string, data: Float32Array): GPUBuffer => {
    if (data.byteLength > limit) throw new Error(`tensor ${name} is ${data.byteLength} bytes, over this adapter's ${limit}-byte storage binding limit`);
    const buf = rt.buffer(`hf.w.${name}`, data.byteLength);
    rt.write(buf, data);
    return buf;
  };
  const embed = uploadRowSplit(rt, 'hf.w.embed', w.embed, c.vocabSize, c.hiddenSize, maxTableBytes);
  const head = w.lmHead ? uploadRowSplit(rt, 'hf.w.lm_head', w.lmHead, c.vocabSize, c.hiddenSize, maxTableBytes) : embed;
  const layers = w.layers.map((L, i) => {
    const out = {} as HfGpuLayer;
    for (const [k, v] of Object.entries(L) as [keyof HfLayerWeights, Float32Array | null][]) out[k] = v ? put(`layers.${i}.${k}`, v) : null;
    return out;
  });
  return { config: c, embed, head, layers, norm: put('norm', w.norm) };
}

/** The buffers of one recorded forward (activations kept for a backward). */
export interface HfGpuActivations {
  B: number;
  T: number;
  tokens: GPUBuffer;
  targets: GPUBuffer;
  cos: GPUBuffer;
  sin: GPUBuffer;
  /** Per layer: the input h, RMSNorm rstd and output, q/k/v (q, k after RoPE), att, attention out, h₁, the MLP's. */
  layers: Record<'h' | 'rstd1' | 'n1' | 'q' | 'k' | 'v' | 'qPre' | 'kPre' | 'att' | 'ao' | 'tmp' | 'h1' | 'rstd2' | 'n2' | 'gate' | 'up' | 'act', GPUBuffer>[];
  /** The last residual stream, final RMSNorm's rstd and output. */
  hL: GPUBuffer;
  rstdF: GPUBuffer;
  nf: GPUBuffer;
  logp: GPUBuffer;
  entropy: GPUBuffer;
  lse: GPUBuffer;
}

/** Checks the batch and returns (B, T). */
function batchShape(c: HfDecoderConfig, batch: readonly (readonly number[])[]): { B: number; T: number } {
  const B = batch.length;
  if (B < 1) throw new RangeError('hf GPU forward: no sequences');
  const T = batch[0].length;
  if (T < 1) throw new RangeError('hf GPU forward: empty sequence');
  if (T > c.maxPositions) throw new RangeError(`hf GPU forward: ${T} tokens exceed max_position_embeddings ${c.maxPositions}`);
  for (const s of batch) {
    if (s.length !== T) throw new RangeError(`hf GPU forward: sequences of ${s.length} and ${T} tokens (a batch has one length)`);
    for (const id of s) if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new RangeError(`hf GPU forward: token ${id} is outside the vocabulary [0, ${c.vocabSize})`);
  }
  return { B, T };
}

/**
 * Records the forward of B sequences of T tokens: writes tokens, targets (the next token; none after the
 * last) and RoPE tables, allocates the activations, and returns the dispatches in order.
 */
export async function recordHfForward(
  rt: GpuRuntime,
  gw: HfGpuWeights,
  batch: readonly (readonly number[])[],
  chunk = DEFAULT_VOCAB_CHUNK,
): Promise<{ acts: HfGpuActivations; dispatches: Dispatch[] }> {
  const c = gw.config;
  const { B, T } = batchShape(c, batch);
  const N = B * T, d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, M = c.intermediateSize;
  const buf = (name: string, floats: number) => rt.buffer(`hf.act.${name}`, floats * 4);
  const tokens = buf('tokens', N), targets = buf('targets', N);
  rt.write(tokens, Uint32Array.from(batch.flat()));
  rt.write(targets, Uint32Array.from(batch.flatMap((s) => s.map((_, t) => (t + 1 < T ? s[t + 1] : NO_TARGET)))));
  const tables = ropeTables(c.ropeTheta, hd, T);
  const cos = buf('rope.cos', tables.cos.length), sin = buf('rope.sin', tables.sin.length);
  rt.write(cos, tables.cos);
  rt.write(sin, tables.sin);

  const ds: Promise<Dispatch | Dispatch[]>[] = [];
  const linear = (x: GPUBuffer, W: GPUBuffer, out: GPUBuffer, inDim: number, outDim: number, bias?: GPUBuffer | null) =>
    matmul(rt, { a: x, b: W, out, bias: bias ?? undefined, M: N, N: outDim, K: inDim, transA: false, transB: true, accumulate: false });
  const rope = (x: GPUBuffer, out: GPUBuffer, heads: number) => ropeRotate(rt, { x, out, cos, sin, rows: N, T, heads, headDim: hd, positions: T, direction: 1 });

  let h = buf('h.0', N * d);
  ds.push(embedRows(rt, { tokens, table: gw.embed, out: h, N }));
  const layers: HfGpuActivations['layers'] = [];
  gw.layers.forEach((L, l) => {
    const a = (name: string, floats: number) => buf(`L${l}.${name}`, floats);
    const A = {
      h,
      rstd1: a('rstd1', N), n1: a('n1', N * d),
      qPre: a('qPre', N * H * hd), kPre: a('kPre', N * Hkv * hd), q: a('q', N * H * hd), k: a('k', N * Hkv * hd), v: a('v', N * Hkv * hd),
      att: a('att', B * H * T * T), ao: a('ao', N * H * hd), tmp: a('tmp', N * d), h1: a('h1', N * d),
      rstd2: a('rstd2', N), n2: a('n2', N * d), gate: a('gate', N * M), up: a('up', N * M), act: a('act', N * M),
    };
    layers.push(A);
    ds.push(normForward(rt, { kind: 'rmsnorm', inp: h, weight: L.inputNorm!, out: A.n1, rstd: A.rstd1, rows: N, C: d, eps: c.rmsNormEps }));
    ds.push(linear(A.n1, L.q!, A.qPre, d, H * hd, L.qBias));
    ds.push(linear(A.n1, L.k!, A.kPre, d, Hkv * hd, L.kBias));
    ds.push(linear(A.n1, L.v!, A.v, d, Hkv * hd, L.vBias));
    ds.push(rope(A.qPre, A.q, H));
    ds.push(rope(A.kPre, A.k, Hkv));
    ds.push(gqaForward(rt, { B, T, H, Hkv, hd, q: A.q, k: A.k, v: A.v, out: A.ao, att: A.att }));
    ds.push(linear(A.ao, L.o!, A.tmp, H * hd, d));
    ds.push(add(rt, { a: h, b: A.tmp, out: A.h1, n: N * d }));
    ds.push(normForward(rt, { kind: 'rmsnorm', inp: A.h1, weight: L.postNorm!, out: A.n2, rstd: A.rstd2, rows: N, C: d, eps: c.rmsNormEps }));
    ds.push(linear(A.n2, L.gate!, A.gate, d, M));
    ds.push(linear(A.n2, L.up!, A.up, d, M));
    ds.push(swigluForward(rt, { gate: A.gate, up: A.up, out: A.act, n: N * M }));
    ds.push(linear(A.act, L.down!, A.tmp, M, d));
    h = buf(`h.${l + 1}`, N * d);
    ds.push(add(rt, { a: A.h1, b: A.tmp, out: h, n: N * d }));
  });
  const rstdF = buf('rstdF', N), nf = buf('nf', N * d);
  ds.push(normForward(rt, { kind: 'rmsnorm', inp: h, weight: gw.norm, out: nf, rstd: rstdF, rows: N, C: d, eps: c.rmsNormEps }));
  const logp = buf('logp', N), entropy = buf('entropy', N), lse = buf('lse', N);
  ds.push(vocabHeadForward(rt, { hidden: nf, head: gw.head, targets, N, chunk, logp, entropy, lse, label: 'hf' }));
  const dispatches = (await Promise.all(ds)).flat();
  return { acts: { B, T, tokens, targets, cos, sin, layers, hL: h, rstdF, nf, logp, entropy, lse }, dispatches };
}

/**
 * log p(s[t+1] | s[..t]) and the entropy of that prediction, t = 0 … T−2, for each of B equal-length
 * sequences: the GPU counterpart of hfTokenLogprobs.
 */
export async function hfGpuTokenLogprobs(rt: GpuRuntime, gw: HfGpuWeights, batch: readonly (readonly number[])[], chunk = DEFAULT_VOCAB_CHUNK): Promise<TokenLogprobs[]> {
  const { acts, dispatches } = await recordHfForward(rt, gw, batch, chunk);
  rt.run(dispatches);
  const N = acts.B * acts.T;
  const logp = await rt.readF32(acts.logp, 0, N), entropy = await rt.readF32(acts.entropy, 0, N);
  return batch.map((_, b) => ({
    logprobs: Array.from(logp.subarray(b * acts.T, (b + 1) * acts.T - 1)),
    entropies: Array.from(entropy.subarray(b * acts.T, (b + 1) * acts.T - 1)),
  }));
}
