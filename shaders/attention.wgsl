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

// ---------------------------------------------------------------------------------------------
// Decode, barrier-free: one invocation per (b, h, group of DEC_CHUNK output channels), each
// looping over the cache on its own (SwiftShader runs a workgroup's barriers as coroutine
// switches of every invocation, which made the workgroup variant ~100x slower there).
// Every invocation of a head recomputes the head's scores (hs-long dots, cheap next to a
// barrier). Invocations only write their own channels of cache row pos, so row pos is read
// from qkv rather than from the cache, which other invocations are writing concurrently.
// Measured there (B=16, pos=63, hs=16): workgroup ~20 ms, this 2-pass scalar ~9 ms, vec4 2-pass
// ~2.2 ms, vec4 online ~1.4 ms.
// ---------------------------------------------------------------------------------------------

const DEC_CHUNK: u32 = 4u;

fn decode_cached_score(q_off: u32, k_off: u32) -> f32 {
  var dot = 0.0;
  for (var i = 0u; i < p.hs; i++) { dot += dec_qkv[q_off + i] * dec_kcache[k_off + i]; }
  return dot * p.scale;
}

fn decode_new_score(q_off: u32) -> f32 {
  var dot = 0.0;
  for (var i = 0u; i < p.hs; i++) { dot += dec_qkv[q_off + i] * dec_qkv[q_off + p.C + i]; }
  return dot * p.scale;
}

@compute @workgroup_size(WG)
fn attention_decode_threads(@builtin(global_invocation_id) gid: vec3u) {
  let idx = index(gid); // (b·H + h)·chunks + j
  let pos = dec_state[0];
  if (idx >= p.n || pos >= p.T) { return; }
  let C = p.C;
  let hs = p.hs;
  let chunks = (hs + DEC_CHUNK - 1u) / DEC_CHUNK;
  let j = idx % chunks;
  let bh = idx / chunks;
  let h = bh % p.H;
  let b = bh / p.H;
  let q_off = b * 3u * C + h * hs;
  let cache_base = b * p.T * C + h * hs; // cache[b, 0, h·hs]
  // Channels i0..i0+3 of the head; lanes past hs read channel hs−1 and are never written.
  let i0 = j * DEC_CHUNK;
  let lane = min(vec4u(i0, i0 + 1u, i0 + 2u, i0 + 3u), vec4u(hs - 1u));
  let valid = min(DEC_CHUNK, hs - i0);

  let new_row = cache_base + pos * C;
  for (var k = 0u; k < valid; k++) {
    dec_kcache[new_row + i0 + k] = dec_qkv[q_off + C + i0 + k];
    dec_vcache[new_row + i0 + k] = dec_qkv[q_off + 2u * C + i0 + k];
  }

  // Online softmax: the running max m, Σ exp(score − m) and Σ exp(score − m)·v are rescaled
  // whenever m grows, so the cache is read once.
  let v_new = q_off + 2u * C;
  var mx = decode_new_score(q_off);
  var sum = 1.0;
  var acc = vec4f(dec_qkv[v_new + lane.x], dec_qkv[v_new + lane.y], dec_qkv[v_new + lane.z], dec_qkv[v_new + lane.w]);
  for (var s = 0u; s < pos; s++) {
    let row = cache_base + s * C;
    let score = decode_cached_score(q_off, row);
    let m2 = max(mx, score);
    let corr = exp(mx - m2);
    let e = exp(score - m2);
    sum = sum * corr + e;
    acc = acc * corr + e * vec4f(dec_vcache[row + lane.x], dec_vcache[row + lane.y], dec_vcache[row + lane.z], dec_vcache[row + lane.w]);
    mx = m2;
  }
  let result = acc * (1.0 / sum);
  let o = b * C + h * hs + i0;
  for (var k = 0u; k < valid; k++) { dec_out[o + k] = result[k]; }
}

