// Causal multi-head self-attention: training forward, training backward (two gather kernels,
// no atomics), and single-token decode against a KV cache.
//
// qkv rows are [q(C) | k(C) | v(C)]; head h uses channels h·hs..(h+1)·hs of each part.
// att[b,h,t,s] = softmax_s(q_t·k_s·scale) for s ≤ t, 0 for s > t; out[b,t,h·hs+i] = Σ_s att·v_s[i].
//
// Every kernel computes a softmax row the same way, so decode step `pos` is the same math as
// training row `pos`: scores = (q·k in channel order)·scale, e = exp(score − max),
// p = e · (1/Σe), out = Σ_s p_s·v_s.

struct Params {
  B: u32,
  T: u32,        // sequence length (training) or cache capacity Tmax (decode)
  C: u32,
  H: u32,
  hs: u32,       // head size C / H
  scale: f32,    // 1 / sqrt(hs)
  n: u32,        // invocations that do work (1-D grids)
  row_groups: u32, // workgroups per grid row (x extent), for 2-D folding
}

const WG: u32 = 64u;

fn index(gid: vec3u) -> u32 {
  return gid.y * p.row_groups * WG + gid.x;
}

@group(0) @binding(0) var<uniform> p: Params;

// ---------------------------------------------------------------------------------------------
// Training forward: one invocation per (b, h, t) query row. The row's att slice doubles as the
// score scratch (scores → exp → probabilities), so no private array bounds T.
// ---------------------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> fwd_qkv: array<f32>;
@group(0) @binding(2) var<storage, read_write> fwd_out: array<f32>;
@group(0) @binding(3) var<storage, read_write> fwd_att: array<f32>;

@compute @workgroup_size(WG)
fn attention_forward(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid); // ((b·H + h)·T + t)
  if (row >= p.n) { return; }
  let T = p.T;
  let C = p.C;
  let hs = p.hs;
  let C3 = 3u * C;
  let t = row % T;
  let bh = row / T;
  let h = bh % p.H;
  let b = bh / p.H;
  let q_off = (b * T + t) * C3 + h * hs;
  let k_base = b * T * C3 + C + h * hs;
  let v_base = b * T * C3 + 2u * C + h * hs;
  let a_off = row * T;

  var mx = -3.4e38;
  for (var s = 0u; s <= t; s++) {
    let k_off = k_base + s * C3;
    var dot = 0.0;
    for (var i = 0u; i < hs; i++) { dot += fwd_qkv[q_off + i] * fwd_qkv[k_off + i]; }
    let score = dot * p.scale;
    fwd_att[a_off + s] = score;
    mx = max(mx, score);
  }
  var sum = 0.0;
  for (var s = 0u; s <= t; s++) {
    let e = exp(fwd_att[a_off + s] - mx);
    fwd_att[a_off + s] = e;
    sum += e;
  }
  let inv = 1.0 / sum;
  for (var s = 0u; s <= t; s++) { fwd_att[a_off + s] = fwd_att[a_off + s] * inv; }
  // The masked upper triangle is part of the output: backward and callers read whole rows.
  for (var s = t + 1u; s < T; s++) { fwd_att[a_off + s] = 0.0; }

  let o_off = (b * T + t) * C + h * hs;
  for (var i = 0u; i < hs; i++) {
    var acc = 0.0;
    for (var s = 0u; s <= t; s++) { acc += fwd_att[a_off + s] * fwd_qkv[v_base + s * C3 + i]; }
    fwd_out[o_off + i] = acc;
  }
}

// ---------------------------------------------------------------------------------------------
// Training backward, step 1: one invocation per (b, h, t) row.
// datt_s = dout_t·v_s; dpreatt[t,s] = att[t,s]·(datt_s − Σ_u att[t,u]·datt_u)·scale for s ≤ t.
// (scale folded in here so step 2 is plain sums.) Entries s > t are neither written nor read.
// ---------------------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> bw1_dout: array<f32>;
@group(0) @binding(2) var<storage, read> bw1_qkv: array<f32>;
@group(0) @binding(3) var<storage, read> bw1_att: array<f32>;
@group(0) @binding(4) var<storage, read_write> bw1_dpre: array<f32>;

@compute @workgroup_size(WG)
fn attention_backward_scores(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid);
  if (row >= p.n) { return; }
  let T = p.T;
  let C = p.C;
  let hs = p.hs;
  let C3 = 3u * C;
  let t = row % T;
  let bh = row / T;
  let h = bh % p.H;
  let b = bh / p.H;
  let o_off = (b * T + t) * C + h * hs;
  let v_base = b * T * C3 + 2u * C + h * hs;
  let a_off = row * T;

  // dpre holds datt until the weighted sum is known.
  var weighted = 0.0;
  for (var s = 0u; s <= t; s++) {
    let v_off = v_base + s * C3;
    var dot = 0.0;
    for (var i = 0u; i < hs; i++) { dot += bw1_dout[o_off + i] * bw1_qkv[v_off + i]; }
    bw1_dpre[a_off + s] = dot;
    weighted += bw1_att[a_off + s] * dot;
  }
  for (var s = 0u; s <= t; s++) {
    bw1_dpre[a_off + s] = bw1_att[a_off + s] * (bw1_dpre[a_off + s] - weighted) * p.scale;
  }
}

