// Matrix multiply family: out[M×N] (+)= op(A)·op(B) (+ bias[N]), and the bias gradient
// dbias[c] (+)= Σ_r dout[r, c].
//
// Two variants compute the same thing (WEBGPU-ON-CPU.md explains why both exist):
//   blocked4x4 — each invocation keeps a 4×4 output block in registers and streams A/B
//                straight from storage: no workgroup memory, no barriers (fast on SwiftShader,
//                where a barrier costs ~15× more than on a GPU). Its `_vec4` entries read A/B
//                as vec4f when the layouts allow (≈1.5× faster there).
//   tiled64    — a 16×16 workgroup computes a 64×64 output tile, staging 64×16 K-slices of
//                A and B in workgroup memory (fast on real GPUs).
// The runtime times both once and picks one (src/gpu/kernels/matmul.ts).
//
// Layouts (row-major): A is M×K, or K×M when transposed; B is K×N, or N×K when transposed;
// out is M×N.
// Each variant has a `_bias` entry point so that a launch without bias binds no bias buffer.

struct Params {
  M: u32,     // rows of out (bias_grad: rows of dout)
  N: u32,     // columns of out (bias_grad: columns of dout)
  K: u32,     // reduction length
  flags: u32, // FLAG_* bits
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;

// The layout/accumulate switches are uniform flags, not override constants: they only steer
// index setup and the epilogue (never the inner loop), and SwiftShader spends ~1 s compiling
// each tiled64 pipeline, so 8 constant combinations per entry would cost seconds at start-up.
const FLAG_TRANS_A: u32 = 1u;
const FLAG_TRANS_B: u32 = 2u;
// out += result instead of out = result (gradient accumulation).
const FLAG_ACCUMULATE: u32 = 4u;

fn flag(f: u32) -> bool { return (p.flags & f) != 0u; }

// Writes the in-range part of a 4×4 block: rows row0 + r·rstep, columns col0 + c·cstep.
fn store_block(row0: u32, rstep: u32, col0: u32, cstep: u32, acc: array<vec4f, 4>, bias4: vec4f) {
  let accumulate = flag(FLAG_ACCUMULATE);
  for (var r = 0u; r < 4u; r++) {
    let row = row0 + r * rstep;
    if (row >= p.M) { break; }
    for (var c = 0u; c < 4u; c++) {
      let col = col0 + c * cstep;
      if (col >= p.N) { break; }
      let idx = row * p.N + col;
      var v = acc[r][c] + bias4[c];
      if (accumulate) { v += out[idx]; }
      out[idx] = v;
    }
  }
}

// Bias for the 4 columns col0 + c·cstep (clamped: out-of-range columns are never stored).
fn load_bias4(col0: u32, cstep: u32) -> vec4f {
  let last = p.N - 1u;
  return vec4f(bias[min(col0, last)], bias[min(col0 + cstep, last)],
               bias[min(col0 + 2u * cstep, last)], bias[min(col0 + 3u * cstep, last)]);
}

// ---------------------------------------------------------------------------------------------
// blocked4x4: 8×8 invocations, each a contiguous 4×4 block → 32×32 outputs per workgroup.
// ---------------------------------------------------------------------------------------------

const BLOCK_WG: u32 = 8u;

fn blocked_block(row0: u32, col0: u32) -> array<vec4f, 4> {
  // Out-of-range rows/columns are clamped to the last valid one so the K loop has no
  // branches; their results are discarded by store_block.
  let rows = min(vec4u(row0) + vec4u(0u, 1u, 2u, 3u), vec4u(p.M - 1u));
  let cols = min(vec4u(col0) + vec4u(0u, 1u, 2u, 3u), vec4u(p.N - 1u));
  var a_off: vec4u;
  var a_step: u32;
  if (flag(FLAG_TRANS_A)) { a_off = rows; a_step = p.M; } else { a_off = rows * p.K; a_step = 1u; }
  var b_off: vec4u;
  var b_step: u32;
  if (flag(FLAG_TRANS_B)) { b_off = cols * p.K; b_step = 1u; } else { b_off = cols; b_step = p.N; }

  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var k = 0u; k < p.K; k++) {
    let bv = vec4f(b[b_off.x], b[b_off.y], b[b_off.z], b[b_off.w]);
    acc0 += a[a_off.x] * bv;
    acc1 += a[a_off.y] * bv;
    acc2 += a[a_off.z] * bv;
    acc3 += a[a_off.w] * bv;
    a_off += vec4u(a_step);
    b_off += vec4u(b_step);
  }
  return array<vec4f, 4>(acc0, acc1, acc2, acc3);
}

