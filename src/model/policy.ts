/**
 * The policy on the GPU: flat parameter / gradient / AdamW-moment buffers and the recorded
 * dispatch plans for (1) a training forward + backward over a [B × T] token batch and
 * (2) batched incremental decoding with a KV cache. Plans are built once per shape and
 * replayed; nothing is allocated or read back inside a step.
 *
 * Layer math (pre-norm GPT):  x = wte[tok] + wpe[t];  per block
 *   a = x + proj(attn(qkv(norm1(x))));  x' = a + fcproj(gelu(fc(norm2(a))))
 * then logits = normf(x)·headᵀ, and per token logp(target) and entropy at temperature τ.
 */
import type { Binding, BufferSlice, Dispatch, GpuRuntime } from '../gpu/runtime';
import { accumulate, add, geluBackward, geluForward } from '../gpu/kernels/elementwise';
import { biasGrad, matmul, type MatmulVariant } from '../gpu/kernels/matmul';
import { attentionBackward, attentionDecode, attentionForward } from '../gpu/kernels/attention';
import { normBackward, normForward } from '../gpu/kernels/norm';
import { encoderBackward, encoderDecode, encoderForward } from '../gpu/kernels/embedding';
import { logSoftmaxEntropyBackward, logSoftmaxEntropyForward, type LossHeadDispatch } from '../gpu/kernels/loss';
import { adamw, gradNorm, gradNormScratchFloats } from '../gpu/kernels/optimizer';
import { advancePosition, sampleTokens } from '../gpu/kernels/sampling';
import type { AdamWOptions, SamplerOptions } from './engine-types';
import { checkModelFitsLimits, headName, layerNames, layoutParams, type ModelConfig, type ParamLayout } from './config';
import { liveSizes } from './live-sizes';

const F32 = 4;

/** Buffers and dispatches of one training shape. */
export interface TrainPlan {
  B: number;
  T: number;
  /** u32 [B·T]: input tokens (row b holds sequence b). Write before `forward`. */
  tokens: GPUBuffer;
  /** u32 [B·T]: the token each position predicts (next token; anything where the loss weight is 0). */
  targets: GPUBuffer;
  /** f32 [B·T] outputs of the forward: log-prob of the target and full-vocabulary entropy, at temperature τ. */
  logp: GPUBuffer;
  entropy: GPUBuffer;
  /** f32 [B·T] upstream gradients w.r.t. logp and entropy, written by a loss kernel before `backward`. */
  dlogp: GPUBuffer;
  dent: GPUBuffer;
  /** f32 [B·T × V] logits of the last forward (for tests and inspection). */
  logits: GPUBuffer;
  forward: Dispatch[];
  /** Accumulates (+=) parameter gradients into policy.grads. */
  backward: Dispatch[];
  setTemperature(temperature: number): void;
}

/** Buffers and dispatches of batched decoding. */
export interface DecodePlan {
  B: number;
  /** u32 [B × contextLength]: prompts in, prompts + responses out. */
  tokens: GPUBuffer;
  /** u32 [4]: word 0 = current position. */
  state: GPUBuffer;
  /** u32 [B × 4]: promptLen, responseLen, status (0 running, 1 EOS, 2 truncated), row (keys the sampler's draw). */
  seqs: GPUBuffer;
  sampleLogp: GPUBuffer;
  sampleEntropy: GPUBuffer;
  /** Every layer's K and V caches, [B × contextLength × C] each: a sequence's rows move with it. */
  kCaches: GPUBuffer[];
  vCaches: GPUBuffer[];
  /** Room for one sequence's KV cache rows and two sequences' per-position rows: buffer-to-buffer copies need distinct buffers. */
  swapScratch: GPUBuffer;
  /** The slot counts a step can run over, largest (B) first: liveSizes(B). */
  sizes: number[];
  /** One decode step over slots [0, slots) (one of `sizes`): forward of the token at `pos`, sample `pos+1`, advance. */
  step(slots: number): Dispatch[];
  setSampler(opts: SamplerOptions): void;
}

