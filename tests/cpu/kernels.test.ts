/**
 * Every CPU kernel against its float64 twin (src/model/reference/ops.ts, sampling.ts) on fresh
 * random inputs, odd sizes included, with outputs poisoned (NaN) before the run. The runtime has
 * 2 threads, so each kernel's work split is part of what is tested.
 */
import { describe, expect, it } from 'vitest';
import * as ref from '../../src/model/reference/ops';
import { sampleStep, uniformAt } from '../../src/model/reference/sampling';
import { attentionScratchBytes, normPartialBytes, samplerScratchBytes } from '../../src/cpu/program';
import { writeAdamW, writeGrpoOptions, writeSampler } from '../../src/cpu/blocks';
import type { GrpoLossOptions } from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { cpu, f32, freshSeed, maxRelError, Mem, randn, relErr, rms } from './harness';
import { NONFINITE_STEPS } from '../nonfinite-steps';

const TOL = 1e-4;
const abs = (x: Float64Array) => x.map(Math.abs);
/** Error relative to the magnitude of the summed terms (a sum that cancels would inflate a plain relative error). */
const sumRelErr = (a: ArrayLike<number>, e: ArrayLike<number>, mag: ArrayLike<number>) => maxRelError(a, e, Math.max(rms(e), rms(mag)));

describe('matmul vs float64 gemm', () => {
  const SIZES: [number, number, number][] = [
    [1, 1, 1],
    [5, 7, 3],
    [37, 19, 23],
    [67, 33, 129],
    [8, 16, 4],
    [64, 72, 32],
    // B over 2 MiB goes in column panels (nnPanelColumns: 8 columns at K = 2100, 16 at K = 1000), tails in the last.
    [6, 253, 2100],
    [9, 530, 1000],
  ];
  for (const transA of [false, true]) {
    for (const transB of [false, true]) {
      for (const mode of ['plain', 'accumulate', 'bias', 'resid', 'gelu-fwd', 'gelu-fwd-grad', 'gelu-bwd', 'mul'] as const) {
        if (transA && mode !== 'plain' && mode !== 'accumulate') continue; // the Aᵀ·B kernel has no epilogues
        it(`transA=${transA} transB=${transB} ${mode}`, async () => {
          const m = new Mem(await cpu());
          for (const [M, N, K] of SIZES) {
            const seed = freshSeed();
            const rng = new Rng(seed);
            const A = f32(randn(rng, M * K));
            const B = f32(randn(rng, K * N));
            const bias = f32(randn(rng, N));
            const init = f32(randn(rng, M * N));
            const aux = f32(randn(rng, M * N));
            const prod = ref.gemm(A, B, M, N, K, transA, transB);
            const mag = ref.gemm(abs(A), abs(B), M, N, K, transA, transB);
            const expected = prod.map((x, i) => {
              const j = i % N;
              if (mode === 'accumulate') return x + init[i];
              if (mode === 'bias') return x + bias[j];
              if (mode === 'resid') return init[i] + bias[j] + x;
              if (mode === 'gelu-bwd') return x * ref.geluBackward(Float64Array.of(aux[i]), Float64Array.of(1))[0];
              if (mode === 'gelu-fwd-grad') return ref.geluBackward(Float64Array.of(x), Float64Array.of(1))[0];
              if (mode === 'mul') return x * aux[i];
              return x;
            });
            for (let i = 0; i < M * N; i++) if (mode === 'accumulate' || mode === 'bias' || mode === 'resid') mag[i] += Math.abs(init[i]) + Math.abs(bias[i % N]);
            // The slope and product modes scale each sum: their error is relative to |sum|·|factor|.
            if (mode === 'gelu-bwd' || mode === 'mul' || mode === 'gelu-fwd-grad') for (let i = 0; i < M * N; i++) mag[i] = Math.abs(expected[i]) + mag[i] * (mode === 'mul' ? Math.abs(aux[i]) : 1.2);
            const a = m.f32(A);
            const bRaw = m.f32(B);
            // The kernels read B as [K × N]: a transposed B is prepared first (as the policy does once per update).
            const b = transB ? m.poison(K * N) : bRaw;
            const out = mode === 'accumulate' ? m.f32(init) : m.poison(M * N);
            const auxOut = mode === 'gelu-fwd' || mode === 'gelu-fwd-grad' ? m.poison(M * N) : m.f32(aux);
            m.run((p) => {
              if (transB) p.transpose(bRaw, b, N, K).barrier();
              if (transA) p.matmulTN({ a, b, out, M, N, K, accumulate: mode === 'accumulate' });
              else {
                p.matmulNN({
                  a,
                  b,
                  out,
                  M,
                  N,
                  K,
                  accumulate: mode === 'accumulate',
                  bias: mode === 'bias' || mode === 'resid' ? m.f32(bias) : undefined,
                  resid: mode === 'resid' ? m.f32(init) : undefined,
                  gelu: ({ 'gelu-fwd': 'fwd', 'gelu-fwd-grad': 'fwd-grad', 'gelu-bwd': 'bwd', mul: 'mul' } as const)[mode as 'mul'],
                  aux: mode.startsWith('gelu') || mode === 'mul' ? auxOut : undefined,
                  rowUnit: M % 2 ? 1 : 4,
                });
              }
            });
            const msg = `seed ${seed} ${M}x${N}x${K}`;
            expect(sumRelErr(m.read(out, M * N), expected, mag), msg).toBeLessThan(TOL);
            // gelu = 0.5·x·(1 + t) loses the low bits of 1 + t where t → −1 (x ≲ −4): its float32 error is
            // relative to |x|, not to |gelu(x)|, so the floor is the inputs' scale (a 1×1 case hit 4e-3 of |gelu|).
            if (mode === 'gelu-fwd' || mode === 'gelu-fwd-grad') expect(maxRelError(m.read(auxOut, M * N), ref.geluForward(prod), Math.max(rms(ref.geluForward(prod)), rms(prod))), msg).toBeLessThan(TOL);
          }
        });
      }
    }
  }

  it('A·B: every element is one sequential f32 sum over k (bias first, mul then add), whatever panel, tile or thread computes it', async () => {
    const m = new Mem(await cpu());
    // Panels of 8 (K = 2100: 253 = 31 × 8 + 5, the 4-column and scalar tails in the last), of 16 (K = 1000), one sweep (small B).
    for (const [M, N, K] of [[11, 253, 2100], [6, 530, 1000], [5, 13, 7], [7, 250, 130]] as const) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const A = f32(randn(rng, M * K));
      const B = f32(randn(rng, K * N));
      const bias = f32(randn(rng, N));
      const expected = new Float32Array(M * N);
      for (let i = 0; i < M; i++) {
        for (let j = 0; j < N; j++) {
          let acc = bias[j];
          for (let k = 0; k < K; k++) acc = Math.fround(acc + Math.fround(A[i * K + k] * B[k * N + j]));
          expected[i * N + j] = acc;
        }
      }
      for (const rowUnit of [1, 4]) {
        const out = m.poison(M * N);
        m.run((p) => p.matmulNN({ a: m.f32(A), b: m.f32(B), out, bias: m.f32(bias), M, N, K, rowUnit }));
        expect(Array.from(m.read(out, M * N)), `seed ${seed} ${M}x${N}x${K} rowUnit ${rowUnit}`).toEqual(Array.from(expected));
      }
    }
  });

  it('bias gradient: column sums accumulate into db', async () => {
    const m = new Mem(await cpu());
    for (const [rows, C] of [[1, 1], [37, 19], [64, 68]]) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const dy = f32(randn(rng, rows * C));
      const init = f32(randn(rng, C));
      const db = m.f32(init);
      m.run((p) => p.biasGrad(m.f32(dy), db, rows, C));
      const { db: expected } = ref.linearBackward(dy, new Float64Array(rows), new Float64Array(C), rows, 1, C);
      expect(relErr(m.read(db, C), expected.map((x, i) => x + init[i])), `seed ${seed}`).toBeLessThan(TOL);
    }
  });
});

