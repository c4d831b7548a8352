/**
 * IEEE 754 binary16 ("half") conversions, for checkpoints that store weights at half the size.
 * Node 20 has no Float16Array or DataView.setFloat16, so the bits are assembled here.
 */

/** The largest finite half: values that round beyond it become ±Infinity. */
export const HALF_MAX = 65504;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The half nearest to `x` (ties to even), as its 16 bits; ±Infinity when |x| rounds beyond HALF_MAX, NaN stays NaN. */
export function floatToHalfBits(x: number): number {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  const mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  // Unbiased exponent; half normals have −14 ≤ e ≤ 15.
  const e = exp - 127;
  if (e > 15) return sign | 0x7c00;
  if (e >= -14) {
    // Normal: keep 10 of the 23 mantissa bits, round the 13 dropped ones to nearest, ties to even.
    let h = ((e + 15) << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++; // a carry into the exponent is still correct (up to Infinity)
    return sign | h;
  }
  if (e < -25) return sign; // below half the smallest subnormal (2^-25): rounds to zero
  // Subnormal: the value is m × 2^-24 with m < 1024; shift the full 24-bit significand into place.
  const sig = mant | 0x800000;
  const shift = -e - 1; // e = -15 → 14 … e = -25 → 24: sig >>> (shift) lines 2^-24 up with bit 0
  let h = sig >>> shift;
  const dropped = sig & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  if (dropped > half || (dropped === half && (h & 1))) h++;
  return sign | h;
}

/** The value of 16 half bits. */
export function halfBitsToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1024 + mant) * 2 ** (exp - 25);
}
