// The vocabulary side of a real model, visited in chunks of head rows so a [N, V] logits tensor never
// exists (at 152k vocabulary × 16k tokens it would be 9.3 GiB):
//   vocab_stats_chunk   folds one chunk's logits block [N, width] (hidden · head[c0 … c0+width)ᵀ, a
//                       matmul) into a running per-row state; the last chunk writes logp, entropy, lse
//   vocab_grad_chunk    ∂L/∂z of L = Σ c_t·logp_t + Σ e_t·H_t for one chunk, recomputed from its logits
//                       block and the saved lse and entropy:
//                       dz = c_t·(1[v = target] − p_v) − e_t·p_v·(log p_v + H_t)
//   vocab_sample_chunk  a second pass over the same chunks (after the stats pass at the same temperature):
//                       inverse-CDF sampling at temperature τ, the first id whose running Σ p exceeds u,
//                       u = uniform(seed, row, pos) as in sampling.wgsl (top-p is not chunked: 1 only)
//   embed_rows          token embedding from one part of a head/embedding split by rows (tables over
//                       maxStorageBufferBindingSize are held as several buffers of whole rows)
//
// The running state per row is (m, u, s, z_target) as in loss.wgsl's online pass: m the max so far,
// u = Σ_{z ≠ the max} e^{z−m}, s = Σ e^{z−m}·(z−m); then lse = m + log1p(u), H = log1p(u) − s/(1+u).
// Keeping the max's own 1 out of u keeps peaked rows accurate.

struct Params {
  n: u32,          // invocations that do work
  row_groups: u32, // workgroups per grid row (x extent) of the folded 1-D launch
  width: u32,      // head rows in this chunk (logits block columns)
  c0: u32,         // vocabulary id of the chunk's first row
  flags: u32,      // FIRST = 1 (start the state), LAST = 2 (write the results)
  d: u32,          // embed_rows: row width
  row0: u32,       // embed_rows: vocabulary id of the part's first row
  rows: u32,       // embed_rows: rows in the part
  inv_tau: f32,    // stats / sample: 1/τ (logits are scaled by it; the gradient pass needs τ = 1)
  seed: u32,       // sample: the PRNG seed
}

@group(0) @binding(0) var<uniform> p: Params;

const WG: u32 = 64u;
const FIRST: u32 = 1u;
const LAST: u32 = 2u;

fn index(gid: vec3u) -> u32 {
  return gid.y * p.row_groups * WG + gid.x;
}

// Quiet NaN; built from a runtime value because a constant NaN is a WGSL shader-creation error.
fn nan_from(x: u32) -> f32 {
  return bitcast<f32>(0x7fc00000u | (x & 0u));
}

fn log1p(u: f32) -> f32 {
  if (u < 1e-2) { return u * (1.0 - u * (0.5 - u * (1.0 / 3.0 - u * 0.25))); }
  return log(1.0 + u);
}

// ---- forward: one invocation per row ---------------------------------------------------------------

@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> state: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> out_logp: array<f32>;
@group(0) @binding(5) var<storage, read_write> out_entropy: array<f32>;
@group(0) @binding(6) var<storage, read_write> out_lse: array<f32>;

@compute @workgroup_size(WG)
fn vocab_stats_chunk(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid);
  if (row >= p.n) { return; }
  let base = row * p.width;
  let tgt = targets[row];
  var st: vec4f;
  var j0 = 0u;
  if ((p.flags & FIRST) != 0u) {
    let z0 = logits[base] * p.inv_tau;
    st = vec4f(z0, 0.0, 0.0, nan_from(tgt)); // a target in no chunk leaves logp NaN
    if (tgt == p.c0) { st.w = z0; }
    j0 = 1u;
  } else {
    st = state[row];
  }
  for (var j = j0; j < p.width; j++) {
    let z = logits[base + j] * p.inv_tau;
    if (tgt == p.c0 + j) { st.w = z; }
    if (z > st.x) {
      let dm = st.x - z;
      let sc = exp(dm);
      let sum = 1.0 + st.y;
      st = vec4f(z, sum * sc, sc * (st.z + dm * sum), st.w);
    } else {
      let dz = z - st.x;
      let e = exp(dz);
      st = vec4f(st.x, st.y + e, st.z + e * dz, st.w);
    }
  }
  if ((p.flags & LAST) != 0u) {
    let lg = log1p(st.y);
    out_logp[row] = (st.w - st.x) - lg;
    out_entropy[row] = lg - st.z / (1.0 + st.y);
    out_lse[row] = st.x + lg;
  } else {
    state[row] = st;
  }
}

// ---- sampling: one invocation per row, after the stats pass wrote lse -----------------------------
// state[row] = (running Σ p, chosen id + 1 or 0 for none yet (exact in f32 below 2^24), chosen z/τ, 0);
// pos = pos_state[0] keys the draw.

