/**
 * Recording programs for the CPU engine's interpreter: one typed emitter per kernel (argument
 * order as in src/cpu/assembly/index.ts), barriers between dependent commands, and `finish` to
 * upload. Pointers are byte offsets into the runtime's memory (0 = none).
 */
import { COMMAND_WORDS, MM_ACCUMULATE, MM_GELU_BWD, MM_GELU_FWD, MM_GELU_SAVE_GRAD, MM_MUL_AUX, NORM_KIND, OP, type OpName } from './ops';
import type { CpuRuntime, Program } from './runtime';

export type NormKind = keyof typeof NORM_KIND;

export class ProgramBuilder {
  private words: number[] = [];

  /** Appends one command. */
  cmd(op: OpName, ...args: number[]): this {
    if (args.length > COMMAND_WORDS - 1) throw new Error(`program: ${op} has ${args.length} arguments (max ${COMMAND_WORDS - 1})`);
    for (const a of args) if (!Number.isInteger(a) || a < -(2 ** 31) || a >= 2 ** 32) throw new Error(`program: ${op} argument ${a} is not a 32-bit integer`);
    this.words.push(OP[op], ...args, ...new Array(COMMAND_WORDS - 1 - args.length).fill(0));
    return this;
  }

  barrier(): this {
    const n = this.words.length;
    if (n >= COMMAND_WORDS && this.words[n - COMMAND_WORDS] === OP.BARRIER) return this;
    return this.cmd('BARRIER');
  }

  get commands(): number {
    return this.words.length / COMMAND_WORDS;
  }

  /** Ends with a barrier (run() returns after every thread passed it) and uploads. */
  finish(rt: CpuRuntime): Program {
    this.barrier();
    return rt.upload(Int32Array.from(this.words, (w) => w | 0));
  }

  // ---- kernels ---------------------------------------------------------------------------

  /**
   * C[M×N] = A[M×K]·B[K×N] (+ epilogue): accumulate starts from C, else from bias; resid: C =
   * resid + acc; gelu 'fwd': C = pre-activation, aux = gelu; 'fwd-grad': C = gelu'(pre-activation),
   * aux = gelu; 'bwd': C = acc·gelu'(aux); 'mul': C = acc·aux (aux = a slope saved by 'fwd-grad').
   * rowUnit: rows per work unit (1 keeps a row split aligned with per-sequence commands).
   */
  matmulNN(a: { a: number; b: number; out: number; bias?: number; resid?: number; aux?: number; M: number; N: number; K: number; accumulate?: boolean; gelu?: 'fwd' | 'fwd-grad' | 'bwd' | 'mul'; rowUnit?: number }): this {
    const epilogue = { fwd: MM_GELU_FWD, 'fwd-grad': MM_GELU_FWD | MM_GELU_SAVE_GRAD, bwd: MM_GELU_BWD, mul: MM_MUL_AUX } as const;
    const flags = (a.accumulate ? MM_ACCUMULATE : 0) | (a.gelu ? epilogue[a.gelu] : 0);
    if (a.gelu && !a.aux) throw new Error('matmulNN: gelu needs aux');
    return this.cmd('MATMUL_NN', a.a, a.b, a.out, a.bias ?? 0, a.resid ?? 0, a.aux ?? 0, a.M, a.N, a.K, flags, a.rowUnit ?? 4);
  }

  /** C[M×N] (+)= Aᵀ·B with A stored [K×M], B [K×N]. */
  matmulTN(a: { a: number; b: number; out: number; M: number; N: number; K: number; accumulate?: boolean }): this {
    return this.cmd('MATMUL_TN', a.a, a.b, a.out, a.M, a.N, a.K, a.accumulate ? MM_ACCUMULATE : 0);
  }

  /** dst [C×R] = src [R×C]ᵀ. */
  transpose(src: number, dst: number, R: number, C: number): this {
    return this.cmd('TRANSPOSE', src, dst, R, C);
  }

  /** db[c] += Σ_rows dy[r, c]. */
  biasGrad(dy: number, db: number, rows: number, C: number): this {
    return this.cmd('BIAS_GRAD', dy, db, rows, C);
  }

  encoderForward(tokens: number, wte: number, wpe: number, out: number, rows: number, T: number, C: number): this {
    return this.cmd('ENC_FWD', tokens, wte, wpe, out, rows, T, C);
  }

  /** dwte[tok] += dout, dwpe[t] += dout. */
  encoderBackward(dout: number, tokens: number, dwte: number, dwpe: number, rows: number, T: number, C: number): this {
    return this.cmd('ENC_BWD', dout, tokens, dwte, dwpe, rows, T, C);
  }

