import { describe, expect, it } from 'vitest';
import {
  crossEntropyLoss,
  grpoLoss,
  grpoLossScratchFloats,
  logSoftmaxEntropyBackward,
  logSoftmaxEntropyForward,
  logSoftmaxEntropyForwardVariant,
  lossForwardVariant,
  type GrpoLossOptions,
  type LossForwardVariant,
} from '../../src/gpu/kernels/loss';
import type { GpuRuntime } from '../../src/gpu/runtime';
import * as ref from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, poisoned, randn, relErr, rms, upload, uploadU32 } from './harness';

const TOL = 1e-4;

/** The values the GPU actually sees (f32), widened back, so the reference works on the same inputs. */
const asF32 = (x: ArrayLike<number>) => Float64Array.from(Float32Array.from(x));

/**
 * Max error of dlogits relative to the size of the terms each element is made of,
 * c_j = (|dlogp|·(δ_jt + p_j) + |dent|·p_j·(|log p_j| + H))/τ (floored by rms of the result as in relErr).
 * For a very peaked row (p_max ≈ 1 − 1e-9) dz_max = dlogp·(1 − p_max) is a difference of O(|dlogp|)
 * terms, and log p_max = z − lse inherits lse's f32 rounding (~1e-7 absolute): relative to the tiny
 * result alone that error is unbounded in f32, relative to the terms it is ~1e-7.
 */
function dlogitsErr(
  got: Float32Array,
  want: Float64Array,
  a: { logits: Float64Array; targets: Uint32Array; dlogp: Float64Array; dent: Float64Array; logp: Float64Array; entropy: Float64Array },
  rows: number,
  V: number,
  tau: number,
): number {
  const c = new Float64Array(rows * V);
  for (let r = 0; r < rows; r++) {
    const lse = a.logits[r * V + a.targets[r]] / tau - a.logp[r];
    for (let j = 0; j < V; j++) {
      const lp = a.logits[r * V + j] / tau - lse;
      const pj = Math.exp(lp);
      c[r * V + j] = (Math.abs(a.dlogp[r]) * ((j === a.targets[r] ? 1 : 0) + pj) + Math.abs(a.dent[r]) * pj * (Math.abs(lp) + a.entropy[r])) / tau;
    }
  }
  let worst = 0;
  const floor = rms(want);
  for (let i = 0; i < want.length; i++) {
    if (!Number.isFinite(got[i])) return Infinity;
    worst = Math.max(worst, Math.abs(got[i] - want[i]) / Math.max(Math.abs(want[i]), c[i], floor));
  }
  return worst;
}

// ---------------------------------------------------------------------------------------------
// Log-softmax + entropy
// ---------------------------------------------------------------------------------------------

