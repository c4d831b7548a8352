// Grouped-query causal attention (Llama, Qwen2): training forward and backward (gathers, no atomics).
//
// q is [B·T, H, hd]; k and v are [B·T, Hkv, hd] (as the q/k/v projections write them); query head h
// reads kv head g = h / (H / Hkv). att[b,h,t,s] = softmax_s(q_t·k_s·scale) for s ≤ t, 0 for s > t
// (saved [B, H, T, T] for the backward); out [B·T, H, hd] = Σ_s att·v_s. Hkv = H is multi-head
// attention. The softmax is computed as in attention.wgsl: scores, e = exp(score − max), p = e·(1/Σe).

struct Params {
  B: u32,
  T: u32,
  H: u32,
  Hkv: u32,
  hd: u32,
  scale: f32,      // 1 / sqrt(hd)
  n: u32,          // invocations that do work
  row_groups: u32, // workgroups per grid row (x extent) of the folded 1-D launch
}

@group(0) @binding(0) var<uniform> p: Params;

const WG: u32 = 64u;

fn index(gid: vec3u) -> u32 {
  return gid.y * p.row_groups * WG + gid.x;
}

fn q_at(b: u32, t: u32, h: u32) -> u32 { return ((b * p.T + t) * p.H + h) * p.hd; }
fn kv_at(b: u32, t: u32, g: u32) -> u32 { return ((b * p.T + t) * p.Hkv + g) * p.hd; }

// ---- forward: one invocation per (b, h, t) query row; the row's att slice is its score scratch ----

@group(0) @binding(1) var<storage, read> f_q: array<f32>;
@group(0) @binding(2) var<storage, read> f_k: array<f32>;
@group(0) @binding(3) var<storage, read> f_v: array<f32>;
@group(0) @binding(4) var<storage, read_write> f_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> f_att: array<f32>;

@compute @workgroup_size(WG)
fn gqa_forward(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid); // (b·H + h)·T + t
  if (row >= p.n) { return; }
  let t = row % p.T;
  let bh = row / p.T;
  let h = bh % p.H;
  let b = bh / p.H;
  let g = h / (p.H / p.Hkv);
  let qo = q_at(b, t, h);
  let ao = row * p.T;
  var mx = -3.4e38;
  for (var s = 0u; s <= t; s++) {
    let ko = kv_at(b, s, g);
    var dot = 0.0;
    for (var i = 0u; i < p.hd; i++) { dot += f_q[qo + i] * f_k[ko + i]; }
    let score = dot * p.scale;
    f_att[ao + s] = score;
    mx = max(mx, score);
  }
  var sum = 0.0;
  for (var s = 0u; s <= t; s++) {
    let e = exp(f_att[ao + s] - mx);
    f_att[ao + s] = e;
    sum += e;
  }
  let inv = 1.0 / sum;
  for (var s = 0u; s <= t; s++) { f_att[ao + s] = f_att[ao + s] * inv; }
  for (var s = t + 1u; s < p.T; s++) { f_att[ao + s] = 0.0; }
  for (var i = 0u; i < p.hd; i++) {
    var acc = 0.0;
    for (var s = 0u; s <= t; s++) { acc += f_att[ao + s] * f_v[kv_at(b, s, g) + i]; }
    f_out[qo + i] = acc;
  }
}

// ---- backward 1: one invocation per (b, h, t) row ------------------------------------------------
// dpre[t,s] = att[t,s]·(dout_t·v_s − Σ_u att[t,u]·dout_t·v_u)·scale for s ≤ t (s > t never read).

@group(0) @binding(1) var<storage, read> s_dout: array<f32>;
@group(0) @binding(2) var<storage, read> s_v: array<f32>;
@group(0) @binding(3) var<storage, read> s_att: array<f32>;
@group(0) @binding(4) var<storage, read_write> s_dpre: array<f32>;

@compute @workgroup_size(WG)
fn gqa_backward_scores(@builtin(global_invocation_id) gid: vec3u) {
  let row = index(gid);
  if (row >= p.n) { return; }
  let t = row % p.T;
  let bh = row / p.T;
  let h = bh % p.H;
  let b = bh / p.H;
  let g = h / (p.H / p.Hkv);
  let qo = q_at(b, t, h);
  let ao = row * p.T;
  var weighted = 0.0;
  for (var s = 0u; s <= t; s++) {
    let vo = kv_at(b, s, g);
    var dot = 0.0;
    for (var i = 0u; i < p.hd; i++) { dot += s_dout[qo + i] * s_v[vo + i]; }
    s_dpre[ao + s] = dot; // datt until the weighted sum is known
    weighted += s_att[ao + s] * dot;
  }
  for (var s = 0u; s <= t; s++) {
    s_dpre[ao + s] = s_att[ao + s] * (s_dpre[ao + s] - weighted) * p.scale;
  }
}

// ---- backward 2: dq, one invocation per (b, t, h, i): dq = Σ_{s≤t} dpre[t,s]·k_s[i] ---------------

@group(0) @binding(1) var<storage, read> q_dpre: array<f32>;
@group(0) @binding(2) var<storage, read> q_k: array<f32>;
@group(0) @binding(3) var<storage, read_write> q_dq: array<f32>;

