/** Float64 twin of the SwiGLU gate (shaders/swiglu.wgsl): out = silu(gate) ⊙ up, silu(z) = z·σ(z). */

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export function swigluForward(gate: ArrayLike<number>, up: ArrayLike<number>): Float64Array {
  return Float64Array.from(gate, (g, i) => g * sigmoid(g) * up[i]);
}

/** dup = dout·silu(g); dgate = dout·u·σ(g)·(1 + g·(1 − σ(g))). */
export function swigluBackward(dout: ArrayLike<number>, gate: ArrayLike<number>, up: ArrayLike<number>): { dgate: Float64Array; dup: Float64Array } {
  const n = gate.length;
  const dgate = new Float64Array(n), dup = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const g = gate[i], s = sigmoid(g);
    dup[i] = dout[i] * g * s;
    dgate[i] = dout[i] * up[i] * s * (1 + g * (1 - s));
  }
  return { dgate, dup };
}