describe('logSoftmaxEntropy forward/backward vs float64 reference', () => {
  const shapes: [number, number][] = [
    [1, 2],
    [5, 7],
    [33, 32],
    [3, 1000],
    [2, 5000],
  ];
  const variants: LossForwardVariant[] = ['rows', 'workgroup'];

  async function setup(rt: GpuRuntime, rng: Rng, rows: number, V: number) {
    const logits = asF32(randn(rng, rows * V, 3));
    const targets = Uint32Array.from({ length: rows }, () => rng.int(0, V - 1));
    const dlogp = asF32(randn(rng, rows));
    const dent = asF32(randn(rng, rows));
    return {
      logits,
      targets,
      dlogp,
      dent,
      b: {
        logits: upload(rt, 'logits', logits),
        targets: uploadU32(rt, 'targets', targets),
        logp: poisoned(rt, 'logp', rows),
        entropy: poisoned(rt, 'entropy', rows),
        lse: poisoned(rt, 'lse', rows),
        dlogp: upload(rt, 'up_dlogp', dlogp),
        dent: upload(rt, 'up_dent', dent),
        dlogits: poisoned(rt, 'dlogits', rows * V),
      },
    };
  }

  for (const [rows, V] of shapes) {
    for (const tau of [1, 0.6]) {
      it(`rows=${rows} V=${V} τ=${tau} (both forward variants, backward)`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const rng = new Rng(seed);
        const { logits, targets, dlogp, dent, b } = await setup(rt, rng, rows, V);
        const want = ref.logSoftmaxEntropyForward(logits, targets, rows, V, tau);
        const wantD = ref.logSoftmaxEntropyBackward(dlogp, dent, logits, targets, rows, V, tau);
        for (const variant of variants) {
          for (const buf of [b.logp, b.entropy, b.lse, b.dlogits]) rt.write(buf, new Float32Array(buf.size / 4).fill(NaN));
          const fwd = await logSoftmaxEntropyForwardVariant(rt, { ...b, rows, V, temperature: tau }, variant);
          const bwd = await logSoftmaxEntropyBackward(rt, { ...b, rows, V, temperature: tau });
          rt.run([fwd, bwd]);
          const msg = `seed ${seed} ${variant}`;
          expect(relErr(await rt.readF32(b.logp, 0, rows), want.logp), msg).toBeLessThan(TOL);
          expect(relErr(await rt.readF32(b.entropy, 0, rows), want.entropy), msg).toBeLessThan(TOL);
          const got = await rt.readF32(b.dlogits, 0, rows * V);
          expect(dlogitsErr(got, wantD, { logits, targets, dlogp, dent, ...want }, rows, V, tau), msg).toBeLessThan(TOL);
        }
      });
    }
  }

  it('the builder picks the barrier-free variant for small V and on CPU adapters', () => {
    expect(lossForwardVariant(32, false)).toBe('rows');
    expect(lossForwardVariant(65536, false)).toBe('workgroup');
    expect(lossForwardVariant(65536, true)).toBe('rows');
  });

  it('setTemperature changes forward and backward without re-recording', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    for (const [rows, V] of [
      [9, 32],
      [3, 1000],
    ] as const) {
      const { logits, targets, dlogp, dent, b } = await setup(rt, rng, rows, V);
      const fwd = await logSoftmaxEntropyForward(rt, { ...b, rows, V, temperature: 1 });
      const bwd = await logSoftmaxEntropyBackward(rt, { ...b, rows, V, temperature: 1 });
      for (const tau of [1, 0.6, 1.7]) {
        fwd.setTemperature(rt, tau);
        bwd.setTemperature(rt, tau);
        for (const buf of [b.logp, b.entropy, b.dlogits]) rt.write(buf, new Float32Array(buf.size / 4).fill(NaN));
        rt.run([fwd, bwd]);
        const want = ref.logSoftmaxEntropyForward(logits, targets, rows, V, tau);
        const msg = `seed ${seed} V=${V} τ=${tau}`;
        expect(relErr(await rt.readF32(b.logp, 0, rows), want.logp), msg).toBeLessThan(TOL);
        expect(relErr(await rt.readF32(b.entropy, 0, rows), want.entropy), msg).toBeLessThan(TOL);
        const wantD = ref.logSoftmaxEntropyBackward(dlogp, dent, logits, targets, rows, V, tau);
        const got = await rt.readF32(b.dlogits, 0, rows * V);
        expect(dlogitsErr(got, wantD, { logits, targets, dlogp, dent, ...want }, rows, V, tau), msg).toBeLessThan(TOL);
      }
    }
  });

  it('rows whose logit range exceeds f32 exp range (merge order matters)', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const rng = new Rng(seed);
    const rows = 3;
    const V = 1000;
    const tau = 0.6;
    // Half the logits sit 150 below the rest: e^{150/τ} overflows f32 if states merge the wrong way round.
    const logits = asF32(Array.from({ length: rows * V }, () => 2 * rng.normal() - (rng.next() < 0.5 ? 150 : 0)));
    const targets = Uint32Array.from({ length: rows }, () => rng.int(0, V - 1));
    const b = {
      logits: upload(rt, 'x_logits', logits),
      targets: uploadU32(rt, 'x_targets', targets),
      logp: poisoned(rt, 'x_logp', rows),
      entropy: poisoned(rt, 'x_ent', rows),
      lse: poisoned(rt, 'x_lse', rows),
    };
    const want = ref.logSoftmaxEntropyForward(logits, targets, rows, V, tau);
    for (const variant of ['rows', 'workgroup'] as const) {
      rt.run([await logSoftmaxEntropyForwardVariant(rt, { ...b, rows, V, temperature: tau }, variant)]);
      expect(relErr(await rt.readF32(b.logp, 0, rows), want.logp), `seed ${seed} ${variant}`).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(b.entropy, 0, rows), want.entropy), `seed ${seed} ${variant}`).toBeLessThan(TOL);
    }
  });

  it('an out-of-range target gives NaN log-prob instead of another logit', async () => {
    const rt = await gpu();
    const rows = 2;
    const V = 7;
    const b = {
      logits: upload(rt, 'oor_logits', new Float32Array(rows * V).fill(0.5)),
      targets: uploadU32(rt, 'oor_targets', [3, V]),
      logp: poisoned(rt, 'oor_logp', rows),
      entropy: poisoned(rt, 'oor_ent', rows),
      lse: poisoned(rt, 'oor_lse', rows),
    };
    rt.run([await logSoftmaxEntropyForward(rt, { ...b, rows, V, temperature: 1 })]);
    const lp = await rt.readF32(b.logp, 0, rows);
    expect(lp[0]).toBeCloseTo(-Math.log(V), 6);
    expect(Number.isNaN(lp[1])).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// GRPO token loss
// ---------------------------------------------------------------------------------------------

type Aggregation = 'token-mean' | 'seq-mean-token-mean';

interface GrpoCase {
  inp: ref.GrpoTokenInputs & { refLogp: Float64Array };
  N: number;
}

/**
 * Tokens spread over every clip region: log-ratio inside the trust region, far below, far above
 * (either side of the dual-clip bound c = 3), advantages of both signs; ref − logp deltas small,
 * negative and large (k3 > 10: low_var_kl clamps); masked tokens with extreme log-probs (their
 * ratio overflows f32) that must contribute exactly nothing. Nothing lies within 0.05 of a branch
 * boundary, so f32 and f64 take the same branches.
 */
function makeGrpoCase(rng: Rng, N: number, agg: Aggregation): GrpoCase {
  const logp = new Float64Array(N);
  const oldLogp = new Float64Array(N);
  const refLogp = new Float64Array(N);
  const advantages = new Float64Array(N);
  const mask = new Float64Array(N);
  const entropy = new Float64Array(N);
  const uni = (lo: number, hi: number) => lo + (hi - lo) * rng.next();
  // Sequences of 1..40 tokens; each sequence has one advantage (as in GRPO) with a random sign.
  const seqOf = new Int32Array(N);
  let seq = -1;
  let left = 0;
  let A = 0;
  for (let i = 0; i < N; i++) {
    if (left === 0) {
      seq++;
      left = rng.int(1, 40);
      A = (rng.next() < 0.5 ? -1 : 1) * uni(0.1, 2);
    }
    left--;
    seqOf[i] = seq;
    advantages[i] = A;
    logp[i] = -uni(0.01, 6);
    const region = rng.int(0, 3);
    const logRatio =
      region === 0 ? uni(-0.15, 0.15) : region === 1 ? uni(-2.5, -0.4) : region === 2 ? uni(0.4, 1.0) : uni(1.2, 2.5); // log 3 ≈ 1.0986
    oldLogp[i] = logp[i] - logRatio;
    const kind = rng.int(0, 3);
    const delta = kind === 0 ? uni(-0.3, 0.3) : kind === 1 ? uni(-3, -0.5) : kind === 2 ? uni(2.7, 3.5) : uni(0.5, 2.3);
    refLogp[i] = logp[i] + delta;
    entropy[i] = uni(0, 3);
    mask[i] = rng.next() < 0.85 ? 1 : 0;
    if (!mask[i]) {
      // Garbage outside the response: e^{±60} overflows f32.
      oldLogp[i] = logp[i] + (rng.next() < 0.5 ? 60 : -60);
    }
  }
  const weights = new Float64Array(N);
  if (agg === 'token-mean') {
    const count = mask.reduce((s, m) => s + m, 0);
    for (let i = 0; i < N; i++) weights[i] = count ? mask[i] / count : 0;
  } else {
    const nSeq = seq + 1;
    const len = new Float64Array(nSeq);
    for (let i = 0; i < N; i++) len[seqOf[i]] += mask[i];
    for (let i = 0; i < N; i++) weights[i] = mask[i] ? 1 / (len[seqOf[i]] * nSeq) : 0;
  }
  return {
    N,
    inp: {
      logp: asF32(logp),
      oldLogp: asF32(oldLogp),
      refLogp: asF32(refLogp),
      advantages: asF32(advantages),
      weights: asF32(weights),
      mask,
      entropy: asF32(entropy),
    },
  };
}

/** Reference stats in the kernel's layout, plus the Σ|term| scale of each (condition-aware relative error). */
function referenceStats(inp: ref.GrpoTokenInputs, opts: ref.GrpoLossOptions) {
  const res = ref.grpoTokenLoss(inp, opts);
  const N = inp.logp.length;
  const maskCount = inp.mask.reduce((s, m) => s + (m !== 0 ? 1 : 0), 0);
  const scale = new Float64Array(8).fill(0);
  for (let i = 0; i < N; i++) {
    const one = (a: Float64Array | null) => (a ? a.subarray(i, i + 1) : null);
    const t = ref.grpoTokenLoss(
      {
        logp: one(inp.logp)!,
        oldLogp: one(inp.oldLogp)!,
        refLogp: one(inp.refLogp),
        advantages: one(inp.advantages)!,
        weights: one(inp.weights)!,
        mask: one(inp.mask)!,
        entropy: one(inp.entropy)!,
      },
      opts,
    );
    scale[0] += Math.abs(t.loss);
    scale[1] += Math.abs(t.pgLoss);
    scale[2] += Math.abs(t.klSum);
    scale[3] += Math.abs(t.entSum);
    scale[6] += inp.mask[i] ? Math.abs(inp.oldLogp[i] - inp.logp[i]) : 0;
  }
  const stats = [
    res.loss,
    res.pgLoss,
    res.klSum,
    res.entSum,
    Math.round(res.clipfrac * maskCount),
    Math.round(res.clipfracLower * maskCount),
    res.ppoKl * maskCount,
    maskCount,
  ];
  return { res, stats, scale };
}

function expectStats(got: Float32Array, want: number[], scale: Float64Array, msg: string): void {
  for (const k of [0, 1, 2, 3, 6]) {
    const err = Math.abs(got[k] - want[k]) / Math.max(Math.abs(want[k]), scale[k], 1e-30);
    expect(Number.isFinite(got[k]) && err, `${msg} stat ${k}: got ${got[k]} want ${want[k]}`).toBeLessThan(TOL);
  }
  for (const k of [4, 5, 7]) expect(got[k], `${msg} count ${k}`).toBe(want[k]);
}

describe('grpoLoss vs float64 reference', () => {
  const base: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.05, klCoef: 0.1, klType: 'k3' };
  const optionSets: GrpoLossOptions[] = [];
  for (const klType of ['k1', 'k3', 'low_var_kl'] as const) {
    for (const dualClip of [3, null]) optionSets.push({ ...base, klType, dualClip });
  }
  optionSets.push({ ...base, entCoef: -0.2, klCoef: 0.3, epsLow: 0.1, epsHigh: 0.15, dualClip: 4 });
  optionSets.push({ ...base, entCoef: 0, klCoef: 0 });

  async function plan(rt: GpuRuntime, c: GrpoCase, opts: GrpoLossOptions, withRef = true) {
    const { inp, N } = c;
    const b = {
      logp: upload(rt, 'g_logp', inp.logp),
      oldLogp: upload(rt, 'g_old', inp.oldLogp),
      refLogp: withRef ? upload(rt, 'g_ref', inp.refLogp) : undefined,
      advantages: upload(rt, 'g_adv', inp.advantages),
      weights: upload(rt, 'g_w', inp.weights),
      mask: upload(rt, 'g_mask', inp.mask),
      entropy: upload(rt, 'g_ent', inp.entropy),
      dlogp: poisoned(rt, 'g_dlogp', N),
      dent: poisoned(rt, 'g_dent', N),
      stats: poisoned(rt, 'g_stats', 8),
      scratch: poisoned(rt, 'g_scratch', grpoLossScratchFloats(N)),
    };
    const p = await grpoLoss(rt, { ...b, N, opts });
    const runAndCheck = async (o: GrpoLossOptions, msg: string) => {
      for (const buf of [b.dlogp, b.dent, b.stats, b.scratch]) rt.write(buf, new Float32Array(buf.size / 4).fill(NaN));
      rt.run(p.dispatches);
      const { res, stats, scale } = referenceStats({ ...inp, refLogp: withRef ? inp.refLogp : null }, o);
      const m = `${msg} ${JSON.stringify(o)}`;
      expect(relErr(await rt.readF32(b.dlogp, 0, N), res.dlogp), m).toBeLessThan(TOL);
      expect(relErr(await rt.readF32(b.dent, 0, N), res.dent), m).toBeLessThan(TOL);
      expectStats(await rt.readF32(b.stats, 0, 8), stats, scale, m);
      return { res, stats };
    };
    return { p, runAndCheck };
  }

  for (const agg of ['token-mean', 'seq-mean-token-mean'] as const) {
    for (const N of [1, 7, 301]) {
      it(`${agg}, N=${N}: every option set (recorded, then via setOptions)`, async () => {
        const rt = await gpu();
        const seed = freshSeed();
        const c = makeGrpoCase(new Rng(seed), N, agg);
        for (const [j, opts] of optionSets.entries()) {
          // Record with this option set, check; then switch the same plan to the next set.
          const { p, runAndCheck } = await plan(rt, c, opts);
          const first = await runAndCheck(opts, `seed ${seed} recorded`);
          const next = optionSets[(j + 1) % optionSets.length];
          p.setOptions(rt, next);
          await runAndCheck(next, `seed ${seed} setOptions`);
          if (N === 301 && opts.dualClip !== null && opts === optionSets[0]) {
            // The data really exercise upper and lower clipping and the dual clip.
            expect(first.stats[4]).toBeGreaterThan(0);
            expect(first.stats[5]).toBeGreaterThan(0);
          }
        }
      });
    }
  }

  it('low_var_kl clamps and the KL types differ on this data', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const c = makeGrpoCase(new Rng(seed), 301, 'token-mean');
    const { p, runAndCheck } = await plan(rt, c, { ...base, klType: 'k3' });
    const k3 = (await runAndCheck({ ...base, klType: 'k3' }, `seed ${seed}`)).stats[2];
    p.setOptions(rt, { ...base, klType: 'low_var_kl' });
    const lv = (await runAndCheck({ ...base, klType: 'low_var_kl' }, `seed ${seed}`)).stats[2];
    expect(lv).toBeLessThan(k3 - 1e-3);
  });

  it('refLogp omitted with klCoef = 0; setOptions refuses KL without a reference', async () => {
    const rt = await gpu();
    const seed = freshSeed();
    const c = makeGrpoCase(new Rng(seed), 77, 'seq-mean-token-mean');
    const opts = { ...base, klCoef: 0 };
    const { p, runAndCheck } = await plan(rt, c, opts, false);
    await runAndCheck(opts, `seed ${seed} no ref`);
    p.setOptions(rt, { ...opts, entCoef: 0.3, dualClip: null });
    await runAndCheck({ ...opts, entCoef: 0.3, dualClip: null }, `seed ${seed} no ref`);
    expect(() => p.setOptions(rt, base)).toThrow(/refLogp/);
  });

  it('stats are bit-for-bit identical on replay', async () => {
    const rt = await gpu();
    const c = makeGrpoCase(new Rng(freshSeed()), 1000, 'token-mean');
    const { p } = await plan(rt, c, base);
    const statsBuf = rt.buffer('g_stats', 32);
    rt.run(p.dispatches);
    const a = await rt.readU32(statsBuf, 0, 8);
    rt.run(p.dispatches);
    const b = await rt.readU32(statsBuf, 0, 8);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it('rejects a scratch buffer that is too small', async () => {
    const rt = await gpu();
    const N = 300;
    const small = rt.buffer('g_small_scratch', (grpoLossScratchFloats(N) - 1) * 4 - 12);
    const any = rt.buffer('g_any', N * 4);
    await expect(
      grpoLoss(rt, {
        logp: any,
        oldLogp: any,
        advantages: any,
        weights: any,
        mask: any,
        entropy: any,
        dlogp: rt.buffer('g_d1', N * 4),
        dent: rt.buffer('g_d2', N * 4),
        stats: rt.buffer('g_s', 32),
        scratch: small,
        N,
        opts: { ...base, klCoef: 0 },
      }),
    ).rejects.toThrow(/scratch/);
  });
});

// ---------------------------------------------------------------------------------------------
// Supervised cross-entropy
// ---------------------------------------------------------------------------------------------

describe('crossEntropyLoss', () => {
  for (const N of [1, 301]) {
    it(`N=${N}`, async () => {
      const rt = await gpu();
      const seed = freshSeed();
      const rng = new Rng(seed);
      const logp = asF32(Array.from({ length: N }, () => -6 * rng.next()));
      const mask = Float64Array.from({ length: N }, () => (rng.next() < 0.8 ? 1 : 0));
      const count = mask.reduce((s, m) => s + m, 0);
      const weights = asF32(mask.map((m) => (count ? m / count : 0)));
      const b = {
        logp: upload(rt, 'ce_logp', logp),
        weights: upload(rt, 'ce_w', weights),
        mask: upload(rt, 'ce_mask', mask),
        dlogp: poisoned(rt, 'ce_dlogp', N),
        dent: poisoned(rt, 'ce_dent', N),
        stats: poisoned(rt, 'ce_stats', 8),
        scratch: poisoned(rt, 'ce_scratch', grpoLossScratchFloats(N)),
      };
      rt.run(await crossEntropyLoss(rt, { ...b, N }));
      let loss = 0;
      let scale = 0;
      for (let i = 0; i < N; i++) {
        loss -= weights[i] * logp[i];
        scale += Math.abs(weights[i] * logp[i]);
      }
      const stats = await rt.readF32(b.stats, 0, 8);
      const msg = `seed ${seed}`;
      expect(Math.abs(stats[0] - loss) / Math.max(scale, 1e-30), msg).toBeLessThan(TOL);
      expect(Array.from(stats.subarray(1, 7)), msg).toEqual([0, 0, 0, 0, 0, 0]);
      expect(stats[7], msg).toBe(count);
      expect(relErr(await rt.readF32(b.dlogp, 0, N), weights.map((w) => -w)), msg).toBeLessThan(TOL);
      expect(Array.from(await rt.readF32(b.dent, 0, N)).every((v) => v === 0), msg).toBe(true);
    });
  }
});
