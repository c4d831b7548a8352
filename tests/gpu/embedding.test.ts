import { describe, expect, it } from 'vitest';
import { encoderBackward, encoderDecode, encoderForward } from '../../src/gpu/kernels/embedding';
import * as ref from '../../src/model/reference/ops';
import type { BufferSlice, GpuRuntime } from '../../src/gpu/runtime';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload, uploadU32 } from './harness';

const TOL = 1e-4;

/** Sequences of `stride` tokens each; positions ≥ T hold valid ids too, which must be ignored. */
function randomTokens(rng: Rng, B: number, stride: number, V: number): Uint32Array {
  const tokens = new Uint32Array(B * stride);
  for (let i = 0; i < tokens.length; i++) tokens[i] = rng.int(0, V - 1);
  return tokens;
}

/** The first T tokens of each stored row, packed [B·T] as the reference expects. */
function packed(tokens: Uint32Array, B: number, T: number, stride: number): Uint32Array {
  const out = new Uint32Array(B * T);
  for (let b = 0; b < B; b++) out.set(tokens.subarray(b * stride, b * stride + T), b * T);
  return out;
}

/** A binding of exactly `data` (the shared harness buffers may be larger): the kernels read V and the position count off the binding size. */
function exact(rt: GpuRuntime, name: string, data: ArrayLike<number>): BufferSlice {
  return { buffer: upload(rt, name, data), offset: 0, size: data.length * 4 };
}

const plus = (a: ArrayLike<number>, b: ArrayLike<number>) => Float64Array.from(a, (v, i) => v + b[i]);