describe('embedding vs float64 twin', () => {
  it('forward, backward (accumulating) and decode', async () => {
    const m = new Mem(await cpu());
    for (const [B, T, C, V] of [[3, 7, 13, 11], [2, 5, 16, 9]]) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const wte = f32(randn(rng, V * C));
      const wpe = f32(randn(rng, T * C));
      const tokens = Uint32Array.from({ length: B * T }, () => rng.int(0, V - 1));
      const tok = m.u32(tokens);
      const out = m.poison(B * T * C);
      const pWte = m.f32(wte);
      const pWpe = m.f32(wpe);
      m.run((p) => p.encoderForward(tok, pWte, pWpe, out, B * T, T, C));
      expect(relErr(m.read(out, B * T * C), ref.encoderForward(tokens, wte, wpe, B, T, C)), `seed ${seed}`).toBeLessThan(TOL);

      const dx = f32(randn(rng, B * T * C));
      const init1 = f32(randn(rng, V * C));
      const init2 = f32(randn(rng, T * C));
      const dwte = m.f32(init1);
      const dwpe = m.f32(init2);
      m.run((p) => p.encoderBackward(m.f32(dx), tok, dwte, dwpe, B * T, T, C));
      const g = ref.encoderBackward(dx, tokens, B, T, C, V);
      expect(relErr(m.read(dwte, V * C), g.dwte.map((x, i) => x + init1[i])), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(m.read(dwpe, T * C), g.dwpe.map((x, i) => x + init2[i])), `seed ${seed}`).toBeLessThan(TOL);

      // Decode: token at position pos of each sequence (stride T).
      const pos = T - 2;
      const posPtr = m.u32([pos]);
      const dec = m.poison(B * C);
      m.run((p) => p.encoderDecode(tok, pWte, pWpe, dec, T, posPtr, C, B));
      const full = ref.encoderForward(tokens, wte, wpe, B, T, C);
      const expected = new Float64Array(B * C);
      for (let b = 0; b < B; b++) expected.set(full.subarray((b * T + pos) * C, (b * T + pos + 1) * C), b * C);
      expect(relErr(m.read(dec, B * C), expected)).toBeLessThan(TOL);
    }
  });
});

