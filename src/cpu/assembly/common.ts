// Shared helpers of the CPU kernels: the fixed work split, and SIMD exp / tanh / GELU.
//
// Every kernel takes byte offsets into the one linear memory (f32 / u32 arrays, row-major) and
// a range of work units [lo, hi). A unit's result never depends on which thread ran it or on
// how the units were split, so results are bit-identical for any thread count.

/** First unit of thread `tid` of `nt` when n units are split evenly. */
@inline export function splitLo(n: i32, tid: i32, nt: i32): i32 {
  return <i32>((<i64>n * <i64>tid) / <i64>nt);
}

@inline export function f32At(base: usize, i: i32): f32 {
  return load<f32>(base + (<usize>i << 2));
}

@inline export function setF32(base: usize, i: i32, v: f32): void {
  store<f32>(base + (<usize>i << 2), v);
}

@inline export function u32At(base: usize, i: i32): u32 {
  return load<u32>(base + (<usize>i << 2));
}

@inline export function setU32(base: usize, i: i32, v: u32): void {
  store<u32>(base + (<usize>i << 2), v);
}

/** Byte address of element i of an f32/u32 array at base. */
@inline export function at(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

// exp(x) for 4 lanes: x = n·ln2 + r (|r| ≤ ln2/2, Cody–Waite split), e^r by a degree-6
// polynomial, 2^n by exponent bits. Relative error ~2e-7; x below -87.3 flushes to 0 (as does a
// NaN), above 88.3 clamps (never reached by max-subtracted arguments). Rounding to n uses the
// 1.5·2^23 trick and pmin/pmax (single instructions), not nearest / trunc_sat / NaN-aware min.
const LOG2E: f32 = 1.44269504088896341;
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
const ROUND: f32 = 12582912.0; // 1.5·2^23: adding it rounds |v| < 2^22 to an integer in the low mantissa bits

@inline export function exp4(x0: v128): v128 {
  const x = f32x4.pmax(f32x4.pmin(x0, f32x4.splat(88.3)), f32x4.splat(-87.3));
  const t = f32x4.add(f32x4.mul(x, f32x4.splat(LOG2E)), f32x4.splat(ROUND));
  const n = f32x4.sub(t, f32x4.splat(ROUND));
  let r = f32x4.sub(x, f32x4.mul(n, f32x4.splat(LN2_HI)));
  r = f32x4.sub(r, f32x4.mul(n, f32x4.splat(LN2_LO)));
  // e^r ≈ 1 + r + r²/2 + … + r⁶/720 (Horner).
  let p = f32x4.splat(1.0 / 720.0);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 120.0));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 24.0));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0 / 6.0));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(0.5));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.0));
  // 2^n from the integer in t's low mantissa bits (n ∈ [-126, 127]).
  const ni = i32x4.sub(t, i32x4.splat(0x4b400000));
  const scale = i32x4.shl(i32x4.add(ni, i32x4.splat(127)), 23);
  const res = f32x4.mul(p, scale);
  return v128.and(res, f32x4.gt(x0, f32x4.splat(-87.3)));
}

/** Scalar exp through the same lanes as exp4 (so scalar tails match vector bodies bit for bit). */
@inline export function exp1(x: f32): f32 {
  return f32x4.extract_lane(exp4(f32x4.splat(x)), 0);
}

// tanh(u) = 1 − 2/(e^{2u} + 1), u clamped to ±15 (tanh is ±1 in f32 there).
@inline export function tanh4(u0: v128): v128 {
  const u = f32x4.pmax(f32x4.pmin(u0, f32x4.splat(15.0)), f32x4.splat(-15.0));
  const e = exp4(f32x4.add(u, u));
  return f32x4.sub(f32x4.splat(1.0), f32x4.div(f32x4.splat(2.0), f32x4.add(e, f32x4.splat(1.0))));
}

const GELU_SCALE: f32 = 0.7978845608028654; // √(2/π)
const GELU_CUBE: f32 = 0.044715;

/** tanh(√(2/π)·(x + 0.044715·x³)), the inner term of GELU, 4 lanes. */
@inline export function geluT4(x: v128): v128 {
  const x3 = f32x4.mul(f32x4.mul(x, x), x);
  return tanh4(f32x4.mul(f32x4.splat(GELU_SCALE), f32x4.add(x, f32x4.mul(f32x4.splat(GELU_CUBE), x3))));
}

/** gelu(x) = 0.5·x·(1 + t) from t = geluT4(x). */
@inline export function geluFromT(x: v128, t: v128): v128 {
  return f32x4.mul(f32x4.mul(f32x4.splat(0.5), x), f32x4.add(f32x4.splat(1.0), t));
}

/** gelu'(x) = 0.5·(1 + t) + 0.5·x·(1 − t²)·√(2/π)·(1 + 3·0.044715·x²) from t = geluT4(x). */
@inline export function geluGradFromT(x: v128, t: v128): v128 {
  const x2 = f32x4.mul(x, x);
  const du = f32x4.mul(f32x4.splat(GELU_SCALE), f32x4.add(f32x4.splat(1.0), f32x4.mul(f32x4.splat(3.0 * GELU_CUBE), x2)));
  const half = f32x4.splat(0.5);
  const a = f32x4.mul(half, f32x4.add(f32x4.splat(1.0), t));
  const b = f32x4.mul(f32x4.mul(f32x4.mul(half, x), f32x4.sub(f32x4.splat(1.0), f32x4.mul(t, t))), du);
  return f32x4.add(a, b);
}

/** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), 4 lanes. */
@inline export function gelu4(x: v128): v128 {
  return geluFromT(x, geluT4(x));
}

/** d gelu / dx, 4 lanes. */
@inline export function geluGrad4(x: v128): v128 {
  return geluGradFromT(x, geluT4(x));
}

@inline export function hsum4(v: v128): f32 {
  // Fixed order: (l0 + l1) + (l2 + l3).
  return (f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1)) + (f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3));
}
