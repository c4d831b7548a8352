// Loss head (twins in src/model/reference/ops.ts): token log-probs + entropy at temperature τ
// (forward, backward), the GRPO clipped token loss with entropy bonus and KL penalty, supervised
// cross-entropy, and the batch statistics block (same slots and gating as shaders/loss.wgsl):
//   stats[0..8] = [loss Σw·ℓ, pgLoss Σw·pg, klSum Σw·KL, entSum Σw·H, clipCount, clipLowerCount,
//                  ppoKlSum Σmask·(old − logp), maskCount]
import { at, exp1, exp4 } from './common';

/** log(1 + u) for u ≥ 0, accurate for small u (peaked rows). */
@inline function log1pf(u: f32): f32 {
  if (u < 1e-2) return u * (1.0 - u * (0.5 - u * (<f32>(1.0 / 3.0) - u * 0.25)));
  return Mathf.log(1.0 + u);
}

// Row statistics of z = logits/τ, with m = max z (first index attaining it is `arg`):
// u = Σ_{j≠arg} e^{z_j−m}, t = Σ_j e^{z_j−m}·(z_j−m). Then log Σe^{z−m} = log1p(u) and
// H = log1p(u) − t/(1+u); keeping the max's own 1 out of u keeps peaked rows accurate.
let rowMax: f32 = 0;
let rowU: f32 = 0;
let rowT: f32 = 0;

/** Fills rowMax / rowU / rowT for the row at `logits` (scratch: V floats for the exps). */
export function rowStats(logits: usize, V: i32, temperature: f32, scratch: usize): void {
  let m = load<f32>(logits) / temperature;
  let arg = 0;
  for (let j = 1; j < V; j++) {
    const z = load<f32>(at(logits, j)) / temperature;
    if (z > m) {
      m = z;
      arg = j;
    }
  }
  const tv = f32x4.splat(temperature);
  const mv = f32x4.splat(m);
  let j = 0;
  for (; j + 4 <= V; j += 4) v128.store(at(scratch, j), exp4(f32x4.sub(f32x4.div(v128.load(at(logits, j)), tv), mv)));
  for (; j < V; j++) store<f32>(at(scratch, j), exp1(load<f32>(at(logits, j)) / temperature - m));
  let u: f32 = 0;
  let t: f32 = 0;
  for (let k = 0; k < V; k++) {
    const e = load<f32>(at(scratch, k));
    const d = load<f32>(at(logits, k)) / temperature - m;
    if (k != arg) u += e;
    t += e * d;
  }
  rowMax = m;
  rowU = u;
  rowT = t;
}

/** log π(target) of the last rowStats row. */
@inline export function rowLogp(logits: usize, target: u32, temperature: f32): f32 {
  return (load<f32>(at(logits, <i32>target)) / temperature - rowMax) - log1pf(rowU);
}

@inline export function rowEntropy(): f32 {
  return log1pf(rowU) - rowT / (1.0 + rowU);
}

/**
 * Rows [r0, r1): logp[r] = z[target] − logsumexp(z), entropy[r] = −Σ p·log p. lse[r] saves
 * logsumexp(z) − max(z) = log1p(u) for the backward (not logsumexp itself: its small part would be
 * lost in f32 next to a large max, and with it 1 − p of a peaked row's top token). A target ≥ V
 * yields NaN (visible, like the GPU kernel). scratch: V floats.
 */
export function lsmForward(logits: usize, targets: usize, logp: usize, entropy: usize, lse: usize, V: i32, temperature: f32, scratch: usize, r0: i32, r1: i32): void {
  for (let r = r0; r < r1; r++) {
    const row = at(logits, r * V);
    rowStats(row, V, temperature, scratch);
    const tgt = load<u32>(at(targets, r));
    store<f32>(at(logp, r), tgt < <u32>V ? rowLogp(row, tgt, temperature) : NaN);
    store<f32>(at(entropy, r), rowEntropy());
    store<f32>(at(lse, r), log1pf(rowU));
  }
}