@group(0) @binding(7) var<storage, read> pos_state: array<u32>;
@group(0) @binding(8) var<storage, read_write> sampled: array<u32>;

// PCG RXS-M-XS hash and the 24-bit uniform of sampling.wgsl (the same draws for the same (seed, row, pos)).
fn pcg_hash(x: u32) -> u32 {
  let s = x * 747796405u + 2891336453u;
  let word = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (word >> 22u) ^ word;
}

fn uniform01(seed: u32, b: u32, pos: u32) -> f32 {
  let h = pcg_hash(pcg_hash(pcg_hash(seed) ^ b) ^ pos);
  return f32(h >> 8u) * (1.0 / 16777216.0);
}

@compute @workgroup_size(WG)
fn vocab_sample_chunk(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid);
  if (row >= p.n) { return; }
  var st = vec4f(0.0);
  if ((p.flags & FIRST) == 0u) { st = state[row]; }
  let lse = out_lse[row];
  if (st.y == 0.0) {
    let u = uniform01(p.seed, row, pos_state[0]);
    let base = row * p.width;
    for (var j = 0u; j < p.width; j++) {
      let z = logits[base + j] * p.inv_tau;
      st.x += exp(z - lse);
      st.z = z; // the last id visited: the pick when round-off leaves Σ p ≤ u
      if (st.x > u) {
        st.y = f32(p.c0 + j + 1u);
        break;
      }
    }
  }
  if ((p.flags & LAST) != 0u) {
    var id = p.c0 + p.width - 1u;
    if (st.y > 0.0) { id = u32(st.y) - 1u; }
    sampled[row] = id;
    out_logp[row] = st.z - lse;
  } else {
    state[row] = st;
  }
}

// ---- backward: one invocation per (row, column) of the chunk ---------------------------------------

@group(0) @binding(1) var<storage, read> g_logits: array<f32>;
@group(0) @binding(2) var<storage, read> g_targets: array<u32>;
@group(0) @binding(3) var<storage, read> g_lse: array<f32>;
@group(0) @binding(4) var<storage, read> g_entropy: array<f32>;
@group(0) @binding(5) var<storage, read> g_coef: array<f32>;
@group(0) @binding(6) var<storage, read> g_ent_coef: array<f32>;
@group(0) @binding(7) var<storage, read_write> g_dlogits: array<f32>;

@compute @workgroup_size(WG)
fn vocab_grad_chunk(@builtin(global_invocation_id) gid: vec3u) {
  let e = index(gid);
  if (e >= p.n) { return; }
  let row = e / p.width;
  let j = e % p.width;
  let lp = g_logits[e] - g_lse[row];
  let pr = exp(lp);
  var hit = 0.0;
  if (g_targets[row] == p.c0 + j) { hit = 1.0; }
  g_dlogits[e] = g_coef[row] * (hit - pr) - g_ent_coef[row] * pr * (lp + g_entropy[row]);
}

// ---- embedding rows from one part of a row-split table: one invocation per (token, channel) --------

@group(0) @binding(1) var<storage, read> e_tokens: array<u32>;
@group(0) @binding(2) var<storage, read> e_table: array<f32>;
@group(0) @binding(3) var<storage, read_write> e_out: array<f32>;

@compute @workgroup_size(WG)
fn embed_rows(@builtin(global_invocation_id) gid: vec3u) {
  let e = index(gid);
  if (e >= p.n) { return; }
  let tok = e_tokens[e / p.d];
  if (tok < p.row0 || tok >= p.row0 + p.rows) { return; } // another part holds this token's row
  e_out[e] = e_table[(tok - p.row0) * p.d + e % p.d];
}

// ---- embedding gradient into one part: one invocation per (distinct token, channel) ------------------
// The host groups positions by token (CSR: ids[u], positions[offsets[u] … offsets[u+1])), so the work
// is O(N·d) whatever V is, and each row of dtable is written by one invocation (no atomics):
//   dtable[id − row0] += Σ_k dout[positions[k]]

@group(0) @binding(1) var<storage, read> b_ids: array<u32>;
@group(0) @binding(2) var<storage, read> b_offsets: array<u32>;
@group(0) @binding(3) var<storage, read> b_positions: array<u32>;
@group(0) @binding(4) var<storage, read> b_dout: array<f32>;
@group(0) @binding(5) var<storage, read_write> b_dtable: array<f32>;

@compute @workgroup_size(WG)
fn embed_rows_backward(@builtin(global_invocation_id) gid: vec3u) {
  let e = index(gid);
  if (e >= p.n) { return; }
  let u = e / p.d;
  let c = e % p.d;
  let id = b_ids[u];
  if (id < p.row0 || id >= p.row0 + p.rows) { return; }
  var acc = 0.0;
  for (var k = b_offsets[u]; k < b_offsets[u + 1u]; k++) { acc += b_dout[b_positions[k] * p.d + c]; }
  let i = (id - p.row0) * p.d + c;
  b_dtable[i] = b_dtable[i] + acc;
}
