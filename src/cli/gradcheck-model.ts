/**
 * The whole-policy check's setup, shared by both engines' gradchecks: a small odd-shaped model
 * (V 13, T 11, 2 layers, 3 heads), perturbed weights, a batch with masked positions and per-row
 * advantages, and the GRPO loss options (dual clip, k3 KL, entropy bonus) every term of which the
 * gradients must carry. Inputs are f32-rounded, so the float64 reference sees what the engine sees.
 */
import { layoutParams, validateModelConfig, type ModelConfig } from '../model/config';
import type { UpdateBatch } from '../model/engine';
import { initParams } from '../model/init';
import { nextTokenTargets, type PolicyLossInputs } from '../model/reference/model';
import type { Rng } from '../util/rng';
import { rungBaseConfig, RUNG_NAMES, type RungName } from '../rl/config';

export interface ModelCheck {
  cfg: ModelConfig;
  B: number;
  T: number;
  tau: number;
  lossOpts: { epsLow: number; epsHigh: number; dualClip: number; entCoef: number; klCoef: number; klType: 'k3' };
  adamwOpts: { lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; maxGradNorm: number };
}

export const MODEL_CHECK: ModelCheck = {
  cfg: validateModelConfig({ vocabSize: 13, contextLength: 11, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 3, norm: 'rmsnorm', tiedEmbeddings: true }),
  B: 3,
  T: 9,
  tau: 0.9,
  lossOpts: { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.05, klCoef: 0.1, klType: 'k3' as const },
  // eps 1e-6: Adam divides by |g|, so f32 round-off on a gradient that is exactly zero in float64
  // (the attention key bias is softmax-invariant) would otherwise become a full step.
  adamwOpts: { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 1 },
};

export interface ModelCheckSetup {
  p32: Float32Array;
  tokens: Int32Array;
  targets: Int32Array;
  inputs: PolicyLossInputs & { refLogp: Float64Array };
  /** The same batch as an engine update takes it. */
  batch: UpdateBatch;
}

/**
 * Each ladder rung's scaled-down twin: the rung's head size (dModel/nHeads), vocabulary, norm and
 * context, one layer of two heads, and a sequence as long as the context allows (less one, so no
 * length is a multiple of a tile): the kernels' tiling at the rung's lengths (attention rows past
 * 64/128/256, the loss's 128-token chunks) is what the full rung runs, at a cost the float64
 * reference and SwiftShader can afford. Medium's 511 positions take one row.
 */
export function rungTwin(rung: RungName): ModelCheck {
  const m = rungBaseConfig(rung).model;
  const hs = m.dModel / m.nHeads;
  const T = m.contextLength - 1;
  const cfg = validateModelConfig({ ...m, nLayers: 1, dModel: 2 * hs, nHeads: 2 });
  return { ...MODEL_CHECK, cfg, B: T > 256 ? 1 : 2, T };
}

export const RUNG_TWINS: readonly { rung: RungName; check: ModelCheck }[] = RUNG_NAMES.map((rung) => ({ rung, check: rungTwin(rung) }));

export function modelCheckSetup(rng: Rng, check: ModelCheck = MODEL_CHECK): ModelCheckSetup {
  const { cfg, B, T, tau } = check;
  const layout = layoutParams(cfg);
  const p32 = initParams(cfg, rng.nextU32());
  for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.2 * rng.normal();
  const tokens = Int32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = nextTokenTargets(tokens, B, T);
  const mask = Float64Array.from({ length: B * T }, (_, i) => (i % T >= 2 && i % T < T - 1 ? 1 : 0));
  const count = mask.reduce((a, b) => a + b, 0);
  const f32 = (a: Float64Array) => Float64Array.from(Float32Array.from(a));
  const inputs = {
    oldLogp: f32(Float64Array.from({ length: B * T }, () => -2.5 + 0.3 * rng.normal())),
    refLogp: f32(Float64Array.from({ length: B * T }, () => -2.5 + 0.3 * rng.normal())),
    advantages: f32(Float64Array.from({ length: B * T }, (_, i) => [1, -0.5, 0.7][Math.floor(i / T) % 3])),
    weights: f32(mask.map((x) => x / count)),
    mask,
  };
  const batch: UpdateBatch = {
    rows: B,
    T,
    temperature: tau,
    tokens: Uint32Array.from(tokens),
    targets: Uint32Array.from(targets),
    mask: Float32Array.from(mask),
    weights: Float32Array.from(inputs.weights),
    advantages: Float32Array.from(inputs.advantages),
    oldLogp: Float32Array.from(inputs.oldLogp),
    refLogp: Float32Array.from(inputs.refLogp),
  };
  return { p32, tokens, targets, inputs, batch };
}
