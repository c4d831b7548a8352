/**
 * A Llama / Qwen2 decoder on the CPU (f32 storage, float64 sums: ./ops.ts), optionally with LoRA adapters:
 * the forward for training (keeping what the backward needs), its backward for a weighted sum of
 * per-token log-probs and entropies (GRPO's policy term and MAGIC's entropy term), and incremental
 * decoding with a KV cache. The math is src/model/hf/reference-forward.ts's; tests/model/hf-cpu/ checks
 * the gradient against src/model/hf/reference-backward.ts.
 *
 * LoRA (rank r, scale s = α/r) on q, k, v, o, gate, up and down: y = x·Wᵀ + b + s·(x·Aᵀ)·Bᵀ with A [r, in],
 * B [out, r]; the base is frozen. `mergedWeights` folds s·B·A into W (the export).
 */
import type { HfDecoderConfig } from '../hf/config';
import type { HfLayerWeights, HfWeights } from '../hf/weights';
import { attentionB, attentionF, dot, headStatsB, headStatsF, linearB, linearF, rmsNormB, rmsNormF, ropeApply, ropeTable, swigluB, swigluF, type HeadStats } from './ops';
import { Rng } from '../../util/rng';

export const LORA_TARGETS = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

export interface LoraPair {
  /** [r, in]: random N(0, 1/in) at the start. */
  A: Float32Array;
  /** [out, r]: zero at the start, so the adapted model starts as the base. */
  B: Float32Array;
}

export interface LoraAdapters {
  rank: number;
  /** α/r: the adapter's output is scaled by it. */
  scale: number;
  layers: Record<LoraTarget, LoraPair>[];
}

/** Gradients with the same shapes as what they belong to; null where frozen. */
export interface HfCpuGrads {
  embed: Float32Array | null;
  norm: Float32Array | null;
  lmHead: Float32Array | null;
  layers: Record<keyof HfLayerWeights, Float32Array | null>[];
  lora: Record<LoraTarget, LoraPair>[] | null;
}

/** [in, out] of each adapted projection. */
export function projShape(c: HfDecoderConfig, p: LoraTarget): readonly [number, number] {
  const d = c.hiddenSize, q = c.numHeads * c.headDim, kv = c.numKvHeads * c.headDim, m = c.intermediateSize;
  return ({ q: [d, q], k: [d, kv], v: [d, kv], o: [q, d], gate: [d, m], up: [d, m], down: [m, d] } as const)[p];
}

/** Fresh adapters of rank r (scale α/r), A ~ N(0, 1/in) from `seed`, B = 0. */
export function initLora(c: HfDecoderConfig, rank: number, alpha: number, seed: number): LoraAdapters {
  const rng = new Rng(seed);
  const layers = Array.from({ length: c.numLayers }, () => {
    const out = {} as Record<LoraTarget, LoraPair>;
    for (const p of LORA_TARGETS) {
      const [i, o] = projShape(c, p);
      const A = new Float32Array(rank * i);
      for (let j = 0; j < A.length; j++) A[j] = rng.normal() / Math.sqrt(i);
      out[p] = { A, B: new Float32Array(o * rank) };
    }
    return out;
  });
  return { rank, scale: alpha / rank, layers };
}

/** The base weights with s·B·A added to every adapted projection (new arrays; the base is untouched). */
export function mergedWeights(w: HfWeights, lora: LoraAdapters | null): HfWeights {
  if (!lora) return w;
  const c = w.config, r = lora.rank;
  const layers = w.layers.map((L, li) => {
    const out: HfLayerWeights = { ...L };
    for (const p of LORA_TARGETS) {
      const [n, m] = projShape(c, p);
      const W = Float32Array.from(L[p]);
      const { A, B } = lora.layers[li][p];
      for (let o = 0; o < m; o++)
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j < r; j++) s += B[o * r + j] * A[j * n + i];
          W[o * n + i] += lora.scale * s;
        }
      out[p] = W;
    }
    return out;
  });
  return { ...w, layers };
}

