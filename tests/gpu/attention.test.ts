import { describe, expect, it } from 'vitest';
import { ATTENTION_DECODE_VARIANTS, ATTENTION_TRAIN_VARIANTS, type AttentionTrainVariant, attentionBackward, attentionDecode, attentionForward } from '../../src/gpu/kernels/attention';
import type { GpuRuntime } from '../../src/gpu/runtime';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, upload, uploadU32 } from './harness';

const TOL = 1e-4;

type Shape = [B: number, T: number, C: number, H: number];
const SHAPES: Shape[] = [
  [1, 1, 4, 1],
  [2, 5, 6, 2],
  [3, 17, 12, 3],
  [1, 129, 8, 2],
  [2, 7, 64, 4],
  [1, 6, 256, 1], // largest head size: more channels than decode's workgroup threads
];

/** Runs forward then backward; returns GPU out, att, dqkv. */
async function runTraining(rt: GpuRuntime, qkvData: ArrayLike<number>, doutData: ArrayLike<number>, [B, T, C, H]: Shape, variant?: AttentionTrainVariant) {
  const qkv = upload(rt, 'qkv', qkvData);
  const dout = upload(rt, 'dout', doutData);
  const out = poisoned(rt, 'out', B * T * C);
  const att = poisoned(rt, 'att', B * H * T * T);
  const dpreatt = poisoned(rt, 'dpreatt', B * H * T * T);
  const dqkv = poisoned(rt, 'dqkv', B * T * 3 * C);
  const fwd = await attentionForward(rt, { qkv, out, att, B, T, C, H, variant });
  const bwd = await attentionBackward(rt, { dout, qkv, att, dpreatt, dqkv, B, T, C, H, variant });
  rt.run([fwd, ...bwd]);
  return {
    out: await rt.readF32(out, 0, B * T * C),
    att: await rt.readF32(att, 0, B * H * T * T),
    dqkv: await rt.readF32(dqkv, 0, B * T * 3 * C),
  };
}