@compute @workgroup_size(BLOCK_WG, BLOCK_WG)
fn blocked4x4(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  if (row0 >= p.M || col0 >= p.N) { return; }
  store_block(row0, 1u, col0, 1u, blocked_block(row0, col0), vec4f(0.0));
}

@compute @workgroup_size(BLOCK_WG, BLOCK_WG)
fn blocked4x4_bias(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  if (row0 >= p.M || col0 >= p.N) { return; }
  store_block(row0, 1u, col0, 1u, blocked_block(row0, col0), load_bias4(col0, 1u));
}

// blocked4x4, vec4 path: the same 4×4 blocks, loading A and B as vec4f (≈1.5× faster on
// SwiftShader). Used when every vector read is whole and 16-byte aligned: the dimension along
// which each operand is contiguous (K for untransposed A / transposed B, M for transposed A,
// N for untransposed B) is a multiple of 4. The builder checks this; a4/b4 alias bindings 1/2.
@group(0) @binding(1) var<storage, read> a4: array<vec4f>;
@group(0) @binding(2) var<storage, read> b4: array<vec4f>;

fn blocked_block_vec4(row0: u32, col0: u32) -> array<vec4f, 4> {
  let trans_a = flag(FLAG_TRANS_A);
  let trans_b = flag(FLAG_TRANS_B);
  // Clamped like the scalar path; along a multiple-of-4 dimension the block is never partial.
  let rows = min(vec4u(row0) + vec4u(0u, 1u, 2u, 3u), vec4u(p.M - 1u));
  let cols = min(vec4u(col0) + vec4u(0u, 1u, 2u, 3u), vec4u(p.N - 1u));
  let k4 = p.K / 4u;
  let m4 = p.M / 4u;
  let n4 = p.N / 4u;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  // Four loops, one per layout pair, chosen outside the loop (the flags are uniform).
  if (!trans_a && trans_b) {
    // A rows and B rows both run along K: 4×4 dot products of K-quads.
    let a_off = rows * k4;
    let b_off = cols * k4;
    for (var k = 0u; k < k4; k++) {
      let b0 = b4[b_off.x + k];
      let b1 = b4[b_off.y + k];
      let b2 = b4[b_off.z + k];
      let b3 = b4[b_off.w + k];
      let a0 = a4[a_off.x + k];
      let a1 = a4[a_off.y + k];
      let a2 = a4[a_off.z + k];
      let a3 = a4[a_off.w + k];
      acc0 += vec4f(dot(a0, b0), dot(a0, b1), dot(a0, b2), dot(a0, b3));
      acc1 += vec4f(dot(a1, b0), dot(a1, b1), dot(a1, b2), dot(a1, b3));
      acc2 += vec4f(dot(a2, b0), dot(a2, b1), dot(a2, b2), dot(a2, b3));
      acc3 += vec4f(dot(a3, b0), dot(a3, b1), dot(a3, b2), dot(a3, b3));
    }
  } else if (!trans_a) {
    // A along K, B along N: each A quad scales four B row-quads.
    let a_off = rows * k4;
    var b_off = col0 / 4u;
    for (var k = 0u; k < k4; k++) {
      let b0 = b4[b_off];
      let b1 = b4[b_off + n4];
      let b2 = b4[b_off + 2u * n4];
      let b3 = b4[b_off + 3u * n4];
      let a0 = a4[a_off.x + k];
      let a1 = a4[a_off.y + k];
      let a2 = a4[a_off.z + k];
      let a3 = a4[a_off.w + k];
      acc0 += a0.x * b0 + a0.y * b1 + a0.z * b2 + a0.w * b3;
      acc1 += a1.x * b0 + a1.y * b1 + a1.z * b2 + a1.w * b3;
      acc2 += a2.x * b0 + a2.y * b1 + a2.z * b2 + a2.w * b3;
      acc3 += a3.x * b0 + a3.y * b1 + a3.z * b2 + a3.w * b3;
      b_off += 4u * n4;
    }
  } else if (!trans_b) {
    // A along M, B along N: one outer product per k (K needs no alignment here).
    var a_off = row0 / 4u;
    var b_off = col0 / 4u;
    for (var k = 0u; k < p.K; k++) {
      let av = a4[a_off];
      let bv = b4[b_off];
      acc0 += av.x * bv;
      acc1 += av.y * bv;
      acc2 += av.z * bv;
      acc3 += av.w * bv;
      a_off += m4;
      b_off += n4;
    }
  } else {
    // A along M, B along K: accumulate output columns, transposed to rows below.
    var a_off = row0 / 4u;
    let b_off = cols * k4;
    for (var k = 0u; k < k4; k++) {
      let a0 = a4[a_off];
      let a1 = a4[a_off + m4];
      let a2 = a4[a_off + 2u * m4];
      let a3 = a4[a_off + 3u * m4];
      let b0 = b4[b_off.x + k];
      let b1 = b4[b_off.y + k];
      let b2 = b4[b_off.z + k];
      let b3 = b4[b_off.w + k];
      acc0 += a0 * b0.x + a1 * b0.y + a2 * b0.z + a3 * b0.w;
      acc1 += a0 * b1.x + a1 * b1.y + a2 * b1.z + a3 * b1.w;
      acc2 += a0 * b2.x + a1 * b2.y + a2 * b2.z + a3 * b2.w;
      acc3 += a0 * b3.x + a1 * b3.y + a2 * b3.z + a3 * b3.w;
      a_off += 4u * m4;
    }
    let t = transpose(mat4x4f(acc0, acc1, acc2, acc3));
    return array<vec4f, 4>(t[0], t[1], t[2], t[3]);
  }
  return array<vec4f, 4>(acc0, acc1, acc2, acc3);
}

