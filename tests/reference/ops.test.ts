import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng';
import { checkGrad, dot, randn } from '../../src/model/reference/gradcheck';
import {
  adamwStep,
  attentionBackward,
  attentionForward,
  clipGradNorm,
  encoderBackward,
  encoderForward,
  gemm,
  geluBackward,
  geluForward,
  grpoTokenLoss,
  layernormBackward,
  layernormForward,
  linearBackward,
  linearForward,
  logSoftmaxEntropyBackward,
  logSoftmaxEntropyForward,
  rmsnormBackward,
  rmsnormForward,
  stepIsFinite,
  type GrpoLossOptions,
  type GrpoTokenInputs,
  type KlType,
} from '../../src/model/reference/ops';

const TOL = 1e-6;
const f64 = (xs: number[]) => Float64Array.from(xs);

describe('gemm', () => {
  // A = [[1,2,3],[4,5,6]] (2×3), B = [[7,8],[9,10],[11,12]] (3×2): A·B = [[58,64],[139,154]].
  const A = f64([1, 2, 3, 4, 5, 6]);
  const At = f64([1, 4, 2, 5, 3, 6]); // Aᵀ stored 3×2
  const B = f64([7, 8, 9, 10, 11, 12]);
  const Bt = f64([7, 9, 11, 8, 10, 12]); // Bᵀ stored 2×3
  const expected = [58, 64, 139, 154];
  it.each([
    [false, false, A, B],
    [true, false, At, B],
    [false, true, A, Bt],
    [true, true, At, Bt],
  ])('transA=%s transB=%s', (tA, tB, a, b) => {
    expect(Array.from(gemm(a, b, 2, 2, 3, tA, tB))).toEqual(expected);
  });
});

describe('linear', () => {
  it('forward adds bias, y = x·wᵀ + b', () => {
    // x = [1, 2], w = [[1,0],[0,1],[1,1]] (out=3, in=2), b = [10, 20, 30].
    const y = linearForward(f64([1, 2]), f64([1, 0, 0, 1, 1, 1]), f64([10, 20, 30]), 1, 2, 3);
    expect(Array.from(y)).toEqual([11, 22, 33]);
  });
  it('backward matches finite differences', () => {
    const rng = new Rng(1);
    const [rows, inF, outF] = [3, 5, 4];
    const x = randn(rng, rows * inF);
    const w = randn(rng, outF * inF);
    const b = randn(rng, outF);
    const R = randn(rng, rows * outF);
    const f = () => dot(R, linearForward(x, w, b, rows, inF, outF));
    const g = linearBackward(R, x, w, rows, inF, outF);
    expect(checkGrad(f, x, g.dx).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, w, g.dw).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, b, g.db).maxErr).toBeLessThan(TOL);
  });
});

describe('encoder', () => {
  it('forward is wte[tok] + wpe[t]', () => {
    const wte = f64([1, 2, 3, 4, 5, 6]); // V=3, C=2
    const wpe = f64([10, 20, 30, 40]); // T=2
    const x = encoderForward([2, 0], wte, wpe, 1, 2, 2);
    expect(Array.from(x)).toEqual([15, 26, 31, 42]);
  });
  it('backward matches finite differences (repeated tokens accumulate)', () => {
    const rng = new Rng(2);
    const [B, T, C, V] = [2, 3, 4, 5];
    const tokens = new Uint32Array([1, 3, 1, 4, 4, 0]);
    const wte = randn(rng, V * C);
    const wpe = randn(rng, T * C);
    const R = randn(rng, B * T * C);
    const f = () => dot(R, encoderForward(tokens, wte, wpe, B, T, C));
    const g = encoderBackward(R, tokens, B, T, C, V);
    expect(g.dwpe.length).toBe(T * C);
    expect(checkGrad(f, wte, g.dwte).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, wpe, g.dwpe).maxErr).toBeLessThan(TOL);
  });
});