describe('embedding kernels vs float64 reference', () => {
  for (const [B, T, stride, C, V] of [
    [1, 1, 1, 1, 2],
    [3, 5, 7, 33, 11],
    [2, 17, 17, 65, 300], // more wte elements than one 256-wide workgroup
  ]) {
    it(`encoderForward, B=${B} T=${T} stride=${stride} C=${C} V=${V}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const tokens = randomTokens(rng, B, stride, V);
      const wte = randn(rng, V * C);
      const wpe = randn(rng, stride * C);
      const out = poisoned(rt, 'out', B * T * C);
      rt.run([await encoderForward(rt, { tokens: uploadU32(rt, 'tok', tokens), wte: upload(rt, 'wte', wte), wpe: upload(rt, 'wpe', wpe), out, B, T, C, tokenStride: stride })]);
      const want = ref.encoderForward(packed(tokens, B, T, stride), wte, wpe, B, T, C);
      expect(relErr(await rt.readF32(out, 0, B * T * C), want), `seed ${seed}`).toBeLessThan(TOL);
    });
  }

  it('encoderDecode replayed at several positions equals the matching rows of encoderForward', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [B, stride, C, V] = [3, 9, 21, 13];
    const tokens = randomTokens(rng, B, stride, V);
    const wteData = randn(rng, V * C);
    const wpeData = randn(rng, stride * C);
    const tok = uploadU32(rt, 'tok', tokens);
    const wte = upload(rt, 'wte', wteData);
    const wpe = upload(rt, 'wpe', wpeData);
    // Full-context forward (T = stride) gives every position's row.
    const full = poisoned(rt, 'full', B * stride * C);
    rt.run([await encoderForward(rt, { tokens: tok, wte, wpe, out: full, B, T: stride, C, tokenStride: stride })]);
    const fullGot = await rt.readF32(full, 0, B * stride * C);
    const fullWant = ref.encoderForward(tokens, wteData, wpeData, B, stride, C);
    expect(relErr(fullGot, fullWant), `seed ${seed}`).toBeLessThan(TOL);

    const state = uploadU32(rt, 'state', [0, 0, 0, 0]);
    const out = poisoned(rt, 'out', B * C);
    const decode = await encoderDecode(rt, { tokens: tok, wte, wpe, out, state, B, C, tokenStride: stride });
    for (const pos of [0, 1, 4, stride - 1]) {
      rt.write(out, new Float32Array(B * C).fill(NaN));
      rt.write(state, Uint32Array.of(pos));
      rt.run([decode]);
      const got = await rt.readF32(out, 0, B * C);
      for (let b = 0; b < B; b++) {
        const row = (b * stride + pos) * C;
        expect(Array.from(got.subarray(b * C, (b + 1) * C)), `pos ${pos} b ${b} seed ${seed}`).toEqual(Array.from(fullGot.subarray(row, row + C)));
      }
    }
  });

  for (const [B, T, stride, C, V] of [
    [1, 1, 1, 1, 1],
    [3, 5, 8, 33, 7],
    [4, 13, 16, 10, 3], // few ids over many positions: every id repeats
  ]) {
    it(`encoderBackward accumulates with repeated tokens, B=${B} T=${T} stride=${stride} C=${C} V=${V}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const tokens = randomTokens(rng, B, stride, V);
      tokens[0] = 0;
      if (T > 1) tokens[1] = 0; // a guaranteed repeat within a sequence
      if (B > 1) tokens[stride] = 0; // and across sequences
      const dout = randn(rng, B * T * C);
      const dwte0 = randn(rng, V * C);
      // dwpe covers the whole context (stride rows); rows ≥ T must stay untouched.
      const dwpe0 = randn(rng, stride * C);
      const dwte = upload(rt, 'dwte', dwte0);
      const dwpe = upload(rt, 'dwpe', dwpe0);
      const ds = await encoderBackward(rt, { dout: upload(rt, 'dout', dout), tokens: uploadU32(rt, 'tok', tokens), dwte, dwpe, B, T, C, V, tokenStride: stride });
      rt.run(ds);
      const want = ref.encoderBackward(dout, packed(tokens, B, T, stride), B, T, C, V);
      expect(relErr(await rt.readF32(dwte, 0, V * C), plus(dwte0, want.dwte)), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dwpe, 0, T * C), plus(dwpe0.subarray(0, T * C), want.dwpe)), `seed ${seed}`).toBeLessThan(TOL);
      expect(await rt.readF32(dwpe, T * C, (stride - T) * C)).toEqual(Float32Array.from(dwpe0.subarray(T * C)));
    });
  }

  it('token ids ≥ V add no token embedding and no token gradient, without faulting', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [B, T, stride, C, V] = [2, 4, 6, 9, 5];
    const tokens = randomTokens(rng, B, stride, V);
    const bad = [1, stride + 2];
    tokens[bad[0]] = V;
    tokens[bad[1]] = 0xffffffff;
    const wte = randn(rng, V * C);
    const wpe = randn(rng, stride * C);
    const tok = uploadU32(rt, 'tok', tokens);
    const wteBuf = exact(rt, 'wte', wte);
    const wpeBuf = exact(rt, 'wpe', wpe);
    const out = poisoned(rt, 'out', B * T * C);
    rt.run([await encoderForward(rt, { tokens: tok, wte: wteBuf, wpe: wpeBuf, out, B, T, C, tokenStride: stride })]);
    // Reference with the bad ids pointing at an all-zero extra wte row.
    const wteZeroRow = new Float64Array((V + 1) * C);
    wteZeroRow.set(wte);
    const safe = packed(tokens, B, T, stride).map((t) => (t >= V ? V : t));
    expect(relErr(await rt.readF32(out, 0, B * T * C), ref.encoderForward(safe, wteZeroRow, wpe, B, T, C)), `seed ${seed}`).toBeLessThan(TOL);

    const state = uploadU32(rt, 'state', [1, 0, 0, 0]);
    const dec = poisoned(rt, 'dec', B * C);
    rt.run([await encoderDecode(rt, { tokens: tok, wte: wteBuf, wpe: wpeBuf, out: dec, state, B, C, tokenStride: stride })]);
    const decGot = await rt.readF32(dec, 0, B * C);
    expect(Array.from(decGot.subarray(0, C)), 'b=0 holds the bad id V at pos 1').toEqual(Array.from(Float32Array.from(wpe.subarray(C, 2 * C))));

    const dout = randn(rng, B * T * C);
    const dwte = upload(rt, 'dwte', new Float64Array(V * C));
    const dwpe = upload(rt, 'dwpe', new Float64Array(T * C));
    rt.run(await encoderBackward(rt, { dout: upload(rt, 'dout', dout), tokens: tok, dwte, dwpe, B, T, C, V, tokenStride: stride }));
    const want = ref.encoderBackward(dout, safe, B, T, C, V + 1);
    expect(relErr(await rt.readF32(dwte, 0, V * C), want.dwte.subarray(0, V * C)), `seed ${seed}`).toBeLessThan(TOL);
    expect(relErr(await rt.readF32(dwpe, 0, T * C), want.dwpe), `seed ${seed}`).toBeLessThan(TOL);
  });

  it('decoding past the stored row or the position table writes finite values', async () => {
    const rt = await gpu();
    const [B, stride, C, V] = [2, 3, 4, 5];
    const state = uploadU32(rt, 'state', [stride, 0, 0, 0]);
    const out = poisoned(rt, 'out', B * C);
    const wpe = randn(new Rng(freshSeed()), stride * C);
    rt.run([
      await encoderDecode(rt, {
        tokens: uploadU32(rt, 'tok', new Uint32Array(B * stride)),
        wte: exact(rt, 'wte', new Float64Array(V * C).fill(1)),
        wpe: exact(rt, 'wpe', wpe),
        out,
        state,
        B,
        C,
        tokenStride: stride,
      }),
    ]);
    expect(Array.from(await rt.readF32(out, 0, B * C))).toEqual(new Array(B * C).fill(0));
  });

  it('refuses tokenStride < T', async () => {
    const rt = await gpu();
    const b = upload(rt, 'tiny', [0, 0, 0, 0]);
    expect(() => encoderForward(rt, { tokens: b, wte: b, wpe: b, out: b, B: 1, T: 4, C: 1, tokenStride: 3 })).toThrow(/tokenStride/);
  });
});
