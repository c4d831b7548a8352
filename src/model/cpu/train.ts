/**
 * The CPU policy's training programs, recorded once per shape (like the WebGPU dispatch plans of
 * src/model/policy.ts + step.ts):
 *
 *   update:  prepare Wᵀ → zero grads → forward at τ → loss (on-policy: oldLogp := this logp)
 *            → backward → grad norm → clipped AdamW (unless update: false; skipped, writing
 *            nothing, when the loss or the grad norm is not finite); a micro-batch of a gradient
 *            accumulation leaves out the zeroing, or the norm and AdamW
 *   forward: prepare Wᵀ → forward; logp and entropy of every target
 *
 * Forward products read Wᵀ [in, out] (row-major B for every matmul); input gradients use W itself
 * and weight gradients the Aᵀ·B kernel.
 *
 * Packed rows (plan.segments): every token-wise command runs over the Σ segments tokens as one
 * block; the embedding is emitted per row (positions restart at each row; no barrier between rows,
 * each writes its own rows, and its backward splits channels the same way for every row) and
 * attention, causal within a row, takes the rows' table (plan.rowTable) and splits rows × heads.
 * The tokens keep their order, so every gradient sum over tokens is the padded batch's minus its
 * zero terms.
 */
import { ProgramBuilder } from '../../cpu/program';
import type { Program } from '../../cpu/runtime';
import { headName, layerNames } from '../config';
import type { UpdateLoss } from '../engine';
import { STATS } from '../step';
import { F32, type CpuPolicyMemory, type TrainPlan } from './memory';

/** Wᵀ of every forward weight from the current parameters. */
export function emitPrepare(b: ProgramBuilder, m: CpuPolicyMemory): void {
  for (const [w, inF, outF] of m.forwardWeights()) b.transpose(m.p(w), m.t(w), outF, inF);
  b.barrier();
}

/** Tokens a plan trains on: B·T, or Σ segments when its rows are packed. */
export function planTokens(s: TrainPlan): number {
  return s.segments ? s.segments.reduce((a, x) => a + x, 0) : s.B * s.T;
}

/** The plan's rows for the embedding (positions restart per row): { first token, tokens } each when packed, else all B·T at once. */
function embeddingRows(s: TrainPlan): { at: number; n: number; T: number }[] {
  if (!s.segments) return [{ at: 0, n: s.B * s.T, T: s.T }];
  const out = [];
  let at = 0;
  for (const len of s.segments) {
    out.push({ at, n: len, T: len });
    at += len;
  }
  return out;
}

/** Packed rows' attention table (TrainPlan.rowTable): i32 [first token, tokens, first attention float] per row. */
export function rowTable(segments: readonly number[], H: number): Int32Array {
  const out = new Int32Array(segments.length * 3);
  let at = 0;
  let att = 0;
  segments.forEach((len, r) => {
    out.set([at, len, att], r * 3);
    at += len;
    att += H * len * len;
  });
  return out;
}

