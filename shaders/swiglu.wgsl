// SwiGLU gate of the Llama / Qwen2 MLP: out = silu(gate) ⊙ up with silu(z) = z·σ(z), forward and
// backward, elementwise over gate and up (each [rows, intermediate]). The down projection follows
// as a matmul. Backward writes (does not accumulate) dgate and dup:
//   dup = dout·silu(g),  dgate = dout·u·σ(g)·(1 + g·(1 − σ(g)))

struct Params {
  n: u32,          // elements
  row_groups: u32, // workgroups per grid row (x extent) of the folded 1-D launch
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> gate: array<f32>;
@group(0) @binding(2) var<storage, read> up: array<f32>;
@group(0) @binding(3) var<storage, read> dout: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read_write> dgate: array<f32>;
@group(0) @binding(6) var<storage, read_write> dup: array<f32>;

const WG: u32 = 256u;

// σ(z) without overflow: exp of a non-positive number only.
fn sigmoid(z: f32) -> f32 {
  if (z >= 0.0) { return 1.0 / (1.0 + exp(-z)); }
  let e = exp(z);
  return e / (1.0 + e);
}

@compute @workgroup_size(WG)
fn swiglu_forward(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.y * p.row_groups * WG + gid.x;
  if (i >= p.n) { return; }
  let g = gate[i];
  out[i] = g * sigmoid(g) * up[i];
}

@compute @workgroup_size(WG)
fn swiglu_backward(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.y * p.row_groups * WG + gid.x;
  if (i >= p.n) { return; }
  let g = gate[i];
  let s = sigmoid(g);
  let d = dout[i];
  dup[i] = d * g * s;
  dgate[i] = d * up[i] * s * (1.0 + g * (1.0 - s));
}
