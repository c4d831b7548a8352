// Rotary position embedding in Hugging Face's rotate_half convention (Llama, Qwen2), forward and
// backward. x is [rows = B·T, heads, hd]; row r is at position pos0 + r % T (pos0 > 0 when decoding
// after a prefix). With halves a = x[j], b = x[j + hd/2] (j < hd/2):
//   forward   a' = a·cos − b·sin,  b' = b·cos + a·sin
//   backward  the same with −sin (the rotation's transpose is its inverse)
// cos and sin come from tables [positions, hd/2] computed on the host in float64 (angles
// p·θ^(−2j/hd)): WGSL's sin/cos only promise 2^-11 absolute error, and large p·θ^… angles lose more.
// One invocation per (row, head, j); out may not alias x. `rope_rotate_state` takes pos0 from a u32
// storage word instead (decoding: the recorded dispatch replays at every position; a position past
// the tables writes nothing).

struct Params {
  n: u32,          // rows · heads · hd/2 invocations that do work
  row_groups: u32, // workgroups per grid row (x extent) of the folded 1-D launch
  T: u32,          // positions per sequence
  heads: u32,
  half: u32,       // hd / 2
  pos0: u32,       // position of each sequence's first row
  sign: f32,       // +1 forward, −1 backward
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> cos_table: array<f32>;
@group(0) @binding(3) var<storage, read> sin_table: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

@group(0) @binding(5) var<storage, read> state: array<u32>;

const WG: u32 = 64u;

@compute @workgroup_size(WG)
fn rope_rotate(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.y * p.row_groups * WG + gid.x;
  if (i >= p.n) { return; }
  rotate(i, p.pos0);
}

@compute @workgroup_size(WG)
fn rope_rotate_state(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.y * p.row_groups * WG + gid.x;
  if (i >= p.n || state[0] + p.T > arrayLength(&cos_table) / p.half) { return; }
  rotate(i, state[0]);
}

fn rotate(i: u32, pos0: u32) {
  let j = i % p.half;
  let rh = i / p.half; // row · heads + head
  let row = rh / p.heads;
  let pos = pos0 + row % p.T;
  let c = cos_table[pos * p.half + j];
  let s = p.sign * sin_table[pos * p.half + j];
  let base = rh * 2u * p.half;
  let a = x[base + j];
  let b = x[base + j + p.half];
  out[base + j] = a * c - b * s;
  out[base + j + p.half] = b * c + a * s;
}
