/** Float64 twin of rotary position embedding, Hugging Face's rotate_half convention (shaders/rope.wgsl). */

/**
 * cos and sin of RoPE's angles p·θ^(−2j/d_head) for positions 0 … positions−1 and j < d_head/2, each
 * [positions, d_head/2] row-major, computed in float64 (the kernel reads them rounded to f32).
 */
export function ropeTable(theta: number, headDim: number, positions: number): { cos: Float64Array; sin: Float64Array } {
  if (!(theta > 0) || !Number.isFinite(theta)) throw new RangeError(`ropeTable: theta must be a positive number, got ${theta}`);
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2) throw new RangeError(`ropeTable: head size must be even, got ${headDim}`);
  const half = headDim / 2;
  const cos = new Float64Array(positions * half), sin = new Float64Array(positions * half);
  for (let p = 0; p < positions; p++)
    for (let j = 0; j < half; j++) {
      const angle = p * Math.pow(theta, (-2 * j) / headDim);
      cos[p * half + j] = Math.cos(angle);
      sin[p * half + j] = Math.sin(angle);
    }
  return { cos, sin };
}

/**
 * RoPE of x [B·T, heads, d_head] (row b·T + t is at position pos0 + t): with halves a = x[..j], b = x[j + d/2],
 * a' = a·cos − b·sin and b' = b·cos + a·sin (rotate_half, not interleaved pairs). `direction` −1 rotates by
 * the opposite angle: RoPE's inverse, which is also its backward (a rotation's transpose).
 */
export function ropeApply(
  x: Float64Array,
  rows: number,
  T: number,
  heads: number,
  headDim: number,
  theta: number,
  pos0 = 0,
  direction: 1 | -1 = 1,
): Float64Array {
  const half = headDim / 2;
  const out = new Float64Array(rows * heads * headDim);
  for (let r = 0; r < rows; r++) {
    const p = pos0 + (r % T);
    for (let j = 0; j < half; j++) {
      const angle = p * Math.pow(theta, (-2 * j) / headDim);
      const c = Math.cos(angle), s = direction * Math.sin(angle);
      for (let h = 0; h < heads; h++) {
        const base = (r * heads + h) * headDim;
        const a = x[base + j], b = x[base + j + half];
        out[base + j] = a * c - b * s;
        out[base + j + half] = b * c + a * s;
      }
    }
  }
  return out;
}

/** RoPE forward: ropeApply by +angle. */
export function ropeForward(x: Float64Array, rows: number, T: number, heads: number, headDim: number, theta: number, pos0 = 0): Float64Array {
  return ropeApply(x, rows, T, heads, headDim, theta, pos0, 1);
}

/** RoPE backward: dx = Rᵀ·dy, the rotation by −angle. */
export function ropeBackward(dy: Float64Array, rows: number, T: number, heads: number, headDim: number, theta: number, pos0 = 0): Float64Array {
  return ropeApply(dy, rows, T, heads, headDim, theta, pos0, -1);
}
