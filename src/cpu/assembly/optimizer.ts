// Global gradient norm and clipped AdamW over the flat parameter array (twins: clipGradNorm /
// stepIsFinite / adamwStep in src/model/reference/ops.ts; same rule as shaders/optimizer.wgsl).
import { at } from './common';

/** Floats per partial of the norm: a fixed chunking, so the sum order ignores the thread count. */
export const NORM_CHUNK: i32 = 8192;

/** Chunks [k0, k1): partials[k] = Σ g² over chunk k (f64, two lanes, then lane 0 + lane 1). */
export function gradNormPartials(grads: usize, n: i32, partials: usize, k0: i32, k1: i32): void {
  for (let k = k0; k < k1; k++) {
    const lo = k * NORM_CHUNK;
    const hi = min(lo + NORM_CHUNK, n);
    let a = f64x2.splat(0);
    let b = f64x2.splat(0);
    let i = lo;
    for (; i + 4 <= hi; i += 4) {
      const g = v128.load(at(grads, i));
      const g0 = f64x2.promote_low_f32x4(g);
      const g1 = f64x2.promote_low_f32x4(i32x4.shuffle(g, g, 2, 3, 0, 1));
      a = f64x2.add(a, f64x2.mul(g0, g0));
      b = f64x2.add(b, f64x2.mul(g1, g1));
    }
    let s = (f64x2.extract_lane(a, 0) + f64x2.extract_lane(a, 1)) + (f64x2.extract_lane(b, 0) + f64x2.extract_lane(b, 1));
    for (; i < hi; i++) {
      const g = <f64>load<f32>(at(grads, i));
      s += g * g;
    }
    store<f64>(partials + (<usize>k << 3), s);
  }
}

/** norm[0] = sqrt(Σ partials in order), f32. */
export function gradNormFinish(partials: usize, chunks: i32, norm: usize): void {
  let s: f64 = 0;
  for (let k = 0; k < chunks; k++) s += load<f64>(partials + (<usize>k << 3));
  store<f32>(norm, <f32>Math.sqrt(s));
}

/** ±Inf or NaN: every exponent bit set (the WGSL kernel's test, on the bits). */
@inline function nonFinite(x: f32): bool {
  return (reinterpret<u32>(x) & 0x7f800000) == 0x7f800000;
}

// AdamW hyperparameters block (f32 words): lr, beta1, 1−beta1, beta2, 1−beta2, eps, weightDecay,
// 1/(1−beta1^t), 1/(1−beta2^t), maxNorm, clip (1 = clip by maxNorm).
/**
 * Elements [i0, i1): g = grad·min(1, maxNorm/(norm + 1e-6)) (when clipping), m = β1·m + (1−β1)·g,
 * v = β2·v + (1−β2)·g², p −= lr·(m̂/(√v̂ + eps) + wd·p) with wd only below decayEnd.
 * A rejected step writes nothing: when norm[0] or loss[0] (the step's loss) is not finite.
 */
export function adamw(params: usize, grads: usize, m: usize, v: usize, hyper: usize, norm: usize, loss: usize, decayEnd: i32, i0: i32, i1: i32): void {
  if (nonFinite(load<f32>(norm)) || nonFinite(load<f32>(loss))) return;
  const lr = f32x4.splat(load<f32>(hyper));
  const b1 = f32x4.splat(load<f32>(hyper, 4));
  const omb1 = f32x4.splat(load<f32>(hyper, 8));
  const b2 = f32x4.splat(load<f32>(hyper, 12));
  const omb2 = f32x4.splat(load<f32>(hyper, 16));
  const eps = f32x4.splat(load<f32>(hyper, 20));
  const wdv = load<f32>(hyper, 24);
  const ibc1 = f32x4.splat(load<f32>(hyper, 28));
  const ibc2 = f32x4.splat(load<f32>(hyper, 32));
  const maxNorm = load<f32>(hyper, 36);
  const clip = load<f32>(hyper, 40) != 0;
  let sc: f32 = 1;
  if (clip) sc = min(<f32>1.0, maxNorm / (load<f32>(norm) + <f32>1e-6));
  const scale = f32x4.splat(sc);
  const lane = i32x4(0, 1, 2, 3);
  const dEnd = i32x4.splat(decayEnd);
  let i = i0;
  for (; i < i1; i += 4) {
    // Lanes past i1 (an odd-sized test array) are computed from the allocation's padding and not stored.
    const lanes = min(4, i1 - i);
    const g = f32x4.mul(v128.load(at(grads, i)), scale);
    const mi = f32x4.add(f32x4.mul(b1, v128.load(at(m, i))), f32x4.mul(omb1, g));
    const vi = f32x4.add(f32x4.mul(b2, v128.load(at(v, i))), f32x4.mul(f32x4.mul(omb2, g), g));
    const mhat = f32x4.mul(mi, ibc1);
    const vhat = f32x4.mul(vi, ibc2);
    const wd = v128.and(f32x4.splat(wdv), i32x4.lt_s(i32x4.add(i32x4.splat(i), lane), dEnd));
    const w = v128.load(at(params, i));
    const nw = f32x4.sub(w, f32x4.mul(lr, f32x4.add(f32x4.div(mhat, f32x4.add(f32x4.sqrt(vhat), eps)), f32x4.mul(wd, w))));
    if (lanes == 4) {
      v128.store(at(m, i), mi);
      v128.store(at(v, i), vi);
      v128.store(at(params, i), nw);
    } else {
      storeLanes(at(m, i), mi, lanes);
      storeLanes(at(v, i), vi, lanes);
      storeLanes(at(params, i), nw, lanes);
    }
  }
}

@inline function storeLanes(p: usize, x: v128, lanes: i32): void {
  store<f32>(p, f32x4.extract_lane(x, 0));
  if (lanes > 1) store<f32>(p, f32x4.extract_lane(x, 1), 4);
  if (lanes > 2) store<f32>(p, f32x4.extract_lane(x, 2), 8);
}