describe('norms', () => {
  it('rmsnorm forward hand value', () => {
    // x = [3, 4]: mean(x²) = 12.5, rstd = 1/sqrt(12.5 + eps).
    const { out, rstd } = rmsnormForward(f64([3, 4]), f64([1, 2]), 1, 2, 0);
    expect(rstd[0]).toBeCloseTo(1 / Math.sqrt(12.5), 14);
    expect(out[0]).toBeCloseTo(3 / Math.sqrt(12.5), 14);
    expect(out[1]).toBeCloseTo(8 / Math.sqrt(12.5), 14);
  });
  it('layernorm forward hand value (biased variance)', () => {
    // x = [1, 3]: mean 2, var 1, out = [-1, 1]·w + b.
    const { out, mean, rstd } = layernormForward(f64([1, 3]), f64([2, 3]), f64([0.5, -0.5]), 1, 2, 0);
    expect(mean[0]).toBe(2);
    expect(rstd[0]).toBe(1);
    expect(Array.from(out)).toEqual([-1.5, 2.5]);
  });
  it('rmsnorm backward matches finite differences', () => {
    const rng = new Rng(3);
    const [rows, C] = [3, 7];
    const x = randn(rng, rows * C);
    const w = randn(rng, C, 0.5, 1);
    const R = randn(rng, rows * C);
    const f = () => dot(R, rmsnormForward(x, w, rows, C).out);
    const { rstd } = rmsnormForward(x, w, rows, C);
    const g = rmsnormBackward(R, x, w, rstd, rows, C);
    expect(checkGrad(f, x, g.dx).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, w, g.dw).maxErr).toBeLessThan(TOL);
  });
  it('layernorm backward matches finite differences', () => {
    const rng = new Rng(4);
    const [rows, C] = [3, 7];
    const x = randn(rng, rows * C);
    const w = randn(rng, C, 0.5, 1);
    const b = randn(rng, C);
    const R = randn(rng, rows * C);
    const f = () => dot(R, layernormForward(x, w, b, rows, C).out);
    const { mean, rstd } = layernormForward(x, w, b, rows, C);
    const g = layernormBackward(R, x, w, mean, rstd, rows, C);
    expect(checkGrad(f, x, g.dx).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, w, g.dw).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, b, g.db).maxErr).toBeLessThan(TOL);
  });
});

describe('gelu', () => {
  it('forward hand values', () => {
    const y = geluForward(f64([0, 1, -1]));
    expect(y[0]).toBe(0);
    // 0.5·(1 + tanh(√(2/π)·1.044715)) ≈ 0.841192
    expect(y[1]).toBeCloseTo(0.8411919906, 9);
    expect(y[2]).toBeCloseTo(-0.1588080094, 9);
  });
  it('backward matches finite differences', () => {
    const rng = new Rng(5);
    const x = randn(rng, 20, 2);
    const R = randn(rng, 20);
    const f = () => dot(R, geluForward(x));
    expect(checkGrad(f, x, geluBackward(x, R)).maxErr).toBeLessThan(TOL);
  });
});

describe('attention', () => {
  const [B, T, C, H] = [2, 5, 6, 2];
  it('rows of att are causal probability distributions', () => {
    const rng = new Rng(6);
    const qkv = randn(rng, B * T * 3 * C);
    const { att } = attentionForward(qkv, B, T, C, H);
    for (let bh = 0; bh < B * H; bh++) {
      for (let t = 0; t < T; t++) {
        let sum = 0;
        for (let s = 0; s < T; s++) {
          const p = att[(bh * T + t) * T + s];
          if (s > t) expect(p).toBe(0);
          sum += p;
        }
        expect(sum).toBeCloseTo(1, 12);
      }
    }
  });
  it('first position copies its own value vector', () => {
    const rng = new Rng(7);
    const qkv = randn(rng, B * T * 3 * C);
    const { out } = attentionForward(qkv, B, T, C, H);
    for (let c = 0; c < C; c++) expect(out[c]).toBeCloseTo(qkv[2 * C + c], 14);
  });
  it('future tokens do not change earlier outputs', () => {
    const rng = new Rng(8);
    const qkv = randn(rng, B * T * 3 * C);
    const before = attentionForward(qkv, B, T, C, H).out;
    const t0 = 2;
    // Perturb every q, k, v of positions > t0 in both sequences.
    const changed = qkv.slice();
    for (let b = 0; b < B; b++) {
      for (let t = t0 + 1; t < T; t++) for (let j = 0; j < 3 * C; j++) changed[(b * T + t) * 3 * C + j] += 1 + rng.normal();
    }
    const after = attentionForward(changed, B, T, C, H).out;
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        for (let c = 0; c < C; c++) {
          const i = (b * T + t) * C + c;
          if (t <= t0) expect(after[i]).toBe(before[i]);
          else expect(after[i]).not.toBe(before[i]);
        }
      }
    }
  });
  it('backward matches finite differences', () => {
    const rng = new Rng(9);
    const qkv = randn(rng, B * T * 3 * C);
    const R = randn(rng, B * T * C);
    const f = () => dot(R, attentionForward(qkv, B, T, C, H).out);
    const { att } = attentionForward(qkv, B, T, C, H);
    const dqkv = attentionBackward(R, qkv, att, B, T, C, H);
    expect(checkGrad(f, qkv, dqkv).maxErr).toBeLessThan(TOL);
  });
});