@compute @workgroup_size(BLOCK_WG, BLOCK_WG)
fn blocked4x4_vec4(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  if (row0 >= p.M || col0 >= p.N) { return; }
  store_block(row0, 1u, col0, 1u, blocked_block_vec4(row0, col0), vec4f(0.0));
}

@compute @workgroup_size(BLOCK_WG, BLOCK_WG)
fn blocked4x4_vec4_bias(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  if (row0 >= p.M || col0 >= p.N) { return; }
  store_block(row0, 1u, col0, 1u, blocked_block_vec4(row0, col0), load_bias4(col0, 1u));
}

// ---------------------------------------------------------------------------------------------
// tiled64: 16×16 invocations, 64×64 outputs per workgroup; invocation (tx, ty) owns rows
// ty + 16r and columns tx + 16c, so neighbouring invocations touch neighbouring addresses.
// ---------------------------------------------------------------------------------------------

const TILE: u32 = 64u;
const TILE_K: u32 = 16u;
// Row pitch 65 (not 64): the K-contiguous loads write a column of the tile, and an odd pitch
// spreads those writes over different banks.
const PITCH: u32 = 65u;

var<workgroup> a_tile: array<f32, 1040>; // [TILE_K][PITCH], element (k, m)
var<workgroup> b_tile: array<f32, 1040>; // [TILE_K][PITCH], element (k, n)