@compute @workgroup_size(WG)
fn gqa_backward_dq(@builtin(global_invocation_id) gid: vec3u) {
  let e = index(gid); // ((b·T + t)·H + h)·hd + i
  if (e >= p.n) { return; }
  let i = e % p.hd;
  let h = (e / p.hd) % p.H;
  let bt = e / (p.hd * p.H);
  let t = bt % p.T;
  let b = bt / p.T;
  let g = h / (p.H / p.Hkv);
  let ao = ((b * p.H + h) * p.T + t) * p.T;
  var acc = 0.0;
  for (var s = 0u; s <= t; s++) { acc += q_dpre[ao + s] * q_k[kv_at(b, s, g) + i]; }
  q_dq[e] = acc;
}

// ---- backward 3: dk and dv, one invocation per (b, s, g, i), summed over the group's query heads --
//   dk_s[i] = Σ_{h in g} Σ_{t≥s} dpre[h,t,s]·q_t[h,i],  dv_s[i] = Σ_{h in g} Σ_{t≥s} att[h,t,s]·dout_t[h,i]

@group(0) @binding(1) var<storage, read> kv_dpre: array<f32>;
@group(0) @binding(2) var<storage, read> kv_att: array<f32>;
@group(0) @binding(3) var<storage, read> kv_q: array<f32>;
@group(0) @binding(4) var<storage, read> kv_dout: array<f32>;
@group(0) @binding(5) var<storage, read_write> kv_dk: array<f32>;
@group(0) @binding(6) var<storage, read_write> kv_dv: array<f32>;

@compute @workgroup_size(WG)
fn gqa_backward_dkv(@builtin(global_invocation_id) gid: vec3u) {
  let e = index(gid); // ((b·T + s)·Hkv + g)·hd + i
  if (e >= p.n) { return; }
  let i = e % p.hd;
  let g = (e / p.hd) % p.Hkv;
  let bs = e / (p.hd * p.Hkv);
  let s = bs % p.T;
  let b = bs / p.T;
  let group = p.H / p.Hkv;
  var dk = 0.0;
  var dv = 0.0;
  for (var h = g * group; h < (g + 1u) * group; h++) {
    for (var t = s; t < p.T; t++) {
      let a = ((b * p.H + h) * p.T + t) * p.T + s;
      let qo = q_at(b, t, h) + i;
      dk += kv_dpre[a] * kv_q[qo];
      dv += kv_att[a] * kv_dout[qo];
    }
  }
  kv_dk[e] = dk;
  kv_dv[e] = dv;
}

// ---- decode: one new token per sequence against a KV cache ---------------------------------------
// Caches are [B, Tmax, Hkv, hd]; the new token is at position pos = state[0] (a u32 storage word, so
// a recorded dispatch replays at every position; p.T holds Tmax, p.n the invocations). A position
// ≥ Tmax writes nothing. gqa_cache_write stores its k and v ([B, Hkv, hd], after RoPE) at [b, pos];
// gqa_decode then computes, per (b, h), softmax over s ≤ pos of q·k_s·scale (scores kept in
// scratch [B, H, Tmax]) and out [B, H, hd] = Σ_s p_s·v_s: the same math as training row `pos`.

@group(0) @binding(6) var<storage, read> state: array<u32>;

@group(0) @binding(1) var<storage, read> w_k: array<f32>;
@group(0) @binding(2) var<storage, read> w_v: array<f32>;
@group(0) @binding(3) var<storage, read_write> w_kcache: array<f32>;
@group(0) @binding(4) var<storage, read_write> w_vcache: array<f32>;

@compute @workgroup_size(WG)
fn gqa_cache_write(@builtin(global_invocation_id) gid: vec3u) {
  let e = index(gid); // (b·Hkv + g)·hd + i
  if (e >= p.n || state[0] >= p.T) { return; }
  let per = p.Hkv * p.hd;
  let b = e / per;
  let c = (b * p.T + state[0]) * per + e % per;
  w_kcache[c] = w_k[e];
  w_vcache[c] = w_v[e];
}

@group(0) @binding(1) var<storage, read> d_q: array<f32>;
@group(0) @binding(2) var<storage, read> d_kcache: array<f32>;
@group(0) @binding(3) var<storage, read> d_vcache: array<f32>;
@group(0) @binding(4) var<storage, read_write> d_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> d_scores: array<f32>;

@compute @workgroup_size(WG)
fn gqa_decode(@builtin(global_invocation_id) gid: vec3u) {
  let bh = index(gid); // b·H + h
  if (bh >= p.n || state[0] >= p.T) { return; }
  let h = bh % p.H;
  let b = bh / p.H;
  let g = h / (p.H / p.Hkv);
  let qo = bh * p.hd;
  let so = bh * p.T;
  var mx = -3.4e38;
  for (var s = 0u; s <= state[0]; s++) {
    let ko = kv_at(b, s, g);
    var dot = 0.0;
    for (var i = 0u; i < p.hd; i++) { dot += d_q[qo + i] * d_kcache[ko + i]; }
    let score = dot * p.scale;
    d_scores[so + s] = score;
    mx = max(mx, score);
  }
  var sum = 0.0;
  for (var s = 0u; s <= state[0]; s++) {
    let e = exp(d_scores[so + s] - mx);
    d_scores[so + s] = e;
    sum += e;
  }
  let inv = 1.0 / sum;
  for (var i = 0u; i < p.hd; i++) {
    var acc = 0.0;
    for (var s = 0u; s <= state[0]; s++) { acc += d_scores[so + s] * inv * d_vcache[kv_at(b, s, g) + i]; }
    d_out[qo + i] = acc;
  }
}