describe('norms vs float64 twins', () => {
  for (const kind of ['rmsnorm', 'layernorm'] as const) {
    it(`${kind} forward and backward`, async () => {
      const m = new Mem(await cpu());
      // C = 1 is left out: rmsnorm's dx there is a cancellation (1 − n² ≈ eps/x²) no f32 kernel resolves.
      for (const [rows, C] of [[1, 3], [37, 19], [33, 64]]) {
        const seed = freshSeed();
        const rng = new Rng(seed);
        const x = f32(randn(rng, rows * C, 2).map((v) => v + 0.5));
        const w = f32(randn(rng, C).map((v) => 1 + 0.3 * v));
        const bias = f32(randn(rng, C));
        const ln = kind === 'layernorm';
        const out = m.poison(rows * C);
        const mean = m.poison(rows);
        const rstd = m.poison(rows);
        const px = m.f32(x);
        const pw = m.f32(w);
        m.run((p) => p.normForward({ kind, inp: px, weight: pw, bias: ln ? m.f32(bias) : undefined, out, mean: ln ? mean : undefined, rstd, rows, C }));
        const f = ln ? ref.layernormForward(x, w, bias, rows, C) : { ...ref.rmsnormForward(x, w, rows, C), mean: new Float64Array(rows) };
        const msg = `seed ${seed} ${rows}x${C}`;
        expect(relErr(m.read(out, rows * C), f.out), msg).toBeLessThan(TOL);
        expect(relErr(m.read(rstd, rows), f.rstd), msg).toBeLessThan(TOL);
        if (ln) expect(relErr(m.read(mean, rows), f.mean), msg).toBeLessThan(TOL);

        const dout = f32(randn(rng, rows * C));
        const g = ln ? ref.layernormBackward(dout, x, w, f.mean, f.rstd, rows, C) : { ...ref.rmsnormBackward(dout, x, w, f.rstd, rows, C), db: new Float64Array(C) };
        for (const accumulate of [false, true]) {
          const init = f32(randn(rng, rows * C));
          const dinp = accumulate ? m.f32(init) : m.poison(rows * C);
          const initW = f32(randn(rng, C));
          const initB = f32(randn(rng, C));
          const dw = m.f32(initW);
          const db = m.f32(initB);
          const pd = m.f32(dout);
          m.run((p) => {
            p.normBackwardDx({ kind, dout: pd, inp: px, weight: pw, mean: ln ? mean : undefined, rstd, dinp, rows, C, accumulate });
            p.normBackwardDw({ kind, dout: pd, inp: px, mean: ln ? mean : undefined, rstd, dweight: dw, dbias: ln ? db : undefined, rows, C });
          });
          const dxExp = accumulate ? g.dx.map((v, i) => v + init[i]) : g.dx;
          expect(relErr(m.read(dinp, rows * C), dxExp), `${msg} accumulate=${accumulate}`).toBeLessThan(TOL);
          expect(relErr(m.read(dw, C), g.dw.map((v, i) => v + initW[i])), msg).toBeLessThan(TOL);
          if (ln) expect(relErr(m.read(db, C), g.db.map((v, i) => v + initB[i])), msg).toBeLessThan(TOL);
        }
      }
    });
  }
});