interface ProjKeep {
  x: Float32Array;
  /** x·Aᵀ [T, r] (LoRA only). */
  u: Float32Array | null;
}

interface LayerKeep {
  hIn: Float32Array;
  n1: Float32Array;
  r1: Float32Array;
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
  P: Float32Array;
  att: Float32Array;
  h1: Float32Array;
  n2: Float32Array;
  r2: Float32Array;
  g: Float32Array;
  u: Float32Array;
  act: Float32Array;
  loraU: Partial<Record<LoraTarget, Float32Array>>;
}

/** A sequence's keys and values so far, per layer [maxLen, Hkv, hd]. */
export interface KvCache {
  k: Float32Array[];
  v: Float32Array[];
  /** Positions filled. */
  length: number;
}

export interface TrainForward {
  T: number;
  hidden: Float32Array;
  rf: Float32Array;
  hLast: Float32Array;
  layers: LayerKeep[];
  stats: HeadStats;
  targets: Int32Array;
}

export class HfCpuModel {
  private rope: { cos: Float64Array; sin: Float64Array };
  constructor(
    public weights: HfWeights,
    public lora: LoraAdapters | null,
  ) {
    const c = weights.config;
    this.rope = ropeTable(c.maxPositions, c.headDim, c.ropeTheta);
  }

  get config(): HfDecoderConfig {
    return this.weights.config;
  }

  get head(): Float32Array {
    return this.weights.lmHead ?? this.weights.embed;
  }

  /** y = x·Wᵀ + b (+ s·(x·Aᵀ)·Bᵀ); returns x·Aᵀ for the backward when adapted. */
  private proj(li: number, p: LoraTarget, x: Float32Array, T: number, bias: Float32Array | null, y: Float32Array): Float32Array | null {
    const [n, m] = projShape(this.config, p);
    linearF(x, T, n, this.weights.layers[li][p], m, bias, y);
    if (!this.lora) return null;
    const { A, B } = this.lora.layers[li][p], r = this.lora.rank, s = this.lora.scale;
    const u = new Float32Array(T * r), yl = new Float32Array(T * m);
    linearF(x, T, n, A, r, null, u);
    linearF(u, T, r, B, m, null, yl);
    for (let i = 0; i < y.length; i++) y[i] += s * yl[i];
    return u;
  }

  private projBack(li: number, p: LoraTarget, keep: ProjKeep, T: number, dy: Float32Array, g: HfCpuGrads, dx: Float32Array, db: Float32Array | null): void {
    const [n, m] = projShape(this.config, p);
    linearB(keep.x, T, n, this.weights.layers[li][p], m, dy, g.layers[li][p], db, dx);
    if (!this.lora || !keep.u) return;
    const { A, B } = this.lora.layers[li][p], r = this.lora.rank, s = this.lora.scale;
    const gl = g.lora?.[li][p] ?? null;
    const dyS = Float32Array.from(dy, (x) => x * s), du = new Float32Array(T * r);
    linearB(keep.u, T, r, B, m, dyS, gl ? gl.B : null, null, du);
    linearB(keep.x, T, n, A, r, du, gl ? gl.A : null, null, dx);
  }