fn tiled_block(lid: vec3u, wid: vec3u) -> array<vec4f, 4> {
  let t = lid.y * 16u + lid.x;
  let row_base = wid.y * TILE;
  let col_base = wid.x * TILE;
  let trans_a = flag(FLAG_TRANS_A);
  let trans_b = flag(FLAG_TRANS_B);
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  // K is uniform, so every invocation runs the same number of tiles and reaches each barrier.
  for (var k0 = 0u; k0 < p.K; k0 += TILE_K) {
    // Each invocation stages 4 of the 1024 elements of each tile; the element order follows
    // the stored layout so consecutive invocations read consecutive addresses.
    for (var q = 0u; q < 4u; q++) {
      let e = t + q * 256u;
      var m: u32;
      var ka: u32;
      if (trans_a) { ka = e / TILE; m = e % TILE; } else { m = e / TILE_K; ka = e % TILE_K; }
      let gm = row_base + m;
      let gka = k0 + ka;
      var av = 0.0;
      if (gm < p.M && gka < p.K) {
        if (trans_a) { av = a[gka * p.M + gm]; } else { av = a[gm * p.K + gka]; }
      }
      a_tile[ka * PITCH + m] = av;

      var n: u32;
      var kb: u32;
      if (trans_b) { n = e / TILE_K; kb = e % TILE_K; } else { kb = e / TILE; n = e % TILE; }
      let gn = col_base + n;
      let gkb = k0 + kb;
      var bv = 0.0;
      if (gn < p.N && gkb < p.K) {
        if (trans_b) { bv = b[gn * p.K + gkb]; } else { bv = b[gkb * p.N + gn]; }
      }
      b_tile[kb * PITCH + n] = bv;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TILE_K; kk++) {
      let ab = kk * PITCH + lid.y;
      let bb = kk * PITCH + lid.x;
      let bv = vec4f(b_tile[bb], b_tile[bb + 16u], b_tile[bb + 32u], b_tile[bb + 48u]);
      acc0 += a_tile[ab] * bv;
      acc1 += a_tile[ab + 16u] * bv;
      acc2 += a_tile[ab + 32u] * bv;
      acc3 += a_tile[ab + 48u] * bv;
    }
    workgroupBarrier();
  }
  return array<vec4f, 4>(acc0, acc1, acc2, acc3);
}

@compute @workgroup_size(16, 16)
fn tiled64(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  let acc = tiled_block(lid, wid);
  store_block(wid.y * TILE + lid.y, 16u, wid.x * TILE + lid.x, 16u, acc, vec4f(0.0));
}

@compute @workgroup_size(16, 16)
fn tiled64_bias(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  let acc = tiled_block(lid, wid);
  let col0 = wid.x * TILE + lid.x;
  store_block(wid.y * TILE + lid.y, 16u, col0, 16u, acc, load_bias4(col0, 16u));
}

// ---------------------------------------------------------------------------------------------
// bias_grad: dbias[c] (+)= Σ_r dout[r, c]; dout (binding a) is M×N, dbias (binding out) is N.
// A 64×4 workgroup covers 64 columns; its 4 rows of invocations each sum every 4th row, then
// one barrier combines them (a single barrier per workgroup stays cheap on SwiftShader).
// ---------------------------------------------------------------------------------------------

const BG_COLS: u32 = 64u;
const BG_LANES: u32 = 4u;
var<workgroup> bg_partial: array<f32, 256>; // [BG_LANES][BG_COLS]

@compute @workgroup_size(BG_COLS, BG_LANES)
fn bias_grad(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  let col = wid.x * BG_COLS + lid.x;
  var s = 0.0;
  if (col < p.N) {
    for (var r = lid.y; r < p.M; r += BG_LANES) { s += a[r * p.N + col]; }
  }
  bg_partial[lid.y * BG_COLS + lid.x] = s;
  workgroupBarrier();
  if (lid.y == 0u && col < p.N) {
    var total = (bg_partial[lid.x] + bg_partial[BG_COLS + lid.x]) +
                (bg_partial[2u * BG_COLS + lid.x] + bg_partial[3u * BG_COLS + lid.x]);
    if (flag(FLAG_ACCUMULATE)) { total += out[col]; }
    out[col] = total;
  }
}
