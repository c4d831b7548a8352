// Loss head: token log-probabilities + entropy at a temperature (forward/backward), the GRPO
// clipped token loss with entropy bonus and KL penalty, supervised cross-entropy, and a
// deterministic fixed-order two-stage reduction of the batch statistics (no atomics: the
// trainer replays bit-for-bit).
//
// One Params struct for every entry point (portable: no two uniform declarations share
// binding 0); each builder fills the fields its entry reads.

struct Params {
  n: u32,            // invocations (or rows, for the workgroup-per-row forward) that do work
  row_groups: u32,   // x extent of a folded 2-D grid, in workgroups
  V: u32,            // vocabulary size (row length)
  temperature: f32,
  eps_low: f32,
  eps_high: f32,
  dual_clip: f32,
  use_dual: u32,
  kl_coef: f32,
  kl_type: u32,      // 0 k1, 1 k3, 2 low_var_kl
  use_kl: u32,
  ent_coef: f32,
  tokens: u32,       // N: stride between statistic slots in scratch
  chunk: u32,        // tokens per first-stage partial sum
  chunks: u32,       // first-stage partials per statistic
}

@group(0) @binding(0) var<uniform> p: Params;

// logSoftmaxEntropy forward/backward
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> out_logp: array<f32>;
@group(0) @binding(4) var<storage, read_write> out_entropy: array<f32>;
@group(0) @binding(5) var<storage, read_write> out_lse: array<f32>;
@group(0) @binding(6) var<storage, read> saved_lse: array<f32>;
@group(0) @binding(7) var<storage, read> saved_entropy: array<f32>;
@group(0) @binding(8) var<storage, read> up_dlogp: array<f32>;
@group(0) @binding(9) var<storage, read> up_dent: array<f32>;
@group(0) @binding(10) var<storage, read_write> dlogits: array<f32>;

// GRPO / cross-entropy token losses and the statistics reduction
@group(0) @binding(11) var<storage, read> tok_logp: array<f32>;
@group(0) @binding(12) var<storage, read> old_logp: array<f32>;
@group(0) @binding(13) var<storage, read> ref_logp: array<f32>;
@group(0) @binding(14) var<storage, read> advantages: array<f32>;
@group(0) @binding(15) var<storage, read> weights: array<f32>;
@group(0) @binding(16) var<storage, read> mask: array<f32>;
@group(0) @binding(17) var<storage, read_write> dlogp: array<f32>;
@group(0) @binding(18) var<storage, read_write> scratch: array<f32>;
@group(0) @binding(19) var<storage, read> entropy: array<f32>;
@group(0) @binding(20) var<storage, read_write> dent: array<f32>;
@group(0) @binding(21) var<storage, read_write> stats: array<f32>;

const WG_ROW: u32 = 256u;   // invocations per row in the workgroup-per-row forward
const WG: u32 = 64u;        // invocations per workgroup elsewhere
const STATS: u32 = 8u;      // [loss, pg, kl, ent, clip, clipLower, ppoKl, mask]

// Quiet NaN; built from a runtime value because a constant NaN is a WGSL shader-creation error.
fn nan_from(x: u32) -> f32 {
  return bitcast<f32>(0x7fc00000u | (x & 0u));
}

fn flat_index(gid: vec3u, wg: u32) -> u32 {
  return gid.y * p.row_groups * wg + gid.x;
}

// ---------------------------------------------------------------------------------------------
// Log-softmax + entropy. Online single pass per row keeps (m, u, t, nonempty):
//   m = running max of z, u = Σ_{z ≠ the max} e^{z−m}, t = Σ e^{z−m}·(z−m)
// so lse = m + log1p(u) and H = log1p(u) − t/(1+u). Keeping the max's own 1 out of u keeps
// peaked rows (entropy ~1e-8, p_max ≈ 1) accurate: neither term cancels against m or 1.
// ---------------------------------------------------------------------------------------------

fn log1p(u: f32) -> f32 {
  if (u < 1e-2) {
    // Series to u⁴: truncation below 3e-9 relative.
    return u * (1.0 - u * (0.5 - u * (1.0 / 3.0 - u * 0.25)));
  }
  return log(1.0 + u);
}

fn online_first(z: f32) -> vec4f {
  return vec4f(z, 0.0, 0.0, 1.0);
}

// Adds one z to a non-empty state.
fn online_add(st: vec4f, z: f32) -> vec4f {
  if (z > st.x) {
    let d = st.x - z;
    let sc = exp(d);
    let s = 1.0 + st.y;
    return vec4f(z, s * sc, sc * (st.z + d * s), 1.0);
  }
  let d = z - st.x;
  let e = exp(d);
  return vec4f(st.x, st.y + e, st.z + e * d, 1.0);
}