  /**
   * The blocks over `tokens` at positions p0 … p0+T−1. With a cache, keys and values are written into it
   * and attention reads all of it (decoding); `keep` collects each layer's intermediates (training, p0 = 0).
   * Returns the last layer's output h (before the final norm).
   */
  private blocks(tokens: ArrayLike<number>, p0: number, cache: KvCache | null, keep: LayerKeep[] | null): Float32Array {
    const c = this.config, w = this.weights;
    const T = tokens.length, d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, M = c.intermediateSize;
    let h: Float32Array = new Float32Array(T * d);
    for (let t = 0; t < T; t++) h.set(w.embed.subarray(tokens[t] * d, tokens[t] * d + d), t * d);
    for (let li = 0; li < w.layers.length; li++) {
      const L = w.layers[li];
      const n1 = new Float32Array(T * d), r1 = new Float32Array(T);
      rmsNormF(h, T, d, L.inputNorm, c.rmsNormEps, n1, r1);
      const q = new Float32Array(T * H * hd), k = new Float32Array(T * Hkv * hd), v = new Float32Array(T * Hkv * hd);
      const loraU: Partial<Record<LoraTarget, Float32Array>> = {};
      const put = (p: LoraTarget, u: Float32Array | null) => void (u && (loraU[p] = u));
      put('q', this.proj(li, 'q', n1, T, L.qBias, q));
      put('k', this.proj(li, 'k', n1, T, L.kBias, k));
      put('v', this.proj(li, 'v', n1, T, L.vBias, v));
      ropeApply(q, T, H, hd, p0, this.rope);
      ropeApply(k, T, Hkv, hd, p0, this.rope);
      let kAll: Float32Array = k, vAll: Float32Array = v;
      if (cache) {
        cache.k[li].set(k, p0 * Hkv * hd);
        cache.v[li].set(v, p0 * Hkv * hd);
        kAll = cache.k[li];
        vAll = cache.v[li];
      }
      const P = keep ? new Float32Array(H * T * T) : null;
      const att = new Float32Array(T * H * hd);
      attentionF(q, kAll, vAll, T, p0, H, Hkv, hd, att, P);
      const o = new Float32Array(T * d);
      put('o', this.proj(li, 'o', att, T, null, o));
      const h1 = new Float32Array(T * d);
      for (let i = 0; i < h1.length; i++) h1[i] = h[i] + o[i];
      const n2 = new Float32Array(T * d), r2 = new Float32Array(T);
      rmsNormF(h1, T, d, L.postNorm, c.rmsNormEps, n2, r2);
      const g = new Float32Array(T * M), u = new Float32Array(T * M), act = new Float32Array(T * M);
      put('gate', this.proj(li, 'gate', n2, T, null, g));
      put('up', this.proj(li, 'up', n2, T, null, u));
      swigluF(g, u, act);
      const down = new Float32Array(T * d);
      put('down', this.proj(li, 'down', act, T, null, down));
      const hOut = new Float32Array(T * d);
      for (let i = 0; i < hOut.length; i++) hOut[i] = h1[i] + down[i];
      keep?.push({ hIn: h, n1, r1, q, k, v, P: P!, att, h1, n2, r2, g, u, act, loraU });
      h = hOut;
    }
    if (cache) cache.length = p0 + T;
    return h;
  }

  private finalNorm(h: Float32Array, T: number): { hidden: Float32Array; rf: Float32Array } {
    const d = this.config.hiddenSize;
    const hidden = new Float32Array(T * d), rf = new Float32Array(T);
    rmsNormF(h, T, d, this.weights.norm, this.config.rmsNormEps, hidden, rf);
    return { hidden, rf };
  }

  /** Forward of one sequence for training: log p(tokens[t+1]) and H_t at τ for t = 0 … T−2 (in stats), keeping what the backward needs. */
  forwardTrain(tokens: ArrayLike<number>, tau: number, chunk: number): TrainForward {
    const T = tokens.length, c = this.config;
    const layers: LayerKeep[] = [];
    const hLast = this.blocks(tokens, 0, null, layers);
    const { hidden, rf } = this.finalNorm(hLast, T);
    const targets = new Int32Array(T).fill(-1);
    for (let t = 0; t + 1 < T; t++) targets[t] = tokens[t + 1];
    const stats = headStatsF(hidden, T, c.hiddenSize, this.head, c.vocabSize, targets, tau, chunk);
    return { T, hidden, rf, hLast, layers, stats, targets };
  }