export interface OptimizerPlan {
  /** Global gradient norm (before clipping) lands here: f32 [1]. */
  norm: GPUBuffer;
  /** f32 [1]: the step's loss, copied here (GPU to GPU) before adamDispatches; with `norm` it gates AdamW. */
  loss: GPUBuffer;
  /** Computes the gradient norm into `norm`. */
  normDispatches: Dispatch[];
  /** Clipped AdamW (reads `norm` and `loss`; writes nothing when either is not finite); run after normDispatches. */
  adamDispatches: Dispatch[];
  update(step: number, opts: AdamWOptions): void;
}

export class GpuPolicy {
  readonly layout: ParamLayout;
  /** Flat f32 parameters (layout from layoutParams). */
  readonly params: GPUBuffer;
  readonly grads: GPUBuffer;
  readonly adamM: GPUBuffer;
  readonly adamV: GPUBuffer;
  private trainPlans = new Map<string, TrainPlan>();
  private decodePlans = new Map<number, DecodePlan>();
  private optimizerPlan: Promise<OptimizerPlan> | null = null;

  constructor(
    readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    /** Prefix for buffer names, so two policies (e.g. actor and reference) can coexist. */
    readonly name = 'policy',
    /** The matmul kernel variant every plan of this policy is built with; absent: the runtime's selected one. */
    readonly matmulVariant?: MatmulVariant,
  ) {
    this.layout = layoutParams(cfg);
    const bytes = this.layout.totalFloats * F32;
    this.params = rt.buffer(`${name}.params`, bytes);
    this.grads = rt.buffer(`${name}.grads`, bytes);
    this.adamM = rt.buffer(`${name}.adam.m`, bytes);
    this.adamV = rt.buffer(`${name}.adam.v`, bytes);
  }

  /** Slice of a flat buffer holding tensor `tensor`. */
  slice(buffer: GPUBuffer, tensor: string): BufferSlice {
    const t = this.layout.byName.get(tensor);
    if (!t) throw new Error(`no tensor ${tensor} in this model`);
    return { buffer, offset: t.offset * F32, size: t.size * F32 };
  }
  p(tensor: string): BufferSlice {
    return this.slice(this.params, tensor);
  }
  g(tensor: string): BufferSlice {
    return this.slice(this.grads, tensor);
  }

  setParams(flat: Float32Array): void {
    if (flat.length !== this.layout.totalFloats) throw new Error(`parameters: expected ${this.layout.totalFloats} floats, got ${flat.length}`);
    this.rt.write(this.params, flat);
  }
  getParams(): Promise<Float32Array> {
    return this.rt.readF32(this.params, 0, this.layout.totalFloats);
  }
  setAdamState(m: Float32Array, v: Float32Array): void {
    this.rt.write(this.adamM, m);
    this.rt.write(this.adamV, v);
  }
  async getAdamState(): Promise<{ m: Float32Array; v: Float32Array }> {
    return { m: await this.rt.readF32(this.adamM, 0, this.layout.totalFloats), v: await this.rt.readF32(this.adamV, 0, this.layout.totalFloats) };
  }
  resetAdamState(): void {
    const zeros = new Float32Array(this.layout.totalFloats);
    this.setAdamState(zeros, zeros);
  }
  /** Encodes gradient zeroing (a buffer clear, not a dispatch). */
  zeroGrads(encoder: GPUCommandEncoder): void {
    encoder.clearBuffer(this.grads);
  }

  private act(label: string, floats: number): GPUBuffer {
    return this.rt.buffer(`${this.name}.${label}`, Math.max(1, floats) * F32);
  }