describe('elementwise vs float64 twins', () => {
  it('gelu forward/backward, add, copy', async () => {
    const m = new Mem(await cpu());
    for (const n of [1, 7, 1031]) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const x = f32(randn(rng, n, 3));
      const dout = f32(randn(rng, n));
      const px = m.f32(x);
      const y = m.poison(n);
      const dx = m.poison(n);
      const sum = m.poison(n);
      const cp = m.poison(n);
      m.run((p) => p.geluForward(px, y, n).geluBackward(px, m.f32(dout), dx, n).add(px, m.f32(dout), sum, n).copy(px, cp, n));
      // tanh comes from a SIMD exp with ~1e-7 absolute error: with n = 1 and an output near 0 a pure relative
      // error would fail on rounding alone, so the floor is 0.1 (the scale of an activation), not the output's own RMS.
      const geluErr = (got: ArrayLike<number>, want: ArrayLike<number>) => maxRelError(got, want, Math.max(rms(want), 0.1));
      expect(geluErr(m.read(y, n), ref.geluForward(x)), `seed ${seed}`).toBeLessThan(TOL);
      expect(geluErr(m.read(dx, n), ref.geluBackward(x, dout)), `seed ${seed}`).toBeLessThan(TOL);
      expect(relErr(m.read(sum, n), x.map((v, i) => v + dout[i]))).toBeLessThan(TOL);
      expect(Array.from(m.read(cp, n))).toEqual(Array.from(Float32Array.from(x)));
    }
  });

  it('gelu in the matmul epilogue is bit-identical to the stand-alone pass', async () => {
    const m = new Mem(await cpu());
    const rng = new Rng(freshSeed());
    const [M, N, K] = [9, 13, 5];
    const a = m.f32(randn(rng, M * K));
    const b = m.f32(randn(rng, K * N));
    const pre = m.poison(M * N);
    const act = m.poison(M * N);
    const act2 = m.poison(M * N);
    m.run((p) => p.matmulNN({ a, b, out: pre, aux: act, gelu: 'fwd', M, N, K }).barrier().geluForward(pre, act2, M * N));
    expect(Array.from(m.read(act, M * N))).toEqual(Array.from(m.read(act2, M * N)));
  });
});

describe('attention vs float64 twin', () => {
  for (const [B, T, C, H] of [
    [2, 7, 12, 3],
    [3, 9, 16, 2],
    [1, 1, 4, 1],
    [2, 37, 12, 3], // 37 positions: scoreRow's 16-key, 4-key and 1-key paths in training and in decode
  ]) {
    it(`forward, backward and KV-cache decode (B=${B} T=${T} C=${C} H=${H})`, async () => {
      const rt = await cpu();
      const m = new Mem(rt);
      const seed = freshSeed();
      const rng = new Rng(seed);
      const qkv = f32(randn(rng, B * T * 3 * C));
      const stride = Math.ceil(attentionScratchBytes(T, C / H) / 64) * 64;
      const scratch = m.poison((stride * rt.threads) / 4);
      const pq = m.f32(qkv);
      const out = m.poison(B * T * C);
      const att = m.poison(B * H * T * T);
      m.run((p) => p.attentionForward({ qkv: pq, out, att, scratch, scratchStride: stride, B, T, C, H }));
      const f = ref.attentionForward(qkv, B, T, C, H);
      const msg = `seed ${seed}`;
      expect(relErr(m.read(out, B * T * C), f.out), msg).toBeLessThan(TOL);
      expect(relErr(m.read(att, B * H * T * T), f.att), msg).toBeLessThan(TOL);

      const dout = f32(randn(rng, B * T * C));
      const dqkv = m.poison(B * T * 3 * C);
      m.run((p) => p.attentionBackward({ dout: m.f32(dout), qkv: pq, att, dqkv, scratch, scratchStride: stride, B, T, C, H }));
      expect(relErr(m.read(dqkv, B * T * 3 * C), ref.attentionBackward(dout, qkv, f.att, B, T, C, H)), msg).toBeLessThan(TOL);

      // Decode position by position from the same qkv rows: bit-identical to the training rows.
      const kc = m.poison(B * T * C);
      const vc = m.poison(B * T * C);
      const row = m.poison(B * 3 * C);
      const dec = m.poison(B * C);
      const posPtr = m.u32([0]);
      const train = m.read(out, B * T * C);
      for (let pos = 0; pos < T; pos++) {
        const rows = new Float32Array(B * 3 * C);
        for (let b = 0; b < B; b++) rows.set(Float32Array.from(qkv.subarray((b * T + pos) * 3 * C, (b * T + pos + 1) * 3 * C)), b * 3 * C);
        rt.f32(row, B * 3 * C).set(rows);
        rt.u32(posPtr, 1)[0] = pos;
        m.run((p) => p.attentionDecode({ qkv: row, kcache: kc, vcache: vc, out: dec, scratch, scratchStride: stride, Tmax: T, C, H, posPtr, B }));
        const got = m.read(dec, B * C);
        for (let b = 0; b < B; b++) {
          expect(Array.from(got.subarray(b * C, (b + 1) * C)), `${msg} pos ${pos} seq ${b}`).toEqual(Array.from(train.subarray((b * T + pos) * C, (b * T + pos + 1) * C)));
        }
      }
    });
  }
});