// Decode, barrier-free, vec4 path: the same work as attention_decode_threads with q, k and v
// read as vec4f when hs (hence C) is a multiple of 4. dec4_* alias bindings 1–4.
@group(0) @binding(1) var<storage, read> dec4_qkv: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> dec4_kcache: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> dec4_vcache: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> dec4_out: array<vec4f>;

// Offsets below are in vec4s.
fn decode4_cached_score(q_off: u32, k_off: u32, hs4: u32) -> f32 {
  var acc = vec4f(0.0);
  for (var i = 0u; i < hs4; i++) { acc += dec4_qkv[q_off + i] * dec4_kcache[k_off + i]; }
  return (acc.x + acc.y + acc.z + acc.w) * p.scale;
}

fn decode4_new_score(q_off: u32, k_off: u32, hs4: u32) -> f32 {
  var acc = vec4f(0.0);
  for (var i = 0u; i < hs4; i++) { acc += dec4_qkv[q_off + i] * dec4_qkv[k_off + i]; }
  return (acc.x + acc.y + acc.z + acc.w) * p.scale;
}

@compute @workgroup_size(WG)
fn attention_decode_threads_vec4(@builtin(global_invocation_id) gid: vec3u) {
  let idx = index(gid); // (b·H + h)·hs4 + j
  let pos = dec_state[0];
  if (idx >= p.n || pos >= p.T) { return; }
  let C4 = p.C / 4u;
  let hs4 = p.hs / 4u;
  let j = idx % hs4;
  let bh = idx / hs4;
  let h = bh % p.H;
  let b = bh / p.H;
  let q_off = b * 3u * C4 + h * hs4;
  let k_new = q_off + C4;
  let v_new = q_off + 2u * C4;
  let cache_base = b * p.T * C4 + h * hs4;

  let new_row = cache_base + pos * C4;
  dec4_kcache[new_row + j] = dec4_qkv[k_new + j];
  dec4_vcache[new_row + j] = dec4_qkv[v_new + j];

  var mx = decode4_new_score(q_off, k_new, hs4);
  var sum = 1.0;
  var acc = dec4_qkv[v_new + j];
  for (var s = 0u; s < pos; s++) {
    let row = cache_base + s * C4;
    let score = decode4_cached_score(q_off, row, hs4);
    let m2 = max(mx, score);
    let corr = exp(mx - m2);
    let e = exp(score - m2);
    sum = sum * corr + e;
    acc = acc * corr + e * dec4_vcache[row + j];
    mx = m2;
  }
  dec4_out[b * C4 + h * hs4 + j] = acc * (1.0 / sum);
}

// ---------------------------------------------------------------------------------------------
// Training, vec4 paths (the builder uses them when hs, hence C, is a multiple of 4): the same
// math as the scalar entries above, with q/k/v/dout read as vec4f, and the weighted sums done
// per 4 channels so each att/dpre element is loaded once per 4 channels instead of once per
// channel. ~3x fewer loads, which is what these kernels spend their time on under SwiftShader.
// f4_* alias the f32 bindings of the scalar entries; offsets with a 4 suffix count vec4s.
// ---------------------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> fwd4_qkv: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> fwd4_out: array<vec4f>;