describe('logSoftmaxEntropy', () => {
  it('forward hand values: uniform logits', () => {
    const V = 4;
    const { logp, entropy } = logSoftmaxEntropyForward(new Float64Array(V), [2], 1, V, 0.7);
    expect(logp[0]).toBeCloseTo(-Math.log(4), 14);
    expect(entropy[0]).toBeCloseTo(Math.log(4), 14);
  });
  it('temperature divides logits', () => {
    const logits = f64([1, 2, 0.5]);
    const a = logSoftmaxEntropyForward(logits, [1], 1, 3, 0.5);
    const b = logSoftmaxEntropyForward(f64([2, 4, 1]), [1], 1, 3, 1);
    expect(a.logp[0]).toBeCloseTo(b.logp[0], 14);
    expect(a.entropy[0]).toBeCloseTo(b.entropy[0], 14);
  });
  it.each([0.7, 1.0])('backward matches finite differences at τ=%s', (tau) => {
    const rng = new Rng(10);
    const [rows, V] = [4, 7];
    const logits = randn(rng, rows * V, 2);
    const targets = new Int32Array([0, 6, 3, 3]);
    const a = randn(rng, rows);
    const b = randn(rng, rows);
    const f = () => {
      const r = logSoftmaxEntropyForward(logits, targets, rows, V, tau);
      return dot(a, r.logp) + dot(b, r.entropy);
    };
    const g = logSoftmaxEntropyBackward(a, b, logits, targets, rows, V, tau);
    expect(checkGrad(f, logits, g).maxErr).toBeLessThan(TOL);
  });
});

