// Matrix products (twin: gemm / linearForward / linearBackward in src/model/reference/ops.ts).
//
//   matmulNN: C[M×N] = A[M×K] · B[K×N]          (forward with Wᵀ prepared once per update, dx = dy·W)
//   matmulTN: C[M×N] += Aᵀ · B, A stored [K×M]  (weight gradients dW += dyᵀ·x)
//
// Register tiles of 4 rows × 8 columns (8 f32x4 accumulators) vectorised over output columns.
// Every output element is ONE sequential f32 sum over k = 0..K-1 (mul then add, no FMA), the same
// in the vector body, the 4-column and scalar tails and the 1-row tails, so an element's bits do
// not depend on which tile or thread computed it: any row split gives identical results.
//
// Accumulator start: C (flags & ACCUMULATE), else the bias (when given), else 0. Epilogues:
//   resid ≠ 0            C = resid + acc                 (fused residual add)
//   flags & GELU_FWD     C = acc, aux = gelu(acc)        (fc pre-activation and activation)
//     + GELU_SAVE_GRAD   C = gelu'(acc) instead          (training: the backward needs only the slope)
//   flags & GELU_BWD     C = acc · gelu'(aux)            (fused GELU backward; aux = pre-activation)
//   flags & MUL_AUX      C = acc · aux                   (fused GELU backward from the saved slope)
import { at, geluFromT, geluGrad4, geluGradFromT, geluT4 } from './common';

export const ACCUMULATE: i32 = 1;
export const GELU_FWD: i32 = 2;
export const GELU_BWD: i32 = 4;
export const GELU_SAVE_GRAD: i32 = 8;
export const MUL_AUX: i32 = 16;

@inline function initAcc(c: usize, bias: usize, flags: i32): v128 {
  if (flags & ACCUMULATE) return v128.load(c);
  if (bias != 0) return v128.load(bias);
  return f32x4.splat(0);
}

@inline function initAcc1(c: usize, bias: usize, flags: i32): f32 {
  if (flags & ACCUMULATE) return load<f32>(c);
  if (bias != 0) return load<f32>(bias);
  return 0;
}

/** Stores 4 finished lanes at element offset e (bytes) of C. */
@inline function finish4(acc: v128, c: usize, resid: usize, aux: usize, e: usize, flags: i32): void {
  let v = acc;
  if (resid != 0) v = f32x4.add(v128.load(resid + e), v);
  if (flags & GELU_FWD) {
    const t = geluT4(v);
    v128.store(aux + e, geluFromT(v, t));
    if (flags & GELU_SAVE_GRAD) v = geluGradFromT(v, t);
  } else if (flags & GELU_BWD) {
    v = f32x4.mul(v, geluGrad4(v128.load(aux + e)));
  } else if (flags & MUL_AUX) {
    v = f32x4.mul(v, v128.load(aux + e));
  }
  v128.store(c + e, v);
}

/** One lane of finish4, computed through the same vector code. */
@inline function finish1(acc: f32, c: usize, resid: usize, aux: usize, e: usize, flags: i32): void {
  let v = f32x4.splat(acc);
  if (resid != 0) v = f32x4.add(v128.load32_splat(resid + e), v);
  if (flags & GELU_FWD) {
    const t = geluT4(v);
    store<f32>(aux + e, f32x4.extract_lane(geluFromT(v, t), 0));
    if (flags & GELU_SAVE_GRAD) v = geluGradFromT(v, t);
  } else if (flags & GELU_BWD) {
    v = f32x4.mul(v, geluGrad4(v128.load32_splat(aux + e)));
  } else if (flags & MUL_AUX) {
    v = f32x4.mul(v, v128.load32_splat(aux + e));
  }
  store<f32>(c + e, f32x4.extract_lane(v, 0));
}

/** Floats of B's K × NB panel that matmulNN keeps cache-resident across a thread's row tiles (64 KiB). */
export const NN_PANEL_FLOATS: i32 = 16384;
/**
 * B of more floats than this (2 MiB) is walked in panels. Smaller B stays in this engine's L2/L3 between row
 * tiles anyway, and there panels measured within ±12% of one sweep (slower as often as faster: BENCHMARKS.md,
 * "Cache-blocked decode matmul"); a 16 MiB B (16 × 1024 × 4096) ran 1.4–1.9× faster in panels.
 */
