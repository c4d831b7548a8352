import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng';
import { layoutParams, type ModelConfig } from '../../src/model/config';
import { checkGrad } from '../../src/model/reference/gradcheck';
import {
  nextTokenTargets,
  referenceBackward,
  referenceCrossEntropy,
  referenceForward,
  referencePolicyLoss,
  referenceTrainStep,
  type PolicyLossInputs,
} from '../../src/model/reference/model';
import {
  adamwStep,
  clipGradNorm,
  logSoftmaxEntropyForward,
  type GrpoLossOptions,
  type KlType,
} from '../../src/model/reference/ops';

const TOL = 1e-6;
const B = 2;
const T = 5;
const TAU = 0.7;

/** Tiny odd sizes; contextLength > T so wpe rows beyond T exist and must get no gradient. */
const tinyConfig = (norm: ModelConfig['norm'], tiedEmbeddings: boolean): ModelConfig => ({
  vocabSize: 7,
  contextLength: 6,
  nLayers: 2,
  dModel: 6,
  nHeads: 2,
  mlpRatio: 3,
  norm,
  tiedEmbeddings,
});

/** Random parameters large enough that every path (attention, GELU curvature, norms) matters. */
function randomParams(cfg: ModelConfig, seed: number): Float64Array {
  const layout = layoutParams(cfg);
  const params = new Float64Array(layout.totalFloats);
  const rng = new Rng(seed);
  for (const t of layout.tensors) {
    for (let i = 0; i < t.size; i++) {
      const g = rng.normal();
      params[t.offset + i] = t.init === 'ones' ? 1 + 0.3 * g : t.init === 'zeros' ? 0.2 * g : 0.5 * g;
    }
  }
  return params;
}

function randomTokens(cfg: ModelConfig, rng: Rng): Int32Array {
  const tokens = new Int32Array(B * T);
  for (let i = 0; i < tokens.length; i++) tokens[i] = rng.int(0, cfg.vocabSize - 1);
  return tokens;
}

/** A few random indices inside every tensor (all of it when small). */
function sampleIndices(cfg: ModelConfig, rng: Rng, perTensor = 3): number[] {
  const out: number[] = [];
  for (const t of layoutParams(cfg).tensors) {
    if (t.size <= perTensor) for (let i = 0; i < t.size; i++) out.push(t.offset + i);
    else for (let k = 0; k < perTensor; k++) out.push(t.offset + rng.int(0, t.size - 1));
  }
  return out;
}

/**
 * RL inputs built around the current policy so tokens land in every region: ratios inside the
 * trust region, clipped above/below, dual-clipped (r = 5 with A < 0), and KL deltas including
 * one where k3 > 10 (low_var_kl clamps). Position 0 of each sequence is a "prompt" token
 * (mask 0) and the last position has no target (mask 0, weight 0).
 */
function makeLossInputs(cfg: ModelConfig, params: Float64Array, tokens: Int32Array, rng: Rng): PolicyLossInputs {
  const { logits } = referenceForward(cfg, params, tokens, B, T);
  const { logp } = logSoftmaxEntropyForward(logits, nextTokenTargets(tokens, B, T), B * T, cfg.vocabSize, TAU);
  const ratios = [1.05, 1.5, 0.5, 5, 0.9, 1.3, 0.6, 1.1];
  const advSigns = [1, 1, -1, -1, 1, -1, 1, -1];
  const refDeltas = [0.1, -0.3, 3, 0.5, -1, 0.2, 0.05, -0.1];
  const n = B * T;
  const oldLogp = new Float64Array(n);
  const refLogp = new Float64Array(n);
  const advantages = new Float64Array(n);
  const mask = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    oldLogp[i] = logp[i] - Math.log(ratios[i % ratios.length]);
    refLogp[i] = logp[i] + refDeltas[i % refDeltas.length];
    advantages[i] = advSigns[i % advSigns.length] * (0.5 + rng.next());
    const t = i % T;
    mask[i] = t === 0 || t === T - 1 ? 0 : 1;
  }
  const count = mask.reduce((a, b) => a + b, 0);
  const weights = mask.map((m) => m / count);
  return { oldLogp, refLogp, advantages, weights, mask };
}

const lossOpts = (klType: KlType): GrpoLossOptions => ({
  epsLow: 0.2,
  epsHigh: 0.28,
  dualClip: 3,
  entCoef: 0.05,
  klCoef: 0.1,
  klType,
});

