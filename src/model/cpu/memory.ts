/**
 * The CPU policy's memory layout in the engine's WebAssembly memory: the flat parameter, gradient
 * and AdamW arrays, the option blocks the recorded programs read (τ, loss options, AdamW, sampler,
 * decode position), the per-thread scratch, a transposed copy Wᵀ of every forward weight, and the
 * buffers of each training shape. Everything is a byte offset; `release` frees it all.
 */
import { ADAMW_BYTES, GRPO_OPTION_BYTES, SAMPLER_BYTES } from '../../cpu/blocks';
import { attentionScratchBytes, normPartialBytes, ProgramBuilder, samplerScratchBytes } from '../../cpu/program';
import type { CpuRuntime, Program } from '../../cpu/runtime';
import { headName, layerNames, layoutParams, type ModelConfig, type ParamLayout } from '../config';
import { STATS_FLOATS } from '../step';

export const F32 = 4;

/** Activations of one transformer block for one training shape. */
export interface LayerActs {
  ln1: number;
  ln1Mean: number;
  ln1Rstd: number;
  qkv: number;
  att: number;
  atty: number;
  res2: number;
  ln2: number;
  ln2Mean: number;
  ln2Rstd: number;
  /** gelu'(fc pre-activation): all the backward needs of it. */
  fchSlope: number;
  fchGelu: number;
  res3: number;
}

/**
 * Buffers of one training shape [B × T] and its recorded programs. With `segments` (packed rows,
 * UpdateBatch.lengths) the same buffers hold B rows of segments[r] ≤ T tokens back to back: Σ
 * segments tokens, and each row's attention matrix segments[r]² (both at most the shape's).
 */
export interface TrainPlan {
  B: number;
  T: number;
  segments?: readonly number[];
  /** With segments: the rows' table for attention, i32 [first token, tokens, first attention float] per row. */
  rowTable?: number;
  tokens: number;
  targets: number;
  encoded: number;
  layers: LayerActs[];
  lnf: number;
  lnfMean: number;
  lnfRstd: number;
  logits: number;
  lse: number;
  logp: number;
  entropy: number;
  dlogp: number;
  dent: number;
  dlogits: number;
  dres: number;
  dln: number;
  datty: number;
  dqkv: number;
  dfch: number;
  oldLogp: number;
  refLogp: number;
  advantages: number;
  weights: number;
  mask: number;
  programs: Map<string, Program>;
}

export class CpuPolicyMemory {
  readonly layout: ParamLayout;
  /** Byte offsets of the flat f32 arrays (layout from layoutParams). */
  readonly params: number;
  readonly grads: number;
  readonly adamM: number;
  readonly adamV: number;
  /** Option blocks and reduction outputs the programs read and write. */
  readonly temperature: number;
  readonly grpoOpts: number;
  readonly hyper: number;
  readonly norm: number;
  readonly partials: number;
  readonly stats: number;
  readonly samplerOpts: number;
  readonly pos: number;
  /** One scratch slice of `scratchStride` bytes per thread. */
  readonly scratch: number;
  readonly scratchStride: number;
  /** Wᵀ [in × out] of every weight a forward product reads, by tensor name. */
  readonly wt = new Map<string, number>();
  /** The program that fills every Wᵀ from the current parameters (before a decode). */
  readonly prepare: Program;
  private readonly owned: [number, number][] = [];

  constructor(
    readonly rt: CpuRuntime,
    readonly cfg: ModelConfig,
  ) {
    this.layout = layoutParams(cfg);
    const n = this.layout.totalFloats;
    this.params = this.f32(n);
    this.grads = this.f32(n);
    this.adamM = this.f32(n);
    this.adamV = this.f32(n);
    this.temperature = this.bytes(16);
    this.grpoOpts = this.bytes(GRPO_OPTION_BYTES);
    this.hyper = this.bytes(ADAMW_BYTES);
    this.norm = this.bytes(16);
    this.partials = this.bytes(normPartialBytes(n));
    this.stats = this.bytes(STATS_FLOATS * F32);
    this.samplerOpts = this.bytes(SAMPLER_BYTES);
    this.pos = this.bytes(16);
    const C = cfg.dModel;
    const Tmax = cfg.contextLength;
    const hs = C / cfg.nHeads;
    const V = cfg.vocabSize;
    const stride = Math.max(attentionScratchBytes(Tmax, hs), samplerScratchBytes(V), V * F32, Tmax * F32);
    this.scratchStride = Math.ceil(stride / 64) * 64;
    this.scratch = this.bytes(this.scratchStride * rt.threads);
    const prep = new ProgramBuilder();
    for (const [w, inF, outF] of this.forwardWeights()) {
      const t = this.f32(inF * outF);
      this.wt.set(w, t);
      prep.transpose(this.p(w), t, outF, inF);
    }
    this.prepare = this.own(prep.finish(rt));
  }