export const NN_PANEL_MIN_FLOATS: i32 = 1 << 19;

/** Columns per panel of matmulNN for a K × N B: a multiple of 8, at least 8; all N when B is small. */
export function nnPanelColumns(K: i32, N: i32): i32 {
  if (<i64>K * <i64>N <= <i64>NN_PANEL_MIN_FLOATS) return max(N, 1);
  return max(8, (NN_PANEL_FLOATS / max(K, 1)) & ~7);
}

/**
 * Rows [r0, r1) of C = A·B (+ epilogue), one panel of nnPanelColumns(K, N) columns at a time: each
 * panel of a large B (K × NB) is read from memory once and stays in cache while every row tile of
 * the range uses it, where sweeping all of B per 4-row tile reads it once per tile. Every element is
 * the same sequential sum over k in any panel, so the bits do not depend on the panels.
 */
export function matmulNN(a: usize, b: usize, c: usize, bias: usize, resid: usize, aux: usize, M: i32, N: i32, K: i32, flags: i32, r0: i32, r1: i32): void {
  const nb = nnPanelColumns(K, N);
  for (let j0 = 0; j0 < N; j0 += nb) nnPanel(a, b, c, bias, resid, aux, N, K, flags, r0, r1, j0, min(j0 + nb, N));
}