describe('referenceForward', () => {
  it('is causal: changing later tokens leaves earlier logits unchanged', () => {
    const cfg = tinyConfig('rmsnorm', true);
    const params = randomParams(cfg, 1);
    const rng = new Rng(2);
    const tokens = randomTokens(cfg, rng);
    const a = referenceForward(cfg, params, tokens, B, T).logits;
    const changed = tokens.slice();
    const t0 = 2;
    for (let b = 0; b < B; b++) for (let t = t0 + 1; t < T; t++) changed[b * T + t] = (tokens[b * T + t] + 1) % cfg.vocabSize;
    const c = referenceForward(cfg, params, changed, B, T).logits;
    const V = cfg.vocabSize;
    for (let b = 0; b < B; b++) {
      for (let t = 0; t < T; t++) {
        const same = Array.from(a.subarray((b * T + t) * V, (b * T + t + 1) * V)).every((x, j) => x === c[(b * T + t) * V + j]);
        expect(same).toBe(t <= t0);
      }
    }
  });

  it('sequences in a batch are independent', () => {
    const cfg = tinyConfig('layernorm', false);
    const params = randomParams(cfg, 3);
    const tokens = randomTokens(cfg, new Rng(4));
    const both = referenceForward(cfg, params, tokens, B, T).logits;
    const second = referenceForward(cfg, params, tokens.subarray(T), 1, T).logits;
    const V = cfg.vocabSize;
    for (let i = 0; i < T * V; i++) expect(both[T * V + i]).toBe(second[i]);
  });

  it('rejects bad inputs', () => {
    const cfg = tinyConfig('rmsnorm', true);
    const params = randomParams(cfg, 5);
    expect(() => referenceForward(cfg, params, [0, 1, 7], 1, 3)).toThrow(/out of range/);
    expect(() => referenceForward(cfg, params, new Int32Array(7), 1, 7)).toThrow(/T=7/);
    expect(() => referenceForward(cfg, params.subarray(1), new Int32Array(3), 1, 3)).toThrow(/floats/);
  });
});

describe('referencePolicyLoss gradients (finite differences)', () => {
  const cases: [ModelConfig['norm'], boolean, KlType][] = [
    ['rmsnorm', true, 'k3'],
    ['rmsnorm', false, 'k1'],
    ['layernorm', true, 'low_var_kl'],
    ['layernorm', false, 'k3'],
  ];
  it.each(cases)('%s, tied=%s, kl=%s', (norm, tied, klType) => {
    const cfg = tinyConfig(norm, tied);
    const params = randomParams(cfg, 10);
    const rng = new Rng(11);
    const tokens = randomTokens(cfg, rng);
    const inputs = makeLossInputs(cfg, params, tokens, rng);
    const opts = lossOpts(klType);
    const res = referencePolicyLoss(cfg, params, tokens, B, T, TAU, inputs, opts);
    // The set-up really exercises clipping, dual clip and the KL/entropy terms.
    expect(res.clipfrac).toBeGreaterThan(0);
    expect(res.clipfracLower).toBeGreaterThan(0);
    expect(res.klSum).not.toBe(0);
    expect(res.entSum).toBeGreaterThan(0);

    const f = () => referencePolicyLoss(cfg, params, tokens, B, T, TAU, inputs, opts).loss;
    const check = checkGrad(f, params, res.grads, sampleIndices(cfg, rng));
    expect(check.maxErr).toBeLessThan(TOL);

    // Padding and unused wpe rows (t ≥ T) get exactly zero gradient.
    const layout = layoutParams(cfg);
    const used = new Uint8Array(layout.totalFloats);
    for (const t of layout.tensors) used.fill(1, t.offset, t.offset + t.size);
    const wpe = layout.byName.get('wpe')!;
    used.fill(0, wpe.offset + T * cfg.dModel, wpe.offset + wpe.size);
    for (let i = 0; i < layout.totalFloats; i++) if (!used[i]) expect(res.grads[i]).toBe(0);
  });
});

describe('referenceCrossEntropy', () => {
  it.each([
    ['rmsnorm', true],
    ['layernorm', false],
  ] as const)('%s tied=%s: value and finite-difference gradients', (norm, tied) => {
    const cfg = tinyConfig(norm, tied);
    const params = randomParams(cfg, 20);
    const rng = new Rng(21);
    const tokens = randomTokens(cfg, rng);
    const weights = new Float64Array(B * T);
    for (let i = 0; i < B * T; i++) weights[i] = i % T === T - 1 ? 0 : 1 / (B * (T - 1));
    const res = referenceCrossEntropy(cfg, params, tokens, B, T, weights);
    let expected = 0;
    for (let i = 0; i < B * T; i++) expected -= weights[i] * res.logp[i];
    expect(res.loss).toBeCloseTo(expected, 14);
    const f = () => referenceCrossEntropy(cfg, params, tokens, B, T, weights).loss;
    expect(checkGrad(f, params, res.grads, sampleIndices(cfg, rng)).maxErr).toBeLessThan(TOL);
  });

  it('requires weight 0 at the last position of each sequence', () => {
    const cfg = tinyConfig('rmsnorm', true);
    const params = randomParams(cfg, 22);
    const weights = new Float64Array(B * T).fill(0.1);
    expect(() => referenceCrossEntropy(cfg, params, new Int32Array(B * T), B, T, weights)).toThrow(/last position/);
  });
});