  /** out[b] = wte[tokens[b·stride + pos]] + wpe[pos] (pos read from posPtr, a u32). */
  encoderDecode(tokens: number, wte: number, wpe: number, out: number, stride: number, posPtr: number, C: number, B: number): this {
    return this.cmd('ENC_DECODE', tokens, wte, wpe, out, stride, posPtr, C, B);
  }

  normForward(a: { kind: NormKind; inp: number; weight: number; bias?: number; out: number; mean?: number; rstd: number; rows: number; C: number }): this {
    if (a.kind === 'layernorm' && (!a.bias || !a.mean)) throw new Error('normForward: layernorm needs bias and mean');
    return this.cmd('NORM_FWD', NORM_KIND[a.kind], a.inp, a.weight, a.bias ?? 0, a.out, a.mean ?? 0, a.rstd, a.rows, a.C);
  }

  normBackwardDx(a: { kind: NormKind; dout: number; inp: number; weight: number; mean?: number; rstd: number; dinp: number; rows: number; C: number; accumulate: boolean }): this {
    return this.cmd('NORM_BWD_DX', NORM_KIND[a.kind], a.dout, a.inp, a.weight, a.mean ?? 0, a.rstd, a.dinp, a.rows, a.C, a.accumulate ? 1 : 0);
  }

  /** dweight (and dbias, layernorm) += column sums. */
  normBackwardDw(a: { kind: NormKind; dout: number; inp: number; mean?: number; rstd: number; dweight: number; dbias?: number; rows: number; C: number }): this {
    return this.cmd('NORM_BWD_DW', NORM_KIND[a.kind], a.dout, a.inp, a.mean ?? 0, a.rstd, a.dweight, a.dbias ?? 0, a.rows, a.C);
  }

  geluForward(inp: number, out: number, n: number): this {
    return this.cmd('GELU_FWD', inp, out, n);
  }
  geluBackward(inp: number, dout: number, dinp: number, n: number): this {
    return this.cmd('GELU_BWD', inp, dout, dinp, n);
  }
  add(a: number, b: number, out: number, n: number): this {
    return this.cmd('ADD', a, b, out, n);
  }
  copy(src: number, dst: number, n: number): this {
    return this.cmd('COPY', src, dst, n);
  }
  zero(dst: number, n: number): this {
    return this.cmd('ZERO', dst, n);
  }

  /** scratch: per-thread blocks of scratchStride bytes, each ≥ attentionScratchBytes(T, hs, false). */
  attentionForward(a: { qkv: number; out: number; att: number; scratch: number; scratchStride: number; B: number; T: number; C: number; H: number }): this {
    return this.cmd('ATTN_FWD', a.qkv, a.out, a.att, a.scratch, a.scratchStride, a.B, a.T, a.C, a.H);
  }
  attentionBackward(a: { dout: number; qkv: number; att: number; dqkv: number; scratch: number; scratchStride: number; B: number; T: number; C: number; H: number }): this {
    return this.cmd('ATTN_BWD', a.dout, a.qkv, a.att, a.dqkv, a.scratch, a.scratchStride, a.B, a.T, a.C, a.H);
  }
  /** Packed rows: `table` holds i32 [first token, tokens, first attention float] per row; rows·H work units. */
  attentionForwardRows(a: { qkv: number; out: number; att: number; scratch: number; scratchStride: number; table: number; rows: number; C: number; H: number }): this {
    return this.cmd('ATTN_FWD_ROWS', a.qkv, a.out, a.att, a.scratch, a.scratchStride, a.table, a.rows, a.C, a.H);
  }
  attentionBackwardRows(a: { dout: number; qkv: number; att: number; dqkv: number; scratch: number; scratchStride: number; table: number; rows: number; C: number; H: number }): this {
    return this.cmd('ATTN_BWD_ROWS', a.dout, a.qkv, a.att, a.dqkv, a.scratch, a.scratchStride, a.table, a.rows, a.C, a.H);
  }
  /** kcache is [B × C × Tmax] (each sequence's keys transposed), vcache [B × Tmax × C]. */
  attentionDecode(a: { qkv: number; kcache: number; vcache: number; out: number; scratch: number; scratchStride: number; Tmax: number; C: number; H: number; posPtr: number; B: number }): this {
    return this.cmd('ATTN_DECODE', a.qkv, a.kcache, a.vcache, a.out, a.scratch, a.scratchStride, a.Tmax, a.C, a.H, a.posPtr, a.B);
  }