/** Records the forward: tokens → logits → logp, entropy (at the temperature in memory). */
export function emitForward(b: ProgramBuilder, m: CpuPolicyMemory, s: TrainPlan): void {
  const { cfg } = m;
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const H = cfg.nHeads;
  const V = cfg.vocabSize;
  const N = planTokens(s);
  const kind = cfg.norm;
  const ln = kind === 'layernorm';
  const scr = { scratch: m.scratch, scratchStride: m.scratchStride };
  const rows = embeddingRows(s);
  for (const u of rows) b.encoderForward(s.tokens + u.at * F32, m.p('wte'), m.p('wpe'), s.encoded + u.at * C * F32, u.n, u.T, C);
  b.barrier();
  let x = s.encoded;
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = layerNames(l);
    const y = s.layers[l];
    b.normForward({ kind, inp: x, weight: m.p(n.ln1w), bias: ln ? m.p(n.ln1b) : undefined, out: y.ln1, mean: ln ? y.ln1Mean : undefined, rstd: y.ln1Rstd, rows: N, C }).barrier();
    b.matmulNN({ a: y.ln1, b: m.t(n.qkvw), out: y.qkv, bias: m.p(n.qkvb), M: N, N: 3 * C, K: C }).barrier();
    if (s.segments) b.attentionForwardRows({ qkv: y.qkv, out: y.atty, att: y.att, ...scr, table: s.rowTable!, rows: s.segments.length, C, H });
    else b.attentionForward({ qkv: y.qkv, out: y.atty, att: y.att, ...scr, B: s.B, T: s.T, C, H });
    b.barrier();
    b.matmulNN({ a: y.atty, b: m.t(n.projw), out: y.res2, bias: m.p(n.projb), resid: x, M: N, N: C, K: C }).barrier();
    b.normForward({ kind, inp: y.res2, weight: m.p(n.ln2w), bias: ln ? m.p(n.ln2b) : undefined, out: y.ln2, mean: ln ? y.ln2Mean : undefined, rstd: y.ln2Rstd, rows: N, C }).barrier();
    b.matmulNN({ a: y.ln2, b: m.t(n.fcw), out: y.fchSlope, bias: m.p(n.fcb), aux: y.fchGelu, gelu: 'fwd-grad', M: N, N: F, K: C }).barrier();
    b.matmulNN({ a: y.fchGelu, b: m.t(n.fcprojw), out: y.res3, bias: m.p(n.fcprojb), resid: y.res2, M: N, N: C, K: F }).barrier();
    x = y.res3;
  }
  b.normForward({ kind, inp: x, weight: m.p('lnf.w'), bias: ln ? m.p('lnf.b') : undefined, out: s.lnf, mean: ln ? s.lnfMean : undefined, rstd: s.lnfRstd, rows: N, C }).barrier();
  b.matmulNN({ a: s.lnf, b: m.t(headName(cfg)), out: s.logits, M: N, N: V, K: C }).barrier();
  b.logSoftmaxForward({ logits: s.logits, targets: s.targets, logp: s.logp, entropy: s.entropy, lse: s.lse, V, temperaturePtr: m.temperature, ...scr, rows: N }).barrier();
}

/** Records the backward from dlogp/dent: parameter gradients accumulate into grads. */
export function emitBackward(b: ProgramBuilder, m: CpuPolicyMemory, s: TrainPlan): void {
  const { cfg } = m;
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const H = cfg.nHeads;
  const V = cfg.vocabSize;
  const N = planTokens(s);
  const kind = cfg.norm;
  const ln = kind === 'layernorm';
  const head = headName(cfg);
  const L = cfg.nLayers;
  /** dx = dy·W (· slope, the saved GELU derivative), dW += dyᵀ·x, db += Σ dy: one phase (they only read dy). */
  const linearBack = (dy: number, x: number, w: string, bias: string | null, dx: number, inF: number, outF: number, slope?: number) => {
    b.matmulNN({ a: dy, b: m.p(w), out: dx, M: N, N: inF, K: outF, ...(slope ? { gelu: 'mul' as const, aux: slope } : {}) });
    b.matmulTN({ a: dy, b: x, out: m.g(w), M: outF, N: inF, K: N, accumulate: true });
    if (bias) b.biasGrad(dy, m.g(bias), N, outF);
    b.barrier();
  };
  const normBack = (dout: number, inp: number, w: string, bias: string, mean: number, rstd: number, accumulate: boolean) => {
    b.normBackwardDx({ kind, dout, inp, weight: m.p(w), mean: ln ? mean : undefined, rstd, dinp: s.dres, rows: N, C, accumulate });
    b.normBackwardDw({ kind, dout, inp, mean: ln ? mean : undefined, rstd, dweight: m.g(w), dbias: ln ? m.g(bias) : undefined, rows: N, C });
    b.barrier();
  };
  b.logSoftmaxBackward({ logits: s.logits, targets: s.targets, lse: s.lse, entropy: s.entropy, dlogp: s.dlogp, dent: s.dent, dlogits: s.dlogits, V, temperaturePtr: m.temperature, rows: N }).barrier();
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
    const scr = { scratch: m.scratch, scratchStride: m.scratchStride };
    if (s.segments) b.attentionBackwardRows({ dout: s.datty, qkv: y.qkv, att: y.att, dqkv: s.dqkv, ...scr, table: s.rowTable!, rows: s.segments.length, C, H });
    else b.attentionBackward({ dout: s.datty, qkv: y.qkv, att: y.att, dqkv: s.dqkv, ...scr, B: s.B, T: s.T, C, H });
    b.barrier();
    linearBack(s.dqkv, y.ln1, n.qkvw, n.qkvb, s.dln, C, 3 * C);
    normBack(s.dln, xin, n.ln1w, n.ln1b, y.ln1Mean, y.ln1Rstd, true);
  }
  for (const u of embeddingRows(s)) b.encoderBackward(s.dres + u.at * C * F32, s.tokens + u.at * F32, m.g('wte'), m.g('wpe'), u.n, u.T, C);
  b.barrier();
}

