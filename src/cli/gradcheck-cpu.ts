/**
 * `magic-lab gradcheck --backend wasm`: the CPU engine's kernels (src/cpu/) on fresh random
 * inputs of odd sizes, outputs poisoned with NaN, against the same float64 twins as the WebGPU
 * checks; then the whole CpuPolicy (logits, every parameter gradient, three AdamW steps) and its
 * sampler against the reference sampling step. The unit tests (tests/cpu/) cover more cases and
 * modes; this is the check a user runs on their own machine and thread count.
 */
import { writeAdamW, writeGrpoOptions, writeSampler } from '../cpu/blocks';
import { attentionScratchBytes, normPartialBytes, ProgramBuilder, samplerScratchBytes } from '../cpu/program';
import type { CpuRuntime } from '../cpu/runtime';
import { maxRelError, relErr, rms } from '../gpu/check';
import type { CpuPolicy, WasmBackend } from '../model/cpu-policy';
import { referenceForward, referencePolicyLoss, referenceTrainStep } from '../model/reference/model';
import * as ref from '../model/reference/ops';
import { sampleStep } from '../model/reference/sampling';
import type { Rng } from '../util/rng';
import { MODEL_CHECK, modelCheckSetup, RUNG_TWINS, type ModelCheck } from './gradcheck-model';

/** One check: returns its error (Infinity for NaN or a short output); `tol` overrides the kernel tolerance. */
export interface CpuCheck {
  name: string;
  tol?: number;
  run: (rng: Rng) => Promise<number> | number;
}

const randn = (rng: Rng, n: number, s = 1) => Float64Array.from({ length: n }, () => Math.fround(rng.normal() * s));
const worst = (...xs: number[]) => Math.max(...xs.map((x) => (Number.isNaN(x) ? Infinity : x)));
const abs = (x: Float64Array) => x.map(Math.abs);
/** Error relative to the magnitude of the summed terms (a sum that cancels would inflate a plain relative error). */
const sumRelErr = (a: ArrayLike<number>, e: ArrayLike<number>, mag: ArrayLike<number>) => maxRelError(a, e, Math.max(rms(e), rms(mag)));

/** Inputs written into the engine's memory, NaN-poisoned outputs, one program per call; freed by `free()`. */
class Scratch {
  private allocs: [number, number][] = [];
  constructor(readonly rt: CpuRuntime) {}
  private alloc(n: number): number {
    const off = this.rt.allocF32(n);
    this.allocs.push([off, Math.max(1, n) * 4]);
    return off;
  }
  f32(data: ArrayLike<number>): number {
    const off = this.alloc(data.length);
    this.rt.f32(off, data.length).set(Float32Array.from(data));
    return off;
  }
  u32(data: ArrayLike<number>): number {
    const off = this.alloc(data.length);
    this.rt.u32(off, data.length).set(Uint32Array.from(data));
    return off;
  }
  poison(n: number): number {
    const off = this.alloc(n);
    this.rt.f32(off, n).fill(NaN);
    return off;
  }
  bytes(n: number): number {
    return this.alloc(Math.ceil(n / 4));
  }
  read(off: number, n: number): Float32Array {
    return this.rt.f32(off, n).slice();
  }
  run(record: (b: ProgramBuilder) => void): void {
    const b = new ProgramBuilder();
    record(b);
    const p = b.finish(this.rt);
    try {
      this.rt.run(p);
    } finally {
      this.rt.release(p.ptr, p.count * 64);
    }
  }
  free(): void {
    for (const [off, bytes] of this.allocs.reverse()) this.rt.release(off, bytes);
    this.allocs = [];
  }
}

const align64 = (n: number) => Math.ceil(n / 64) * 64;