@compute @workgroup_size(WG)
fn attention_forward_vec4(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid); // ((b·H + h)·T + t)
  if (row >= p.n) { return; }
  let T = p.T;
  let C4 = p.C / 4u;
  let hs4 = p.hs / 4u;
  let C34 = 3u * C4;
  let t = row % T;
  let bh = row / T;
  let h = bh % p.H;
  let b = bh / p.H;
  let q4 = (b * T + t) * C34 + h * hs4;
  let k4_base = b * T * C34 + C4 + h * hs4;
  let v4_base = b * T * C34 + 2u * C4 + h * hs4;
  let a_off = row * T;

  var mx = -3.4e38;
  for (var s = 0u; s <= t; s++) {
    let k4 = k4_base + s * C34;
    var dot4 = vec4f(0.0);
    for (var i = 0u; i < hs4; i++) { dot4 += fwd4_qkv[q4 + i] * fwd4_qkv[k4 + i]; }
    let score = (dot4.x + dot4.y + dot4.z + dot4.w) * p.scale;
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
  for (var s = t + 1u; s < T; s++) { fwd_att[a_off + s] = 0.0; }

  let o4 = (b * T + t) * C4 + h * hs4;
  for (var i = 0u; i < hs4; i++) {
    var acc = vec4f(0.0);
    for (var s = 0u; s <= t; s++) { acc += fwd_att[a_off + s] * fwd4_qkv[v4_base + s * C34 + i]; }
    fwd4_out[o4 + i] = acc;
  }
}

@group(0) @binding(1) var<storage, read> bw14_dout: array<vec4f>;
@group(0) @binding(2) var<storage, read> bw14_qkv: array<vec4f>;

@compute @workgroup_size(WG)
fn attention_backward_scores_vec4(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid);
  if (row >= p.n) { return; }
  let T = p.T;
  let C4 = p.C / 4u;
  let hs4 = p.hs / 4u;
  let C34 = 3u * C4;
  let t = row % T;
  let bh = row / T;
  let h = bh % p.H;
  let b = bh / p.H;
  let o4 = (b * T + t) * C4 + h * hs4;
  let v4_base = b * T * C34 + 2u * C4 + h * hs4;
  let a_off = row * T;

  var weighted = 0.0;
  for (var s = 0u; s <= t; s++) {
    let v4 = v4_base + s * C34;
    var dot4 = vec4f(0.0);
    for (var i = 0u; i < hs4; i++) { dot4 += bw14_dout[o4 + i] * bw14_qkv[v4 + i]; }
    let dot = dot4.x + dot4.y + dot4.z + dot4.w;
    bw1_dpre[a_off + s] = dot;
    weighted += bw1_att[a_off + s] * dot;
  }
  for (var s = 0u; s <= t; s++) {
    bw1_dpre[a_off + s] = bw1_att[a_off + s] * (bw1_dpre[a_off + s] - weighted) * p.scale;
  }
}

@group(0) @binding(1) var<storage, read> bw24_dout: array<vec4f>;
@group(0) @binding(2) var<storage, read> bw24_qkv: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> bw24_dqkv: array<vec4f>;

// One invocation per (b, r, 4 channels c4..c4+3), all in one head.
@compute @workgroup_size(WG)
fn attention_backward_qkv_vec4(@builtin(global_invocation_id) gid: vec3u) {
  let idx = index(gid); // (b·T + r)·C4 + c4
  if (idx >= p.n) { return; }
  let T = p.T;
  let C4 = p.C / 4u;
  let C34 = 3u * C4;
  let c4 = idx % C4;
  let bt = idx / C4;
  let r = bt % T;
  let b = bt / T;
  let h = c4 / (p.hs / 4u);
  let att_base = (b * p.H + h) * T * T;
  let seq4 = b * T * C34;

  var dq = vec4f(0.0);
  let dpre_row = att_base + r * T;
  for (var s = 0u; s <= r; s++) { dq += bw2_dpre[dpre_row + s] * bw24_qkv[seq4 + s * C34 + C4 + c4]; }

  var dk = vec4f(0.0);
  var dv = vec4f(0.0);
  for (var t = r; t < T; t++) {
    let a = att_base + t * T + r;
    dk += bw2_dpre[a] * bw24_qkv[seq4 + t * C34 + c4];
    dv += bw2_att[a] * bw24_dout[(b * T + t) * C4 + c4];
  }

  let o = seq4 + r * C34 + c4;
  bw24_dqkv[o] = dq;
  bw24_dqkv[o + C4] = dk;
  bw24_dqkv[o + 2u * C4] = dv;
}