describe('referenceBackward', () => {
  it('is linear in dlogits and matches the gradient of Σ dlogits·logits', () => {
    const cfg = tinyConfig('layernorm', true);
    const params = randomParams(cfg, 30);
    const rng = new Rng(31);
    const tokens = randomTokens(cfg, rng);
    const { logits, cache } = referenceForward(cfg, params, tokens, B, T);
    const R = new Float64Array(logits.length).map(() => rng.normal());
    const grads = referenceBackward(cfg, params, cache, R);
    const f = () => {
      const l = referenceForward(cfg, params, tokens, B, T).logits;
      let s = 0;
      for (let i = 0; i < l.length; i++) s += R[i] * l[i];
      return s;
    };
    expect(checkGrad(f, params, grads, sampleIndices(cfg, rng)).maxErr).toBeLessThan(TOL);
  });
});

describe('referenceTrainStep', () => {
  const optim = { lr: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, step: 1, maxGradNorm: 0.05 };

  it('equals policy loss → clipGradNorm → adamwStep', () => {
    const cfg = tinyConfig('rmsnorm', false);
    const params = randomParams(cfg, 40);
    const rng = new Rng(41);
    const tokens = randomTokens(cfg, rng);
    const inputs = makeLossInputs(cfg, params, tokens, rng);
    const opts = lossOpts('k3');

    const p2 = params.slice();
    const m2 = new Float64Array(params.length);
    const v2 = new Float64Array(params.length);
    const manual = referencePolicyLoss(cfg, p2, tokens, B, T, TAU, inputs, opts);
    const { norm, scale } = clipGradNorm(manual.grads, optim.maxGradNorm);
    adamwStep(p2, manual.grads, m2, v2, { ...optim, gradScale: scale, decayEnd: layoutParams(cfg).decayEnd });

    const m = new Float64Array(params.length);
    const v = new Float64Array(params.length);
    const res = referenceTrainStep(cfg, params, m, v, tokens, B, T, TAU, inputs, opts, optim);
    expect(res.gradNorm).toBe(norm);
    expect(res.gradScale).toBe(scale);
    expect(scale).toBeLessThan(1); // clipping is active at maxGradNorm 0.05
    expect(res.loss).toBe(manual.loss);
    expect(Array.from(params)).toEqual(Array.from(p2));
    expect(Array.from(m)).toEqual(Array.from(m2));
    expect(Array.from(v)).toEqual(Array.from(v2));
  });

  it('a few steps with positive advantages raise the sampled tokens’ log-probs', () => {
    const cfg = tinyConfig('layernorm', true);
    const params = randomParams(cfg, 50);
    const tokens = randomTokens(cfg, new Rng(51));
    const { logits } = referenceForward(cfg, params, tokens, B, T);
    const targets = nextTokenTargets(tokens, B, T);
    const logp0 = logSoftmaxEntropyForward(logits, targets, B * T, cfg.vocabSize, 1).logp;
    const mask = new Float64Array(B * T).map((_, i) => (i % T === T - 1 ? 0 : 1));
    const count = mask.reduce((a, b) => a + b, 0);
    const inputs: PolicyLossInputs = {
      oldLogp: logp0.slice(),
      refLogp: null,
      advantages: new Float64Array(B * T).fill(1),
      weights: mask.map((x) => x / count),
      mask,
    };
    const opts: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0, klCoef: 0, klType: 'k3' };
    const m = new Float64Array(params.length);
    const v = new Float64Array(params.length);
    const losses: number[] = [];
    for (let step = 1; step <= 5; step++) {
      const res = referenceTrainStep(cfg, params, m, v, tokens, B, T, 1, inputs, opts, { ...optim, lr: 0.003, weightDecay: 0, step, maxGradNorm: 1 });
      losses.push(res.loss);
    }
    for (let i = 1; i < losses.length; i++) expect(losses[i]).toBeLessThan(losses[i - 1]);
    expect(losses[0]).toBeCloseTo(-1, 12); // on-policy start: r = 1 everywhere, loss = −Σ w·A
  });
});
