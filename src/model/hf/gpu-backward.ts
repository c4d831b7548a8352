/**
 * The Llama / Qwen2 decoder's backward on WebGPU: the gradient of
 * L = Σ_t c_t·log p(token_{t+1} | ..t) + Σ_t e_t·H_t with respect to every weight, following a forward
 * recorded by recordHfForward (whose activations it reads). The GPU counterpart of hfLogprobGrads
 * (reference-backward.ts), from the kernels' backward passes in reverse order:
 *
 *   head: vocab.wgsl chunk by chunk (logits recomputed), dhidden and dhead by matmul
 *   final RMSNorm, then per layer from the last: down, SwiGLU, gate/up, post-attention RMSNorm (onto the
 *   residual gradient), o_proj, grouped-query attention, RoPE (the rotation by −angle), q/k/v (+ bias
 *   gradients for Qwen2), input RMSNorm (onto the residual gradient); embedding rows last
 *
 * Weight gradients accumulate onto what their buffers hold (zeroed when allocated), as the lab's trainer
 * expects; a tied head's gradient lands in the embedding's.
 */
import { biasGrad, matmul } from '../../gpu/kernels/matmul';
import { gqaBackward } from '../../gpu/kernels/gqa';
import { normBackward } from '../../gpu/kernels/norm';
import { ropeRotate } from '../../gpu/kernels/rope';
import { swigluBackward } from '../../gpu/kernels/swiglu';
import { embedRowsBackward, readRowSplit, uploadRowSplit, vocabHeadBackward, type RowSplitTable } from '../../gpu/kernels/vocab';
import type { Dispatch, GpuRuntime } from '../../gpu/runtime';
import type { HfGpuActivations, HfGpuLayer, HfGpuWeights } from './gpu-forward';
import { DEFAULT_VOCAB_CHUNK } from './reference-forward';
import type { HfLayerWeights } from './weights';

/** Gradient buffers shaped like HfGpuWeights (`hf.grad.*`); `head` is `embed` when the head is tied. */
export interface HfGpuGrads {
  embed: RowSplitTable;
  head: RowSplitTable;
  layers: HfGpuLayer[];
  norm: GPUBuffer;
}

/** Zeroed gradient buffers for gw, split like its tables. */
export function allocHfGrads(rt: GpuRuntime, gw: HfGpuWeights): HfGpuGrads {
  const c = gw.config;
  const maxBytes = gw.embed.parts[0].rows * c.hiddenSize * 4;
  const zero = (name: string, like: GPUBuffer): GPUBuffer => {
    const buf = rt.buffer(`hf.grad.${name}`, like.size);
    rt.write(buf, new Float32Array(like.size / 4));
    return buf;
  };
  const embed = uploadRowSplit(rt, 'hf.grad.embed', null, c.vocabSize, c.hiddenSize, maxBytes);
  const head = gw.head === gw.embed ? embed : uploadRowSplit(rt, 'hf.grad.lm_head', null, c.vocabSize, c.hiddenSize, maxBytes);
  const layers = gw.layers.map((L, i) => {
    const out = {} as HfGpuLayer;
    for (const [k, v] of Object.entries(L) as [keyof HfLayerWeights, GPUBuffer | null][]) out[k] = v ? zero(`layers.${i}.${k}`, v) : null;
    return out;
  });
  return { embed, head, layers, norm: zero('norm', gw.norm) };
}

/**
 * Records the backward of a recorded forward for per-position coefficients coef and entCoef ([B·T] each;
 * the last position of each sequence predicts nothing, so its c_t is ignored). `tokens` are the forward's.
 */