  /** Training forward/backward plan for B sequences of T tokens (cached per shape). */
  async trainPlan(B: number, T: number, temperature = 1): Promise<TrainPlan> {
    const key = `${B}x${T}`;
    const cached = this.trainPlans.get(key);
    if (cached) {
      cached.setTemperature(temperature);
      return cached;
    }
    if (T > this.cfg.contextLength) throw new Error(`sequence length ${T} exceeds contextLength ${this.cfg.contextLength}`);
    // The largest activations (B·H·T·T attention, B·T·V logits) must fit one storage binding of this adapter.
    checkModelFitsLimits({ ...this.cfg, contextLength: T }, B, this.rt.limits);
    const { rt, cfg } = this;
    const C = cfg.dModel;
    const Fh = cfg.mlpRatio * C;
    const V = cfg.vocabSize;
    const H = cfg.nHeads;
    const L = cfg.nLayers;
    const N = B * T;
    const kind = cfg.norm;
    const ln = kind === 'layernorm';
    const a = (label: string, floats: number) => this.act(`train${key}.${label}`, floats);

    const tokens = a('tokens', N);
    const targets = a('targets', N);
    const encoded = a('encoded', N * C);
    const layers = Array.from({ length: L }, (_, l) => ({
      ln1: a(`l${l}.ln1`, N * C),
      ln1Mean: a(`l${l}.ln1.mean`, N),
      ln1Rstd: a(`l${l}.ln1.rstd`, N),
      qkv: a(`l${l}.qkv`, N * 3 * C),
      att: a(`l${l}.att`, B * H * T * T),
      atty: a(`l${l}.atty`, N * C),
      attproj: a(`l${l}.attproj`, N * C),
      res2: a(`l${l}.res2`, N * C),
      ln2: a(`l${l}.ln2`, N * C),
      ln2Mean: a(`l${l}.ln2.mean`, N),
      ln2Rstd: a(`l${l}.ln2.rstd`, N),
      fch: a(`l${l}.fch`, N * Fh),
      fchGelu: a(`l${l}.fchgelu`, N * Fh),
      fcproj: a(`l${l}.fcproj`, N * C),
      res3: a(`l${l}.res3`, N * C),
    }));
    const lnf = a('lnf', N * C);
    const lnfMean = a('lnf.mean', N);
    const lnfRstd = a('lnf.rstd', N);
    const logits = a('logits', N * V);
    const lse = a('lse', N);
    const logp = a('logp', N);
    const entropy = a('entropy', N);
    const dlogp = a('dlogp', N);
    const dent = a('dent', N);
    // Backward scratch, reused by every layer.
    const dlogits = a('dlogits', N * V);
    const dlnf = a('dlnf', N * C);
    const dres = a('dres', N * C);
    const dln = a('dln', N * C);
    const datty = a('datty', N * C);
    const dqkv = a('dqkv', N * 3 * C);
    const dpreatt = a('dpreatt', B * H * T * T);
    const dfchGelu = a('dfchgelu', N * Fh);
    const dfch = a('dfch', N * Fh);

    const fwd: Dispatch[] = [];
    const bwd: Dispatch[] = [];
    const head = headName(cfg);
    const linear = async (x: Binding, w: string, b: string | null, out: Binding, inF: number, outF: number) =>
      fwd.push(await matmul(rt, { a: x, b: this.p(w), out, bias: b ? this.p(b) : undefined, M: N, N: outF, K: inF, transA: false, transB: true, accumulate: false, variant: this.matmulVariant }));
    const linearBack = async (dy: Binding, x: Binding, w: string, b: string | null, dx: Binding, inF: number, outF: number) => {
      bwd.push(await matmul(rt, { a: dy, b: this.p(w), out: dx, M: N, N: inF, K: outF, transA: false, transB: false, accumulate: false, variant: this.matmulVariant }));
      bwd.push(await matmul(rt, { a: dy, b: x, out: this.g(w), M: outF, N: inF, K: N, transA: true, transB: false, accumulate: true, variant: this.matmulVariant }));
      if (b) bwd.push(await biasGrad(rt, { dout: dy, dbias: this.g(b), rows: N, cols: outF, accumulate: true }));
    };

    // ---- forward
    fwd.push(await encoderForward(rt, { tokens, wte: this.p('wte'), wpe: this.p('wpe'), out: encoded, B, T, C, tokenStride: T }));
    let x: GPUBuffer = encoded;
    for (let l = 0; l < L; l++) {
      const n = layerNames(l);
      const s = layers[l];
      fwd.push(await normForward(rt, { kind, inp: x, weight: this.p(n.ln1w), bias: ln ? this.p(n.ln1b) : undefined, out: s.ln1, mean: ln ? s.ln1Mean : undefined, rstd: s.ln1Rstd, rows: N, C }));
      await linear(s.ln1, n.qkvw, n.qkvb, s.qkv, C, 3 * C);
      fwd.push(await attentionForward(rt, { qkv: s.qkv, out: s.atty, att: s.att, B, T, C, H }));
      await linear(s.atty, n.projw, n.projb, s.attproj, C, C);
      fwd.push(await add(rt, { a: x, b: s.attproj, out: s.res2, n: N * C }));
      fwd.push(await normForward(rt, { kind, inp: s.res2, weight: this.p(n.ln2w), bias: ln ? this.p(n.ln2b) : undefined, out: s.ln2, mean: ln ? s.ln2Mean : undefined, rstd: s.ln2Rstd, rows: N, C }));
      await linear(s.ln2, n.fcw, n.fcb, s.fch, C, Fh);
      fwd.push(await geluForward(rt, { inp: s.fch, out: s.fchGelu, n: N * Fh }));
      await linear(s.fchGelu, n.fcprojw, n.fcprojb, s.fcproj, Fh, C);
      fwd.push(await add(rt, { a: s.res2, b: s.fcproj, out: s.res3, n: N * C }));
      x = s.res3;
    }
    fwd.push(await normForward(rt, { kind, inp: x, weight: this.p('lnf.w'), bias: ln ? this.p('lnf.b') : undefined, out: lnf, mean: ln ? lnfMean : undefined, rstd: lnfRstd, rows: N, C }));
    await linear(lnf, head, null, logits, C, V);
    const lsmF = await logSoftmaxEntropyForward(rt, { logits, targets, logp, entropy, lse, rows: N, V, temperature });
    fwd.push(lsmF);

    // ---- backward (parameter gradients accumulate; activation gradients are written)
    const lsmB: LossHeadDispatch = await logSoftmaxEntropyBackward(rt, { logits, targets, lse, entropy, dlogp, dent, dlogits, rows: N, V, temperature });
    bwd.push(lsmB);
    await linearBack(dlogits, lnf, head, null, dlnf, C, V);
    bwd.push(...(await normBackward(rt, { kind, dout: dlnf, inp: x, weight: this.p('lnf.w'), mean: ln ? lnfMean : undefined, rstd: lnfRstd, dinp: dres, dweight: this.g('lnf.w'), dbias: ln ? this.g('lnf.b') : undefined, rows: N, C, accumulate: false })));
    for (let l = L - 1; l >= 0; l--) {
      const n = layerNames(l);
      const s = layers[l];
      const xin = l === 0 ? encoded : layers[l - 1].res3;
      // dres holds ∂L/∂res3; the residual passes it through unchanged to res2 and to xin.
      await linearBack(dres, s.fchGelu, n.fcprojw, n.fcprojb, dfchGelu, Fh, C);
      bwd.push(await geluBackward(rt, { inp: s.fch, dout: dfchGelu, dinp: dfch, n: N * Fh }));
      await linearBack(dfch, s.ln2, n.fcw, n.fcb, dln, C, Fh);
      bwd.push(...(await normBackward(rt, { kind, dout: dln, inp: s.res2, weight: this.p(n.ln2w), mean: ln ? s.ln2Mean : undefined, rstd: s.ln2Rstd, dinp: dres, dweight: this.g(n.ln2w), dbias: ln ? this.g(n.ln2b) : undefined, rows: N, C, accumulate: true })));
      await linearBack(dres, s.atty, n.projw, n.projb, datty, C, C);
      bwd.push(...(await attentionBackward(rt, { dout: datty, qkv: s.qkv, att: s.att, dpreatt, dqkv, B, T, C, H })));
      await linearBack(dqkv, s.ln1, n.qkvw, n.qkvb, dln, C, 3 * C);
      bwd.push(...(await normBackward(rt, { kind, dout: dln, inp: xin, weight: this.p(n.ln1w), mean: ln ? s.ln1Mean : undefined, rstd: s.ln1Rstd, dinp: dres, dweight: this.g(n.ln1w), dbias: ln ? this.g(n.ln1b) : undefined, rows: N, C, accumulate: true })));
    }
    bwd.push(...(await encoderBackward(rt, { dout: dres, tokens, dwte: this.g('wte'), dwpe: this.g('wpe'), B, T, C, V, tokenStride: T })));

    const plan: TrainPlan = {
      B,
      T,
      tokens,
      targets,
      logp,
      entropy,
      dlogp,
      dent,
      logits,
      forward: fwd,
      backward: bwd,
      setTemperature: (t: number) => {
        lsmF.setTemperature(rt, t);
        lsmB.setTemperature(rt, t);
      },
    };
    this.trainPlans.set(key, plan);
    return plan;
  }