function kernelChecks(rt: CpuRuntime): CpuCheck[] {
  const checks: CpuCheck[] = [];
  const withScratch = (f: (m: Scratch, rng: Rng) => number) => (rng: Rng) => {
    const m = new Scratch(rt);
    try {
      return f(m, rng);
    } finally {
      m.free();
    }
  };
  const [M, N, K] = [37, 29, 19];
  checks.push({
    name: 'matmul A·B + bias + residual (projection epilogue)',
    run: withScratch((m, rng) => {
      const [A, B, bias, resid] = [randn(rng, M * K), randn(rng, K * N), randn(rng, N), randn(rng, M * N)];
      const out = m.poison(M * N);
      m.run((p) => p.matmulNN({ a: m.f32(A), b: m.f32(B), out, bias: m.f32(bias), resid: m.f32(resid), M, N, K, rowUnit: 1 }));
      const mag = ref.gemm(abs(A), abs(B), M, N, K, false, false).map((x, i) => x + Math.abs(resid[i]) + Math.abs(bias[i % N]));
      return sumRelErr(m.read(out, M * N), ref.gemm(A, B, M, N, K, false, false).map((x, i) => x + resid[i] + bias[i % N]), mag);
    }),
  });
  checks.push({
    name: 'matmul A·B with GELU epilogue (fc)',
    run: withScratch((m, rng) => {
      const [A, B] = [randn(rng, M * K), randn(rng, K * N)];
      const pre = m.poison(M * N);
      const act = m.poison(M * N);
      m.run((p) => p.matmulNN({ a: m.f32(A), b: m.f32(B), out: pre, aux: act, gelu: 'fwd', M, N, K, rowUnit: 1 }));
      const prod = ref.gemm(A, B, M, N, K, false, false);
      return worst(sumRelErr(m.read(pre, M * N), prod, ref.gemm(abs(A), abs(B), M, N, K, false, false)), relErr(m.read(act, M * N), ref.geluForward(prod)));
    }),
  });
  checks.push({
    name: 'matmul A·Bᵀ (transpose, then A·B; accumulate)',
    run: withScratch((m, rng) => {
      const [A, B, init] = [randn(rng, M * K), randn(rng, N * K), randn(rng, M * N)];
      const bRaw = m.f32(B);
      const bT = m.poison(K * N);
      const out = m.f32(init);
      m.run((p) => p.transpose(bRaw, bT, N, K).barrier().matmulNN({ a: m.f32(A), b: bT, out, M, N, K, accumulate: true, rowUnit: 1 }));
      const mag = ref.gemm(abs(A), abs(B), M, N, K, false, true).map((x, i) => x + Math.abs(init[i]));
      return sumRelErr(m.read(out, M * N), ref.gemm(A, B, M, N, K, false, true).map((x, i) => x + init[i]), mag);
    }),
  });
  checks.push({
    name: 'matmul Aᵀ·B (weight gradients; accumulate)',
    run: withScratch((m, rng) => {
      const [A, B, init] = [randn(rng, K * M), randn(rng, K * N), randn(rng, M * N)];
      const out = m.f32(init);
      m.run((p) => p.matmulTN({ a: m.f32(A), b: m.f32(B), out, M, N, K, accumulate: true }));
      const mag = ref.gemm(abs(A), abs(B), M, N, K, true, false).map((x, i) => x + Math.abs(init[i]));
      return sumRelErr(m.read(out, M * N), ref.gemm(A, B, M, N, K, true, false).map((x, i) => x + init[i]), mag);
    }),
  });
  checks.push({
    name: 'bias gradient (column sums)',
    run: withScratch((m, rng) => {
      const [rows, C] = [131, 23];
      const [dy, init] = [randn(rng, rows * C), randn(rng, C)];
      const db = m.f32(init);
      m.run((p) => p.biasGrad(m.f32(dy), db, rows, C));
      const { db: want } = ref.linearBackward(dy, new Float64Array(rows), new Float64Array(C), rows, 1, C);
      return relErr(m.read(db, C), want.map((x, i) => x + init[i]));
    }),
  });
  checks.push({
    name: 'embedding forward + backward (accumulate)',
    run: withScratch((m, rng) => {
      const [B, T, C, V] = [3, 7, 13, 11];
      const [wte, wpe] = [randn(rng, V * C), randn(rng, T * C)];
      const tokens = Uint32Array.from({ length: B * T }, () => rng.int(0, V - 1));
      const tok = m.u32(tokens);
      const out = m.poison(B * T * C);
      m.run((p) => p.encoderForward(tok, m.f32(wte), m.f32(wpe), out, B * T, T, C));
      const [dx, i1, i2] = [randn(rng, B * T * C), randn(rng, V * C), randn(rng, T * C)];
      const [dwte, dwpe] = [m.f32(i1), m.f32(i2)];
      m.run((p) => p.encoderBackward(m.f32(dx), tok, dwte, dwpe, B * T, T, C));
      const g = ref.encoderBackward(dx, tokens, B, T, C, V);
      return worst(
        relErr(m.read(out, B * T * C), ref.encoderForward(tokens, wte, wpe, B, T, C)),
        relErr(m.read(dwte, V * C), g.dwte.map((x, i) => x + i1[i])),
        relErr(m.read(dwpe, T * C), g.dwpe.map((x, i) => x + i2[i])),
      );
    }),
  });
  for (const kind of ['rmsnorm', 'layernorm'] as const) {
    checks.push({
      name: `${kind} forward + backward`,
      run: withScratch((m, rng) => {
        const [rows, C] = [37, 19];
        const ln = kind === 'layernorm';
        const x = randn(rng, rows * C, 2).map((v) => Math.fround(v + 0.5));
        const w = randn(rng, C).map((v) => Math.fround(1 + 0.3 * v));
        const bias = randn(rng, C);
        const [out, mean, rstd] = [m.poison(rows * C), m.poison(rows), m.poison(rows)];
        const [px, pw] = [m.f32(x), m.f32(w)];
        m.run((p) => p.normForward({ kind, inp: px, weight: pw, bias: ln ? m.f32(bias) : undefined, out, mean: ln ? mean : undefined, rstd, rows, C }));
        const f = ln ? ref.layernormForward(x, w, bias, rows, C) : { ...ref.rmsnormForward(x, w, rows, C), mean: new Float64Array(rows) };
        const dout = randn(rng, rows * C);
        const g = ln ? ref.layernormBackward(dout, x, w, f.mean, f.rstd, rows, C) : { ...ref.rmsnormBackward(dout, x, w, f.rstd, rows, C), db: new Float64Array(C) };
        const [dinp, dw, db, pd] = [m.poison(rows * C), m.f32(new Float64Array(C)), m.f32(new Float64Array(C)), m.f32(dout)];
        m.run((p) => {
          p.normBackwardDx({ kind, dout: pd, inp: px, weight: pw, mean: ln ? mean : undefined, rstd, dinp, rows, C, accumulate: false });
          p.normBackwardDw({ kind, dout: pd, inp: px, mean: ln ? mean : undefined, rstd, dweight: dw, dbias: ln ? db : undefined, rows, C });
        });
        return worst(
          relErr(m.read(out, rows * C), f.out),
          relErr(m.read(rstd, rows), f.rstd),
          ln ? relErr(m.read(mean, rows), f.mean) : 0,
          relErr(m.read(dinp, rows * C), g.dx),
          relErr(m.read(dw, C), g.dw),
          ln ? relErr(m.read(db, C), g.db) : 0,
        );
      }),
    });
  }
  checks.push({
    name: 'gelu forward + backward',
    run: withScratch((m, rng) => {
      const n = 1003;
      const [x, dy] = [randn(rng, n, 2), randn(rng, n)];
      const px = m.f32(x);
      const [y, dx] = [m.poison(n), m.poison(n)];
      m.run((p) => p.geluForward(px, y, n).geluBackward(px, m.f32(dy), dx, n));
      return worst(relErr(m.read(y, n), ref.geluForward(x)), relErr(m.read(dx, n), ref.geluBackward(x, dy)));
    }),
  });
  checks.push({
    name: 'attention forward + backward (causal, B=2 T=17 C=12 H=3)',
    run: withScratch((m, rng) => {
      const [B, T, C, H] = [2, 17, 12, 3];
      const qkv = randn(rng, B * T * 3 * C, 2);
      const stride = align64(attentionScratchBytes(T, C / H));
      const scratch = m.bytes(stride * rt.threads);
      const pq = m.f32(qkv);
      const [out, att, dqkv] = [m.poison(B * T * C), m.poison(B * H * T * T), m.poison(B * T * 3 * C)];
      const dout = randn(rng, B * T * C);
      m.run((p) => p.attentionForward({ qkv: pq, out, att, scratch, scratchStride: stride, B, T, C, H }));
      m.run((p) => p.attentionBackward({ dout: m.f32(dout), qkv: pq, att, dqkv, scratch, scratchStride: stride, B, T, C, H }));
      const f = ref.attentionForward(qkv, B, T, C, H);
      return worst(relErr(m.read(out, B * T * C), f.out), relErr(m.read(att, B * H * T * T), f.att), relErr(m.read(dqkv, B * T * 3 * C), ref.attentionBackward(dout, qkv, f.att, B, T, C, H)));
    }),
  });
  checks.push({
    name: 'log-softmax + entropy at τ = 0.7, forward + backward (V = 19)',
    run: withScratch((m, rng) => {
      const [rows, V, tau] = [37, 19, Math.fround(0.7)];
      const logits = randn(rng, rows * V, 2);
      const targets = Array.from({ length: rows }, () => rng.int(0, V - 1));
      const stride = align64(V * 4);
      const [temp, scratch, pl, pt] = [m.f32([tau]), m.bytes(stride * rt.threads), m.f32(logits), m.u32(targets)];
      const [logp, ent, lse, dl] = [m.poison(rows), m.poison(rows), m.poison(rows), m.poison(rows * V)];
      const [dlogp, dent] = [randn(rng, rows), randn(rng, rows)];
      m.run((p) => p.logSoftmaxForward({ logits: pl, targets: pt, logp, entropy: ent, lse, V, temperaturePtr: temp, scratch, scratchStride: stride, rows }));
      m.run((p) => p.logSoftmaxBackward({ logits: pl, targets: pt, lse, entropy: ent, dlogp: m.f32(dlogp), dent: m.f32(dent), dlogits: dl, V, temperaturePtr: temp, rows }));
      const f = ref.logSoftmaxEntropyForward(logits, targets, rows, V, tau);
      return worst(relErr(m.read(logp, rows), f.logp), relErr(m.read(ent, rows), f.entropy), relErr(m.read(dl, rows * V), ref.logSoftmaxEntropyBackward(dlogp, dent, logits, targets, rows, V, tau)));
    }),
  });
  checks.push({
    name: 'GRPO token loss (dual clip, k3 KL, entropy bonus)',
    run: withScratch((m, rng) => {
      const n = 203;
      const opts = { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.01, klCoef: 0.1, klType: 'k3' as const };
      const logp = randn(rng, n).map((x) => Math.fround(-Math.abs(x) - 0.1));
      const oldLogp = logp.map((x) => Math.fround(x + 0.4 * rng.normal()));
      const refLogp = logp.map((x) => Math.fround(x + 0.5 * rng.normal()));
      const adv = randn(rng, n);
      const mask = Float64Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0 : 1));
      const weights = mask.map((x) => Math.fround((x * (0.5 + rng.next())) / n));
      const entropy = randn(rng, n).map(Math.abs);
      const o = m.bytes(32);
      writeGrpoOptions(rt, o, opts);
      const [dlogp, dent, stats] = [m.poison(n), m.poison(n), m.poison(8)];
      m.run((p) => p.grpoLoss({ logp: m.f32(logp), oldLogp: m.f32(oldLogp), refLogp: m.f32(refLogp), advantages: m.f32(adv), weights: m.f32(weights), mask: m.f32(mask), entropy: m.f32(entropy), dlogp, dent, stats, opts: o, N: n }));
      const r = ref.grpoTokenLoss({ logp, oldLogp, refLogp, advantages: adv, weights, mask, entropy }, opts);
      const s = m.read(stats, 8);
      return worst(
        relErr(m.read(dlogp, n), r.dlogp),
        relErr(m.read(dent, n), r.dent),
        relErr([s[0], s[1], s[2], s[3]], [r.loss, r.pgLoss, r.klSum, r.entSum]),
        Math.abs(s[4] / s[7] - r.clipfrac) + Math.abs(s[5] / s[7] - r.clipfracLower),
      );
    }),
  });
  checks.push({
    name: 'grad norm + clipped AdamW (3 steps, n = 5003, then a NaN-loss step that must write nothing)',
    run: withScratch((m, rng) => {
      const [n, decayEnd] = [5003, 2048];
      const opts = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 10 };
      const p0 = randn(rng, n);
      const [params, mm, vv] = [p0.slice(), new Float64Array(n), new Float64Array(n)];
      const [pp, pm, pv, pg] = [m.f32(p0), m.f32(new Float64Array(n)), m.f32(new Float64Array(n)), m.poison(n)];
      const [partials, norm, hyper, loss] = [m.bytes(normPartialBytes(n)), m.poison(4), m.bytes(48), m.f32([0.5])];
      let normErr = 0;
      for (let step = 1; step <= 3; step++) {
        const g = randn(rng, n, 0.3 * step);
        rt.f32(pg, n).set(Float32Array.from(g));
        writeAdamW(rt, hyper, step, opts);
        m.run((p) => p.gradNorm(pg, n, partials, norm).barrier().adamw({ params: pp, grads: pg, m: pm, v: pv, hyper, norm, loss, decayEnd, n }));
        const c = ref.clipGradNorm(g, opts.maxGradNorm);
        normErr = Math.max(normErr, Math.abs(m.read(norm, 1)[0] - c.norm) / c.norm);
        ref.adamwStep(params, g, mm, vv, { ...opts, step, gradScale: c.scale, decayEnd });
      }
      // A rejected step (non-finite loss): params, m and v must keep their bits.
      const before = [m.read(pp, n), m.read(pm, n), m.read(pv, n)];
      rt.f32(loss, 1)[0] = NaN;
      writeAdamW(rt, hyper, 4, opts);
      m.run((p) => p.gradNorm(pg, n, partials, norm).barrier().adamw({ params: pp, grads: pg, m: pm, v: pv, hyper, norm, loss, decayEnd, n }));
      const after = [m.read(pp, n), m.read(pm, n), m.read(pv, n)];
      const touched = before.some((b, k) => b.some((x, i) => !Object.is(x, after[k][i]))) ? Infinity : 0;
      return worst(normErr, touched, relErr(m.read(pp, n), params), relErr(m.read(pm, n), mm), relErr(m.read(pv, n), vv));
    }),
  });
  checks.push({
    name: 'sampling vs reference step: tokens (share differing), logp, entropy',
    run: withScratch((m, rng) => {
      const [B, V, stride, ctx] = [13, 23, 12, 11];
      const opts = { temperature: 0.7, topP: 0.9, seed: rng.nextU32(), maxResponseLength: 5, eosId: 2, padId: 0 };
      const tokens = new Uint32Array(B * stride).fill(7);
      const seqs = new Uint32Array(B * 4);
      for (let b = 0; b < B; b++) {
        seqs[b * 4] = 1 + (b % 4);
        seqs[b * 4 + 3] = (5 * b + 3) % B; // row ids, permuted against the slots
      }
      const [refLogp, refEnt] = [new Float64Array(B * stride), new Float64Array(B * stride)];
      const [pTok, pSeq, sl, se] = [m.u32(tokens), m.u32(seqs), m.f32(new Float64Array(B * stride)), m.f32(new Float64Array(B * stride))];
      const o = m.bytes(32);
      writeSampler(rt, o, opts, V);
      const sstride = align64(samplerScratchBytes(V));
      const [scratch, posPtr] = [m.bytes(sstride * rt.threads), m.u32([0])];
      for (let pos = 0; pos < stride - 1; pos++) {
        const logits = randn(rng, B * V, 2);
        rt.u32(posPtr, 1)[0] = pos;
        const pl = m.f32(logits);
        m.run((p) => p.sample({ logits: pl, tokens: pTok, seqs: pSeq, sampleLogp: sl, sampleEntropy: se, opts: o, scratch, scratchStride: sstride, V, stride, contextLength: ctx, posPtr, B }));
        sampleStep({ logits, tokens, pos, seqs, sampleLogp: refLogp, sampleEntropy: refEnt, B, V, tokenStride: stride, contextLength: ctx, opts });
      }
      const got = rt.u32(pTok, B * stride);
      let differ = 0;
      for (let i = 0; i < B * stride; i++) if (got[i] !== tokens[i]) differ++;
      return worst(differ / (B * stride), maxRelError(m.read(sl, B * stride), refLogp, 1), maxRelError(m.read(se, B * stride), refEnt, 1));
    }),
  });
  return checks;
}