/**
 * Rows [r0, r1): dlogits = (dlogp·(δ_target − p) − dent·p·(log p + H))/τ, with log p = (z − max z) − lse
 * (the forward's max recomputed exactly, lse as the forward saved it).
 */
export function lsmBackward(logits: usize, targets: usize, lse: usize, entropy: usize, dlogp: usize, dent: usize, dlogits: usize, V: i32, temperature: f32, r0: i32, r1: i32): void {
  const tv = f32x4.splat(temperature);
  for (let r = r0; r < r1; r++) {
    const row = at(logits, r * V);
    const out = at(dlogits, r * V);
    let m = load<f32>(row) / temperature;
    for (let j = 1; j < V; j++) m = max(m, load<f32>(at(row, j)) / temperature);
    const l = load<f32>(at(lse, r));
    const mv = f32x4.splat(m);
    const g = load<f32>(at(dlogp, r));
    const de = load<f32>(at(dent, r));
    const H = load<f32>(at(entropy, r));
    const lv = f32x4.splat(l);
    const gv = f32x4.splat(g);
    const dev = f32x4.splat(de);
    const hv = f32x4.splat(H);
    let j = 0;
    for (; j + 4 <= V; j += 4) {
      const lp = f32x4.sub(f32x4.sub(f32x4.div(v128.load(at(row, j)), tv), mv), lv);
      const p = exp4(lp);
      const dz = f32x4.sub(f32x4.neg(f32x4.mul(gv, p)), f32x4.mul(f32x4.mul(dev, p), f32x4.add(lp, hv)));
      v128.store(at(out, j), f32x4.div(dz, tv));
    }
    for (; j < V; j++) {
      const lp = (load<f32>(at(row, j)) / temperature - m) - l;
      const p = exp1(lp);
      store<f32>(at(out, j), (-(g * p) - de * p * (lp + H)) / temperature);
    }
    const tgt = load<u32>(at(targets, r));
    if (tgt < <u32>V) {
      // The target's lane has the δ term: g·(1 − p) = −g·expm1(logp), which stays accurate for a
      // peaked row (p → 1), where g − g·p would cancel to a multiple of f32's spacing near 1.
      const lp = (load<f32>(at(row, <i32>tgt)) / temperature - m) - l;
      const p = exp1(lp);
      store<f32>(at(out, <i32>tgt), (g * -Mathf.expm1(lp) - de * p * (lp + H)) / temperature);
    }
  }
}

/** e^d − 1 − d without cancellation near 0 (k3 for small KL deltas). */
@inline function expm1MinusX(d: f32): f32 {
  if (Mathf.abs(d) >= 0.5) return Mathf.exp(d) - 1.0 - d;
  let s: f32 = <f32>(1.0 / 3628800.0);
  s = s * d + <f32>(1.0 / 362880.0);
  s = s * d + <f32>(1.0 / 40320.0);
  s = s * d + <f32>(1.0 / 5040.0);
  s = s * d + <f32>(1.0 / 720.0);
  s = s * d + <f32>(1.0 / 120.0);
  s = s * d + <f32>(1.0 / 24.0);
  s = s * d + <f32>(1.0 / 6.0);
  s = s * d + 0.5;
  return s * d * d;
}

// GRPO options block (f32 words): epsLow, epsHigh, dualClip, useDual, klCoef, klType (0 k1,
// 1 k3, 2 low_var_kl), useKl, entCoef.
/**
 * All N tokens, in order (one thread): dlogp, dent and stats[8] (f64 sums, stored as f32).
 * refLogp = 0 means no reference policy (no KL term). Zero-weight tokens contribute exactly 0.
 */
