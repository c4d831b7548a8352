import { describe, expect, it } from 'vitest';
import { gqaBackward, gqaDecode, gqaForward } from '../../src/gpu/kernels/gqa';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload, uploadU32 } from './harness';

const TOL = 1e-4;
type Shape = { B: number; T: number; H: number; Hkv: number; hd: number };
const SHAPES: Shape[] = [
  { B: 1, T: 1, H: 1, Hkv: 1, hd: 2 },
  { B: 2, T: 5, H: 4, Hkv: 1, hd: 8 }, // the tiny Llama's 4 over 1
  { B: 3, T: 17, H: 6, Hkv: 2, hd: 5 },
  { B: 1, T: 40, H: 9, Hkv: 3, hd: 14 },
  { B: 2, T: 11, H: 3, Hkv: 3, hd: 7 }, // multi-head
];

describe('grouped-query attention kernels vs float64 reference', () => {
  for (const s of SHAPES) {
    const { B, T, H, Hkv, hd } = s;
    it(`forward + backward B=${B} T=${T} H=${H} Hkv=${Hkv} hd=${hd}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const nq = B * T * H * hd, nkv = B * T * Hkv * hd, na = B * H * T * T;
      // Scale 2: softmax rows far from uniform.
      const q = randn(rng, nq, 2).map(Math.fround), k = randn(rng, nkv, 2).map(Math.fround), v = randn(rng, nkv).map(Math.fround);
      const dout = randn(rng, nq).map(Math.fround);
      const [qb, kb, vb, db] = [upload(rt, 'q', q), upload(rt, 'k', k), upload(rt, 'v', v), upload(rt, 'dout', dout)];
      const out = poisoned(rt, 'out', nq), att = poisoned(rt, 'att', na), dpre = poisoned(rt, 'dpre', na);
      const dq = poisoned(rt, 'dq', nq), dk = poisoned(rt, 'dk', nkv), dv = poisoned(rt, 'dv', nkv);
      const fwd = await gqaForward(rt, { ...s, q: qb, k: kb, v: vb, out, att });
      const bwd = await gqaBackward(rt, { ...s, dout: db, q: qb, k: kb, v: vb, att, dpre, dq, dk, dv });
      rt.run([fwd, ...bwd]);
      const want = ref.gqaForward(q, k, v, s);
      const gotAtt = await rt.readF32(att, 0, na);
      expect(relErr(await rt.readF32(out, 0, nq), want.out), `out, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(gotAtt, want.att), `att, seed ${seed}`).toBeLessThan(TOL);
      for (let r = 0; r < B * H * T; r++) for (let u = (r % T) + 1; u < T; u++) expect(gotAtt[r * T + u]).toBe(0);
      const g = ref.gqaBackward(dout, q, k, v, want.att, s);
      expect(relErr(await rt.readF32(dq, 0, nq), g.dq), `dq, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dk, 0, nkv), g.dk), `dk, seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(dv, 0, nkv), g.dv), `dv, seed ${seed}`).toBeLessThan(TOL);
    });
  }

  it('the twin equals multi-head attention with repeated kv heads, and its backward sums the group', () => {
    const rng = new Rng(freshSeed());
    const s = { B: 2, T: 6, H: 4, Hkv: 2, hd: 3 };
    const q = randn(rng, 2 * 6 * 4 * 3), k = randn(rng, 2 * 6 * 2 * 3), v = randn(rng, 2 * 6 * 2 * 3), dout = randn(rng, q.length);
    const repeat = (x: Float64Array) => Float64Array.from({ length: q.length }, (_, i) => {
      const j = i % 3, h = Math.floor(i / 3) % 4, bt = Math.floor(i / 12);
      return x[(bt * 2 + Math.floor(h / 2)) * 3 + j];
    });
    const mh = { ...s, Hkv: 4 };
    const a = ref.gqaForward(q, k, v, s), b = ref.gqaForward(q, repeat(k), repeat(v), mh);
    expect(relErr(a.out, b.out)).toBeLessThan(1e-12);
    const ga = ref.gqaBackward(dout, q, k, v, a.att, s), gb = ref.gqaBackward(dout, q, repeat(k), repeat(v), b.att, mh);
    const fold = (x: Float64Array) => Float64Array.from({ length: k.length }, (_, i) => {
      const j = i % 3, g = Math.floor(i / 3) % 2, bt = Math.floor(i / 6);
      return x[(bt * 4 + 2 * g) * 3 + j] + x[(bt * 4 + 2 * g + 1) * 3 + j];
    });
    expect(relErr(ga.dk, fold(gb.dk))).toBeLessThan(1e-12);
    expect(relErr(ga.dv, fold(gb.dv))).toBeLessThan(1e-12);
    expect(relErr(ga.dq, gb.dq)).toBeLessThan(1e-12);
  });

  for (const s of [{ B: 2, Tmax: 9, H: 6, Hkv: 2, hd: 5 }, { B: 1, Tmax: 20, H: 4, Hkv: 1, hd: 8 }]) {
    it(`KV-cache decode, every position, equals the training forward's rows: B=${s.B} Tmax=${s.Tmax} H=${s.H} Hkv=${s.Hkv} hd=${s.hd}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const { B, Tmax, H, Hkv, hd } = s;
      const q = randn(rng, B * Tmax * H * hd, 2).map(Math.fround), k = randn(rng, B * Tmax * Hkv * hd, 2).map(Math.fround), v = randn(rng, B * Tmax * Hkv * hd).map(Math.fround);
      const full = ref.gqaForward(q, k, v, { B, T: Tmax, H, Hkv, hd }).out;
      // Caches start as NaN: a position past `pos` that were read would poison the output.
      const kcache = poisoned(rt, 'kc', B * Tmax * Hkv * hd), vcache = poisoned(rt, 'vc', B * Tmax * Hkv * hd);
      const [qb, kb, vb] = [poisoned(rt, 'dq1', B * H * hd), poisoned(rt, 'dk1', B * Hkv * hd), poisoned(rt, 'dv1', B * Hkv * hd)];
      const out = poisoned(rt, 'dout1', B * H * hd), state = uploadU32(rt, 'state', [0]);
      const ds = await gqaDecode(rt, { ...s, q: qb, k: kb, v: vb, kcache, vcache, out, scores: poisoned(rt, 'scores', B * H * Tmax), state });
      const kc = new Float64Array(B * Tmax * Hkv * hd), vc = new Float64Array(B * Tmax * Hkv * hd);
      const row = (x: Float64Array, heads: number, pos: number) => Float64Array.from({ length: B * heads * hd }, (_, i) => x[((Math.floor(i / (heads * hd)) * Tmax + pos) * heads * hd) + (i % (heads * hd))]);
      for (let pos = 0; pos < Tmax; pos++) {
        rt.write(state, Uint32Array.of(pos));
        rt.write(qb, Float32Array.from(row(q, H, pos)));
        const [kr, vr] = [row(k, Hkv, pos), row(v, Hkv, pos)];
        rt.write(kb, Float32Array.from(kr));
        rt.write(vb, Float32Array.from(vr));
        rt.run(ds);
        for (let i = 0; i < kr.length; i++) {
          const c = (Math.floor(i / (Hkv * hd)) * Tmax + pos) * Hkv * hd + (i % (Hkv * hd));
          kc[c] = kr[i];
          vc[c] = vr[i];
        }
        const got = await rt.readF32(out, 0, B * H * hd);
        const twin = ref.gqaDecodeStep(row(q, H, pos), kc, vc, pos, s);
        expect(relErr(twin, row(full, H, pos)), 'twin = training row').toBeLessThan(1e-12);
        expect(relErr(got, twin), `pos ${pos}, seed ${seed}`).toBeLessThan(TOL);
      }
      // A position past the cache writes nothing.
      const before = await rt.readF32(out, 0, B * H * hd);
      rt.write(state, Uint32Array.of(Tmax));
      rt.write(qb, new Float32Array(B * H * hd).fill(7));
      rt.run(ds);
      expect(await rt.readF32(out, 0, B * H * hd)).toEqual(before);
    });
  }

  it('refuses query heads that are not a multiple of the kv heads, and att over the binding limit', async () => {
    const rt = await gpu();
    const b = upload(rt, 'x', new Float32Array(16));
    expect(() => gqaForward(rt, { B: 1, T: 1, H: 3, Hkv: 2, hd: 2, q: b, k: b, v: b, out: b, att: b })).toThrow(/multiple of Hkv=2/);
    // 64 × 9 heads × 1024² probabilities: 2.4 GB, over any adapter's binding limit.
    expect(() => gqaForward(rt, { B: 64, T: 1024, H: 9, Hkv: 3, hd: 64, q: b, k: b, v: b, out: b, att: b })).toThrow(/att \[B=64, H=9, T=1024, T\] is 2415919104 bytes, over/);
  });
});