/** The whole CpuPolicy: logits, every parameter gradient, three AdamW steps (tolerance 1e-3: errors compound through layers in f32). */
function modelChecks(backend: WasmBackend, check: ModelCheck = MODEL_CHECK): CpuCheck[] {
  const { cfg, B, T, tau, lossOpts, adamwOpts } = check;
  const setup = (rng: Rng) => modelCheckSetup(rng, check);
  const open = async (p32: Float32Array) => {
    const pol = (await backend.createPolicy(cfg, 'gradcheck')) as CpuPolicy;
    pol.setParams(p32);
    pol.resetAdamState();
    return pol;
  };
  return [
    {
      name: 'whole policy: logits, logp, entropy and every parameter gradient',
      tol: 1e-3,
      run: async (rng) => {
        const s = setup(rng);
        const pol = await open(s.p32);
        try {
          await pol.update(s.batch, { kind: 'grpo', opts: lossOpts }, { step: 1, adamw: adamwOpts, update: false });
          const params = Float64Array.from(s.p32);
          const r = referencePolicyLoss(cfg, params, s.tokens, B, T, tau, s.inputs, lossOpts);
          const fwd = await pol.forward(s.batch.tokens, s.batch.targets, B, T, tau);
          const grads = pol.getGrads();
          let e = worst(relErr(pol.lastLogits(B, T), referenceForward(cfg, params, s.tokens, B, T).logits), relErr(fwd.logp, r.logp), relErr(fwd.entropy, r.entropy));
          for (const t of pol.layout.tensors) e = worst(e, relErr(grads.subarray(t.offset, t.offset + t.size), r.grads.subarray(t.offset, t.offset + t.size)));
          return e;
        } finally {
          pol.destroy();
        }
      },
    },
    {
      name: 'whole policy: 3 clipped AdamW steps (max |Δw| / lr)',
      tol: 1e-2,
      run: async (rng) => {
        const s = setup(rng);
        const pol = await open(s.p32);
        try {
          const p = Float64Array.from(s.p32);
          const [m, v] = [new Float64Array(p.length), new Float64Array(p.length)];
          for (let k = 1; k <= 3; k++) {
            await pol.update(s.batch, { kind: 'grpo', opts: lossOpts }, { step: k, adamw: adamwOpts });
            referenceTrainStep(cfg, p, m, v, s.tokens, B, T, tau, s.inputs, lossOpts, { ...adamwOpts, step: k });
          }
          const got = await pol.getParams();
          let e = 0;
          for (let i = 0; i < p.length; i++) e = Math.max(e, Math.abs(got[i] - p[i]) / adamwOpts.lr);
          return e;
        } finally {
          pol.destroy();
        }
      },
    },
  ];
}

/** Each ladder rung's twin (src/cli/gradcheck-model.ts): the whole policy's gradients at the rung's head size and lengths. */
export function rungTwinChecks(backend: WasmBackend): CpuCheck[] {
  return RUNG_TWINS.map(({ rung, check }) => ({ ...modelChecks(backend, check)[0], name: `${rung} rung twin (hs ${check.cfg.dModel / check.cfg.nHeads}, ${check.B}×${check.T}): every gradient` }));
}

/** Every CPU-engine check, on the backend's runtime (its thread count is the one checked). */
export function cpuChecks(backend: WasmBackend): CpuCheck[] {
  return [...kernelChecks(backend.rt), ...modelChecks(backend), ...rungTwinChecks(backend)];
}