/**
 * The update program of one shape and loss (cached in the plan by its variant). A micro-batch of a
 * gradient accumulation leaves out the zeroing (`zero` false: it adds to the grads) or the norm
 * and AdamW (`finish` false), or both.
 */
export function updateProgram(m: CpuPolicyMemory, s: TrainPlan, loss: UpdateLoss, useRef: boolean, onPolicy: boolean, update: boolean, acc: { zero: boolean; finish: boolean } = { zero: true, finish: true }): Program {
  const key = `${loss.kind}:${useRef}:${onPolicy}:${update}${acc.zero ? '' : ':add'}${acc.finish ? '' : ':open'}`;
  const cached = s.programs.get(key);
  if (cached) return cached;
  const n = m.layout.totalFloats;
  const N = planTokens(s);
  const b = new ProgramBuilder();
  emitPrepare(b, m);
  if (acc.zero) b.zero(m.grads, n).barrier();
  emitForward(b, m, s);
  if (loss.kind === 'grpo') {
    // On-policy: the old log-probs ARE this forward's (ρ ≡ 1 exactly).
    b.grpoLoss({ logp: s.logp, oldLogp: onPolicy ? s.logp : s.oldLogp, refLogp: useRef ? s.refLogp : 0, advantages: s.advantages, weights: s.weights, mask: s.mask, entropy: s.entropy, dlogp: s.dlogp, dent: s.dent, stats: m.stats, opts: m.grpoOpts, N });
  } else {
    b.crossEntropyLoss({ logp: s.logp, weights: s.weights, mask: s.mask, dlogp: s.dlogp, dent: s.dent, stats: m.stats, N });
  }
  b.barrier();
  emitBackward(b, m, s);
  if (acc.finish) b.gradNorm(m.grads, n, m.partials, m.norm).barrier();
  // AdamW reads the loss (stats word 0) and the norm itself and writes nothing for a non-finite step.
  if (update && acc.finish) b.adamw({ params: m.params, grads: m.grads, m: m.adamM, v: m.adamV, hyper: m.hyper, norm: m.norm, loss: m.stats + STATS.loss * F32, decayEnd: m.layout.decayEnd, n }).barrier();
  const p = m.own(b.finish(m.rt));
  s.programs.set(key, p);
  return p;
}

/** The forward-only program of one shape (cached in the plan). */
export function forwardProgram(m: CpuPolicyMemory, s: TrainPlan): Program {
  let p = s.programs.get('forward');
  if (!p) {
    const b = new ProgramBuilder();
    emitPrepare(b, m);
    emitForward(b, m, s);
    p = m.own(b.finish(m.rt));
    s.programs.set('forward', p);
  }
  return p;
}