describe('loss head vs float64 twins', () => {
  it('log-softmax + entropy at τ: forward and backward (odd V, peaked rows, bad target → NaN)', async () => {
    const rt = await cpu();
    const m = new Mem(rt);
    for (const [rows, V, tau] of [[1, 2, 1], [37, 19, 0.7], [8, 64, 1.3]]) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const logits = f32(randn(rng, rows * V, 2));
      // A peaked row (p_max = 1 − O(1e-7)): its tiny entropy must stay accurate. (Much more peaked
      // rows are beyond the float64 twin itself, whose 1 + u rounds to 1.)
      for (let j = 0; j < V; j++) logits[j] = j === 0 ? 12 * tau : -3 * tau;
      const targets = Array.from({ length: rows }, () => rng.int(0, V - 1));
      const temp = m.f32([tau]);
      const scratch = m.poison((Math.ceil((V * 4) / 64) * 64 * rt.threads) / 4);
      const pl = m.f32(logits);
      const pt = m.u32(targets);
      const logp = m.poison(rows);
      const ent = m.poison(rows);
      const lse = m.poison(rows);
      m.run((p) => p.logSoftmaxForward({ logits: pl, targets: pt, logp, entropy: ent, lse, V, temperaturePtr: temp, scratch, scratchStride: Math.ceil((V * 4) / 64) * 64, rows }));
      const t = f32([tau])[0];
      const f = ref.logSoftmaxEntropyForward(logits, targets, rows, V, t);
      const msg = `seed ${seed} ${rows}x${V}`;
      expect(relErr(m.read(logp, rows), f.logp), msg).toBeLessThan(TOL);
      expect(relErr(m.read(ent, rows), f.entropy), msg).toBeLessThan(TOL);
      // The peaked row's tiny entropy is accurate in relative terms too.
      expect(Math.abs(m.read(ent, 1)[0] - f.entropy[0]) / f.entropy[0], msg).toBeLessThan(1e-3);

      const dlogp = f32(randn(rng, rows));
      const dent = f32(randn(rng, rows));
      const dl = m.poison(rows * V);
      m.run((p) => p.logSoftmaxBackward({ logits: pl, targets: pt, lse, entropy: ent, dlogp: m.f32(dlogp), dent: m.f32(dent), dlogits: dl, V, temperaturePtr: temp, rows }));
      expect(relErr(m.read(dl, rows * V), ref.logSoftmaxEntropyBackward(dlogp, dent, logits, targets, rows, V, t)), msg).toBeLessThan(TOL);

      rt.u32(pt, 1)[0] = V; // out of range
      m.run((p) => p.logSoftmaxForward({ logits: pl, targets: pt, logp, entropy: ent, lse, V, temperaturePtr: temp, scratch, scratchStride: Math.ceil((V * 4) / 64) * 64, rows }));
      expect(m.read(logp, 1)[0]).toBeNaN();
    }
  });

  const OPTS: GrpoLossOptions[] = [
    { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.01, klCoef: 0.1, klType: 'k3' },
    { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0, klCoef: 0.05, klType: 'k1' },
    { epsLow: 0.1, epsHigh: 0.3, dualClip: 2, entCoef: 0.02, klCoef: 0.2, klType: 'low_var_kl' },
    // β = 0 with a reference: no KL term at all (klSum 0), as in the twin.
    { epsLow: 0.2, epsHigh: 0.28, dualClip: null, entCoef: 0.01, klCoef: 0, klType: 'k3' },
  ];
  for (const opts of OPTS) {
    for (const withRef of [true, false]) {
      it(`GRPO token loss, stats and gradients (${opts.klType}, dualClip ${opts.dualClip}, ref ${withRef})`, async () => {
        const m = new Mem(await cpu());
        const seed = freshSeed();
        const rng = new Rng(seed);
        const N = 203;
        const logp = f32(randn(rng, N).map((x) => -Math.abs(x) - 0.1));
        const oldLogp = f32(logp.map((x) => x + 0.4 * rng.normal()));
        const refLogp = f32(logp.map((x, i) => x + (i % 17 === 0 ? 15 : 0.5 * rng.normal()))); // a few beyond the low_var_kl clamp
        const adv = f32(randn(rng, N));
        const mask = Float64Array.from({ length: N }, (_, i) => (i % 5 === 0 ? 0 : 1));
        const weights = f32(mask.map((x) => (x * (0.5 + rng.next())) / N));
        const entropy = f32(randn(rng, N).map(Math.abs));
        // A zero-weight token whose ratio overflows must contribute exactly 0.
        logp[0] = 0;
        oldLogp[0] = -200;
        const o = m.rt.alloc(32);
        writeGrpoOptions(m.rt, o, opts);
        const dlogp = m.poison(N);
        const dent = m.poison(N);
        const stats = m.poison(8);
        m.run((p) => p.grpoLoss({ logp: m.f32(logp), oldLogp: m.f32(oldLogp), refLogp: withRef ? m.f32(refLogp) : 0, advantages: m.f32(adv), weights: m.f32(weights), mask: m.f32(mask), entropy: m.f32(entropy), dlogp, dent, stats, opts: o, N }));
        const r = ref.grpoTokenLoss({ logp, oldLogp, refLogp: withRef ? refLogp : null, advantages: adv, weights, mask, entropy }, opts);
        const s = m.read(stats, 8);
        const msg = `seed ${seed}`;
        const count = mask.reduce((a, b) => a + b, 0);
        expect(relErr([s[0], s[1], s[2], s[3]], [r.loss, r.pgLoss, r.klSum, r.entSum]), msg).toBeLessThan(TOL);
        if (opts.klCoef === 0 || !withRef) expect(s[2]).toBe(0);
        expect(s[4] / s[7], msg).toBeCloseTo(r.clipfrac, 6);
        expect(s[5] / s[7], msg).toBeCloseTo(r.clipfracLower, 6);
        expect(s[6] / s[7], msg).toBeCloseTo(r.ppoKl, 5);
        expect(s[7]).toBe(count);
        const gotD = m.read(dlogp, N);
        expect(gotD[0]).toBe(0);
        expect(relErr(gotD, r.dlogp.map((x, i) => (weights[i] === 0 ? 0 : x))), msg).toBeLessThan(TOL);
        expect(relErr(m.read(dent, N), r.dent), msg).toBeLessThan(TOL);
      });
    }
  }

  it('cross-entropy: ℓ = −Σ w·logp, dlogp = −w, dent = 0', async () => {
    const m = new Mem(await cpu());
    const rng = new Rng(freshSeed());
    const N = 77;
    const logp = f32(randn(rng, N).map((x) => -Math.abs(x)));
    const mask = Float64Array.from({ length: N }, (_, i) => (i % 3 ? 1 : 0));
    const weights = f32(mask.map((x) => x / 50));
    const dlogp = m.poison(N);
    const dent = m.poison(N);
    const stats = m.poison(8);
    m.run((p) => p.crossEntropyLoss({ logp: m.f32(logp), weights: m.f32(weights), mask: m.f32(mask), dlogp, dent, stats, N }));
    const s = m.read(stats, 8);
    expect(relErr([s[0]], [-logp.reduce((a, x, i) => a + weights[i] * x, 0)])).toBeLessThan(TOL);
    expect(Array.from(s.subarray(1, 7))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(s[7]).toBe(mask.reduce((a, b) => a + b, 0));
    expect(relErr(m.read(dlogp, N), weights.map((w) => -w))).toBeLessThan(TOL);
    expect(Array.from(m.read(dent, N)).every((x) => x === 0)).toBe(true);
  });
});