  /** Adds ∂/∂(trainable) of Σ_t dlogp[t]·logp_t + dent[t]·H_t into `g` (positions t = 0 … T−1; the last has no target). */
  backward(tokens: ArrayLike<number>, f: TrainForward, tau: number, chunk: number, dlogp: ArrayLike<number>, dent: ArrayLike<number>, g: HfCpuGrads): void {
    const c = this.config, w = this.weights, T = f.T;
    const d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, M = c.intermediateSize;
    const dHidden = new Float32Array(T * d);
    const dHead = w.lmHead ? g.lmHead : g.embed;
    headStatsB(f.hidden, T, d, this.head, c.vocabSize, f.targets, tau, chunk, f.stats, dlogp, dent, dHidden, dHead);
    let dh = new Float32Array(T * d);
    rmsNormB(f.hLast, f.rf, T, d, w.norm, dHidden, g.norm, dh);
    for (let li = w.layers.length - 1; li >= 0; li--) {
      const L = w.layers[li], K = f.layers[li], G = g.layers[li];
      const dAct = new Float32Array(T * M);
      this.projBack(li, 'down', { x: K.act, u: K.loraU.down ?? null }, T, dh, g, dAct, null);
      const dg = new Float32Array(T * M), du = new Float32Array(T * M);
      swigluB(K.g, K.u, dAct, dg, du);
      const dn2 = new Float32Array(T * d);
      this.projBack(li, 'gate', { x: K.n2, u: K.loraU.gate ?? null }, T, dg, g, dn2, null);
      this.projBack(li, 'up', { x: K.n2, u: K.loraU.up ?? null }, T, du, g, dn2, null);
      const dh1 = Float32Array.from(dh);
      rmsNormB(K.h1, K.r2, T, d, L.postNorm, dn2, G.postNorm, dh1);
      const dAtt = new Float32Array(T * H * hd);
      this.projBack(li, 'o', { x: K.att, u: K.loraU.o ?? null }, T, dh1, g, dAtt, null);
      const dq = new Float32Array(T * H * hd), dk = new Float32Array(T * Hkv * hd), dv = new Float32Array(T * Hkv * hd);
      attentionB(K.q, K.k, K.v, K.P, T, H, Hkv, hd, dAtt, dq, dk, dv);
      ropeApply(dq, T, H, hd, 0, this.rope, -1);
      ropeApply(dk, T, Hkv, hd, 0, this.rope, -1);
      const dn1 = new Float32Array(T * d);
      this.projBack(li, 'q', { x: K.n1, u: K.loraU.q ?? null }, T, dq, g, dn1, G.qBias);
      this.projBack(li, 'k', { x: K.n1, u: K.loraU.k ?? null }, T, dk, g, dn1, G.kBias);
      this.projBack(li, 'v', { x: K.n1, u: K.loraU.v ?? null }, T, dv, g, dn1, G.vBias);
      rmsNormB(K.hIn, K.r1, T, d, L.inputNorm, dn1, G.inputNorm, dh1);
      dh = dh1;
    }
    if (g.embed) for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) g.embed[tokens[t] * d + i] += dh[t * d + i];
  }

  newCache(maxLen: number): KvCache {
    const c = this.config, n = maxLen * c.numKvHeads * c.headDim;
    return { k: this.weights.layers.map(() => new Float32Array(n)), v: this.weights.layers.map(() => new Float32Array(n)), length: 0 };
  }

  /** Feeds `tokens` after what the cache holds; returns the logits [V] of the last one. */
  decode(tokens: ArrayLike<number>, cache: KvCache): Float64Array {
    const c = this.config, d = c.hiddenSize, T = tokens.length;
    const h = this.blocks(tokens, cache.length, cache, null);
    const { hidden } = this.finalNorm(h.subarray((T - 1) * d), 1);
    const logits = new Float64Array(c.vocabSize), head = this.head;
    for (let v = 0; v < c.vocabSize; v++) logits[v] = dot(hidden, 0, head, v * d, d);
    return logits;
  }
}
