/** Float64 twin of the matrix products (shaders/matmul.wgsl, src/cpu/assembly/matmul.ts). */

// ---------------------------------------------------------------------------------------------
// Matrix products
// ---------------------------------------------------------------------------------------------

/**
 * C[M×N] = op(A) · op(B), where op(A) is M×K and op(B) is K×N.
 * transA: A is stored K×M (so op(A) = Aᵀ). transB: B is stored N×K (so op(B) = Bᵀ).
 */
export function gemm(
  A: Float64Array,
  B: Float64Array,
  M: number,
  N: number,
  K: number,
  transA: boolean,
  transB: boolean,
): Float64Array {
  const C = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let sum = 0;
      for (let k = 0; k < K; k++) {
        const a = transA ? A[k * M + i] : A[i * K + k];
        const b = transB ? B[j * K + k] : B[k * N + j];
        sum += a * b;
      }
      C[i * N + j] = sum;
    }
  }
  return C;
}

/** y[rows×outF] = x[rows×inF] · wᵀ + b, with w stored [outF, inF]. */
export function linearForward(
  x: Float64Array,
  w: Float64Array,
  b: Float64Array | null,
  rows: number,
  inF: number,
  outF: number,
): Float64Array {
  const y = gemm(x, w, rows, outF, inF, false, true);
  if (b) {
    for (let r = 0; r < rows; r++) for (let o = 0; o < outF; o++) y[r * outF + o] += b[o];
  }
  return y;
}

/** Gradients of y = x·wᵀ + b: dx = dy·w, dw = dyᵀ·x, db = column sums of dy. */
export function linearBackward(
  dy: Float64Array,
  x: Float64Array,
  w: Float64Array,
  rows: number,
  inF: number,
  outF: number,
): { dx: Float64Array; dw: Float64Array; db: Float64Array } {
  const dx = gemm(dy, w, rows, inF, outF, false, false);
  const dw = gemm(dy, x, outF, inF, rows, true, false);
  const db = new Float64Array(outF);
  for (let r = 0; r < rows; r++) for (let o = 0; o < outF; o++) db[o] += dy[r * outF + o];
  return { dx, dw, db };
}