describe('optimizer vs float64 twins', () => {
  it('grad norm and three clipped AdamW steps (decay only below decayEnd, odd n)', async () => {
    const m = new Mem(await cpu());
    for (const [n, decayEnd, maxGradNorm] of [[37, 12, 0.5], [20001, 8192 + 64, Infinity], [130, 64, 1e6]]) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const p0 = f32(randn(rng, n));
      const params = p0.slice();
      const mm = new Float64Array(n);
      const vv = new Float64Array(n);
      const pp = m.f32(p0);
      const pm = m.f32(new Float64Array(n));
      const pv = m.f32(new Float64Array(n));
      const pg = m.rt.allocF32(n);
      const partials = m.rt.alloc(normPartialBytes(n));
      const norm = m.poison(4);
      const loss = m.f32([0.25]);
      const hyper = m.rt.alloc(48);
      const opts = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm };
      for (let step = 1; step <= 3; step++) {
        const g = f32(randn(rng, n, 0.3));
        m.rt.f32(pg, n).set(Float32Array.from(g));
        writeAdamW(m.rt, hyper, step, opts);
        m.run((p) => p.gradNorm(pg, n, partials, norm).barrier().adamw({ params: pp, grads: pg, m: pm, v: pv, hyper, norm, loss, decayEnd, n }));
        const { norm: refNorm, scale } = ref.clipGradNorm(g, maxGradNorm);
        expect(m.read(norm, 1)[0], `seed ${seed}`).toBeCloseTo(refNorm, 3);
        expect(Math.abs(m.read(norm, 1)[0] - refNorm) / refNorm).toBeLessThan(1e-6);
        ref.adamwStep(params, g, mm, vv, { ...opts, step, gradScale: scale, decayEnd });
      }
      const got = m.read(pp, n);
      const worst = Math.max(...Array.from(params, (x, i) => Math.abs(got[i] - x) / opts.lr));
      expect(worst, `seed ${seed} n ${n}`).toBeLessThan(1e-3);
      expect(relErr(m.read(pm, n), mm)).toBeLessThan(TOL);
      expect(relErr(m.read(pv, n), vv)).toBeLessThan(TOL);
    }
  });
});