  /** Gradient-norm + clipped AdamW over every parameter (built once). */
  optimizer(): Promise<OptimizerPlan> {
    if (!this.optimizerPlan) this.optimizerPlan = this.buildOptimizer();
    return this.optimizerPlan;
  }

  private async buildOptimizer(): Promise<OptimizerPlan> {
    const { rt } = this;
    const n = this.layout.totalFloats;
    const scratch = this.act('opt.scratch', gradNormScratchFloats(n));
    const norm = this.act('opt.norm', 4);
    const loss = this.act('opt.loss', 4);
    const gn = await gradNorm(rt, { grads: this.grads, n, scratch, norm });
    const opts: AdamWOptions = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 };
    const aw = await adamw(rt, { params: this.params, grads: this.grads, m: this.adamM, v: this.adamV, norm, loss, n, decayEnd: this.layout.decayEnd, opts });
    return { norm, loss, normDispatches: gn, adamDispatches: aw.dispatches, update: (step, o) => aw.update(rt, step, o) };
  }

  /**
   * Decoding plan for B sequences of up to contextLength tokens (cached per B): the buffers, and one
   * recorded step per size of liveSizes(B) over them, so a decode can run over the running sequences
   * alone once they are moved to the front slots (src/model/generate.ts). Every kernel of a step
   * computes a row from that row alone (matmul elements are sums over k in a fixed order, norms and
   * attention per row, the sampler's draw keyed by the row id in seqs), so a row gets the same floats
   * in any slot and at any size.
   */
  async decodePlan(B: number): Promise<DecodePlan> {
    const cached = this.decodePlans.get(B);
    if (cached) return cached;
    const { rt, cfg } = this;
    const C = cfg.dModel;
    const Fh = cfg.mlpRatio * C;
    const V = cfg.vocabSize;
    const H = cfg.nHeads;
    const Tmax = cfg.contextLength;
    const kind = cfg.norm;
    const ln = kind === 'layernorm';
    const a = (label: string, floats: number) => this.act(`decode${B}.${label}`, floats);
    const tokens = a('tokens', B * Tmax);
    const state = a('state', 4);
    const seqs = a('seqs', B * 4);
    const sampleLogp = a('samplelogp', B * Tmax);
    const sampleEntropy = a('sampleentropy', B * Tmax);
    const x = a('x', B * C);
    const lnOut = a('ln', B * C);
    const mean = a('mean', B);
    const rstd = a('rstd', B);
    const qkv = a('qkv', B * 3 * C);
    const atty = a('atty', B * C);
    const tmp = a('tmp', B * C);
    const fch = a('fch', B * Fh);
    const fchGelu = a('fchgelu', B * Fh);
    const logits = a('logits', B * V);
    const caches = Array.from({ length: cfg.nLayers }, (_, l) => ({ kcache: a(`l${l}.kcache`, B * Tmax * C), vcache: a(`l${l}.vcache`, B * Tmax * C) }));
    const swapScratch = a('swap', Tmax * C + 2 * Tmax + 8);
    const defaults: SamplerOptions = { temperature: 1, topP: 1, seed: 0, maxResponseLength: Tmax, eosId: 0, padId: 0 };
    const samplers: Awaited<ReturnType<typeof sampleTokens>>[] = [];
    const record = async (R: number): Promise<Dispatch[]> => {
      const step: Dispatch[] = [];
      const linear = async (inp: Binding, w: string, b: string | null, out: Binding, inF: number, outF: number) =>
        step.push(await matmul(rt, { a: inp, b: this.p(w), out, bias: b ? this.p(b) : undefined, M: R, N: outF, K: inF, transA: false, transB: true, accumulate: false, variant: this.matmulVariant }));
      const norm = async (w: string, bias: string) =>
        step.push(await normForward(rt, { kind, inp: x, weight: this.p(w), bias: ln ? this.p(bias) : undefined, out: lnOut, mean: ln ? mean : undefined, rstd, rows: R, C }));
      step.push(await encoderDecode(rt, { tokens, wte: this.p('wte'), wpe: this.p('wpe'), out: x, state, B: R, C, tokenStride: Tmax }));
      for (let l = 0; l < cfg.nLayers; l++) {
        const n = layerNames(l);
        const { kcache, vcache } = caches[l];
        await norm(n.ln1w, n.ln1b);
        await linear(lnOut, n.qkvw, n.qkvb, qkv, C, 3 * C);
        step.push(await attentionDecode(rt, { qkv, kcache, vcache, out: atty, state, B: R, Tmax, C, H }));
        await linear(atty, n.projw, n.projb, tmp, C, C);
        step.push(await accumulate(rt, { inp: tmp, out: x, n: R * C }));
        await norm(n.ln2w, n.ln2b);
        await linear(lnOut, n.fcw, n.fcb, fch, C, Fh);
        step.push(await geluForward(rt, { inp: fch, out: fchGelu, n: R * Fh }));
        await linear(fchGelu, n.fcprojw, n.fcprojb, tmp, Fh, C);
        step.push(await accumulate(rt, { inp: tmp, out: x, n: R * C }));
      }
      await norm('lnf.w', 'lnf.b');
      await linear(lnOut, headName(cfg), null, logits, C, V);
      const sampler = await sampleTokens(rt, { logits, tokens, state, seqs, sampleLogp, sampleEntropy, B: R, V, tokenStride: Tmax, contextLength: Tmax, opts: defaults });
      samplers.push(sampler);
      step.push(sampler.dispatch);
      step.push(await advancePosition(rt, { state }));
      return step;
    };
    // Every size is recorded with the plan, so a decode records and allocates nothing whichever sizes it runs.
    const sizes = liveSizes(B);
    const steps = new Map<number, Dispatch[]>();
    for (const R of sizes) steps.set(R, await record(R));
    const plan: DecodePlan = {
      B,
      tokens,
      state,
      seqs,
      sampleLogp,
      sampleEntropy,
      kCaches: caches.map((c) => c.kcache),
      vCaches: caches.map((c) => c.vcache),
      swapScratch,
      sizes,
      step: (slots) => {
        const st = steps.get(slots);
        if (!st) throw new Error(`decode step: ${slots} slots is not one of the plan's sizes ${sizes.join(', ')}`);
        return st;
      },
      setSampler: (o) => {
        for (const s of samplers) s.update(rt, o);
      },
    };
    this.decodePlans.set(B, plan);
    return plan;
  }
}

/** The matmul shapes one training step runs (forward, input-gradient and weight-gradient of every linear layer), for picking a kernel variant by timing. */
export function trainMatmulShapes(cfg: ModelConfig, rows: number): { M: number; N: number; K: number; transA: boolean; transB: boolean }[] {
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const linears: [number, number][] = [
    [C, 3 * C],
    [C, C],
    [C, F],
    [F, C],
    [C, cfg.vocabSize],
  ];
  const out: { M: number; N: number; K: number; transA: boolean; transB: boolean }[] = [];
  for (const [inF, outF] of linears) {
    out.push({ M: rows, N: outF, K: inF, transA: false, transB: true });
    out.push({ M: rows, N: inF, K: outF, transA: false, transB: false });
    out.push({ M: outF, N: inF, K: rows, transA: true, transB: false });
  }
  return out;
}
