// Elementwise kernels: GELU (GPT-2 tanh approximation) forward/backward, residual add.
// One invocation per element; 1-D grid folded into x/y so large tensors stay under the
// 65535-workgroups-per-dimension limit.

struct Params {
  n: u32,        // element count
  row_groups: u32, // workgroups per grid row (x extent), for 2-D folding
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const GELU_C: f32 = 0.044715;

fn index(gid: vec3u) -> u32 {
  return gid.y * p.row_groups * 256u + gid.x;
}

// out = gelu(a)
@compute @workgroup_size(256)
fn gelu_forward(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.n) { return; }
  let x = a[i];
  let u = SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
  out[i] = 0.5 * x * (1.0 + tanh(clamp(u, -15.0, 15.0)));
}

// out = dgelu/dx(a) * b   (a = GELU input, b = upstream gradient)
@compute @workgroup_size(256)
fn gelu_backward(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.n) { return; }
  let x = a[i];
  let u = SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
  // clamp: tanh of a large argument overflows exp() inside some implementations.
  let t = tanh(clamp(u, -15.0, 15.0));
  let sech2 = 1.0 - t * t;
  let du = SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_C * x * x);
  out[i] = (0.5 * (1.0 + t) + 0.5 * x * sech2 * du) * b[i];
}

// out = a + b  (residual connection)
@compute @workgroup_size(256)
fn add(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.n) { return; }
  out[i] = a[i] + b[i];
}

// out += a  (accumulate a gradient into an existing one)
@compute @workgroup_size(256)
fn accumulate(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.n) { return; }
  out[i] = out[i] + a[i];
}