describe('grpoTokenLoss', () => {
  /*
   * One token per region (εl = εh = 0.2, dual clip c = 3):
   *   0: A>0, r=1.05  inside the trust region      → pg = −A·r, grad −A·r
   *   1: A>0, r=1.5   above 1+εh                   → clipped, pg = −A·1.2, grad 0
   *   2: A>0, r=0.5   below 1−εl (not clipped for A>0) → pg = −A·r, grad −A·r
   *   3: A<0, r=0.5   below 1−εl                   → clipped, pg = −A·0.8, grad 0
   *   4: A<0, r=1.5   above 1+εh (not clipped for A<0) → pg = −A·r
   *   5: A<0, r=5     dual clip (−A·5 > −A·3)      → pg = −A·3, grad 0
   *   6: A<0, r=0.95  inside
   *   7: masked out (weight 0, mask 0), r=2
   */
  const ratios = [1.05, 1.5, 0.5, 0.5, 1.5, 5, 0.95, 2];
  const adv = [0.7, 1.3, 0.4, -0.9, -1.1, -0.6, -0.3, 1.0];
  const mask = [1, 1, 1, 1, 1, 1, 1, 0];
  // ref − logp per token: small, negative and one large (k3 = e³ − 4 ≈ 16 > 10: low_var_kl clamps).
  const refDelta = [0.1, -0.2, 0.3, 3, -0.5, 0.05, -1, 0.2];
  const N = ratios.length;
  const makeInputs = (): GrpoTokenInputs => {
    const rng = new Rng(11);
    const logp = new Float64Array(N);
    const oldLogp = new Float64Array(N);
    const refLogp = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      logp[i] = -1 - rng.next();
      oldLogp[i] = logp[i] - Math.log(ratios[i]);
      refLogp[i] = logp[i] + refDelta[i];
    }
    const weights = f64(mask.map((m, i) => (m ? 0.1 + 0.05 * i : 0)));
    return {
      logp,
      oldLogp,
      refLogp,
      advantages: f64(adv),
      weights,
      mask: f64(mask),
      entropy: f64([1.2, 0.3, 2.0, 0.9, 1.5, 0.1, 0.7, 1.0]),
    };
  };
  const baseOpts: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.2, dualClip: 3, entCoef: 0.01, klCoef: 0.05, klType: 'k3' };

  it('per-region losses and metrics by hand (no KL, no entropy)', () => {
    const inp = makeInputs();
    const opts = { ...baseOpts, entCoef: 0, klCoef: 0 };
    const res = grpoTokenLoss(inp, opts);
    const pg = [
      -adv[0] * 1.05,
      -adv[1] * 1.2,
      -adv[2] * 0.5,
      -adv[3] * 0.8,
      -adv[4] * 1.5,
      -adv[5] * 3,
      -adv[6] * 0.95,
      0,
    ];
    const gpg = [-adv[0] * 1.05, 0, -adv[2] * 0.5, 0, -adv[4] * 1.5, 0, -adv[6] * 0.95, 0];
    let expectedLoss = 0;
    for (let i = 0; i < N; i++) {
      expectedLoss += inp.weights[i] * pg[i];
      expect(res.dlogp[i]).toBeCloseTo(inp.weights[i] * gpg[i], 12);
    }
    expect(res.loss).toBeCloseTo(expectedLoss, 12);
    expect(res.pgLoss).toBeCloseTo(expectedLoss, 12);
    expect(res.klSum).toBe(0);
    // Clipped (pg2 > pg1): tokens 1 and 3. Dual-clipped: token 5. 7 masked tokens.
    expect(res.clipfrac).toBeCloseTo(2 / 7, 14);
    expect(res.clipfracLower).toBeCloseTo(1 / 7, 14);
    let ppoKl = 0;
    for (let i = 0; i < 7; i++) ppoKl += Math.log(ratios[i]) * -1;
    expect(res.ppoKl).toBeCloseTo(ppoKl / 7, 12);
    let entSum = 0;
    for (let i = 0; i < N; i++) entSum += inp.weights[i] * inp.entropy[i];
    expect(res.entSum).toBeCloseTo(entSum, 14);
  });

  it('without dual clip the large-ratio negative-advantage token is unclipped', () => {
    const inp = makeInputs();
    const res = grpoTokenLoss(inp, { ...baseOpts, dualClip: null, entCoef: 0, klCoef: 0 });
    expect(res.clipfracLower).toBe(0);
    expect(res.dlogp[5]).toBeCloseTo(inp.weights[5] * -adv[5] * 5, 12);
  });

  it('KL values per type', () => {
    const inp = makeInputs();
    const d = refDelta;
    const k1 = d.map((x) => -x);
    const k3 = d.map((x) => Math.exp(x) - x - 1);
    const lv = k3.map((x) => Math.min(Math.max(x, -10), 10));
    const expectSum = (vals: number[]) => vals.reduce((s, v, i) => s + inp.weights[i] * v, 0);
    const opt = (klType: KlType) => ({ ...baseOpts, klType });
    expect(grpoTokenLoss(inp, opt('k1')).klSum).toBeCloseTo(expectSum(k1), 12);
    expect(grpoTokenLoss(inp, opt('k3')).klSum).toBeCloseTo(expectSum(k3), 12);
    expect(grpoTokenLoss(inp, opt('low_var_kl')).klSum).toBeCloseTo(expectSum(lv), 12);
    expect(k3[3]).toBeGreaterThan(10); // the clamp really is exercised
    // No reference model or β = 0: no KL at all.
    expect(grpoTokenLoss({ ...inp, refLogp: null }, baseOpts).klSum).toBe(0);
    expect(grpoTokenLoss(inp, { ...baseOpts, klCoef: 0 }).klSum).toBe(0);
  });

  it('empty mask gives zero fractions', () => {
    const inp = makeInputs();
    const z = new Float64Array(N);
    const res = grpoTokenLoss({ ...inp, mask: z, weights: z }, baseOpts);
    expect(res.clipfrac).toBe(0);
    expect(res.clipfracLower).toBe(0);
    expect(res.ppoKl).toBe(0);
    expect(res.loss).toBe(0);
  });

  const cases: [KlType, number | null][] = [
    ['k1', 3],
    ['k3', 3],
    ['low_var_kl', 3],
    ['k3', null],
    ['low_var_kl', null],
  ];
  it.each(cases)('dlogp and dent match finite differences (kl=%s, dualClip=%s)', (klType, dualClip) => {
    const inp = makeInputs();
    const opts: GrpoLossOptions = { ...baseOpts, klType, dualClip };
    const res = grpoTokenLoss(inp, opts);
    const f = () => grpoTokenLoss(inp, opts).loss;
    expect(checkGrad(f, inp.logp, res.dlogp).maxErr).toBeLessThan(TOL);
    expect(checkGrad(f, inp.entropy, res.dent).maxErr).toBeLessThan(TOL);
    for (let i = 0; i < N; i++) expect(res.dent[i]).toBeCloseTo(-inp.weights[i] * opts.entCoef, 15);
  });

  it('asymmetric clip-higher: εh only affects the upper bound', () => {
    const inp = makeInputs();
    // Token 1 (A>0, r=1.5) is clipped at εh = 0.2 but inside [0.8, 1.6] at εh = 0.6.
    const res = grpoTokenLoss(inp, { ...baseOpts, epsHigh: 0.6, entCoef: 0, klCoef: 0 });
    expect(res.dlogp[1]).toBeCloseTo(inp.weights[1] * -adv[1] * 1.5, 12);
    expect(res.dlogp[3]).toBe(0); // lower clip unchanged
  });
});

