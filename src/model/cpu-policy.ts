/**
 * The policy on the CPU engine (WebAssembly SIMD kernels of src/cpu/, threads sharing one
 * memory): the same math and the same request/result semantics as the WebGPU policy
 * (src/model/policy.ts + step.ts + generate.ts), recorded as interpreter programs once per shape
 * and replayed.
 *
 *   update():   prepare Wᵀ → zero grads → forward at τ → loss (on-policy: oldLogp := this logp)
 *               → backward → grad norm → clipped AdamW (unless update: false; skipped, writing
 *               nothing, when the loss or the grad norm is not finite)
 *   forward():  prepare Wᵀ → forward; logp and entropy of every target
 *   generate(): prepare Wᵀ, then one decode step per position for all sequences (KV cache,
 *               counter-based sampler); each thread owns a fixed set of sequences, so a step needs
 *               no barrier until its end
 *
 * Linear layers keep the llm.c convention (W [out, in], y = x·Wᵀ + b). Forward products use a
 * transposed copy Wᵀ [in, out] prepared at the start of every program, so every matmul reads B
 * row-major; input gradients use W itself and weight gradients the Aᵀ·B kernel.
 */
import { ADAMW_BYTES, GRPO_OPTION_BYTES, SAMPLER_BYTES, writeAdamW, writeGrpoOptions, writeSampler } from '../cpu/blocks';
import { attentionScratchBytes, normPartialBytes, ProgramBuilder, samplerScratchBytes } from '../cpu/program';
import { CpuRuntime, type CpuRuntimeOptions, type Program } from '../cpu/runtime';
import { headName, layerNames, layoutParams, type ModelConfig, type ParamLayout } from './config';
import type { Backend, MatmulShape, PolicyEngine, UpdateBatch, UpdateLoss, UpdateOptions } from './engine';
import { checkBatch, checkGenerateRequest } from './engine-checks';
import type { GenerateRequest, GenerateResult } from './engine-types';
import { generationResult } from './generate';
import { decodeStats, STATS, STATS_FLOATS, type StepStats } from './step';

const F32 = 4;

interface LayerActs {
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

/** Buffers of one training shape [B × T] and its recorded programs. */
interface TrainPlan {
  B: number;
  T: number;
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

/** Buffers of batched decoding for B sequences and the recorded step. */
interface DecodePlan {
  B: number;
  tokens: number;
  seqs: number;
  sampleLogp: number;
  sampleEntropy: number;
  step: Program;
}

export class CpuPolicy implements PolicyEngine {
  readonly backend = 'wasm' as const;
  readonly layout: ParamLayout;
  /** Byte offsets of the flat f32 arrays (layout from layoutParams). */
  readonly params: number;
  readonly grads: number;
  readonly adamM: number;
  readonly adamV: number;
  private readonly owned: [number, number][] = [];
  /** Wᵀ [in × out] of every weight a forward product reads, by tensor name. */
  private readonly wt = new Map<string, number>();
  private readonly temperature: number;
  private readonly grpoOpts: number;
  private readonly hyper: number;
  private readonly norm: number;
  private readonly partials: number;
  private readonly stats: number;
  private readonly samplerOpts: number;
  private readonly pos: number;
  private readonly scratch: number;
  private readonly scratchStride: number;
  private readonly prepare: Program;
  private trainPlans = new Map<string, TrainPlan>();
  private decodePlans = new Map<number, DecodePlan>();
  private destroyed = false;