// ---------------------------------------------------------------------------------------------
// Training backward, step 2: one invocation per (b, r, c) with c a channel (h = c / hs,
// d = c % hs), gathering every gradient that lands on position r:
//   dq[r,d] = Σ_{s≤r} dpre[r,s]·k[s,d]
//   dk[r,d] = Σ_{t≥r} dpre[t,r]·q[t,d]
//   dv[r,d] = Σ_{t≥r} att[t,r]·dout[t,d]
// Each element of dqkv is written exactly once, so no accumulation or zeroing is needed.
// ---------------------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> bw2_dout: array<f32>;
@group(0) @binding(2) var<storage, read> bw2_qkv: array<f32>;
@group(0) @binding(3) var<storage, read> bw2_att: array<f32>;
@group(0) @binding(4) var<storage, read> bw2_dpre: array<f32>;
@group(0) @binding(5) var<storage, read_write> bw2_dqkv: array<f32>;

@compute @workgroup_size(WG)
fn attention_backward_qkv(@builtin(global_invocation_id) gid: vec3u) {
  let idx = index(gid); // (b·T + r)·C + c
  if (idx >= p.n) { return; }
  let T = p.T;
  let C = p.C;
  let hs = p.hs;
  let C3 = 3u * C;
  let c = idx % C;
  let bt = idx / C;
  let r = bt % T;
  let b = bt / T;
  let h = c / hs;
  let att_base = (b * p.H + h) * T * T; // att[b,h,0,0]
  let seq = b * T * C3;                 // qkv row (b, 0)

  var dq = 0.0;
  let dpre_row = att_base + r * T;
  for (var s = 0u; s <= r; s++) { dq += bw2_dpre[dpre_row + s] * bw2_qkv[seq + s * C3 + C + c]; }

  var dk = 0.0;
  var dv = 0.0;
  for (var t = r; t < T; t++) {
    let a = att_base + t * T + r;
    dk += bw2_dpre[a] * bw2_qkv[seq + t * C3 + c];
    dv += bw2_att[a] * bw2_dout[(b * T + t) * C + c];
  }

  let o = seq + r * C3 + c;
  bw2_dqkv[o] = dq;
  bw2_dqkv[o + C] = dk;
  bw2_dqkv[o + 2u * C] = dv;
}

// ---------------------------------------------------------------------------------------------
// Decode: one workgroup per (b, h), one new token per sequence at position pos = state[0].
// Scores for positions 0..pos live in workgroup memory (the context is at most MAX_T).
// ---------------------------------------------------------------------------------------------

const MAX_T: u32 = 1024u; // = MAX_CONTEXT_LENGTH in src/model/config.ts

@group(0) @binding(1) var<storage, read> dec_qkv: array<f32>;
@group(0) @binding(2) var<storage, read_write> dec_kcache: array<f32>;
@group(0) @binding(3) var<storage, read_write> dec_vcache: array<f32>;
@group(0) @binding(4) var<storage, read_write> dec_out: array<f32>;
// read-only so that pos (and every loop bound derived from it) is uniform for the barriers.
@group(0) @binding(5) var<storage, read> dec_state: array<u32>;

var<workgroup> dec_scores: array<f32, MAX_T>;
var<workgroup> dec_partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn attention_decode(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let h = wid.x;
  let b = wid.y;
  let pos = dec_state[0];
  if (h >= p.H || b >= p.B || pos >= p.T) { return; }
  let C = p.C;
  let hs = p.hs;
  let C3 = 3u * C;
  let q_off = b * C3 + h * hs;
  let cache_base = b * p.T * C + h * hs; // cache[b, 0, h·hs]

  // 1. Append this token's k and v to the caches.
  for (var i = lid; i < hs; i += WG) {
    dec_kcache[cache_base + pos * C + i] = dec_qkv[q_off + C + i];
    dec_vcache[cache_base + pos * C + i] = dec_qkv[q_off + 2u * C + i];
  }
  storageBarrier();

  // 2. Scores over the cache, strided across the workgroup; per-thread max.
  var mx = -3.4e38;
  for (var s = lid; s <= pos; s += WG) {
    let k_off = cache_base + s * C;
    var dot = 0.0;
    for (var i = 0u; i < hs; i++) { dot += dec_qkv[q_off + i] * dec_kcache[k_off + i]; }
    let score = dot * p.scale;
    dec_scores[s] = score;
    mx = max(mx, score);
  }
  dec_partial[lid] = mx;
  workgroupBarrier();
  // Every thread reduces the WG partials itself: one barrier instead of a log2(WG) tree.
  mx = -3.4e38;
  for (var j = 0u; j < WG; j++) { mx = max(mx, dec_partial[j]); }
  workgroupBarrier(); // all reads of dec_partial done before it is reused for sums

  // 3. exp and per-thread sums.
  var sum = 0.0;
  for (var s = lid; s <= pos; s += WG) {
    let e = exp(dec_scores[s] - mx);
    dec_scores[s] = e;
    sum += e;
  }
  dec_partial[lid] = sum;
  workgroupBarrier();
  sum = 0.0;
  for (var j = 0u; j < WG; j++) { sum += dec_partial[j]; }
  let inv = 1.0 / sum;

  // 4. Weighted sum of values, one output channel per thread (strided).
  for (var i = lid; i < hs; i += WG) {
    var acc = 0.0;
    for (var s = 0u; s <= pos; s++) { acc += (dec_scores[s] * inv) * dec_vcache[cache_base + s * C + i]; }
    dec_out[b * C + h * hs + i] = acc;
  }
}