describe('AdamW rejects a non-finite step', () => {
  // A ±Inf / NaN gradient, or a non-finite loss with finite gradients: params, m and v keep their
  // bits, the norm is still written, and the steps around it match the float64 twin that skips the
  // same steps (adamwStep's gate), t advancing only on applied steps (as the trainer does).
  const rejects = NONFINITE_STEPS;
  it(`odd sizes, each of: ${rejects.map((r) => r.what).join(', ')}`, async () => {
    const m = new Mem(await cpu());
    for (const n of [1, 37, 1001, 20001]) {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const decayEnd = Math.floor(n / 3);
      const p64 = f32(randn(rng, n));
      const m64 = new Float64Array(n);
      const v64 = new Float64Array(n);
      const pp = m.f32(p64);
      const pm = m.f32(m64);
      const pv = m.f32(v64);
      const pg = m.rt.allocF32(n);
      const partials = m.rt.alloc(normPartialBytes(n));
      const norm = m.rt.allocF32(4);
      const loss = m.rt.allocF32(1);
      const hyper = m.rt.alloc(48);
      const opts = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 0.5 };
      let t = 0;
      const plan = [null, ...rejects.flatMap((r) => [r, null])];
      for (const [k, r] of plan.entries()) {
        const g = f32(randn(rng, n, 0.3));
        const lossValue = r ? r.poison(g, rng) : 0.5;
        const { norm: refNorm, scale } = ref.clipGradNorm(g, opts.maxGradNorm);
        const applied = ref.adamwStep(p64, g, m64, v64, { ...opts, step: t + 1, gradScale: scale, decayEnd, gate: { loss: lossValue, gradNorm: refNorm } });
        expect(applied, `step ${k}`).toBe(r === null);
        const before = [m.read(pp, n), m.read(pm, n), m.read(pv, n)];
        m.rt.f32(pg, n).set(Float32Array.from(g));
        m.rt.f32(loss, 1)[0] = lossValue;
        m.rt.f32(norm, 1)[0] = 0.125; // finite poison: a skipped norm pass would let AdamW run
        writeAdamW(m.rt, hyper, t + 1, opts);
        m.run((p) => p.gradNorm(pg, n, partials, norm).barrier().adamw({ params: pp, grads: pg, m: pm, v: pv, hyper, norm, loss, decayEnd, n }));
        const label = `seed ${seed}, n ${n}, step ${k} (${r?.what ?? 'finite'})`;
        const gotNorm = m.read(norm, 1)[0];
        if (Number.isFinite(refNorm)) expect(Math.abs(gotNorm - refNorm) / refNorm, label).toBeLessThan(1e-6);
        else expect(Number.isNaN(refNorm) ? Number.isNaN(gotNorm) : gotNorm === Infinity, `${label}: norm ${gotNorm}, want ${refNorm}`).toBe(true);
        const after = [m.read(pp, n), m.read(pm, n), m.read(pv, n)];
        if (applied) t++;
        else ['params', 'm', 'v'].forEach((name, j) => expect(Buffer.from(after[j].buffer).equals(Buffer.from(before[j].buffer)), `${name} changed, ${label}`).toBe(true));
      }
      expect(t).toBe(rejects.length + 1);
      const got = m.read(pp, n);
      const worst = Math.max(...Array.from(p64, (x, i) => Math.abs(got[i] - x) / opts.lr));
      expect(worst, `seed ${seed} n ${n}`).toBeLessThan(1e-3);
      expect(relErr(m.read(pm, n), m64), `m, seed ${seed} n ${n}`).toBeLessThan(TOL);
      expect(relErr(m.read(pv, n), v64), `v, seed ${seed} n ${n}`).toBeLessThan(TOL);
    }
  });
});

