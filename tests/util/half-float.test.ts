import { describe, expect, it } from 'vitest';
import { floatToHalfBits, halfBitsToFloat, HALF_MAX } from '../../src/util/half-float';

/** Float64 reference: the value of half bits, from the IEEE 754 definition. */
function refValue(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 31;
  const m = h & 1023;
  if (e === 31) return m ? NaN : s * Infinity;
  return e === 0 ? s * (m / 1024) * 2 ** -14 : s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Float64 reference rounding: the finite half (or ±Infinity) nearest to x, ties to the even significand. */
function refRound(x: number): number {
  let best = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  let bestErr = Math.abs(x);
  const sign = x < 0 ? 0x8000 : 0;
  for (let h = 0; h < 0x7c00; h++) {
    const err = Math.abs(Math.abs(x) - refValue(h));
    if (err < bestErr || (err === bestErr && (h & 1) === 0 && (best & 1) === 1)) {
      best = sign | h;
      bestErr = err;
    }
  }
  // Beyond HALF_MAX + half an ulp (2^15 · 2^-11 · ... = 16) the nearest is Infinity; the tie at 65520 goes to even (Infinity).
  if (Math.abs(x) >= HALF_MAX + 16) return sign | 0x7c00;
  return best;
}

describe('IEEE half floats', () => {
  it('decodes every one of the 65,536 bit patterns as the IEEE definition says', () => {
    for (let h = 0; h < 0x10000; h++) {
      const got = halfBitsToFloat(h);
      const want = refValue(h);
      if (Number.isNaN(want)) expect(Number.isNaN(got)).toBe(true);
      else expect(Object.is(got, want === 0 && h & 0x8000 ? -0 : want)).toBe(true);
    }
  });

  it('every half (and its f32 value) encodes back to its own bits', () => {
    for (let h = 0; h < 0x10000; h++) {
      const x = halfBitsToFloat(h);
      if (Number.isNaN(x)) expect(floatToHalfBits(x) & 0x7c00).toBe(0x7c00);
      else expect(floatToHalfBits(Math.fround(x))).toBe(h);
    }
  });

  it('rounds fresh random floats to the nearest half, ties to even, across normals, subnormals and overflow', () => {
    let seed = Date.now() >>> 0;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const xs: number[] = [];
    for (let i = 0; i < 300; i++) xs.push(Math.fround((rand() - 0.5) * 2 ** (rand() * 44 - 28)));
    // Exact midpoints between neighbouring halves (the tie rule decides), and the edges of each range.
    for (let i = 0; i < 40; i++) {
      const h = Math.floor(rand() * 0x7bff);
      xs.push(Math.fround((refValue(h) + refValue(h + 1)) / 2));
    }
    xs.push(HALF_MAX, 65519.99, 65520, 70000, 2 ** -24, 2 ** -25, Math.fround(2 ** -25 * 1.0001), 2 ** -26, 2 ** -14, Math.fround(2 ** -14 * (1 - 2 ** -12)), 0, -0);
    for (const x of xs) expect([x, floatToHalfBits(x)]).toEqual([x, refRound(x)]);
  });
});