/** Rows [r0, r1) × columns [j0, j1) of C = A·B (+ epilogue). */
function nnPanel(a: usize, b: usize, c: usize, bias: usize, resid: usize, aux: usize, N: i32, K: i32, flags: i32, r0: i32, r1: i32, j0: i32, j1: i32): void {
  const rowA = <usize>K << 2;
  const rowB = <usize>N << 2;
  const rowC = <usize>N << 2;
  let i = r0;
  for (; i + 4 <= r1; i += 4) {
    const a0 = a + <usize>i * rowA;
    const cRow = <usize>i * rowC;
    let j = j0;
    for (; j + 8 <= j1; j += 8) {
      const e = cRow + (<usize>j << 2);
      const bj = bias != 0 ? at(bias, j) : 0;
      let c00 = initAcc(c + e, bj, flags);
      let c01 = initAcc(c + e + 16, bj != 0 ? bj + 16 : 0, flags);
      let c10 = initAcc(c + e + rowC, bj, flags);
      let c11 = initAcc(c + e + rowC + 16, bj != 0 ? bj + 16 : 0, flags);
      let c20 = initAcc(c + e + 2 * rowC, bj, flags);
      let c21 = initAcc(c + e + 2 * rowC + 16, bj != 0 ? bj + 16 : 0, flags);
      let c30 = initAcc(c + e + 3 * rowC, bj, flags);
      let c31 = initAcc(c + e + 3 * rowC + 16, bj != 0 ? bj + 16 : 0, flags);
      let pa = a0;
      let pb = b + (<usize>j << 2);
      for (let k = 0; k < K; k++) {
        const b0 = v128.load(pb);
        const b1 = v128.load(pb, 16);
        const x0 = v128.load32_splat(pa);
        const x1 = v128.load32_splat(pa + rowA);
        const x2 = v128.load32_splat(pa + 2 * rowA);
        const x3 = v128.load32_splat(pa + 3 * rowA);
        c00 = f32x4.add(c00, f32x4.mul(x0, b0));
        c01 = f32x4.add(c01, f32x4.mul(x0, b1));
        c10 = f32x4.add(c10, f32x4.mul(x1, b0));
        c11 = f32x4.add(c11, f32x4.mul(x1, b1));
        c20 = f32x4.add(c20, f32x4.mul(x2, b0));
        c21 = f32x4.add(c21, f32x4.mul(x2, b1));
        c30 = f32x4.add(c30, f32x4.mul(x3, b0));
        c31 = f32x4.add(c31, f32x4.mul(x3, b1));
        pa += 4;
        pb += rowB;
      }
      finish4(c00, c, resid, aux, e, flags);
      finish4(c01, c, resid, aux, e + 16, flags);
      finish4(c10, c, resid, aux, e + rowC, flags);
      finish4(c11, c, resid, aux, e + rowC + 16, flags);
      finish4(c20, c, resid, aux, e + 2 * rowC, flags);
      finish4(c21, c, resid, aux, e + 2 * rowC + 16, flags);
      finish4(c30, c, resid, aux, e + 3 * rowC, flags);
      finish4(c31, c, resid, aux, e + 3 * rowC + 16, flags);
    }
    for (; j + 4 <= j1; j += 4) {
      const e = cRow + (<usize>j << 2);
      const bj = bias != 0 ? at(bias, j) : 0;
      let c0 = initAcc(c + e, bj, flags);
      let c1 = initAcc(c + e + rowC, bj, flags);
      let c2 = initAcc(c + e + 2 * rowC, bj, flags);
      let c3 = initAcc(c + e + 3 * rowC, bj, flags);
      let pa = a0;
      let pb = b + (<usize>j << 2);
      for (let k = 0; k < K; k++) {
        const b0 = v128.load(pb);
        c0 = f32x4.add(c0, f32x4.mul(v128.load32_splat(pa), b0));
        c1 = f32x4.add(c1, f32x4.mul(v128.load32_splat(pa + rowA), b0));
        c2 = f32x4.add(c2, f32x4.mul(v128.load32_splat(pa + 2 * rowA), b0));
        c3 = f32x4.add(c3, f32x4.mul(v128.load32_splat(pa + 3 * rowA), b0));
        pa += 4;
        pb += rowB;
      }
      finish4(c0, c, resid, aux, e, flags);
      finish4(c1, c, resid, aux, e + rowC, flags);
      finish4(c2, c, resid, aux, e + 2 * rowC, flags);
      finish4(c3, c, resid, aux, e + 3 * rowC, flags);
    }
    for (; j < j1; j++) {
      for (let r = 0; r < 4; r++) nnScalar(a, b, c, bias, resid, aux, N, K, flags, i + r, j);
    }
  }
  for (; i < r1; i++) {
    const a0 = a + <usize>i * rowA;
    const cRow = <usize>i * rowC;
    let j = j0;
    for (; j + 8 <= j1; j += 8) {
      const e = cRow + (<usize>j << 2);
      const bj = bias != 0 ? at(bias, j) : 0;
      let c0 = initAcc(c + e, bj, flags);
      let c1 = initAcc(c + e + 16, bj != 0 ? bj + 16 : 0, flags);
      let pa = a0;
      let pb = b + (<usize>j << 2);
      for (let k = 0; k < K; k++) {
        const x = v128.load32_splat(pa);
        c0 = f32x4.add(c0, f32x4.mul(x, v128.load(pb)));
        c1 = f32x4.add(c1, f32x4.mul(x, v128.load(pb, 16)));
        pa += 4;
        pb += rowB;
      }
      finish4(c0, c, resid, aux, e, flags);
      finish4(c1, c, resid, aux, e + 16, flags);
    }
    for (; j + 4 <= j1; j += 4) {
      const e = cRow + (<usize>j << 2);
      let c0 = initAcc(c + e, bias != 0 ? at(bias, j) : 0, flags);
      let pa = a0;
      let pb = b + (<usize>j << 2);
      for (let k = 0; k < K; k++) {
        c0 = f32x4.add(c0, f32x4.mul(v128.load32_splat(pa), v128.load(pb)));
        pa += 4;
        pb += rowB;
      }
      finish4(c0, c, resid, aux, e, flags);
    }
    for (; j < j1; j++) nnScalar(a, b, c, bias, resid, aux, N, K, flags, i, j);
  }
}

function nnScalar(a: usize, b: usize, c: usize, bias: usize, resid: usize, aux: usize, N: i32, K: i32, flags: i32, i: i32, j: i32): void {
  const e = (<usize>i * <usize>N + <usize>j) << 2;
  let acc = initAcc1(c + e, bias != 0 ? at(bias, j) : 0, flags);
  let pa = a + ((<usize>i * <usize>K) << 2);
  let pb = b + (<usize>j << 2);
  const rowB = <usize>N << 2;
  for (let k = 0; k < K; k++) {
    acc += load<f32>(pa) * load<f32>(pb);
    pa += 4;
    pb += rowB;
  }
  finish1(acc, c, resid, aux, e, flags);
}