// Merges two states; w = 0 marks an empty one (its m must not reach exp/mul).
fn online_merge(a0: vec4f, b0: vec4f) -> vec4f {
  if (b0.w == 0.0) { return a0; }
  if (a0.w == 0.0) { return b0; }
  var a = a0;
  var b = b0;
  if (b.x > a.x) { a = b0; b = a0; }
  let d = b.x - a.x;
  let e = exp(d);
  let sb = 1.0 + b.y;   // b's whole sum, its max included, relative to b.x
  return vec4f(a.x, a.y + sb * e, a.z + e * (b.z + d * sb), 1.0);
}

fn finish_row(row: u32, st: vec4f) {
  let lg = log1p(st.y);
  let tgt = targets[row];
  var lp = nan_from(tgt);   // an out-of-range target must be visible, not silently read another logit
  if (tgt < p.V) {
    // (z_t − m) first: exact for the max itself, so logp ≈ −u survives for peaked rows.
    lp = (logits[row * p.V + tgt] / p.temperature - st.x) - lg;
  }
  out_logp[row] = lp;
  out_entropy[row] = lg - st.z / (1.0 + st.y);
  out_lse[row] = st.x + lg;
}

// One invocation per row, no barriers: for small V (barriers are very expensive on CPU adapters).
@compute @workgroup_size(64)
fn logsoftmax_entropy_forward_rows(@builtin(global_invocation_id) gid: vec3u) {
  let row = flat_index(gid, WG);
  if (row >= p.n) { return; }
  let base = row * p.V;
  var st = online_first(logits[base] / p.temperature);
  for (var j = 1u; j < p.V; j++) {
    st = online_add(st, logits[base + j] / p.temperature);
  }
  finish_row(row, st);
}

var<workgroup> red: array<vec4f, WG_ROW>;

// One workgroup per row: strided online pass per invocation, then a tree merge in workgroup memory.
@compute @workgroup_size(256)
fn logsoftmax_entropy_forward_wg(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * p.row_groups + wid.x;
  if (row >= p.n) { return; }   // uniform per workgroup, so the barriers below stay uniform
  let base = row * p.V;
  var st = vec4f(0.0);   // empty
  if (lid < p.V) {
    st = online_first(logits[base + lid] / p.temperature);
    for (var j = lid + WG_ROW; j < p.V; j += WG_ROW) {
      st = online_add(st, logits[base + j] / p.temperature);
    }
  }
  red[lid] = st;
  workgroupBarrier();
  for (var stride = WG_ROW / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      red[lid] = online_merge(red[lid], red[lid + stride]);
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    finish_row(row, red[0]);
  }
}

// dz_j = dlogp·(δ_{j,target} − p_j) − dent·p_j·(log p_j + H); dlogits = dz/τ. One invocation per logit.
@compute @workgroup_size(64)
fn logsoftmax_entropy_backward(@builtin(global_invocation_id) gid: vec3u) {
  let i = flat_index(gid, WG);
  if (i >= p.n) { return; }
  let row = i / p.V;
  let j = i - row * p.V;
  let lp = logits[i] / p.temperature - saved_lse[row];
  let pj = exp(lp);
  let g = up_dlogp[row];
  var dz = -g * pj - up_dent[row] * pj * (lp + saved_entropy[row]);
  if (j == targets[row]) { dz += g; }
  dlogits[i] = dz / p.temperature;
}

// ---------------------------------------------------------------------------------------------
// GRPO token loss. Per token, scratch[k·N + i] holds its contribution to statistic k; the
// reduction below sums those in a fixed order.
// ---------------------------------------------------------------------------------------------

// e^d − 1 − d without the cancellation of the direct form near d = 0 (k3 for small KL deltas).
fn exp_m1_minus_x(d: f32) -> f32 {
  if (abs(d) >= 0.5) {
    return exp(d) - 1.0 - d;
  }
  // Taylor series to d^10: truncation below 1e-8 relative for |d| < 0.5.
  var s = 1.0 / 3628800.0;
  s = s * d + 1.0 / 362880.0;
  s = s * d + 1.0 / 40320.0;
  s = s * d + 1.0 / 5040.0;
  s = s * d + 1.0 / 720.0;
  s = s * d + 1.0 / 120.0;
  s = s * d + 1.0 / 24.0;
  s = s * d + 1.0 / 6.0;
  s = s * d + 0.5;
  return s * d * d;
}

fn put(k: u32, i: u32, v: f32) {
  scratch[k * p.tokens + i] = v;
}

