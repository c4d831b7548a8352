/** Float64 twin of GELU (shaders/elementwise.wgsl, src/cpu/assembly/elementwise.ts). */

// ---------------------------------------------------------------------------------------------
// GELU (GPT-2 tanh approximation)
// ---------------------------------------------------------------------------------------------

const GELU_SCALE = Math.sqrt(2 / Math.PI);
const GELU_CUBE = 0.044715;

/** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), elementwise. */
export function geluForward(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    y[i] = 0.5 * xi * (1 + Math.tanh(GELU_SCALE * (xi + GELU_CUBE * xi * xi * xi)));
  }
  return y;
}

/** dx = dout · d/dx gelu(x), from the forward's input x. */
export function geluBackward(x: Float64Array, dout: Float64Array): Float64Array {
  const dx = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const t = Math.tanh(GELU_SCALE * (xi + GELU_CUBE * xi * xi * xi));
    const du = GELU_SCALE * (1 + 3 * GELU_CUBE * xi * xi);
    dx[i] = dout[i] * (0.5 * (1 + t) + 0.5 * xi * (1 - t * t) * du);
  }
  return dx;
}