/** k rows per block of matmulTN: the A and B panels of a block stay in cache across the row tiles. */
const TN_KBLOCK: i32 = 128;

/**
 * Rows [r0, r1) of C (+)= Aᵀ·B with A stored [K×M] (column i of Aᵀ is a strided column of A).
 * k runs in blocks; each block continues from the partial sums the previous one stored in C, so
 * every element is still one sequential sum over k = 0..K-1.
 */
export function matmulTN(a: usize, b: usize, c: usize, M: i32, N: i32, K: i32, flags: i32, r0: i32, r1: i32): void {
  if (K == 0) {
    if (!(flags & ACCUMULATE)) for (let i = r0; i < r1; i++) memory.fill(c + ((<usize>i * <usize>N) << 2), 0, <usize>N << 2);
    return;
  }
  for (let k0 = 0; k0 < K; k0 += TN_KBLOCK) {
    tnBlock(a, b, c, M, N, k0, min(k0 + TN_KBLOCK, K), k0 == 0 ? flags : flags | ACCUMULATE, r0, r1);
  }
}

/** Rows [r0, r1) of C (+)= Σ_{k0 ≤ k < k1} A[k, i]·B[k, j]. */
function tnBlock(a: usize, b: usize, c: usize, M: i32, N: i32, k0: i32, k1: i32, flags: i32, r0: i32, r1: i32): void {
  const rowA = <usize>M << 2;
  const rowB = <usize>N << 2;
  const rowC = <usize>N << 2;
  let i = r0;
  for (; i + 4 <= r1; i += 4) {
    const cRow = <usize>i * rowC;
    let j = 0;
    for (; j + 8 <= N; j += 8) {
      const e = cRow + (<usize>j << 2);
      let c00 = initAcc(c + e, 0, flags);
      let c01 = initAcc(c + e + 16, 0, flags);
      let c10 = initAcc(c + e + rowC, 0, flags);
      let c11 = initAcc(c + e + rowC + 16, 0, flags);
      let c20 = initAcc(c + e + 2 * rowC, 0, flags);
      let c21 = initAcc(c + e + 2 * rowC + 16, 0, flags);
      let c30 = initAcc(c + e + 3 * rowC, 0, flags);
      let c31 = initAcc(c + e + 3 * rowC + 16, 0, flags);
      let pa = a + (<usize>k0 * rowA) + (<usize>i << 2);
      let pb = b + (<usize>k0 * rowB) + (<usize>j << 2);
      for (let k = k0; k < k1; k++) {
        const av = v128.load(pa);
        const b0 = v128.load(pb);
        const b1 = v128.load(pb, 16);
        const x0 = i32x4.shuffle(av, av, 0, 0, 0, 0);
        const x1 = i32x4.shuffle(av, av, 1, 1, 1, 1);
        const x2 = i32x4.shuffle(av, av, 2, 2, 2, 2);
        const x3 = i32x4.shuffle(av, av, 3, 3, 3, 3);
        c00 = f32x4.add(c00, f32x4.mul(x0, b0));
        c01 = f32x4.add(c01, f32x4.mul(x0, b1));
        c10 = f32x4.add(c10, f32x4.mul(x1, b0));
        c11 = f32x4.add(c11, f32x4.mul(x1, b1));
        c20 = f32x4.add(c20, f32x4.mul(x2, b0));
        c21 = f32x4.add(c21, f32x4.mul(x2, b1));
        c30 = f32x4.add(c30, f32x4.mul(x3, b0));
        c31 = f32x4.add(c31, f32x4.mul(x3, b1));
        pa += rowA;
        pb += rowB;
      }
      v128.store(c + e, c00);
      v128.store(c + e + 16, c01);
      v128.store(c + e + rowC, c10);
      v128.store(c + e + rowC + 16, c11);
      v128.store(c + e + 2 * rowC, c20);
      v128.store(c + e + 2 * rowC + 16, c21);
      v128.store(c + e + 3 * rowC, c30);
      v128.store(c + e + 3 * rowC + 16, c31);
    }
    for (; j + 4 <= N; j += 4) {
      const e = cRow + (<usize>j << 2);
      let c0 = initAcc(c + e, 0, flags);
      let c1 = initAcc(c + e + rowC, 0, flags);
      let c2 = initAcc(c + e + 2 * rowC, 0, flags);
      let c3 = initAcc(c + e + 3 * rowC, 0, flags);
      let pa = a + (<usize>k0 * rowA) + (<usize>i << 2);
      let pb = b + (<usize>k0 * rowB) + (<usize>j << 2);
      for (let k = k0; k < k1; k++) {
        const av = v128.load(pa);
        const b0 = v128.load(pb);
        c0 = f32x4.add(c0, f32x4.mul(i32x4.shuffle(av, av, 0, 0, 0, 0), b0));
        c1 = f32x4.add(c1, f32x4.mul(i32x4.shuffle(av, av, 1, 1, 1, 1), b0));
        c2 = f32x4.add(c2, f32x4.mul(i32x4.shuffle(av, av, 2, 2, 2, 2), b0));
        c3 = f32x4.add(c3, f32x4.mul(i32x4.shuffle(av, av, 3, 3, 3, 3), b0));
        pa += rowA;
        pb += rowB;
      }
      v128.store(c + e, c0);
      v128.store(c + e + rowC, c1);
      v128.store(c + e + 2 * rowC, c2);
      v128.store(c + e + 3 * rowC, c3);
    }
    for (; j < N; j++) {
      for (let r = 0; r < 4; r++) tnScalar(a, b, c, M, N, k0, k1, flags, i + r, j);
    }
  }
  for (; i < r1; i++) {
    const cRow = <usize>i * rowC;
    let j = 0;
    for (; j + 4 <= N; j += 4) {
      const e = cRow + (<usize>j << 2);
      let c0 = initAcc(c + e, 0, flags);
      let pa = a + (<usize>k0 * rowA) + (<usize>i << 2);
      let pb = b + (<usize>k0 * rowB) + (<usize>j << 2);
      for (let k = k0; k < k1; k++) {
        c0 = f32x4.add(c0, f32x4.mul(v128.load32_splat(pa), v128.load(pb)));
        pa += rowA;
        pb += rowB;
      }
      v128.store(c + e, c0);
    }
    for (; j < N; j++) tnScalar(a, b, c, M, N, k0, k1, flags, i, j);
  }
}

