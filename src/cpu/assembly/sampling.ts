// Batched sampling with the decoding state machine (twin: src/model/reference/sampling.ts, whose
// token choice this reproduces: the same counter-based PCG draw uniformAt(seed, row, pos), the same
// top-p rule and inverse-CDF walk, computed in f64 like the twin). The reported log-prob and
// entropy are the loss head's f32 row statistics (src/cpu/assembly/loss.ts), so a sampled token's
// logp equals the training forward's logp for the same logits.
import { at } from './common';
import { rowEntropy, rowLogp, rowStats } from './loss';

export const SEQ_RUNNING: u32 = 0;
export const SEQ_ENDED: u32 = 1;
export const SEQ_TRUNCATED: u32 = 2;

/** PCG RXS-M-XS hash (Jarzynski & Olano 2020), a bijection on u32. */
@inline export function pcgHash(x: u32): u32 {
  const state = x * 747796405 + 2891336453;
  const word = ((state >>> ((state >>> 28) + 4)) ^ state) * 277803737;
  return (word >>> 22) ^ word;
}

/** Uniform in [0, 1) with 24 bits, a pure function of (seed, row, pos). */
export function uniformAt(seed: u32, row: u32, pos: u32): f64 {
  const h = pcgHash(pcgHash(pcgHash(seed) ^ row) ^ pos);
  return <f64>(h >>> 8) / 16777216.0;
}

/** Ranks before: higher logit, or equal logit and lower index. */
@inline function before(logits: usize, a: u32, b: u32): bool {
  const la = load<f32>(at(logits, <i32>a));
  const lb = load<f32>(at(logits, <i32>b));
  return la > lb || (la == lb && a < b);
}

/** Heap sort of idx[0..n) by `before` (a strict total order, so the result is unique). */
function sortByRank(logits: usize, idx: usize, n: i32): void {
  // Max-heap on "ranks later", so the sorted array ends in rank order.
  for (let start = (n >> 1) - 1; start >= 0; start--) siftDown(logits, idx, start, n);
  for (let end = n - 1; end > 0; end--) {
    const t = load<u32>(at(idx, 0));
    store<u32>(at(idx, 0), load<u32>(at(idx, end)));
    store<u32>(at(idx, end), t);
    siftDown(logits, idx, 0, end);
  }
}

function siftDown(logits: usize, idx: usize, start: i32, n: i32): void {
  let root = start;
  while (true) {
    let child = 2 * root + 1;
    if (child >= n) return;
    let c = load<u32>(at(idx, child));
    if (child + 1 < n) {
      const c2 = load<u32>(at(idx, child + 1));
      if (before(logits, c, c2)) {
        child++;
        c = c2;
      }
    }
    const r = load<u32>(at(idx, root));
    if (!before(logits, r, c)) return;
    store<u32>(at(idx, root), c);
    store<u32>(at(idx, child), r);
    root = child;
  }
}

// Sampler options block: f64 temperature, f64 topP, then u32 seed, maxResponseLength, eosId, padId.
/**
 * One decode step for sequences [b0, b1): logits [B×V] at position pos predict the token at pos+1.
 * seqs[b·4..] = [promptLen, responseLen, status, row]; still in the prompt → nothing; ended/truncated →
 * PAD (logp = entropy = 0); no room left → truncated; else sample, write token / logp / entropy at
 * pos+1, count it, and stop on EOS (ended) or at maxResponseLength / the end of the context.
 * scratch per thread: V f64 probabilities + V u32 indices + V bytes (kept flags), f64-aligned.
 */
export function sampleStep(logits: usize, tokens: usize, seqs: usize, sampleLogp: usize, sampleEntropy: usize, opts: usize, scratch: usize, V: i32, stride: i32, contextLength: i32, pos: i32, b0: i32, b1: i32): void {
  const temperature = load<f64>(opts);
  const topP = load<f64>(opts, 8);
  const seed = load<u32>(opts, 16);
  const maxResponse = load<u32>(opts, 20);
  const eosId = load<u32>(opts, 24);
  const padId = load<u32>(opts, 28);
  const next = pos + 1;
  const p = scratch;
  const idx = scratch + (<usize>V << 3);
  const kept = idx + (<usize>V << 2);
  for (let b = b0; b < b1; b++) {
    const s = seqs + (<usize>b << 4);
    if (<u32>next < load<u32>(s)) continue;
    const atTok = b * stride + next;
    if (load<u32>(s, 8) != SEQ_RUNNING) {
      if (next < stride) {
        store<u32>(at(tokens, atTok), padId);
        store<f32>(at(sampleLogp, atTok), 0);
        store<f32>(at(sampleEntropy, atTok), 0);
      }
      continue;
    }
    if (next >= min(stride, contextLength)) {
      store<u32>(s, SEQ_TRUNCATED, 8);
      continue;
    }
    const row = at(logits, b * V);
    // p_j = exp(z_j − zmax)/S in f64, z = logit/τ.
    let zmax: f64 = -Infinity;
    for (let j = 0; j < V; j++) zmax = Math.max(zmax, <f64>load<f32>(at(row, j)) / temperature);
    let S: f64 = 0;
    for (let j = 0; j < V; j++) {
      const w = Math.exp(<f64>load<f32>(at(row, j)) / temperature - zmax);
      store<f64>(p + (<usize>j << 3), w);
      S += w;
    }
    for (let j = 0; j < V; j++) store<f64>(p + (<usize>j << 3), load<f64>(p + (<usize>j << 3)) / S);
    for (let j = 0; j < V; j++) store<u8>(kept + <usize>j, 1);
    if (topP < 1) {
      for (let j = 0; j < V; j++) store<u32>(at(idx, j), <u32>j);
      sortByRank(row, idx, V);
      let mass: f64 = 0;
      for (let k = 0; k < V; k++) {
        const j = load<u32>(at(idx, k));
        store<u8>(kept + <usize>j, mass < topP ? 1 : 0);
        mass += load<f64>(p + (<usize>j << 3));
      }
    }
    let total: f64 = 0;
    let lastKept = -1;
    for (let j = 0; j < V; j++) {
      if (load<u8>(kept + <usize>j)) {
        total += load<f64>(p + (<usize>j << 3));
        lastKept = j;
      }
    }
    const target = uniformAt(seed, load<u32>(s, 12), <u32>pos) * total;
    let token = lastKept;
    let cum: f64 = 0;
    for (let j = 0; j < V; j++) {
      if (!load<u8>(kept + <usize>j)) continue;
      cum += load<f64>(p + (<usize>j << 3));
      if (cum > target) {
        token = j;
        break;
      }
    }
    // logp / entropy: the loss head's f32 row statistics (p's memory is free again as scratch).
    rowStats(row, V, <f32>temperature, p);
    store<u32>(at(tokens, atTok), <u32>token);
    store<f32>(at(sampleLogp, atTok), rowLogp(row, <u32>token, <f32>temperature));
    store<f32>(at(sampleEntropy, atTok), rowEntropy());
    const responseLen = load<u32>(s, 4) + 1;
    store<u32>(s, responseLen, 4);
    if (<u32>token == eosId) store<u32>(s, SEQ_ENDED, 8);
    else if (responseLen >= maxResponse || next + 1 >= contextLength) store<u32>(s, SEQ_TRUNCATED, 8);
  }
}