  /** temperaturePtr: an f32 in memory (changed between runs without re-recording). */
  logSoftmaxForward(a: { logits: number; targets: number; logp: number; entropy: number; lse: number; V: number; temperaturePtr: number; scratch: number; scratchStride: number; rows: number }): this {
    return this.cmd('LSM_FWD', a.logits, a.targets, a.logp, a.entropy, a.lse, a.V, a.temperaturePtr, a.scratch, a.scratchStride, a.rows);
  }
  logSoftmaxBackward(a: { logits: number; targets: number; lse: number; entropy: number; dlogp: number; dent: number; dlogits: number; V: number; temperaturePtr: number; rows: number }): this {
    return this.cmd('LSM_BWD', a.logits, a.targets, a.lse, a.entropy, a.dlogp, a.dent, a.dlogits, a.V, a.temperaturePtr, a.rows);
  }

  /** opts: 8 f32 words (grpoOptionWords); refLogp 0 = no KL term; stats: 8 f32. */
  grpoLoss(a: { logp: number; oldLogp: number; refLogp: number; advantages: number; weights: number; mask: number; entropy: number; dlogp: number; dent: number; stats: number; opts: number; N: number }): this {
    return this.cmd('GRPO', a.logp, a.oldLogp, a.refLogp, a.advantages, a.weights, a.mask, a.entropy, a.dlogp, a.dent, a.stats, a.opts, a.N);
  }
  crossEntropyLoss(a: { logp: number; weights: number; mask: number; dlogp: number; dent: number; stats: number; N: number }): this {
    return this.cmd('CE', a.logp, a.weights, a.mask, a.dlogp, a.dent, a.stats, a.N);
  }

  /** norm[0] = ‖grads‖₂ (partials: normPartialBytes(n)); the two passes with a barrier between. */
  gradNorm(grads: number, n: number, partials: number, norm: number): this {
    this.cmd('NORM_PARTIALS', grads, n, partials).barrier();
    return this.cmd('NORM_FINISH', partials, Math.ceil(n / 8192), norm);
  }

  /** hyper: 11 f32 words (adamwWords); loss: f32, the step's loss. Writes nothing when norm[0] or loss[0] is not finite (a rejected step). */
  adamw(a: { params: number; grads: number; m: number; v: number; hyper: number; norm: number; loss: number; decayEnd: number; n: number }): this {
    return this.cmd('ADAMW', a.params, a.grads, a.m, a.v, a.hyper, a.norm, a.decayEnd, a.n, a.loss);
  }

  /** opts: samplerOptionBytes (f64 τ, f64 top-p, u32 seed, maxResponseLength, eosId, padId). */
  sample(a: { logits: number; tokens: number; seqs: number; sampleLogp: number; sampleEntropy: number; opts: number; scratch: number; scratchStride: number; V: number; stride: number; contextLength: number; posPtr: number; B: number }): this {
    return this.cmd('SAMPLE', a.logits, a.tokens, a.seqs, a.sampleLogp, a.sampleEntropy, a.opts, a.scratch, a.scratchStride, a.V, a.stride, a.contextLength, a.posPtr, a.B);
  }

  /** The roofline's compute ceiling: threads below `active` each run `iters` steps of PEAK_ACCS chains acc = acc·m + a, writing them at out + tid·PEAK_ACCS·16. */
  peak(a: { out: number; iters: number; active: number; m: number; add: number; start: number }): this {
    return this.cmd('PEAK', a.out, a.iters, a.active, f32Bits(a.m), f32Bits(a.add), f32Bits(a.start));
  }

  /** The roofline's bandwidth ceiling: a[i] = b[i] + s·c[i] for i < n (STREAM triad). */
  triad(a: { a: number; b: number; c: number; s: number; n: number }): this {
    return this.cmd('TRIAD', a.a, a.b, a.c, f32Bits(a.s), a.n);
  }
}

/** An f32's bits as an i32 command word. */
function f32Bits(x: number): number {
  return new Int32Array(Float32Array.of(x).buffer)[0];
}

/** Per-thread scratch bytes of the attention kernels. */
export function attentionScratchBytes(T: number, hs: number): number {
  return (hs * T + T * T) * 4;
}
/** Per-thread scratch bytes of the sampler (f64 probabilities, u32 order, u8 flags). */
export function samplerScratchBytes(V: number): number {
  return V * 8 + V * 4 + V + 8;
}
/** Bytes of the gradient norm's f64 partials. */
export function normPartialBytes(n: number): number {
  return Math.ceil(n / 8192) * 8;
}
