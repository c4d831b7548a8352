// Normalisation kernels: RMSNorm and LayerNorm (biased variance), forward and backward.
//
// Row passes use one invocation per row, looping over C: no workgroup memory and no barriers
// (barriers are very expensive on SwiftShader), and rows (B·T, up to ~100k) give plenty of
// parallelism on a real GPU. The 1-D row grid is folded into x/y like elementwise.wgsl.
//
// The weight/bias gradients are column sums over rows. Without float atomics they are a
// two-stage reduction: `*_partials` writes one partial sum per (row chunk, column) into a
// scratch buffer, then `*_finalize` adds the chunk sums of each column INTO dweight (and
// dbias): parameter gradients always accumulate, because the trainer zeroes them once per
// step. Chunk order is fixed, so the result is deterministic.

struct Params {
  rows: u32,       // number of rows (B·T)
  C: u32,          // row width
  row_groups: u32, // workgroups per grid row (x extent) of the folded 1-D launch
  n_chunks: u32,   // dweight partials: number of row chunks
  chunk_rows: u32, // dweight partials: rows per chunk
}

@group(0) @binding(0) var<uniform> p: Params;

// ε of the forward passes; a model's own (Qwen2's rms_norm_eps is 1e-6) is set as an override constant.
override EPS: f32 = 1e-5;
const WG: u32 = 64u;

// Backward row pass: true → dinp += gradient; false → dinp = gradient.
override ACCUMULATE: bool = false;

fn index(gid: vec3u) -> u32 {
  return gid.y * p.row_groups * WG + gid.x;
}

// ---- forward --------------------------------------------------------------------------------

@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read_write> mean_out: array<f32>;
@group(0) @binding(6) var<storage, read_write> rstd_out: array<f32>;

// out = inp · rstd · weight, rstd = 1/sqrt(mean(inp²) + eps)
@compute @workgroup_size(WG)
fn rmsnorm_forward(@builtin(global_invocation_id) gid: vec3u) {
  let r = index(gid);
  if (r >= p.rows) { return; }
  let base = r * p.C;
  var ss = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let x = inp[base + c];
    ss += x * x;
  }
  let s = 1.0 / sqrt(ss / f32(p.C) + EPS);
  rstd_out[r] = s;
  for (var c = 0u; c < p.C; c++) {
    out[base + c] = inp[base + c] * s * weight[c];
  }
}

// out = (inp − mean) · rstd · weight + bias, rstd = 1/sqrt(var + eps), var biased
@compute @workgroup_size(WG)
fn layernorm_forward(@builtin(global_invocation_id) gid: vec3u) {
  let r = index(gid);
  if (r >= p.rows) { return; }
  let base = r * p.C;
  var sum = 0.0;
  for (var c = 0u; c < p.C; c++) { sum += inp[base + c]; }
  let m = sum / f32(p.C);
  // Second pass over centred values: E[x²] − m² cancels badly in f32.
  var v = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let d = inp[base + c] - m;
    v += d * d;
  }
  let s = 1.0 / sqrt(v / f32(p.C) + EPS);
  mean_out[r] = m;
  rstd_out[r] = s;
  for (var c = 0u; c < p.C; c++) {
    out[base + c] = (inp[base + c] - m) * s * weight[c] + bias[c];
  }
}

// ---- backward: input gradient, one invocation per row ----------------------------------------

@group(0) @binding(1) var<storage, read> b_dout: array<f32>;
@group(0) @binding(2) var<storage, read> b_inp: array<f32>;
@group(0) @binding(3) var<storage, read> b_weight: array<f32>;
@group(0) @binding(4) var<storage, read> b_mean: array<f32>;
@group(0) @binding(5) var<storage, read> b_rstd: array<f32>;
@group(0) @binding(6) var<storage, read_write> b_dinp: array<f32>;

fn store_dinp(i: u32, g: f32) {
  if (ACCUMULATE) {
    b_dinp[i] = b_dinp[i] + g;
  } else {
    b_dinp[i] = g;
  }
}

// n = x·rstd, dn = dout·w: dx = rstd · (dn − n · mean(dn·n))
@compute @workgroup_size(WG)
fn rmsnorm_backward_rows(@builtin(global_invocation_id) gid: vec3u) {
  let r = index(gid);
  if (r >= p.rows) { return; }
  let base = r * p.C;
  let s = b_rstd[r];
  var dot = 0.0;
  for (var c = 0u; c < p.C; c++) {
    dot += b_dout[base + c] * b_weight[c] * b_inp[base + c];
  }
  let dot_mean = dot * s / f32(p.C);
  for (var c = 0u; c < p.C; c++) {
    let n = b_inp[base + c] * s;
    let dn = b_dout[base + c] * b_weight[c];
    store_dinp(base + c, s * (dn - n * dot_mean));
  }
}

