// Batched autoregressive sampling, all on the GPU: one workgroup per sequence turns the logits
// at position pos into the token at pos+1 (temperature, top-p), writes it with its log-prob and
// the τ-scaled distribution's entropy, and steps that sequence's state machine (prompt →
// running → ended / truncated → PAD). The PRNG is a stateless hash of (seed, row, pos) — row =
// seqs[b·4 + 3], the sequence's id, whatever slot b holds it — so a
// decode loop is a replay of recorded dispatches with no readback per token.
// Float64 twin (must pick identical tokens): src/model/reference/sampling.ts.

struct Params {
  B: u32,
  V: u32,
  token_stride: u32,
  context_length: u32,
  inv_tau: f32,
  top_p: f32,
  seed: u32,
  max_response: u32,
  eos_id: u32,
  pad_id: u32,
  use_top_p: u32,
  row_groups: u32,   // workgroups per grid row (B folded into x/y)
  positions: u32,    // prng_debug only: positions per sequence
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;          // [B × V]
@group(0) @binding(2) var<storage, read_write> tokens: array<u32>;    // [B × token_stride]
@group(0) @binding(3) var<storage, read_write> state: array<u32>;     // [0] = pos
@group(0) @binding(4) var<storage, read_write> seqs: array<u32>;      // [B × 4] promptLen, responseLen, status, 0
@group(0) @binding(5) var<storage, read_write> sample_logp: array<f32>;     // [B × token_stride]
@group(0) @binding(6) var<storage, read_write> sample_entropy: array<f32>;  // [B × token_stride]

// Threads per sequence, chosen from V by the builder: vocabularies here are small and idle
// invocations still cost a software adapter their share of every barrier.
override WG: u32 = 64u;
const NONE: u32 = 0xffffffffu;
const RUNNING: u32 = 0u;
const ENDED: u32 = 1u;
const TRUNCATED: u32 = 2u;

var<workgroup> go: u32;
var<workgroup> part_max: array<f32, WG>;
var<workgroup> part_sum: array<f32, WG>;
var<workgroup> part_dsum: array<f32, WG>;
var<workgroup> part_kept: array<f32, WG>;
var<workgroup> part_last: array<u32, WG>;

// PCG RXS-M-XS hash (Jarzynski & Olano 2020), a bijection on u32.
fn pcg_hash(x: u32) -> u32 {
  let s = x * 747796405u + 2891336453u;
  let word = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (word >> 22u) ^ word;
}

// Uniform in [0, 1) with 24 bits (exact in f32): a pure function of (seed, b, pos).
fn uniform01(seed: u32, b: u32, pos: u32) -> f32 {
  let h = pcg_hash(pcg_hash(pcg_hash(seed) ^ b) ^ pos);
  return f32(h >> 8u) * (1.0 / 16777216.0);
}

// Unnormalised probability exp(z − zmax) of a logit.
fn weight(l: f32, zmax: f32) -> f32 {
  return exp(l * p.inv_tau - zmax);
}

// weight of token j if top-p keeps it, else −1. Kept iff the mass of the tokens ranked before
// j (higher logit, or equal logit and lower index — the probability order for τ > 0, with ties
// exact) is < top_p_mass (= top_p · Σ weights). O(V) per token: fine for the small vocabularies
// this app trains; the early exit skips most of it for unlikely tokens.
fn kept_weight(base: u32, j: u32, zmax: f32, top_p_mass: f32) -> f32 {
  let lj = logits[base + j];
  let w = weight(lj, zmax);
  if (p.use_top_p == 0u) { return w; }
  var before = 0.0;
  for (var k = 0u; k < p.V; k = k + 1u) {
    let lk = logits[base + k];
    if (lk > lj || (lk == lj && k < j)) {
      before = before + weight(lk, zmax);
      if (before >= top_p_mass) { return -1.0; }
    }
  }
  return w;
}

// Thread 0's prologue: 1 if sequence b samples this step, else 0 (having written PAD or the
// truncated status where the state machine says so).
fn begin_step(b: u32) -> u32 {
  let next = state[0] + 1u;
  let s = b * 4u;
  if (next < seqs[s]) { return 0u; }  // still reading the prompt
  if (seqs[s + 2u] != RUNNING) {
    if (next < p.token_stride) {
      let at = b * p.token_stride + next;
      tokens[at] = p.pad_id;
      sample_logp[at] = 0.0;
      sample_entropy[at] = 0.0;
    }
    return 0u;
  }
  if (next >= min(p.token_stride, p.context_length)) {  // no room for another token
    seqs[s + 2u] = TRUNCATED;
    return 0u;
  }
  return 1u;
}

@compute @workgroup_size(WG)
fn sample_tokens(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let b = wid.y * p.row_groups + wid.x;
  if (b >= p.B) { return; }
  if (lid == 0u) { go = begin_step(b); }
  if (workgroupUniformLoad(&go) == 0u) { return; }

  let base = b * p.V;
  // Thread lid owns the contiguous tokens [lo, hi); partials are combined in thread order.
  let chunk = (p.V + WG - 1u) / WG;
  let lo = min(lid * chunk, p.V);
  let hi = min(lo + chunk, p.V);

  var mx = -3.0e38;
  for (var j = lo; j < hi; j = j + 1u) { mx = max(mx, logits[base + j]); }
  part_max[lid] = mx;
  workgroupBarrier();
  // Every thread folds the partials itself (same order → same value): saves a broadcast barrier.
  var max_logit = part_max[0];
  for (var t = 1u; t < WG; t = t + 1u) { max_logit = max(max_logit, part_max[t]); }
  let zmax = max_logit * p.inv_tau;

  var s = 0.0;
  var ds = 0.0;
  for (var j = lo; j < hi; j = j + 1u) {
    let d = logits[base + j] * p.inv_tau - zmax;
    let w = exp(d);
    s = s + w;
    ds = ds + w * d;
  }
  part_sum[lid] = s;
  part_dsum[lid] = ds;
  workgroupBarrier();
  var sum = 0.0;
  var dsum = 0.0;
  for (var t = 0u; t < WG; t = t + 1u) {
    sum = sum + part_sum[t];
    dsum = dsum + part_dsum[t];
  }
  let top_p_mass = p.top_p * sum;

  var kept = 0.0;
  var last = NONE;
  for (var j = lo; j < hi; j = j + 1u) {
    let w = kept_weight(base, j, zmax, top_p_mass);
    if (w >= 0.0) {
      kept = kept + w;
      last = j;
    }
  }
  part_kept[lid] = kept;
  part_last[lid] = last;
  workgroupBarrier();

  // Inverse-CDF walk over the kept weights in token order, distributed: prefix(t) = Σ_{s<t}
  // part_kept[s] is summed in the same order by every thread, so prefix(t+1) = prefix(t) +
  // part_kept[t] exactly and exactly one chunk has prefix ≤ u_mass < prefix + part_kept; its
  // owner's running sum (same additions as part_kept) is then sure to cross inside the chunk.
  var prefix = 0.0;
  var total = 0.0;
  var last_kept = NONE;
  for (var t = 0u; t < WG; t = t + 1u) {
    if (t == lid) { prefix = total; }
    total = total + part_kept[t];
    if (part_last[t] != NONE) { last_kept = part_last[t]; }
  }
  let pos = state[0];
  let u_mass = uniform01(p.seed, seqs[b * 4u + 3u], pos) * total;  // keyed by the row id, not the slot
  var x = NONE;
  if (prefix <= u_mass && u_mass < prefix + kept) {
    var local = 0.0;
    for (var j = lo; j < hi; j = j + 1u) {
      let w = kept_weight(base, j, zmax, top_p_mass);
      if (w >= 0.0) {
        local = local + w;
        if (prefix + local > u_mass) {
          x = j;
          break;
        }
      }
    }
  } else if (u_mass >= total && last_kept >= lo && last_kept < hi) {
    x = last_kept;  // u·total rounded up to total: the twin's fallback, the last kept token
  }
  if (x == NONE) { return; }  // another thread owns the pick

  let next = pos + 1u;
  let at = b * p.token_stride + next;
  let log_sum = log(sum);
  tokens[at] = x;
  sample_logp[at] = logits[base + x] * p.inv_tau - zmax - log_sum;
  sample_entropy[at] = log_sum - dsum / sum;
  let sq = b * 4u;
  let response_len = seqs[sq + 1u] + 1u;
  seqs[sq + 1u] = response_len;
  if (x == p.eos_id) {
    seqs[sq + 2u] = ENDED;
  } else if (response_len >= p.max_response || next + 1u >= p.context_length) {
    seqs[sq + 2u] = TRUNCATED;
  }
}

// state[0] += 1: replayed after every decode step.
@compute @workgroup_size(1)
fn advance_position() {
  _ = p.B;  // binding 0 is always bound by the runtime, so every entry must use it
  state[0] = state[0] + 1u;
}

// Test hook: sample_logp[b·positions + pos] = uniform01(seed, b, pos), for the PRNG twin check.
@compute @workgroup_size(WG)
fn prng_debug(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.y * p.row_groups * WG + gid.x;
  if (i >= p.B * p.positions) { return; }
  sample_logp[i] = uniform01(p.seed, i / p.positions, i % p.positions);
}
