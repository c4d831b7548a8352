import { describe, expect, it } from 'vitest';
import { ropeRotate, ropeTables } from '../../src/gpu/kernels/rope';
import { applyRope } from '../../src/model/hf/reference-forward';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload, uploadU32 } from './harness';

const TOL = 1e-5;
// [B, T, heads, hd, θ, pos0]
const SHAPES: [number, number, number, number, number, number][] = [
  [1, 1, 1, 2, 1e4, 0],
  [2, 7, 3, 6, 1e5, 0],
  [3, 13, 5, 10, 1e6, 0],
  [1, 5, 4, 64, 1e4, 37], // decode after a 37-token prefix
  [2, 33, 2, 14, 5e5, 1000],
];

describe('RoPE kernel vs float64 reference', () => {
  for (const [B, T, heads, hd, theta, pos0] of SHAPES) {
    for (const direction of [1, -1] as const) {
      it(`${direction > 0 ? 'forward' : 'backward'} B=${B} T=${T} heads=${heads} hd=${hd} θ=${theta} pos0=${pos0}`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const rows = B * T;
        const x = randn(new Rng(seed), rows * heads * hd).map(Math.fround);
        const positions = pos0 + T + 3;
        const tables = ropeTables(theta, hd, positions);
        const out = poisoned(rt, 'out', rows * heads * hd);
        const d = await ropeRotate(rt, { x: upload(rt, 'x', x), out, cos: upload(rt, 'cos', tables.cos), sin: upload(rt, 'sin', tables.sin), rows, T, heads, headDim: hd, positions, pos0, direction });
        rt.run([d]);
        const want = direction > 0 ? ref.ropeForward(x, rows, T, heads, hd, theta, pos0) : ref.ropeBackward(x, rows, T, heads, hd, theta, pos0);
        expect(relErr(await rt.readF32(out, 0, rows * heads * hd), want), `seed ${seed}`).toBeLessThan(TOL);
      });
    }
  }

  it('the twin is the whole-model reference rotation (rotate_half), and backward inverts forward', () => {
    const rng = new Rng(freshSeed());
    const [T, heads, hd, theta] = [9, 3, 8, 1e5];
    const x = randn(rng, T * heads * hd);
    const viaModel = Float64Array.from(x);
    applyRope(viaModel, T, heads, hd, theta);
    expect(ref.ropeForward(x, T, T, heads, hd, theta)).toEqual(viaModel);
    const back = ref.ropeBackward(ref.ropeForward(x, T, T, heads, hd, theta), T, T, heads, hd, theta);
    for (let i = 0; i < x.length; i++) expect(back[i]).toBeCloseTo(x[i], 12);
    // rotate_half pairs channel j with j + hd/2: at position 1, channel 0 mixes with channel hd/2 only.
    const e0 = new Float64Array(2 * hd);
    e0[hd] = 1; // position 1, head 0, channel 0
    const r = ref.ropeForward(e0, 2, 2, 1, hd, theta);
    expect(r[hd]).toBeCloseTo(Math.cos(1), 12);
    expect(r[hd + hd / 2]).toBeCloseTo(Math.sin(1), 12);
    expect(r[hd + 1]).toBe(0);
  });

  it('decoding: the position comes from a state word, and a position past the tables writes nothing', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const [B, heads, hd, theta, positions] = [3, 5, 12, 1e4, 30];
    const x = randn(new Rng(seed), B * heads * hd).map(Math.fround);
    const t = ropeTables(theta, hd, positions);
    const exact = (data: Float32Array) => ({ buffer: upload(rt, `t${data === t.cos ? 'c' : 's'}`, data), offset: 0, size: data.byteLength });
    const state = uploadU32(rt, 'state', [0]);
    const out = poisoned(rt, 'out', B * heads * hd);
    const d = await ropeRotate(rt, { x: upload(rt, 'x', x), out, cos: exact(t.cos), sin: exact(t.sin), rows: B, T: 1, heads, headDim: hd, positions, state, direction: 1 });
    for (const pos of [0, 7, positions - 1]) {
      rt.write(state, Uint32Array.of(pos));
      rt.run([d]);
      expect(relErr(await rt.readF32(out, 0, x.length), ref.ropeForward(x, B, 1, heads, hd, theta, pos)), `pos ${pos}, seed ${seed}`).toBeLessThan(TOL);
    }
    const before = await rt.readF32(out, 0, x.length);
    rt.write(state, Uint32Array.of(positions));
    rt.write(out, new Float32Array(x.length).fill(NaN));
    rt.run([d]);
    expect((await rt.readF32(out, 0, x.length)).every(Number.isNaN)).toBe(true);
    expect(before.every(Number.isFinite)).toBe(true);
  });

  it('refuses tables too short for the positions and odd head sizes', async () => {
    const rt = await gpu();
    const t = ropeTables(1e4, 4, 8);
    const b = upload(rt, 'small', new Float32Array(64));
    const c = upload(rt, 'cos', t.cos);
    expect(() => ropeRotate(rt, { x: b, out: b, cos: c, sin: c, rows: 4, T: 4, heads: 1, headDim: 4, positions: 8, pos0: 5, direction: 1 })).toThrow(/tables of 9 rows/);
    expect(() => ropeRotate(rt, { x: b, out: b, cos: c, sin: c, rows: 4, T: 4, heads: 1, headDim: 5, positions: 8, direction: 1 })).toThrow(/even/);
  });
});
