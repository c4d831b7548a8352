// Optimizer kernels: the global gradient L2 norm (deterministic two-stage reduction, no
// atomics) and AdamW over the flat parameter array. The norm never leaves the GPU: AdamW reads
// norm[0] and derives its clip scale itself, so a training step needs no readback. AdamW also
// rejects a non-finite step on the GPU: when norm[0] or the step's loss is ±Inf or NaN it writes
// nothing (params, m and v keep their bits; twin: stepIsFinite / adamwStep's gate).

struct Params {
  n: u32,            // element count
  row_groups: u32,   // adamw: workgroups per grid row (2-D folding); grad_norm: stage-1 workgroups
  decay_end: u32,    // adamw: elements [0, decay_end) get weight decay
  clip: u32,         // adamw: 1 = clip by max_norm, 0 = no clipping
  lr: f32,
  beta1: f32,
  one_minus_beta1: f32,  // computed in float64 on the CPU (1 - 0.999 loses bits in f32)
  beta2: f32,
  one_minus_beta2: f32,
  eps: f32,
  weight_decay: f32,
  inv_bc1: f32,      // 1 / (1 - beta1^t)
  inv_bc2: f32,      // 1 / (1 - beta2^t)
  max_norm: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> params: array<f32>;
@group(0) @binding(2) var<storage, read> grads: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read_write> norm: array<f32>;
@group(0) @binding(6) var<storage, read_write> scratch: array<f32>;
// adamw: loss[0] = this step's loss (a copy of the stats block's word 0).
@group(0) @binding(7) var<storage, read> loss: array<f32>;

const WG: u32 = 256u;

var<workgroup> partial: array<f32, WG>;

// Tree sum of partial[] (fixed order, so the result is bit-reproducible); result in partial[0].
fn reduce_partial(lid: u32) {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    workgroupBarrier();
    if (lid < stride) {
      partial[lid] = partial[lid] + partial[lid + stride];
    }
  }
  workgroupBarrier();
}

// Stage 1: workgroup g sums grads[i]² over i ≡ g·WG + lid (mod groups·WG) into scratch[g].
@compute @workgroup_size(WG)
fn grad_norm_partial(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let stride = p.row_groups * WG;
  var s = 0.0;
  for (var i = wid.x * WG + lid; i < p.n; i = i + stride) {
    let g = grads[i];
    s = s + g * g;
  }
  partial[lid] = s;
  reduce_partial(lid);
  if (lid == 0u) {
    scratch[wid.x] = partial[0];
  }
}

// Stage 2: one workgroup sums the stage-1 partials and writes the norm.
@compute @workgroup_size(WG)
fn grad_norm_final(@builtin(local_invocation_index) lid: u32) {
  var s = 0.0;
  for (var i = lid; i < p.row_groups; i = i + WG) {
    s = s + scratch[i];
  }
  partial[lid] = s;
  reduce_partial(lid);
  if (lid == 0u) {
    norm[0] = sqrt(partial[0]);
  }
}

// ±Inf or NaN: every exponent bit set. Tested on the bits, not with x != x: WGSL lets a compiler
// assume floats are finite and fold such comparisons away.
fn is_finite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// In-place AdamW (decoupled weight decay on [0, decay_end), bias-corrected), gradients
// scaled by the clip factor min(1, max_norm / (norm + 1e-6)). Skipped entirely (nothing
// written) when the gradient norm or the loss is not finite: a rejected step.
@compute @workgroup_size(WG)
fn adamw(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.y * p.row_groups * WG + gid.x;
  if (i >= p.n) { return; }
  let gn = norm[0];
  if (!is_finite(gn) || !is_finite(loss[0])) { return; }
  var scale = 1.0;
  if (p.clip != 0u) {
    scale = min(1.0, p.max_norm / (gn + 1e-6));
  }
  let g = grads[i] * scale;
  let mi = p.beta1 * m[i] + p.one_minus_beta1 * g;
  let vi = p.beta2 * v[i] + p.one_minus_beta2 * g * g;
  m[i] = mi;
  v[i] = vi;
  let mhat = mi * p.inv_bc1;
  let vhat = vi * p.inv_bc2;
  let wd = select(0.0, p.weight_decay, i < p.decay_end);
  let w = params[i];
  params[i] = w - p.lr * (mhat / (sqrt(vhat) + p.eps) + wd * w);
}