export async function recordHfBackward(
  rt: GpuRuntime,
  gw: HfGpuWeights,
  grads: HfGpuGrads,
  acts: HfGpuActivations,
  tokens: readonly number[],
  coef: ArrayLike<number>,
  entCoef: ArrayLike<number>,
  chunk = DEFAULT_VOCAB_CHUNK,
): Promise<Dispatch[]> {
  const c = gw.config;
  const { B, T } = acts;
  const N = B * T, d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, M = c.intermediateSize;
  if (coef.length !== N || entCoef.length !== N || tokens.length !== N) throw new RangeError(`recordHfBackward: coefficients and tokens need ${N} entries each`);
  const buf = (name: string, floats: number) => rt.buffer(`hf.bwd.${name}`, floats * 4);
  const cBuf = buf('coef', N), eBuf = buf('entCoef', N);
  rt.write(cBuf, Float32Array.from(coef, (x, i) => ((i + 1) % T === 0 ? 0 : x)));
  rt.write(eBuf, Float32Array.from(entCoef, (x, i) => ((i + 1) % T === 0 ? 0 : x)));
  const dnf = buf('dnf', N * d), dh = buf('dh', N * d), dn = buf('dn', N * d);
  const dact = buf('dact', N * M), dgate = buf('dgate', N * M), dup = buf('dup', N * M);
  const dao = buf('dao', N * H * hd), dq = buf('dq', N * H * hd), dqPre = buf('dqPre', N * H * hd);
  const dk = buf('dk', N * Hkv * hd), dkPre = buf('dkPre', N * Hkv * hd), dv = buf('dv', N * Hkv * hd);
  const dpre = buf('dpre', B * H * T * T);

  const ds: Promise<Dispatch | Dispatch[]>[] = [];
  /** y = x·Wᵀ (+ b) with W [out, in]: dx (+)= dy·W, dW += dyᵀ·x, db += Σ dy. */
  const linearBack = (x: GPUBuffer, W: GPUBuffer, dy: GPUBuffer, dx: GPUBuffer, dW: GPUBuffer, db: GPUBuffer | null, inDim: number, outDim: number, accumulateDx: boolean) => {
    ds.push(matmul(rt, { a: dy, b: W, out: dx, M: N, N: inDim, K: outDim, transA: false, transB: false, accumulate: accumulateDx }));
    ds.push(matmul(rt, { a: dy, b: x, out: dW, M: outDim, N: inDim, K: N, transA: true, transB: false, accumulate: true }));
    if (db) ds.push(biasGrad(rt, { dout: dy, dbias: db, rows: N, cols: outDim, accumulate: true }));
  };
  const rmsBack = (dout: GPUBuffer, inp: GPUBuffer, weight: GPUBuffer, rstd: GPUBuffer, dweight: GPUBuffer, accumulate: boolean, label: string) =>
    ds.push(normBackward(rt, { kind: 'rmsnorm', dout, inp, weight, rstd, dinp: dh, dweight, rows: N, C: d, accumulate, label }));
  const ropeBack = (x: GPUBuffer, out: GPUBuffer, heads: number) =>
    ds.push(ropeRotate(rt, { x, out, cos: acts.cos, sin: acts.sin, rows: N, T, heads, headDim: hd, positions: T, direction: -1 }));

  ds.push(vocabHeadBackward(rt, { hidden: acts.nf, head: gw.head, dhead: grads.head, targets: acts.targets, lse: acts.lse, entropy: acts.entropy, coef: cBuf, entCoef: eBuf, dhidden: dnf, N, chunk, accumulate: false, label: 'hf' }));
  rmsBack(dnf, acts.hL, gw.norm, acts.rstdF, grads.norm, false, 'hf.final');
  for (let l = gw.layers.length - 1; l >= 0; l--) {
    const L = gw.layers[l], G = grads.layers[l], A = acts.layers[l];
    // MLP: h_out = h1 + down(silu(gate) ⊙ up); dh holds ∂L/∂h_out.
    linearBack(A.act, L.down!, dh, dact, G.down!, null, M, d, false);
    ds.push(swigluBackward(rt, { gate: A.gate, up: A.up, dout: dact, dgate, dup, n: N * M }));
    linearBack(A.n2, L.gate!, dgate, dn, G.gate!, null, d, M, false);
    linearBack(A.n2, L.up!, dup, dn, G.up!, null, d, M, true);
    rmsBack(dn, A.h1, L.postNorm!, A.rstd2, G.postNorm!, true, `hf.L${l}.post`); // dh = ∂L/∂h1
    // Attention: h1 = h + o_proj(gqa(rope(q), rope(k), v)).
    linearBack(A.ao, L.o!, dh, dao, G.o!, null, H * hd, d, false);
    ds.push(gqaBackward(rt, { B, T, H, Hkv, hd, dout: dao, q: A.q, k: A.k, v: A.v, att: A.att, dpre, dq, dk, dv }));
    ropeBack(dq, dqPre, H);
    ropeBack(dk, dkPre, Hkv);
    linearBack(A.n1, L.q!, dqPre, dn, G.q!, G.qBias, d, H * hd, false);
    linearBack(A.n1, L.k!, dkPre, dn, G.k!, G.kBias, d, Hkv * hd, true);
    linearBack(A.n1, L.v!, dv, dn, G.v!, G.vBias, d, Hkv * hd, true);
    rmsBack(dn, A.h, L.inputNorm!, A.rstd1, G.inputNorm!, true, `hf.L${l}.input`); // dh = ∂L/∂h
  }
  ds.push(embedRowsBackward(rt, { tokens, dout: dh, dtable: grads.embed, label: 'hf' }));
  return (await Promise.all(ds)).flat();
}

/** The gradients read back, by the names of HfLayerWeights (embed, lmHead null when tied). */
export async function readHfGrads(rt: GpuRuntime, grads: HfGpuGrads): Promise<{ embed: Float32Array; lmHead: Float32Array | null; norm: Float32Array; layers: Record<keyof HfLayerWeights, Float32Array | null>[] }> {
  const layers = [];
  for (const L of grads.layers) {
    const out = {} as Record<keyof HfLayerWeights, Float32Array | null>;
    for (const [k, v] of Object.entries(L) as [keyof HfLayerWeights, GPUBuffer | null][]) out[k] = v ? await rt.readF32(v) : null;
    layers.push(out);
  }
  return {
    embed: await readRowSplit(rt, grads.embed),
    lmHead: grads.head === grads.embed ? null : await readRowSplit(rt, grads.head),
    norm: await rt.readF32(grads.norm),
    layers,
  };
}