// n = (x − mean)·rstd, dn = dout·w: dx = rstd · (dn − mean(dn) − n · mean(dn·n))
@compute @workgroup_size(WG)
fn layernorm_backward_rows(@builtin(global_invocation_id) gid: vec3u) {
  let r = index(gid);
  if (r >= p.rows) { return; }
  let base = r * p.C;
  let m = b_mean[r];
  let s = b_rstd[r];
  var dn_sum = 0.0;
  var dnn_sum = 0.0;
  for (var c = 0u; c < p.C; c++) {
    let n = (b_inp[base + c] - m) * s;
    let dn = b_dout[base + c] * b_weight[c];
    dn_sum += dn;
    dnn_sum += dn * n;
  }
  let dn_mean = dn_sum / f32(p.C);
  let dnn_mean = dnn_sum / f32(p.C);
  for (var c = 0u; c < p.C; c++) {
    let n = (b_inp[base + c] - m) * s;
    let dn = b_dout[base + c] * b_weight[c];
    store_dinp(base + c, s * (dn - dn_mean - n * dnn_mean));
  }
}

// ---- backward: weight/bias gradients, stage 1 (partial column sums per row chunk) -----------

@group(0) @binding(1) var<storage, read> w_dout: array<f32>;
@group(0) @binding(2) var<storage, read> w_inp: array<f32>;
@group(0) @binding(3) var<storage, read> w_mean: array<f32>;
@group(0) @binding(4) var<storage, read> w_rstd: array<f32>;
// rmsnorm: [n_chunks][C] dweight partials; layernorm: [2][n_chunks][C] (dweight, then dbias).
@group(0) @binding(5) var<storage, read_write> w_partials: array<f32>;

// One invocation per (chunk, column); consecutive invocations read consecutive columns.
@compute @workgroup_size(WG)
fn rmsnorm_weight_partials(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.n_chunks * p.C) { return; }
  let chunk = i / p.C;
  let c = i % p.C;
  let r0 = chunk * p.chunk_rows;
  let r1 = min(r0 + p.chunk_rows, p.rows);
  var dw = 0.0;
  for (var r = r0; r < r1; r++) {
    dw += w_dout[r * p.C + c] * w_inp[r * p.C + c] * w_rstd[r];
  }
  w_partials[i] = dw;
}

@compute @workgroup_size(WG)
fn layernorm_weight_partials(@builtin(global_invocation_id) gid: vec3u) {
  let i = index(gid);
  if (i >= p.n_chunks * p.C) { return; }
  let chunk = i / p.C;
  let c = i % p.C;
  let r0 = chunk * p.chunk_rows;
  let r1 = min(r0 + p.chunk_rows, p.rows);
  var dw = 0.0;
  var db = 0.0;
  for (var r = r0; r < r1; r++) {
    let d = w_dout[r * p.C + c];
    dw += d * (w_inp[r * p.C + c] - w_mean[r]) * w_rstd[r];
    db += d;
  }
  w_partials[i] = dw;
  w_partials[p.n_chunks * p.C + i] = db;
}

// ---- backward: weight/bias gradients, stage 2 (sum the chunks into the gradients) -----------

@group(0) @binding(1) var<storage, read> f_partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> f_dweight: array<f32>;
@group(0) @binding(3) var<storage, read_write> f_dbias: array<f32>;

@compute @workgroup_size(WG)
fn rmsnorm_weight_finalize(@builtin(global_invocation_id) gid: vec3u) {
  let c = index(gid);
  if (c >= p.C) { return; }
  var dw = 0.0;
  for (var k = 0u; k < p.n_chunks; k++) { dw += f_partials[k * p.C + c]; }
  f_dweight[c] = f_dweight[c] + dw;
}

@compute @workgroup_size(WG)
fn layernorm_weight_finalize(@builtin(global_invocation_id) gid: vec3u) {
  let c = index(gid);
  if (c >= p.C) { return; }
  var dw = 0.0;
  var db = 0.0;
  let off = p.n_chunks * p.C;
  for (var k = 0u; k < p.n_chunks; k++) {
    dw += f_partials[k * p.C + c];
    db += f_partials[off + k * p.C + c];
  }
  f_dweight[c] = f_dweight[c] + dw;
  f_dbias[c] = f_dbias[c] + db;
}