describe('sampling vs float64 twin', () => {
  it('same tokens as the reference sampleStep, and the state machine (prompt, EOS, truncation, PAD)', async () => {
    const rt = await cpu();
    const m = new Mem(rt);
    const seed = freshSeed();
    const rng = new Rng(seed);
    const B = 13;
    const V = 23;
    const stride = 12;
    const ctx = 11;
    for (const [temperature, topP] of [[1, 1], [0.7, 0.9], [1.3, 0.5], [1, 1e-6]]) {
      const opts = { temperature, topP, seed: rng.nextU32(), maxResponseLength: 3, eosId: 2, padId: 0 };
      const tokens = new Uint32Array(B * stride).fill(7);
      const seqs = new Uint32Array(B * 4);
      const refLogp = new Float64Array(B * stride);
      const refEnt = new Float64Array(B * stride);
      for (let b = 0; b < B; b++) {
        seqs[b * 4] = 1 + (b % 4);
        seqs[b * 4 + 3] = (5 * b + 3) % B; // row ids, permuted against the slots
      }
      const pTok = m.u32(tokens);
      const pSeq = m.u32(seqs);
      const sl = m.f32(new Float64Array(B * stride));
      const se = m.f32(new Float64Array(B * stride));
      const o = rt.alloc(32);
      writeSampler(rt, o, opts, V);
      const sstride = Math.ceil(samplerScratchBytes(V) / 64) * 64;
      const scratch = rt.alloc(sstride * rt.threads);
      const posPtr = m.u32([0]);
      for (let pos = 0; pos < stride - 1; pos++) {
        const logits = f32(randn(rng, B * V, 2));
        // Ties in the logits: the top-p order breaks them by index.
        logits[3] = logits[4];
        if (pos === 2) logits.fill(logits[0], V, 2 * V);
        rt.u32(posPtr, 1)[0] = pos;
        m.run((p) => p.sample({ logits: m.f32(logits), tokens: pTok, seqs: pSeq, sampleLogp: sl, sampleEntropy: se, opts: o, scratch, scratchStride: sstride, V, stride, contextLength: ctx, posPtr, B }));
        sampleStep({ logits, tokens, pos, seqs, sampleLogp: refLogp, sampleEntropy: refEnt, B, V, tokenStride: stride, contextLength: ctx, opts });
      }
      const msg = `seed ${seed} τ ${temperature} top-p ${topP}`;
      expect(Array.from(m.readU32(pTok, B * stride)), msg).toEqual(Array.from(tokens));
      expect(Array.from(m.readU32(pSeq, B * 4)), msg).toEqual(Array.from(seqs));
      expect(maxRelError(m.read(sl, B * stride), refLogp, 1), msg).toBeLessThan(1e-5);
      expect(maxRelError(m.read(se, B * stride), refEnt, 1), msg).toBeLessThan(1e-5);
      // Every status was reached somewhere.
      const statuses = new Set(Array.from({ length: B }, (_, b) => seqs[b * 4 + 2]));
      expect(statuses.has(1) || statuses.has(2), msg).toBe(true);
    }
  });

  it('the PRNG draw is the reference uniformAt (read through the choice between two equally likely tokens)', async () => {
    // With logits [0, 0] at τ = 1, token 1 is chosen iff u ≥ 0.5: the draw's top bit, for many (seed, row, pos).
    const rt = await cpu();
    const m = new Mem(rt);
    const B = 64;
    const V = 2;
    const stride = 40;
    const s = freshSeed();
    const tokens = m.u32(new Uint32Array(B * stride));
    // Slot b holds row (37b + 11) mod B, a permutation: the draw is keyed by the row id in seqs, not the slot.
    const row = (b: number) => (37 * b + 11) % B;
    const fresh = () => new Uint32Array(B * 4).map((_, i) => (i % 4 === 0 ? 1 : i % 4 === 3 ? row(i >> 2) : 0));
    const seqs = m.u32(fresh());
    const o = rt.alloc(32);
    writeSampler(rt, o, { temperature: 1, topP: 1, seed: s, maxResponseLength: 1000, eosId: 0, padId: 0 }, V);
    // Every position starts from fresh sequence states (prompt of 1, running), so each run is one draw per sequence.
    const sstride = Math.ceil(samplerScratchBytes(V) / 64) * 64;
    const scratch = rt.alloc(sstride * rt.threads);
    const logits = m.f32(new Float64Array(B * V));
    const posPtr = m.u32([0]);
    const sl = m.f32(new Float64Array(B * stride));
    const se = m.f32(new Float64Array(B * stride));
    for (let pos = 0; pos < 30; pos++) {
      rt.u32(seqs, B * 4).set(fresh());
      rt.u32(posPtr, 1)[0] = pos;
      m.run((p) => p.sample({ logits, tokens, seqs, sampleLogp: sl, sampleEntropy: se, opts: o, scratch, scratchStride: sstride, V, stride, contextLength: stride, posPtr, B }));
      const got = m.readU32(tokens, B * stride);
      for (let b = 0; b < B; b++) expect(got[b * stride + pos + 1], `seed ${s} b ${b} pos ${pos}`).toBe(uniformAt(s, row(b), pos) >= 0.5 ? 1 : 0);
    }
  });
});
