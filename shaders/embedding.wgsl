// Embedding kernels: token + position embedding forward (training and KV-cache decoding) and
// backward. Token sequences are stored in rows of `token_stride` tokens (the model's context
// length); the first T of each row are used.
//
// A token id ≥ V (the number of wte rows) cannot occur in valid data; it contributes a zero
// token embedding instead of reading out of range, and is skipped by the backward pass.
//
// The backward pass is a gather (no float atomics): one invocation per (v, c) of dwte loops
// over all B·T positions and sums the ones whose token is v. That is V·C·B·T work — the same
// as the tied unembedding matmul — and deterministic.

struct Params {
  B: u32,
  T: u32,            // positions per sequence (forward/backward)
  C: u32,
  token_stride: u32, // tokens per stored sequence row, ≥ T
  row_groups: u32,   // workgroups per grid row (x extent) of the folded 1-D launch
  V: u32,            // backward: rows of dwte
}

@group(0) @binding(0) var<uniform> p: Params;

const WG: u32 = 256u;

fn index(gid: vec3u) -> u32 {
  return gid.y * p.row_groups * WG + gid.x;
}

// ---- forward ----------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> tokens: array<u32>;
@group(0) @binding(2) var<storage, read> wte: array<f32>;
@group(0) @binding(3) var<storage, read> wpe: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
// Decoding: state[0] is the current position, advanced on the GPU between replays.
@group(0) @binding(5) var<storage, read> state: array<u32>;

// wte[tok] + wpe[pos] for column c; out-of-range token or position contributes zero.
fn embed(tok: u32, pos: u32, c: u32) -> f32 {
  var x = 0.0;
  // Row counts come from the binding sizes: the forward builders are not told V.
  if (tok < arrayLength(&wte) / p.C) { x = wte[tok * p.C + c]; }
  if (pos < arrayLength(&wpe) / p.C) { x += wpe[pos * p.C + c]; }
  return x;
}

// out[(b·T + t)·C + c] = wte[tokens[b·token_stride + t]·C + c] + wpe[t·C + c]
@compute @workgroup_size(WG)
fn encoder_forward(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.B * p.T * p.C) { return; }
  let row = i / p.C;
  let c = i % p.C;
  let b = row / p.T;
  let t = row % p.T;
  out[i] = embed(tokens[b * p.token_stride + t], t, c);
}

// out[b·C + c] = wte[tokens[b·token_stride + pos]·C + c] + wpe[pos·C + c], pos = state[0]
@compute @workgroup_size(WG)
fn encoder_decode(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.B * p.C) { return; }
  let b = i / p.C;
  let c = i % p.C;
  let pos = state[0];
  // A position past the stored row would read the next sequence's tokens.
  var tok = 0xffffffffu;
  if (pos < p.token_stride) { tok = tokens[b * p.token_stride + pos]; }
  out[i] = embed(tok, pos, c);
}

// ---- backward (gather form; parameter gradients accumulate) -----------------------------------

@group(0) @binding(1) var<storage, read> g_dout: array<f32>;
@group(0) @binding(2) var<storage, read> g_tokens: array<u32>;
@group(0) @binding(3) var<storage, read_write> g_dwte: array<f32>;
@group(0) @binding(4) var<storage, read_write> g_dwpe: array<f32>;

// dwte[v·C + c] += Σ_{b,t : tokens[b·token_stride + t] = v} dout[(b·T + t)·C + c]
@compute @workgroup_size(WG)
fn encoder_backward_wte(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.V * p.C) { return; }
  let v = i / p.C;
  let c = i % p.C;
  var sum = 0.0;
  for (var b = 0u; b < p.B; b++) {
    for (var t = 0u; t < p.T; t++) {
      if (g_tokens[b * p.token_stride + t] == v) {
        sum += g_dout[(b * p.T + t) * p.C + c];
      }
    }
  }
  g_dwte[i] = g_dwte[i] + sum;
}

// dwpe[t·C + c] += Σ_b dout[(b·T + t)·C + c]
@compute @workgroup_size(WG)
fn encoder_backward_wpe(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.T * p.C) { return; }
  let t = i / p.C;
  let c = i % p.C;
  var sum = 0.0;
  for (var b = 0u; b < p.B; b++) {
    sum += g_dout[(b * p.T + t) * p.C + c];
  }
  g_dwpe[i] = g_dwpe[i] + sum;
}