describe('attention kernels vs float64 reference', () => {
  for (const shape of SHAPES) {
    const [B, T, C, H] = shape;
    // vec4 needs a head size divisible by 4; scalar runs everywhere.
    for (const variant of ATTENTION_TRAIN_VARIANTS.filter((v) => v === 'scalar' || (C / H) % 4 === 0)) {
      it(`forward + backward (${variant}), B=${B} T=${T} C=${C} H=${H}`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const rng = new Rng(seed);
        // Scale 2 makes the softmax rows far from uniform, so the scale and max-shift matter.
        const qkv = randn(rng, B * T * 3 * C, 2);
        const dout = randn(rng, B * T * C);
        const got = await runTraining(rt, qkv, dout, shape, variant);
        const want = ref.attentionForward(qkv, B, T, C, H);
        expect(relErr(got.out, want.out), `out, seed ${seed}`).toBeLessThan(TOL);
        expect(relErr(got.att, want.att), `att, seed ${seed}`).toBeLessThan(TOL);
        // The masked upper triangle must be exactly 0 (it started as NaN).
        for (let bh = 0; bh < B * H; bh++) {
          for (let t = 0; t < T; t++) {
            for (let s = t + 1; s < T; s++) expect(got.att[(bh * T + t) * T + s]).toBe(0);
          }
        }
        const wantDqkv = ref.attentionBackward(dout, qkv, want.att, B, T, C, H);
        expect(relErr(got.dqkv, wantDqkv), `dqkv, seed ${seed}`).toBeLessThan(TOL);
      });
    }
  }

  it('handles the longest context, T=1024', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [B, T, C, H]: Shape = [1, 1024, 2, 1];
    const qkv = randn(rng, B * T * 3 * C, 2);
    const dout = randn(rng, B * T * C);
    const got = await runTraining(rt, qkv, dout, [B, T, C, H]);
    const want = ref.attentionForward(qkv, B, T, C, H);
    expect(relErr(got.out, want.out), `out, seed ${seed}`).toBeLessThan(TOL);
    expect(relErr(got.att, want.att), `att, seed ${seed}`).toBeLessThan(TOL);
    // dq and dk sum T f32 products, so their rounding bound grows like T·u (u = 2^-24): over 40
    // seeds the error reached 9.0e-5 (median 3.8e-5), and one CI seed 1.005e-4 against the
    // short-context 1e-4. 4·T·u ≈ 2.4e-4 still fails a wrong index or a missed term by orders.
    const LONG_TOL = 4 * T * 2 ** -24;
    expect(relErr(got.dqkv, ref.attentionBackward(dout, qkv, want.att, B, T, C, H)), `dqkv, seed ${seed}`).toBeLessThan(LONG_TOL);
  });

  it('is causal: changing a later token k/v leaves earlier outputs unchanged', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const [B, T, C, H] = [2, 11, 12, 3];
    const qkv = Float32Array.from(randn(rng, B * T * 3 * C));
    const dout = randn(rng, B * T * C);
    const before = await runTraining(rt, qkv, dout, [B, T, C, H]);
    const changed = 6;
    const b = 1;
    const row = (b * T + changed) * 3 * C;
    for (let i = C; i < 3 * C; i++) qkv[row + i] += 1 + rng.next(); // k and v of token (b, changed)
    const after = await runTraining(rt, qkv, dout, [B, T, C, H]);
    const rowsOf = (x: Float32Array, bb: number, t0: number, t1: number) => x.subarray((bb * T + t0) * C, (bb * T + t1) * C);
    // Same kernel, same inputs for those rows: bitwise identical.
    expect(rowsOf(after.out, b, 0, changed)).toEqual(rowsOf(before.out, b, 0, changed));
    expect(after.out.subarray(0, T * C)).toEqual(before.out.subarray(0, T * C)); // other sequence
    // Sanity: the change is visible from its own position on.
    expect(rowsOf(after.out, b, changed, changed + 1)).not.toEqual(rowsOf(before.out, b, changed, changed + 1));
    expect(rowsOf(after.out, b, T - 1, T)).not.toEqual(rowsOf(before.out, b, T - 1, T));
  });

  for (const variant of ATTENTION_DECODE_VARIANTS) {
    for (const shape of SHAPES) {
      const [B, T, C, H] = shape;
      it(`decode (${variant}) step pos matches training row pos, B=${B} T=${T} C=${C} H=${H}`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const rng = new Rng(seed);
        const Tmax = T + 3; // cache rows past T must stay untouched
        const qkvAll = randn(rng, B * T * 3 * C, 2);
        const want = ref.attentionForward(qkvAll, B, T, C, H).out;

        const qkv = poisoned(rt, 'dec_qkv', B * 3 * C);
        const kcache = poisoned(rt, 'kcache', B * Tmax * C);
        const vcache = poisoned(rt, 'vcache', B * Tmax * C);
        const out = poisoned(rt, 'dec_out', B * C);
        const state = uploadU32(rt, 'state', [0]);
        const outs = rt.buffer('dec_outs', T * B * C * 4);
        const d = await attentionDecode(rt, { qkv, kcache, vcache, out, state, B, Tmax, C, H, variant });

        // Queue order (write, run, copy per step) keeps every step separate; one readback at the end.
        const step = new Float32Array(B * 3 * C);
        for (let pos = 0; pos < T; pos++) {
          for (let b = 0; b < B; b++) step.set(qkvAll.subarray((b * T + pos) * 3 * C, (b * T + pos + 1) * 3 * C), b * 3 * C);
          rt.write(qkv, step);
          rt.write(state, Uint32Array.of(pos));
          rt.write(out, new Float32Array(B * C).fill(NaN));
          rt.run([d]);
          const enc = rt.device.createCommandEncoder();
          enc.copyBufferToBuffer(out, 0, outs, pos * B * C * 4, B * C * 4);
          rt.device.queue.submit([enc.finish()]);
        }
        const gotOuts = await rt.readF32(outs, 0, T * B * C);
        // Reference out is [b, t, :]; decoded outputs are [pos, b, :].
        const wantOuts = new Float64Array(T * B * C);
        for (let pos = 0; pos < T; pos++) {
          for (let b = 0; b < B; b++) wantOuts.set(want.subarray((b * T + pos) * C, (b * T + pos + 1) * C), (pos * B + b) * C);
        }
        expect(relErr(gotOuts, wantOuts), `decode out, seed ${seed}`).toBeLessThan(TOL);

        const k = await rt.readF32(kcache, 0, B * Tmax * C);
        const v = await rt.readF32(vcache, 0, B * Tmax * C);
        for (let b = 0; b < B; b++) {
          for (let t = 0; t < Tmax; t++) {
            const cache = (b * Tmax + t) * C;
            if (t < T) {
              const src = (b * T + t) * 3 * C;
              expect(Array.from(k.subarray(cache, cache + C))).toEqual(Array.from(Float32Array.from(qkvAll.subarray(src + C, src + 2 * C))));
              expect(Array.from(v.subarray(cache, cache + C))).toEqual(Array.from(Float32Array.from(qkvAll.subarray(src + 2 * C, src + 3 * C))));
            } else {
              expect(k.subarray(cache, cache + C).every(Number.isNaN), `kcache row ${t} written`).toBe(true);
              expect(v.subarray(cache, cache + C).every(Number.isNaN), `vcache row ${t} written`).toBe(true);
            }
          }
        }
      });
    }

    it(`decode (${variant}) attends over a cache filled beforehand (prompt prefill)`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const [B, T, C, H] = [2, 4, 8, 2];
      const qkvAll = randn(rng, B * T * 3 * C);
      const want = ref.attentionForward(qkvAll, B, T, C, H).out;
      // Prefill the caches with the first T-1 tokens, as a prompt prefill would.
      const kc = new Float32Array(B * T * C);
      const vc = new Float32Array(B * T * C);
      for (let b = 0; b < B; b++) {
        for (let t = 0; t < T - 1; t++) {
          const src = (b * T + t) * 3 * C;
          kc.set(qkvAll.subarray(src + C, src + 2 * C), (b * T + t) * C);
          vc.set(qkvAll.subarray(src + 2 * C, src + 3 * C), (b * T + t) * C);
        }
      }
      const step = new Float32Array(B * 3 * C);
      for (let b = 0; b < B; b++) step.set(qkvAll.subarray((b * T + T - 1) * 3 * C, (b * T + T) * 3 * C), b * 3 * C);
      const qkv = upload(rt, 'rep_qkv', step);
      const kcache = upload(rt, 'rep_k', kc);
      const vcache = upload(rt, 'rep_v', vc);
      const out = poisoned(rt, 'rep_out', B * C);
      const state = uploadU32(rt, 'rep_state', [T - 1]);
      rt.run([await attentionDecode(rt, { qkv, kcache, vcache, out, state, B, Tmax: T, C, H, variant })]);
      const got = await rt.readF32(out, 0, B * C);
      const wantLast = new Float64Array(B * C);
      for (let b = 0; b < B; b++) wantLast.set(want.subarray((b * T + T - 1) * C, (b * T + T) * C), b * C);
      expect(relErr(got, wantLast), `seed ${seed}`).toBeLessThan(TOL);
    });
  }
});