describe('clipGradNorm', () => {
  it('norm and scale', () => {
    const g = f64([3, 4]);
    const a = clipGradNorm(g, 1);
    expect(a.norm).toBe(5);
    expect(a.scale).toBeCloseTo(1 / (5 + 1e-6), 15);
    const b = clipGradNorm(g, 10);
    expect(b.scale).toBe(1);
    expect(Array.from(g)).toEqual([3, 4]); // untouched
    expect(clipGradNorm(new Float64Array(3), 1)).toEqual({ norm: 0, scale: 1 });
  });
});

describe('adamwStep', () => {
  it('first step from zero moments ≈ p − lr·(sign(g) + wd·p), decay only below decayEnd', () => {
    const p = f64([1, -2, 0.5, 3]);
    const g = f64([0.3, -0.01, 2, -5]);
    const p0 = p.slice();
    const m = new Float64Array(4);
    const v = new Float64Array(4);
    const opts = { lr: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 1, gradScale: 1, decayEnd: 2 };
    adamwStep(p, g, m, v, opts);
    for (let i = 0; i < 4; i++) {
      const wd = i < 2 ? 0.1 : 0;
      expect(p[i]).toBeCloseTo(p0[i] - 0.01 * (Math.sign(g[i]) + wd * p0[i]), 7);
      expect(m[i]).toBeCloseTo(0.1 * g[i], 15);
      expect(v[i]).toBeCloseTo(0.001 * g[i] * g[i], 15);
    }
  });
  it('gradScale scales the gradient fed to the moments', () => {
    const p = f64([1]);
    const m = new Float64Array(1);
    const v = new Float64Array(1);
    adamwStep(p, f64([4]), m, v, { lr: 0, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: 1, gradScale: 0.25, decayEnd: 0 });
    expect(m[0]).toBeCloseTo(0.1, 15);
    expect(v[0]).toBeCloseTo(0.001, 15);
  });
  it('second step uses bias correction', () => {
    const p = f64([0]);
    const m = new Float64Array(1);
    const v = new Float64Array(1);
    const base = { lr: 1, beta1: 0.9, beta2: 0.999, eps: 0, weightDecay: 0, gradScale: 1, decayEnd: 0 };
    adamwStep(p, f64([1]), m, v, { ...base, step: 1 });
    adamwStep(p, f64([3]), m, v, { ...base, step: 2 });
    const m2 = 0.9 * 0.1 + 0.1 * 3;
    const v2 = 0.999 * 0.001 + 0.001 * 9;
    const step2 = m2 / (1 - 0.81) / Math.sqrt(v2 / (1 - 0.999 ** 2));
    expect(p[0]).toBeCloseTo(-1 - step2, 12);
  });
  it('gate: a non-finite loss or grad norm rejects the step and touches nothing (stepIsFinite)', () => {
    expect(stepIsFinite(0.5, 2)).toBe(true);
    for (const [loss, norm] of [[NaN, 1], [Infinity, 1], [-Infinity, 1], [0.5, NaN], [0.5, Infinity]]) {
      expect(stepIsFinite(loss, norm), `${loss}, ${norm}`).toBe(false);
      const p = f64([1, 2]);
      const m = f64([0.1, 0.2]);
      const v = f64([0.01, 0.02]);
      const g = f64([norm, 1]);
      const opts = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 3, gradScale: 1, decayEnd: 2, gate: { loss, gradNorm: norm } };
      expect(adamwStep(p, g, m, v, opts)).toBe(false);
      expect([...p, ...m, ...v]).toEqual([1, 2, 0.1, 0.2, 0.01, 0.02]);
    }
    const p = f64([1]);
    expect(adamwStep(p, f64([1]), f64([0]), f64([0]), { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: 1, gradScale: 1, decayEnd: 0, gate: { loss: 0.5, gradNorm: 1 } })).toBe(true);
    expect(p[0]).toBeCloseTo(0.9, 6);
  });
});
