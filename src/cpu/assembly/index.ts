// The CPU engine's WebAssembly module: the kernels (one family per file, mirroring shaders/),
// and a tiny interpreter that runs a recorded program of kernel commands on every thread of
// the pool at once, each thread taking its fixed share of each command's work units, with
// barriers between dependent commands. Programs are recorded once per shape by
// src/cpu/program.ts (like the GPU's dispatch plans) and replayed.
//
// A command is 16 i32 words: opcode, then up to 15 arguments (byte offsets, sizes, flags).
import { splitLo } from './common';
import { matmulNN, matmulTN, transpose, biasGrad } from './matmul';
import { encoderForward, encoderBackward, encoderDecode } from './embedding';
import { normForward, normBackwardDx, normBackwardDw } from './norm';
import { geluForward, geluBackward, add, copy } from './elementwise';
import { attentionForward, attentionBackward, attentionDecode, attentionForwardRows, attentionBackwardRows } from './attention';
import { lsmForward, lsmBackward, grpoLoss, ceLoss } from './loss';
import { gradNormPartials, gradNormFinish, adamw, NORM_CHUNK } from './optimizer';
import { sampleStep, uniformAt } from './sampling';
import { peakMulAdd, triad, PEAK_ACCS } from './roofline';

export { uniformAt, NORM_CHUNK, PEAK_ACCS };

export const OP_BARRIER: i32 = 1;
export const OP_MATMUL_NN: i32 = 2;
export const OP_MATMUL_TN: i32 = 3;
export const OP_TRANSPOSE: i32 = 4;
export const OP_BIAS_GRAD: i32 = 5;
export const OP_ENC_FWD: i32 = 6;
export const OP_ENC_BWD: i32 = 7;
export const OP_ENC_DECODE: i32 = 8;
export const OP_NORM_FWD: i32 = 9;
export const OP_NORM_BWD_DX: i32 = 10;
export const OP_NORM_BWD_DW: i32 = 11;
export const OP_GELU_FWD: i32 = 12;
export const OP_GELU_BWD: i32 = 13;
export const OP_ADD: i32 = 14;
export const OP_COPY: i32 = 15;
export const OP_ATTN_FWD: i32 = 16;
export const OP_ATTN_BWD: i32 = 17;
export const OP_ATTN_DECODE: i32 = 18;
export const OP_LSM_FWD: i32 = 19;
export const OP_LSM_BWD: i32 = 20;
export const OP_GRPO: i32 = 21;
export const OP_CE: i32 = 22;
export const OP_NORM_PARTIALS: i32 = 23;
export const OP_NORM_FINISH: i32 = 24;
export const OP_ADAMW: i32 = 25;
export const OP_SAMPLE: i32 = 26;
export const OP_ZERO: i32 = 27;
export const OP_PEAK: i32 = 28;
export const OP_TRIAD: i32 = 29;
export const OP_ATTN_FWD_ROWS: i32 = 30;
export const OP_ATTN_BWD_ROWS: i32 = 31;

/** Elementwise work is split in blocks of this many floats. */
const ELEM_UNIT: i32 = 256;

// This thread's share [lo, hi) of the current command (globals are per instance, i.e. per thread).
let lo: i32 = 0;
let hi: i32 = 0;

/** Splits n items in units of `unit` (the last unit may be short) over nt threads. */
@inline function split(n: i32, unit: i32, tid: i32, nt: i32): void {
  const units = (n + unit - 1) / unit;
  lo = min(splitLo(units, tid, nt) * unit, n);
  hi = min(splitLo(units, tid + 1, nt) * unit, n);
}

@inline function arg(cmd: usize, k: i32): i32 {
  return load<i32>(cmd + (<usize>k << 2));
}

@inline function ptr(cmd: usize, k: i32): usize {
  return <usize>load<u32>(cmd + (<usize>k << 2));
}

// Thread control block (i32 words): 0 barrier count, 1 barrier generation, 2 job generation,
// 3 program, 4 command count, 5 threads, 6 quit, 7 failed (a thread trapped: barriers give up, so
// the others return instead of waiting forever; src/cpu/runtime.ts then reports the failure).
const SPIN_BARRIER: i32 = 1 << 12;
const SPIN_IDLE: i32 = 1 << 12;