function tnScalar(a: usize, b: usize, c: usize, M: i32, N: i32, k0: i32, k1: i32, flags: i32, i: i32, j: i32): void {
  const e = (<usize>i * <usize>N + <usize>j) << 2;
  let acc = initAcc1(c + e, 0, flags);
  const rowA = <usize>M << 2;
  const rowB = <usize>N << 2;
  let pa = a + <usize>k0 * rowA + (<usize>i << 2);
  let pb = b + <usize>k0 * rowB + (<usize>j << 2);
  for (let k = k0; k < k1; k++) {
    acc += load<f32>(pa) * load<f32>(pb);
    pa += rowA;
    pb += rowB;
  }
  store<f32>(c + e, acc);
}

/** Rows [r0, r1) of src [R×C] → dst [C×R] (dst[c·R + r] = src[r·C + c]). */
export function transpose(src: usize, dst: usize, R: i32, C: i32, r0: i32, r1: i32): void {
  for (let r = r0; r < r1; r++) {
    const s = src + ((<usize>r * <usize>C) << 2);
    const d = dst + (<usize>r << 2);
    const stride = <usize>R << 2;
    for (let c = 0; c < C; c++) store<f32>(d + <usize>c * stride, load<f32>(s + (<usize>c << 2)));
  }
}

/** Columns [c0, c1) of db[c] += Σ_r dy[r·C + c] (rows in order). */
export function biasGrad(dy: usize, db: usize, rows: i32, C: i32, c0: i32, c1: i32): void {
  const row = <usize>C << 2;
  let c = c0;
  for (; c + 4 <= c1; c += 4) {
    let acc = v128.load(at(db, c));
    let p = at(dy, c);
    for (let r = 0; r < rows; r++) {
      acc = f32x4.add(acc, v128.load(p));
      p += row;
    }
    v128.store(at(db, c), acc);
  }
  for (; c < c1; c++) {
    let acc = load<f32>(at(db, c));
    let p = at(dy, c);
    for (let r = 0; r < rows; r++) {
      acc += load<f32>(p);
      p += row;
    }
    store<f32>(at(db, c), acc);
  }
}