@compute @workgroup_size(64)
fn grpo_token(@builtin(global_invocation_id) gid: vec3u) {
  let i = flat_index(gid, WG);
  if (i >= p.n) { return; }
  let w = weights[i];
  let A = advantages[i];
  let lp = tok_logp[i];
  let old = old_logp[i];
  let counted = mask[i] != 0.0;
  // Zero-weight tokens contribute exactly 0 even where their (unused) log-probs overflow the ratio.
  let live = w != 0.0;

  let r = exp(lp - old);
  let rc = clamp(r, 1.0 - p.eps_low, 1.0 + p.eps_high);
  let pg1 = -A * r;
  let pg2 = -A * rc;
  let clipped = pg2 > pg1;
  var pg = max(pg1, pg2);
  // The clipped branch is constant in logp; ties take the unclipped branch (gradient −A·r).
  var gpg = select(-A * r, 0.0, clipped);
  var dual = false;
  if (p.use_dual != 0u && A < 0.0) {
    let pg3 = -A * p.dual_clip;
    if (pg3 < pg) {
      pg = pg3;
      gpg = 0.0;
      dual = true;
    }
  }

  var kl = 0.0;
  var gkl = 0.0;
  let rl = ref_logp[i];
  if (p.use_kl != 0u) {
    if (p.kl_type == 0u) {
      kl = lp - rl;
      gkl = 1.0;
    } else {
      let d = rl - lp;
      let k3 = exp_m1_minus_x(d);
      kl = k3;
      gkl = -(d + k3);   // 1 − e^d
      if (p.kl_type == 2u && (k3 < -10.0 || k3 > 10.0)) {
        kl = clamp(k3, -10.0, 10.0);
        gkl = 0.0;
      }
    }
  }

  dlogp[i] = select(0.0, w * (gpg + p.kl_coef * gkl), live);
  // Slot 0 gets −α·w·H added by grpo_entropy; slot 3 is written there.
  put(0u, i, select(0.0, w * (pg + p.kl_coef * kl), live));
  put(1u, i, select(0.0, w * pg, live));
  put(2u, i, select(0.0, w * kl, live));
  put(4u, i, select(0.0, 1.0, counted && clipped));
  put(5u, i, select(0.0, 1.0, counted && dual));
  put(6u, i, select(0.0, old - lp, counted));
  put(7u, i, select(0.0, 1.0, counted));
}

// Entropy bonus: dent = −α·w; its loss and Σ w·H contributions. Separate from grpo_token only
// because one entry may bind at most 8 storage buffers.
@compute @workgroup_size(64)
fn grpo_entropy(@builtin(global_invocation_id) gid: vec3u) {
  let i = flat_index(gid, WG);
  if (i >= p.n) { return; }
  let w = weights[i];
  let wh = select(0.0, w * entropy[i], w != 0.0);
  dent[i] = -w * p.ent_coef;
  put(0u, i, scratch[i] - p.ent_coef * wh);
  put(3u, i, wh);
}

// Supervised cross-entropy on chosen tokens: ℓ = −w·logp.
@compute @workgroup_size(64)
fn ce_token(@builtin(global_invocation_id) gid: vec3u) {
  let i = flat_index(gid, WG);
  if (i >= p.n) { return; }
  let w = weights[i];
  dlogp[i] = -w;
  dent[i] = 0.0;
  put(0u, i, select(0.0, -w * tok_logp[i], w != 0.0));
  for (var k = 1u; k < 7u; k++) { put(k, i, 0.0); }
  put(7u, i, select(0.0, 1.0, mask[i] != 0.0));
}

// Stage 1: invocation (k, c) sums statistic k over tokens [c·chunk, (c+1)·chunk) in order.
@compute @workgroup_size(64)
fn reduce_partials(@builtin(global_invocation_id) gid: vec3u) {
  let t = flat_index(gid, WG);
  if (t >= p.n) { return; }   // n = STATS · chunks
  let k = t / p.chunks;
  let c = t - k * p.chunks;
  let start = c * p.chunk;
  let stop = min(start + p.chunk, p.tokens);
  var s = 0.0;
  for (var i = start; i < stop; i++) {
    s += scratch[k * p.tokens + i];
  }
  scratch[STATS * p.tokens + t] = s;
}

// Stage 2: invocation k sums statistic k's partials in order (workgroup size = STATS: no guard needed).
@compute @workgroup_size(8)
fn reduce_final(@builtin(local_invocation_index) k: u32) {
  var s = 0.0;
  let base = STATS * p.tokens + k * p.chunks;
  for (var c = 0u; c < p.chunks; c++) {
    s += scratch[base + c];
  }
  stats[k] = s;
}