function barrier(ctl: usize, nt: i32, canWait: bool): void {
  if (ASC_FEATURE_THREADS) {
    if (nt <= 1) return;
    const gen = atomic.load<i32>(ctl, 4);
    if (atomic.add<i32>(ctl, 1) == nt - 1) {
      atomic.store<i32>(ctl, 0);
      atomic.add<i32>(ctl, 1, 4);
      atomic.notify(ctl + 4, 0x7fffffff);
    } else {
      let spins = 0;
      while (atomic.load<i32>(ctl, 4) == gen) {
        if (atomic.load<i32>(ctl, 28) != 0) return;
        if (canWait && ++spins > SPIN_BARRIER) atomic.wait<i32>(ctl + 4, gen, 100_000_000);
      }
    }
  }
}

/** Runs `count` commands of the program at `prog` as thread tid of nt. */
export function run(prog: usize, count: i32, tid: i32, nt: i32, ctl: usize, canWait: bool): void {
  for (let c = 0; c < count; c++) {
    const cmd = prog + (<usize>c << 6);
    const op = arg(cmd, 0);
    switch (op) {
      case OP_BARRIER: {
        barrier(ctl, nt, canWait);
        break;
      }
      case OP_MATMUL_NN: {
        // a b c bias resid aux M N K flags rowUnit
        split(arg(cmd, 7), arg(cmd, 11), tid, nt);
        if (lo < hi) matmulNN(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), arg(cmd, 7), arg(cmd, 8), arg(cmd, 9), arg(cmd, 10), lo, hi);
        break;
      }
      case OP_MATMUL_TN: {
        // a b c M N K flags
        split(arg(cmd, 4), 4, tid, nt);
        if (lo < hi) matmulTN(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), arg(cmd, 4), arg(cmd, 5), arg(cmd, 6), arg(cmd, 7), lo, hi);
        break;
      }
      case OP_TRANSPOSE: {
        // src dst R C
        split(arg(cmd, 3), 4, tid, nt);
        if (lo < hi) transpose(ptr(cmd, 1), ptr(cmd, 2), arg(cmd, 3), arg(cmd, 4), lo, hi);
        break;
      }
      case OP_BIAS_GRAD: {
        // dy db rows C
        split(arg(cmd, 4), 4, tid, nt);
        if (lo < hi) biasGrad(ptr(cmd, 1), ptr(cmd, 2), arg(cmd, 3), arg(cmd, 4), lo, hi);
        break;
      }
      case OP_ENC_FWD: {
        // tokens wte wpe out rows T C
        split(arg(cmd, 5), 4, tid, nt);
        if (lo < hi) encoderForward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), arg(cmd, 6), arg(cmd, 7), lo, hi);
        break;
      }
      case OP_ENC_BWD: {
        // dout tokens dwte dwpe rows T C
        split(arg(cmd, 7), 4, tid, nt);
        if (lo < hi) encoderBackward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), arg(cmd, 5), arg(cmd, 6), arg(cmd, 7), lo, hi);
        break;
      }
      case OP_ENC_DECODE: {
        // tokens wte wpe out stride posPtr C B
        split(arg(cmd, 8), 1, tid, nt);
        if (lo < hi) encoderDecode(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), arg(cmd, 5), load<i32>(ptr(cmd, 6)), arg(cmd, 7), lo, hi);
        break;
      }
      case OP_NORM_FWD: {
        // kind inp w b out mean rstd rows C
        split(arg(cmd, 8), 1, tid, nt);
        if (lo < hi) normForward(arg(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 7), arg(cmd, 9), lo, hi);
        break;
      }
      case OP_NORM_BWD_DX: {
        // kind dout inp w mean rstd dinp rows C accumulate
        split(arg(cmd, 8), 1, tid, nt);
        if (lo < hi) normBackwardDx(arg(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 7), arg(cmd, 9), arg(cmd, 10), lo, hi);
        break;
      }
      case OP_NORM_BWD_DW: {
        // kind dout inp mean rstd dw db rows C
        split(arg(cmd, 9), 4, tid, nt);
        if (lo < hi) normBackwardDw(arg(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 7), arg(cmd, 8), arg(cmd, 9), lo, hi);
        break;
      }
      case OP_GELU_FWD: {
        // inp out n
        split(arg(cmd, 3), ELEM_UNIT, tid, nt);
        if (lo < hi) geluForward(ptr(cmd, 1), ptr(cmd, 2), lo, hi);
        break;
      }
      case OP_GELU_BWD: {
        // inp dout dinp n
        split(arg(cmd, 4), ELEM_UNIT, tid, nt);
        if (lo < hi) geluBackward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), lo, hi);
        break;
      }
      case OP_ADD: {
        // a b out n
        split(arg(cmd, 4), ELEM_UNIT, tid, nt);
        if (lo < hi) add(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), lo, hi);
        break;
      }
      case OP_COPY: {
        // src dst n
        split(arg(cmd, 3), ELEM_UNIT, tid, nt);
        if (lo < hi) copy(ptr(cmd, 1), ptr(cmd, 2), lo, hi);
        break;
      }
      case OP_ZERO: {
        // dst n
        split(arg(cmd, 2), ELEM_UNIT, tid, nt);
        if (lo < hi) memory.fill(ptr(cmd, 1) + (<usize>lo << 2), 0, <usize>(hi - lo) << 2);
        break;
      }
      case OP_ATTN_FWD: {
        // qkv out att scratch scratchStride B T C H
        split(arg(cmd, 6) * arg(cmd, 9), 1, tid, nt);
        if (lo < hi) attentionForward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4) + <usize>tid * ptr(cmd, 5), arg(cmd, 7), arg(cmd, 8), arg(cmd, 9), lo, hi);
        break;
      }
      case OP_ATTN_BWD: {
        // dout qkv att dqkv scratch scratchStride B T C H
        split(arg(cmd, 7) * arg(cmd, 10), 1, tid, nt);
        if (lo < hi) attentionBackward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5) + <usize>tid * ptr(cmd, 6), arg(cmd, 8), arg(cmd, 9), arg(cmd, 10), lo, hi);
        break;
      }
      case OP_ATTN_FWD_ROWS: {
        // qkv out att scratch scratchStride table rows C H (packed rows: rows·H units)
        split(arg(cmd, 7) * arg(cmd, 9), 1, tid, nt);
        if (lo < hi) attentionForwardRows(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4) + <usize>tid * ptr(cmd, 5), ptr(cmd, 6), arg(cmd, 8), arg(cmd, 9), lo, hi);
        break;
      }
      case OP_ATTN_BWD_ROWS: {
        // dout qkv att dqkv scratch scratchStride table rows C H
        split(arg(cmd, 8) * arg(cmd, 10), 1, tid, nt);
        if (lo < hi) attentionBackwardRows(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5) + <usize>tid * ptr(cmd, 6), ptr(cmd, 7), arg(cmd, 9), arg(cmd, 10), lo, hi);
        break;
      }
      case OP_ATTN_DECODE: {
        // qkv kc vc out scratch scratchStride Tmax C H posPtr B
        split(arg(cmd, 11), 1, tid, nt);
        if (lo < hi) attentionDecode(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5) + <usize>tid * ptr(cmd, 6), arg(cmd, 7), arg(cmd, 8), arg(cmd, 9), load<i32>(ptr(cmd, 10)), lo, hi);
        break;
      }
      case OP_LSM_FWD: {
        // logits targets logp entropy lse V tempPtr scratch scratchStride rows
        split(arg(cmd, 10), 1, tid, nt);
        if (lo < hi) lsmForward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), arg(cmd, 6), load<f32>(ptr(cmd, 7)), ptr(cmd, 8) + <usize>tid * ptr(cmd, 9), lo, hi);
        break;
      }
      case OP_LSM_BWD: {
        // logits targets lse entropy dlogp dent dlogits V tempPtr rows
        split(arg(cmd, 10), 1, tid, nt);
        if (lo < hi) lsmBackward(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 7), arg(cmd, 8), load<f32>(ptr(cmd, 9)), lo, hi);
        break;
      }
      case OP_GRPO: {
        // logp old ref adv weights mask entropy dlogp dent stats opts N (thread 0)
        if (tid == 0) grpoLoss(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 7), ptr(cmd, 8), ptr(cmd, 9), ptr(cmd, 10), ptr(cmd, 11), arg(cmd, 12));
        break;
      }
      case OP_CE: {
        // logp weights mask dlogp dent stats N (thread 0)
        if (tid == 0) ceLoss(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), arg(cmd, 7));
        break;
      }
      case OP_NORM_PARTIALS: {
        // grads n partials
        const chunks = (arg(cmd, 2) + NORM_CHUNK - 1) / NORM_CHUNK;
        split(chunks, 1, tid, nt);
        if (lo < hi) gradNormPartials(ptr(cmd, 1), arg(cmd, 2), ptr(cmd, 3), lo, hi);
        break;
      }
      case OP_NORM_FINISH: {
        // partials chunks norm (thread 0)
        if (tid == 0) gradNormFinish(ptr(cmd, 1), arg(cmd, 2), ptr(cmd, 3));
        break;
      }
      case OP_ADAMW: {
        // params grads m v hyper norm decayEnd n loss
        split(arg(cmd, 8), 64, tid, nt);
        if (lo < hi) adamw(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 9), arg(cmd, 7), lo, hi);
        break;
      }
      case OP_SAMPLE: {
        // logits tokens seqs slogp sent opts scratch scratchStride V stride ctx posPtr B
        split(arg(cmd, 13), 1, tid, nt);
        if (lo < hi) sampleStep(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), ptr(cmd, 4), ptr(cmd, 5), ptr(cmd, 6), ptr(cmd, 7) + <usize>tid * ptr(cmd, 8), arg(cmd, 9), arg(cmd, 10), arg(cmd, 11), load<i32>(ptr(cmd, 12)), lo, hi);
        break;
      }
      case OP_PEAK: {
        // out iters active m a start: threads below `active` each run the whole loop (the roofline's compute ceiling)
        if (tid < arg(cmd, 3)) peakMulAdd(ptr(cmd, 1) + <usize>tid * (<usize>PEAK_ACCS << 4), arg(cmd, 2), reinterpret<f32>(arg(cmd, 4)), reinterpret<f32>(arg(cmd, 5)), reinterpret<f32>(arg(cmd, 6)));
        break;
      }
      case OP_TRIAD: {
        // a b c s n (the roofline's bandwidth ceiling)
        split(arg(cmd, 5), ELEM_UNIT, tid, nt);
        if (lo < hi) triad(ptr(cmd, 1), ptr(cmd, 2), ptr(cmd, 3), reinterpret<f32>(arg(cmd, 4)), lo, hi);
        break;
      }
      default:
        unreachable();
    }
  }
}

