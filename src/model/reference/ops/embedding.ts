/** Float64 twin of the token + position embeddings (shaders/embedding.wgsl, src/cpu/assembly/embedding.ts). */
import type { TokenArray } from './types';

// ---------------------------------------------------------------------------------------------
// Embeddings
// ---------------------------------------------------------------------------------------------

/** x[b,t] = wte[token] + wpe[t]; output is [B·T × C]. */
export function encoderForward(
  tokens: TokenArray,
  wte: Float64Array,
  wpe: Float64Array,
  B: number,
  T: number,
  C: number,
): Float64Array {
  const x = new Float64Array(B * T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const tok = tokens[b * T + t];
      const row = (b * T + t) * C;
      for (let c = 0; c < C; c++) x[row + c] = wte[tok * C + c] + wpe[t * C + c];
    }
  }
  return x;
}

/** Scatter-adds dx into the rows of the tables that produced it. dwpe has only T rows. */
export function encoderBackward(
  dx: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
  C: number,
  V: number,
): { dwte: Float64Array; dwpe: Float64Array } {
  const dwte = new Float64Array(V * C);
  const dwpe = new Float64Array(T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const tok = tokens[b * T + t];
      const row = (b * T + t) * C;
      for (let c = 0; c < C; c++) {
        dwte[tok * C + c] += dx[row + c];
        dwpe[t * C + c] += dx[row + c];
      }
    }
  }
  return { dwte, dwpe };
}