export function grpoLoss(logp: usize, oldLogp: usize, refLogp: usize, adv: usize, weights: usize, mask: usize, entropy: usize, dlogp: usize, dent: usize, stats: usize, opts: usize, N: i32): void {
  const epsLow = load<f32>(opts);
  const epsHigh = load<f32>(opts, 4);
  const dualClip = load<f32>(opts, 8);
  const useDual = load<f32>(opts, 12) != 0;
  const klCoef = load<f32>(opts, 16);
  const klType = <i32>load<f32>(opts, 20);
  const useKl = load<f32>(opts, 24) != 0 && refLogp != 0;
  const entCoef = load<f32>(opts, 28);
  let sLoss: f64 = 0;
  let sPg: f64 = 0;
  let sKl: f64 = 0;
  let sEnt: f64 = 0;
  let sClip: f64 = 0;
  let sDual: f64 = 0;
  let sPpo: f64 = 0;
  let sMask: f64 = 0;
  for (let i = 0; i < N; i++) {
    const w = load<f32>(at(weights, i));
    const A = load<f32>(at(adv, i));
    const lp = load<f32>(at(logp, i));
    const old = load<f32>(at(oldLogp, i));
    const counted = load<f32>(at(mask, i)) != 0;
    const live = w != 0;
    const r = Mathf.exp(lp - old);
    const rc = min(max(r, <f32>1.0 - epsLow), <f32>1.0 + epsHigh);
    const pg1 = -A * r;
    const pg2 = -A * rc;
    const clipped = pg2 > pg1;
    let pg = max(pg1, pg2);
    let gpg: f32 = clipped ? 0 : -A * r;
    let dual = false;
    if (useDual && A < 0) {
      const pg3 = -A * dualClip;
      if (pg3 < pg) {
        pg = pg3;
        gpg = 0;
        dual = true;
      }
    }
    let kl: f32 = 0;
    let gkl: f32 = 0;
    if (useKl) {
      const rl = load<f32>(at(refLogp, i));
      if (klType == 0) {
        kl = lp - rl;
        gkl = 1;
      } else {
        const d = rl - lp;
        const k3 = expm1MinusX(d);
        kl = k3;
        gkl = -(d + k3); // 1 − e^d
        if (klType == 2 && (k3 < -10 || k3 > 10)) {
          kl = min(max(k3, <f32>-10.0), <f32>10.0);
          gkl = 0;
        }
      }
    }
    const H = load<f32>(at(entropy, i));
    store<f32>(at(dlogp, i), live ? w * (gpg + klCoef * gkl) : 0);
    store<f32>(at(dent, i), -w * entCoef);
    if (live) {
      const wh = w * H;
      sLoss += <f64>(w * (pg + klCoef * kl) - entCoef * wh);
      sPg += <f64>(w * pg);
      sKl += <f64>(w * kl);
      sEnt += <f64>wh;
    }
    if (counted) {
      sMask += 1;
      if (clipped) sClip += 1;
      if (dual) sDual += 1;
      sPpo += <f64>(old - lp);
    }
  }
  storeStats(stats, sLoss, sPg, sKl, sEnt, sClip, sDual, sPpo, sMask);
}

@inline function storeStats(stats: usize, a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64): void {
  store<f32>(stats, <f32>a);
  store<f32>(stats, <f32>b, 4);
  store<f32>(stats, <f32>c, 8);
  store<f32>(stats, <f32>d, 12);
  store<f32>(stats, <f32>e, 16);
  store<f32>(stats, <f32>f, 20);
  store<f32>(stats, <f32>g, 24);
  store<f32>(stats, <f32>h, 28);
}

/** Supervised cross-entropy ℓ = −w·logp over all N tokens (one thread): dlogp = −w, dent = 0, stats. */
export function ceLoss(logp: usize, weights: usize, mask: usize, dlogp: usize, dent: usize, stats: usize, N: i32): void {
  let sLoss: f64 = 0;
  let sMask: f64 = 0;
  for (let i = 0; i < N; i++) {
    const w = load<f32>(at(weights, i));
    store<f32>(at(dlogp, i), -w);
    store<f32>(at(dent, i), 0);
    if (w != 0) sLoss += <f64>(-w * load<f32>(at(logp, i)));
    if (load<f32>(at(mask, i)) != 0) sMask += 1;
  }
  storeStats(stats, sLoss, 0, 0, 0, 0, 0, 0, sMask);
}