/**
 * A pool thread's life: wait for the job generation to move past `seen0`, run the posted program
 * as thread `tid`, repeat; returns when the quit word is set.
 */
export function workerLoop(ctl: usize, tid: i32, seen0: i32): void {
  if (ASC_FEATURE_THREADS) {
    // seen0: the job generation when the pool was started (read here, a job posted between the
    // thread's start and this call would be missed, and the poster would wait at its barrier forever).
    let seen = seen0;
    while (true) {
      let spins = 0;
      let g = atomic.load<i32>(ctl, 8);
      while (g == seen) {
        if (++spins > SPIN_IDLE) atomic.wait<i32>(ctl + 8, seen, -1);
        g = atomic.load<i32>(ctl, 8);
      }
      seen = g;
      if (atomic.load<i32>(ctl, 24) != 0) return;
      const nt = atomic.load<i32>(ctl, 20);
      if (tid < nt) run(<usize>atomic.load<u32>(ctl, 12), atomic.load<i32>(ctl, 16), tid, nt, ctl, true);
    }
  }
}

// Stand-alone entries for the per-kernel tests (single call, explicit ranges).
export { matmulNN, matmulTN, transpose, biasGrad, encoderForward, encoderBackward, encoderDecode, normForward, normBackwardDx, normBackwardDw };
export { geluForward, geluBackward, add, attentionForward, attentionBackward, attentionDecode, lsmForward, lsmBackward, grpoLoss, ceLoss };
export { gradNormPartials, gradNormFinish, adamw, sampleStep, peakMulAdd, triad };