  constructor(
    readonly rt: CpuRuntime,
    readonly cfg: ModelConfig,
    readonly name = 'policy',
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

  // ---- memory ------------------------------------------------------------------------------

  private bytes(n: number): number {
    const off = this.rt.alloc(n);
    this.owned.push([off, n]);
    return off;
  }
  private f32(n: number): number {
    return this.bytes(Math.max(1, n) * F32);
  }
  private own(p: Program): Program {
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

  /** [weight, in, out] of every linear layer (the head reads wte when tied). */
  private forwardWeights(): [string, number, number][] {
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

  private check(): void {
    if (this.destroyed) throw new Error(`policy ${this.name}: destroyed`);
  }

  // ---- state -------------------------------------------------------------------------------

  setParams(flat: Float32Array): void {
    this.check();
    if (flat.length !== this.layout.totalFloats) throw new Error(`parameters: expected ${this.layout.totalFloats} floats, got ${flat.length}`);
    this.rt.f32(this.params, flat.length).set(flat);
  }
  async getParams(): Promise<Float32Array> {
    this.check();
    return this.rt.f32(this.params, this.layout.totalFloats).slice();
  }
  setAdamState(m: Float32Array, v: Float32Array): void {
    this.check();
    const n = this.layout.totalFloats;
    if (m.length !== n || v.length !== n) throw new Error(`AdamW state: expected ${n} floats each, got ${m.length} and ${v.length}`);
    this.rt.f32(this.adamM, n).set(m);
    this.rt.f32(this.adamV, n).set(v);
  }
  async getAdamState(): Promise<{ m: Float32Array; v: Float32Array }> {
    this.check();
    const n = this.layout.totalFloats;
    return { m: this.rt.f32(this.adamM, n).slice(), v: this.rt.f32(this.adamV, n).slice() };
  }
  resetAdamState(): void {
    this.check();
    const n = this.layout.totalFloats;
    this.rt.f32(this.adamM, n).fill(0);
    this.rt.f32(this.adamV, n).fill(0);
  }
  /** Gradients of the last update (for tests and inspection). */
  getGrads(): Float32Array {
    return this.rt.f32(this.grads, this.layout.totalFloats).slice();
  }

  // ---- training ----------------------------------------------------------------------------

  private trainPlan(B: number, T: number): TrainPlan {
    const key = `${B}x${T}`;
    const cached = this.trainPlans.get(key);
    if (cached) return cached;
    if (!Number.isInteger(B) || B < 1) throw new Error(`rows must be a positive integer, got ${B}`);
    if (!Number.isInteger(T) || T < 1 || T > this.cfg.contextLength) throw new Error(`sequence length ${T} must be between 1 and contextLength ${this.cfg.contextLength}`);
    const { cfg } = this;
    const C = cfg.dModel;
    const F = cfg.mlpRatio * C;
    const N = B * T;
    const a = (floats: number) => this.f32(floats);
    const plan: TrainPlan = {
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
      programs: new Map(),
    };
    this.trainPlans.set(key, plan);
    return plan;
  }

  /** Records the forward: tokens → logits → logp, entropy (at the temperature in memory). */
  private emitForward(b: ProgramBuilder, s: TrainPlan): void {
    const { cfg } = this;
    const C = cfg.dModel;
    const F = cfg.mlpRatio * C;
    const H = cfg.nHeads;
    const V = cfg.vocabSize;
    const { B, T } = s;
    const N = B * T;
    const kind = cfg.norm;
    const ln = kind === 'layernorm';
    const scr = { scratch: this.scratch, scratchStride: this.scratchStride };
    b.encoderForward(s.tokens, this.p('wte'), this.p('wpe'), s.encoded, N, T, C).barrier();
    let x = s.encoded;
    for (let l = 0; l < cfg.nLayers; l++) {
      const n = layerNames(l);
      const y = s.layers[l];
      b.normForward({ kind, inp: x, weight: this.p(n.ln1w), bias: ln ? this.p(n.ln1b) : undefined, out: y.ln1, mean: ln ? y.ln1Mean : undefined, rstd: y.ln1Rstd, rows: N, C }).barrier();
      b.matmulNN({ a: y.ln1, b: this.wt.get(n.qkvw)!, out: y.qkv, bias: this.p(n.qkvb), M: N, N: 3 * C, K: C }).barrier();
      b.attentionForward({ qkv: y.qkv, out: y.atty, att: y.att, ...scr, B, T, C, H }).barrier();
      b.matmulNN({ a: y.atty, b: this.wt.get(n.projw)!, out: y.res2, bias: this.p(n.projb), resid: x, M: N, N: C, K: C }).barrier();
      b.normForward({ kind, inp: y.res2, weight: this.p(n.ln2w), bias: ln ? this.p(n.ln2b) : undefined, out: y.ln2, mean: ln ? y.ln2Mean : undefined, rstd: y.ln2Rstd, rows: N, C }).barrier();
      b.matmulNN({ a: y.ln2, b: this.wt.get(n.fcw)!, out: y.fchSlope, bias: this.p(n.fcb), aux: y.fchGelu, gelu: 'fwd-grad', M: N, N: F, K: C }).barrier();
      b.matmulNN({ a: y.fchGelu, b: this.wt.get(n.fcprojw)!, out: y.res3, bias: this.p(n.fcprojb), resid: y.res2, M: N, N: C, K: F }).barrier();
      x = y.res3;
    }
    b.normForward({ kind, inp: x, weight: this.p('lnf.w'), bias: ln ? this.p('lnf.b') : undefined, out: s.lnf, mean: ln ? s.lnfMean : undefined, rstd: s.lnfRstd, rows: N, C }).barrier();
    b.matmulNN({ a: s.lnf, b: this.wt.get(headName(cfg))!, out: s.logits, M: N, N: V, K: C }).barrier();
    b.logSoftmaxForward({ logits: s.logits, targets: s.targets, logp: s.logp, entropy: s.entropy, lse: s.lse, V, temperaturePtr: this.temperature, ...scr, rows: N }).barrier();
  }

  /** Records the backward from dlogp/dent: parameter gradients accumulate into grads. */
  private emitBackward(b: ProgramBuilder, s: TrainPlan): void {
    const { cfg } = this;
    const C = cfg.dModel;
    const F = cfg.mlpRatio * C;
    const H = cfg.nHeads;
    const V = cfg.vocabSize;
    const { B, T } = s;
    const N = B * T;
    const kind = cfg.norm;
    const ln = kind === 'layernorm';
    const head = headName(cfg);
    const L = cfg.nLayers;
    /** dx = dy·W (· slope, the saved GELU derivative), dW += dyᵀ·x, db += Σ dy: one phase (they only read dy). */
    const linearBack = (dy: number, x: number, w: string, bias: string | null, dx: number, inF: number, outF: number, slope?: number) => {
      b.matmulNN({ a: dy, b: this.p(w), out: dx, M: N, N: inF, K: outF, ...(slope ? { gelu: 'mul' as const, aux: slope } : {}) });
      b.matmulTN({ a: dy, b: x, out: this.g(w), M: outF, N: inF, K: N, accumulate: true });
      if (bias) b.biasGrad(dy, this.g(bias), N, outF);
      b.barrier();
    };
    const normBack = (dout: number, inp: number, w: string, bias: string, mean: number, rstd: number, accumulate: boolean) => {
      b.normBackwardDx({ kind, dout, inp, weight: this.p(w), mean: ln ? mean : undefined, rstd, dinp: s.dres, rows: N, C, accumulate });
      b.normBackwardDw({ kind, dout, inp, mean: ln ? mean : undefined, rstd, dweight: this.g(w), dbias: ln ? this.g(bias) : undefined, rows: N, C });
      b.barrier();
    };
    b.logSoftmaxBackward({ logits: s.logits, targets: s.targets, lse: s.lse, entropy: s.entropy, dlogp: s.dlogp, dent: s.dent, dlogits: s.dlogits, V, temperaturePtr: this.temperature, rows: N }).barrier();
    linearBack(s.dlogits, s.lnf, head, null, s.dln, C, V);
    const xL = L > 0 ? s.layers[L - 1].res3 : s.encoded;
    normBack(s.dln, xL, 'lnf.w', 'lnf.b', s.lnfMean, s.lnfRstd, false);
    for (let l = L - 1; l >= 0; l--) {
      const n = layerNames(l);
      const y = s.layers[l];
      const xin = l === 0 ? s.encoded : s.layers[l - 1].res3;
      // dres holds ∂L/∂res3; the residual passes it to res2 and xin unchanged.
      linearBack(s.dres, y.fchGelu, n.fcprojw, n.fcprojb, s.dfch, F, C, y.fchSlope);
      linearBack(s.dfch, y.ln2, n.fcw, n.fcb, s.dln, C, F);
      normBack(s.dln, y.res2, n.ln2w, n.ln2b, y.ln2Mean, y.ln2Rstd, true);
      linearBack(s.dres, y.atty, n.projw, n.projb, s.datty, C, C);
      b.attentionBackward({ dout: s.datty, qkv: y.qkv, att: y.att, dqkv: s.dqkv, scratch: this.scratch, scratchStride: this.scratchStride, B, T, C, H }).barrier();
      linearBack(s.dqkv, y.ln1, n.qkvw, n.qkvb, s.dln, C, 3 * C);
      normBack(s.dln, xin, n.ln1w, n.ln1b, y.ln1Mean, y.ln1Rstd, true);
    }
    b.encoderBackward(s.dres, s.tokens, this.g('wte'), this.g('wpe'), N, T, C).barrier();
  }

  private updateProgram(s: TrainPlan, loss: UpdateLoss, useRef: boolean, onPolicy: boolean, update: boolean): Program {
    const key = `${loss.kind}:${useRef}:${onPolicy}:${update}`;
    const cached = s.programs.get(key);
    if (cached) return cached;
    const n = this.layout.totalFloats;
    const N = s.B * s.T;
    const b = new ProgramBuilder();
    this.emitPrepare(b);
    b.zero(this.grads, n).barrier();
    this.emitForward(b, s);
    if (loss.kind === 'grpo') {
      // On-policy: the old log-probs ARE this forward's (ρ ≡ 1 exactly).
      b.grpoLoss({ logp: s.logp, oldLogp: onPolicy ? s.logp : s.oldLogp, refLogp: useRef ? s.refLogp : 0, advantages: s.advantages, weights: s.weights, mask: s.mask, entropy: s.entropy, dlogp: s.dlogp, dent: s.dent, stats: this.stats, opts: this.grpoOpts, N });
    } else {
      b.crossEntropyLoss({ logp: s.logp, weights: s.weights, mask: s.mask, dlogp: s.dlogp, dent: s.dent, stats: this.stats, N });
    }
    b.barrier();
    this.emitBackward(b, s);
    b.gradNorm(this.grads, n, this.partials, this.norm).barrier();
    // AdamW reads the loss (stats word 0) and the norm itself and writes nothing for a non-finite step.
    if (update) b.adamw({ params: this.params, grads: this.grads, m: this.adamM, v: this.adamV, hyper: this.hyper, norm: this.norm, loss: this.stats + STATS.loss * F32, decayEnd: this.layout.decayEnd, n }).barrier();
    const p = this.own(b.finish(this.rt));
    s.programs.set(key, p);
    return p;
  }

  /** Wᵀ of every forward weight from the current parameters. */
  private emitPrepare(b: ProgramBuilder): void {
    for (const [w, inF, outF] of this.forwardWeights()) b.transpose(this.p(w), this.wt.get(w)!, outF, inF);
    b.barrier();
  }

  private writeTokens(ptr: number, tokens: Uint32Array, what: string): void {
    const V = this.cfg.vocabSize;
    for (let i = 0; i < tokens.length; i++) if (tokens[i] >= V) throw new Error(`${what}[${i}] = ${tokens[i]} is not a token id in [0, ${V})`);
    this.rt.u32(ptr, tokens.length).set(tokens);
  }

  private setTemperature(t: number): void {
    if (!(t > 0) || !Number.isFinite(t)) throw new Error(`temperature must be a positive finite number, got ${t}`);
    this.rt.f32(this.temperature, 1)[0] = t;
  }

  async update(batch: UpdateBatch, loss: UpdateLoss, o: UpdateOptions): Promise<StepStats> {
    this.check();
    checkBatch(batch);
    const update = o.update ?? true;
    const s = this.trainPlan(batch.rows, batch.T);
    const N = batch.rows * batch.T;
    const useRef = loss.kind === 'grpo' && batch.refLogp !== undefined;
    if (loss.kind === 'grpo' && !batch.advantages) throw new Error('update batch: the GRPO loss needs advantages');
    const { rt } = this;
    this.setTemperature(batch.temperature);
    this.writeTokens(s.tokens, batch.tokens, 'tokens');
    rt.u32(s.targets, N).set(batch.targets);
    rt.f32(s.mask, N).set(batch.mask);
    rt.f32(s.weights, N).set(batch.weights);
    if (loss.kind === 'grpo') {
      rt.f32(s.advantages, N).set(batch.advantages!);
      if (batch.oldLogp) rt.f32(s.oldLogp, N).set(batch.oldLogp);
      if (useRef) rt.f32(s.refLogp, N).set(batch.refLogp!);
      writeGrpoOptions(rt, this.grpoOpts, loss.opts);
    }
    if (update) writeAdamW(rt, this.hyper, o.step, o.adamw);
    rt.run(this.updateProgram(s, loss, useRef, !batch.oldLogp, update));
    const stats = new Float32Array(STATS_FLOATS);
    stats.set(rt.f32(this.stats, 8));
    stats[STATS.gradNorm] = rt.f32(this.norm, 1)[0];
    return decodeStats(stats, update);
  }

  async forward(tokens: Uint32Array, targets: Uint32Array, rows: number, T: number, temperature: number): Promise<{ logp: Float32Array; entropy: Float32Array }> {
    this.check();
    const N = rows * T;
    if (tokens.length !== N || targets.length !== N) throw new Error(`forward: tokens and targets need rows × T = ${N} entries, got ${tokens.length} and ${targets.length}`);
    const s = this.trainPlan(rows, T);
    this.setTemperature(temperature);
    this.writeTokens(s.tokens, tokens, 'tokens');
    this.rt.u32(s.targets, N).set(targets);
    let p = s.programs.get('forward');
    if (!p) {
      const b = new ProgramBuilder();
      this.emitPrepare(b);
      this.emitForward(b, s);
      p = this.own(b.finish(this.rt));
      s.programs.set('forward', p);
    }
    this.rt.run(p);
    return { logp: this.rt.f32(s.logp, N).slice(), entropy: this.rt.f32(s.entropy, N).slice() };
  }

  /** Logits [rows·T × V] of the last forward or update of that shape (tests and inspection). */
  lastLogits(rows: number, T: number): Float32Array {
    const s = this.trainPlan(rows, T);
    return this.rt.f32(s.logits, rows * T * this.cfg.vocabSize).slice();
  }

  // ---- decoding ----------------------------------------------------------------------------

  private decodePlan(B: number): DecodePlan {
    const cached = this.decodePlans.get(B);
    if (cached) return cached;
    const { cfg } = this;
    const C = cfg.dModel;
    const F = cfg.mlpRatio * C;
    const V = cfg.vocabSize;
    const H = cfg.nHeads;
    const Tmax = cfg.contextLength;
    const kind = cfg.norm;
    const ln = kind === 'layernorm';
    const a = (floats: number) => this.f32(floats);
    const tokens = a(B * Tmax);
    const seqs = a(B * 4);
    const sampleLogp = a(B * Tmax);
    const sampleEntropy = a(B * Tmax);
    const x = a(B * C);
    const lnOut = a(B * C);
    const mean = a(B);
    const rstd = a(B);
    const qkv = a(B * 3 * C);
    const atty = a(B * C);
    const fch = a(B * F);
    const fchGelu = a(B * F);
    const logits = a(B * V);
    // Every command splits the B sequences the same way (unit 1), so a thread only ever reads
    // rows it wrote itself: no barrier inside a step.
    const b = new ProgramBuilder();
    const norm = (w: string, bias: string) => b.normForward({ kind, inp: x, weight: this.p(w), bias: ln ? this.p(bias) : undefined, out: lnOut, mean: ln ? mean : undefined, rstd, rows: B, C });
    b.encoderDecode(tokens, this.p('wte'), this.p('wpe'), x, Tmax, this.pos, C, B);
    for (let l = 0; l < cfg.nLayers; l++) {
      const n = layerNames(l);
      const kcache = a(B * Tmax * C);
      const vcache = a(B * Tmax * C);
      norm(n.ln1w, n.ln1b);
      b.matmulNN({ a: lnOut, b: this.wt.get(n.qkvw)!, out: qkv, bias: this.p(n.qkvb), M: B, N: 3 * C, K: C, rowUnit: 1 });
      b.attentionDecode({ qkv, kcache, vcache, out: atty, scratch: this.scratch, scratchStride: this.scratchStride, Tmax, C, H, posPtr: this.pos, B });
      b.matmulNN({ a: atty, b: this.wt.get(n.projw)!, out: x, bias: this.p(n.projb), resid: x, M: B, N: C, K: C, rowUnit: 1 });
      norm(n.ln2w, n.ln2b);
      b.matmulNN({ a: lnOut, b: this.wt.get(n.fcw)!, out: fch, bias: this.p(n.fcb), aux: fchGelu, gelu: 'fwd', M: B, N: F, K: C, rowUnit: 1 });
      b.matmulNN({ a: fchGelu, b: this.wt.get(n.fcprojw)!, out: x, bias: this.p(n.fcprojb), resid: x, M: B, N: C, K: F, rowUnit: 1 });
    }
    norm('lnf.w', 'lnf.b');
    b.matmulNN({ a: lnOut, b: this.wt.get(headName(cfg))!, out: logits, M: B, N: V, K: C, rowUnit: 1 });
    b.sample({ logits, tokens, seqs, sampleLogp, sampleEntropy, opts: this.samplerOpts, scratch: this.scratch, scratchStride: this.scratchStride, V, stride: Tmax, contextLength: Tmax, posPtr: this.pos, B });
    const plan: DecodePlan = { B, tokens, seqs, sampleLogp, sampleEntropy, step: this.own(b.finish(this.rt)) };
    this.decodePlans.set(B, plan);
    return plan;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    this.check();
    const { cfg, rt } = this;
    const B = req.prompts.length;
    const Tmax = cfg.contextLength;
    if (B === 0) return { responses: [], finish: [], logp: [], entropy: [], steps: 0 };
    const maxPrompt = checkGenerateRequest(req, cfg);
    writeSampler(rt, this.samplerOpts, { temperature: req.temperature, topP: req.topP, seed: req.seed >>> 0, maxResponseLength: req.maxResponseLength, eosId: req.eosId, padId: req.padId }, cfg.vocabSize);
    const plan = this.decodePlan(B);
    const tokens = rt.u32(plan.tokens, B * Tmax);
    tokens.fill(req.padId);
    const seqs = rt.u32(plan.seqs, B * 4);
    seqs.fill(0);
    req.prompts.forEach((p, b) => {
      tokens.set(p, b * Tmax);
      seqs[b * 4] = p.length;
    });
    rt.f32(plan.sampleLogp, B * Tmax).fill(0);
    rt.f32(plan.sampleEntropy, B * Tmax).fill(0);
    this.runPrepare();
    // The last position that can hold a response token is maxPrompt - 1 + maxResponseLength.
    const totalSteps = Math.min(maxPrompt - 1 + req.maxResponseLength, Tmax - 1);
    let steps = 0;
    while (steps < totalSteps) {
      rt.u32(this.pos, 1)[0] = steps;
      rt.run(plan.step);
      steps++;
      if (steps >= maxPrompt && steps < totalSteps) {
        const st = rt.u32(plan.seqs, B * 4);
        let running = false;
        for (let b = 0; b < B; b++) if (st[b * 4 + 2] === 0) running = true;
        if (!running) break;
      }
    }
    const outTokens = rt.u32(plan.tokens, B * Tmax);
    const outSeqs = rt.u32(plan.seqs, B * 4);
    const lp = rt.f32(plan.sampleLogp, B * Tmax);
    const ent = rt.f32(plan.sampleEntropy, B * Tmax);
    return generationResult(outTokens, outSeqs, lp, ent, B, Tmax, steps);
  }

  private runPrepare(): void {
    this.rt.run(this.prepare);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const [off, n] of this.owned) this.rt.release(off, n);
    this.owned.length = 0;
    this.trainPlans.clear();
    this.decodePlans.clear();
  }
}

/** GFLOP/s of one matmul shape on the CPU engine (median of `repeats`); Bᵀ layouts are prepared outside the timing, as per update. */
export function cpuMatmulGflops(rt: CpuRuntime, shape: MatmulShape, repeats: number): number {
  const { M, N, K, transA, transB } = shape;
  const sizes = [M * K, K * N, K * N, M * N];
  const [a, bRaw, bT, c] = sizes.map((n) => rt.allocF32(n));
  try {
    const fill = (off: number, n: number) => {
      const v = rt.f32(off, n);
      for (let i = 0; i < n; i++) v[i] = Math.sin(i * 0.37) * 0.5;
    };
    fill(a, M * K);
    fill(bRaw, K * N);
    // B as [K × N] row-major: stored [N × K] when transB, so transpose it once first.
    const prep = new ProgramBuilder();
    if (transB) prep.transpose(bRaw, bT, N, K);
    const pp = prep.finish(rt);
    rt.run(pp);
    const bb = transB ? bT : bRaw;
    const prog = new ProgramBuilder();
    if (transA) prog.matmulTN({ a, b: bb, out: c, M, N, K });
    else prog.matmulNN({ a, b: bb, out: c, M, N, K });
    const p = prog.finish(rt);
    rt.run(p);
    const times: number[] = [];
    for (let r = 0; r < Math.max(1, repeats); r++) {
      const t0 = performance.now();
      rt.run(p);
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    const ms = Math.max(times[Math.floor(times.length / 2)], 1e-6);
    rt.release(pp.ptr, pp.count * 64);
    rt.release(p.ptr, p.count * 64);
    return (2 * M * N * K) / (ms * 1e6);
  } finally {
    [a, bRaw, bT, c].forEach((off, i) => rt.release(off, Math.max(1, sizes[i]) * F32));
  }
}

export interface WasmBackend extends Backend {
  readonly name: 'wasm';
  readonly rt: CpuRuntime;
}

/**
 * The CPU engine. threads: default every core (os.availableParallelism() in Node,
 * navigator.hardwareConcurrency in a browser), 1 where SharedArrayBuffer is unusable.
 * build: force the single-threaded module (tests).
 */
export async function wasmBackend(opts: { threads?: number; build?: CpuRuntimeOptions['build'] } = {}): Promise<WasmBackend> {
  const rt = await CpuRuntime.create(opts);
  return {
    name: 'wasm',
    rt,
    description: `CPU engine (WebAssembly SIMD, ${rt.threads} thread${rt.threads === 1 ? '' : 's'})`,
    threads: rt.threads,
    createPolicy: async (cfg, name) => new CpuPolicy(rt, cfg, name),
    matmulGflops: async (shape, repeats) => cpuMatmulGflops(rt, shape, repeats),
    limits: () => ({ engine: 'wasm', memoryBytes: rt.memoryLimitBytes, threads: rt.threads }),
    destroy: () => rt.destroy(),
  };
}