  bytes(n: number): number {
    const off = this.rt.alloc(n);
    this.owned.push([off, n]);
    return off;
  }
  f32(n: number): number {
    return this.bytes(Math.max(1, n) * F32);
  }
  /** Marks a recorded program as this policy's, to free with it. */
  own(p: Program): Program {
    this.owned.push([p.ptr, p.count * 64]);
    return p;
  }
  /** Byte offset of a named tensor inside a flat array. */
  private at(base: number, tensor: string): number {
    const t = this.layout.byName.get(tensor);
    if (!t) throw new Error(`no tensor ${tensor} in this model`);
    return base + t.offset * F32;
  }
  p(tensor: string): number {
    return this.at(this.params, tensor);
  }
  g(tensor: string): number {
    return this.at(this.grads, tensor);
  }
  /** Wᵀ of a forward weight. */
  t(tensor: string): number {
    return this.wt.get(tensor)!;
  }

  /** [weight, in, out] of every linear layer (the head reads wte when tied). */
  forwardWeights(): [string, number, number][] {
    const C = this.cfg.dModel;
    const F = this.cfg.mlpRatio * C;
    const out: [string, number, number][] = [];
    for (let l = 0; l < this.cfg.nLayers; l++) {
      const n = layerNames(l);
      out.push([n.qkvw, C, 3 * C], [n.projw, C, C], [n.fcw, C, F], [n.fcprojw, F, C]);
    }
    out.push([headName(this.cfg), C, this.cfg.vocabSize]);
    return out;
  }

  /**
   * The buffers of training shape [B × T], laid out from byte offset `base` (the training arena:
   * every shape's plan starts there, so the memory held is the largest shape's, not the sum).
   * With base = 0 it only measures: `bytes` is the size the plan needs.
   */
  trainPlan(B: number, T: number, base = 0): TrainPlan & { bytes: number } {
    if (!Number.isInteger(B) || B < 1) throw new Error(`rows must be a positive integer, got ${B}`);
    if (!Number.isInteger(T) || T < 1 || T > this.cfg.contextLength) throw new Error(`sequence length ${T} must be between 1 and contextLength ${this.cfg.contextLength}`);
    const { cfg } = this;
    const C = cfg.dModel;
    const F = cfg.mlpRatio * C;
    const N = B * T;
    let next = base;
    // 64-byte lines, as the runtime's allocator hands them out.
    const a = (floats: number) => {
      const off = next;
      next += Math.ceil((Math.max(1, floats) * F32) / 64) * 64;
      return off;
    };
    const plan = {
      B,
      T,
      tokens: a(N),
      targets: a(N),
      encoded: a(N * C),
      layers: Array.from({ length: cfg.nLayers }, () => ({
        ln1: a(N * C),
        ln1Mean: a(N),
        ln1Rstd: a(N),
        qkv: a(N * 3 * C),
        att: a(B * cfg.nHeads * T * T),
        atty: a(N * C),
        res2: a(N * C),
        ln2: a(N * C),
        ln2Mean: a(N),
        ln2Rstd: a(N),
        fchSlope: a(N * F),
        fchGelu: a(N * F),
        res3: a(N * C),
      })),
      lnf: a(N * C),
      lnfMean: a(N),
      lnfRstd: a(N),
      logits: a(N * cfg.vocabSize),
      lse: a(N),
      logp: a(N),
      entropy: a(N),
      dlogp: a(N),
      dent: a(N),
      dlogits: a(N * cfg.vocabSize),
      dres: a(N * C),
      dln: a(N * C),
      datty: a(N * C),
      dqkv: a(N * 3 * C),
      dfch: a(N * F),
      oldLogp: a(N),
      refLogp: a(N),
      advantages: a(N),
      weights: a(N),
      mask: a(N),
      programs: new Map<string, Program>(),
    };
    return { ...plan, bytes: next - base };
  }

  /** The training arena: one allocation every shape's plan shares (see trainPlan). */
  private arena: [number, number] | null = null;

  /**
   * Makes the arena hold at least `bytes`. Returns true when it moved: every plan laid out in the
   * old one is then invalid (its caller drops them and frees their programs with `disown`).
   */
  ensureArena(bytes: number): boolean {
    if (this.arena !== null && this.arena[1] >= bytes) return false;
    if (this.arena !== null) this.disown(this.arena[0], this.arena[1]);
    this.arena = [this.bytes(bytes), bytes];
    return true;
  }

  /** Byte offset of the arena (ensureArena first). */
  get arenaOffset(): number {
    if (this.arena === null) throw new Error('training arena not allocated');
    return this.arena[0];
  }

  /** Frees one allocation this policy owns (an old arena, a dropped plan's program). */
  disown(off: number, n: number): void {
    const i = this.owned.findIndex(([o, m]) => o === off && m === n);
    if (i < 0) throw new Error(`no allocation of ${n} bytes at ${off} is this policy's`);
    this.owned.splice(i, 1);
    this.rt.release(off, n);
  }

  /** Frees everything this policy allocated. */
  release(): void {
    for (const [off, n] of this.owned) this.rt.release(off, n);
    this.owned.length = 0;
  }
}
