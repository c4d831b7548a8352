/**
 * Option blocks the kernels read from memory (so a recorded program takes new options without
 * re-recording): GRPO loss options, AdamW hyperparameters (1 − β and bias corrections computed
 * here in float64, as the GPU's builder does) and sampler options.
 */
import type { CpuRuntime } from './runtime';

import type { AdamWOptions, GrpoLossOptions, SamplerOptions } from '../util/engine-options';

export type { AdamWOptions, GrpoLossOptions, SamplerOptions };

export const GRPO_OPTION_BYTES = 32;
export const ADAMW_BYTES = 48;
export const SAMPLER_BYTES = 32;
const KL_TYPES = { k1: 0, k3: 1, low_var_kl: 2 } as const;

export function writeGrpoOptions(rt: CpuRuntime, ptr: number, o: GrpoLossOptions): void {
  // useKl (word 6): the KL branch only with β ≠ 0 (the kernel also needs a reference logp), as the twin and the GPU.
  rt.f32(ptr, 8).set([o.epsLow, o.epsHigh, o.dualClip ?? 0, o.dualClip !== null ? 1 : 0, o.klCoef, KL_TYPES[o.klType], o.klCoef !== 0 ? 1 : 0, o.entCoef]);
}

export function checkAdamW(step: number, o: AdamWOptions): void {
  if (!Number.isInteger(step) || step < 1) throw new Error(`adamw: step must be an integer ≥ 1, got ${step}`);
  for (const k of ['lr', 'beta1', 'beta2', 'eps', 'weightDecay'] as const) {
    if (!Number.isFinite(o[k]) || o[k] < 0) throw new Error(`adamw: ${k} must be a finite number ≥ 0, got ${o[k]}`);
  }
  if (!(o.beta1 < 1) || !(o.beta2 < 1)) throw new Error('adamw: betas must be < 1');
  if (!(o.maxGradNorm > 0)) throw new Error(`adamw: maxGradNorm must be > 0 (Infinity = no clipping), got ${o.maxGradNorm}`);
}

export function writeAdamW(rt: CpuRuntime, ptr: number, step: number, o: AdamWOptions): void {
  checkAdamW(step, o);
  const clip = Number.isFinite(o.maxGradNorm);
  rt.f32(ptr, 11).set([
    o.lr,
    o.beta1,
    1 - o.beta1,
    o.beta2,
    1 - o.beta2,
    o.eps,
    o.weightDecay,
    1 / (1 - o.beta1 ** step),
    1 / (1 - o.beta2 ** step),
    clip ? o.maxGradNorm : 0,
    clip ? 1 : 0,
  ]);
}

export function checkSampler(o: SamplerOptions, V: number): void {
  if (!(o.temperature > 0) || !Number.isFinite(o.temperature)) throw new Error(`sampler: temperature must be finite and > 0, got ${o.temperature}`);
  if (!(o.topP > 0 && o.topP <= 1)) throw new Error(`sampler: topP must be in (0, 1], got ${o.topP}`);
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xffffffff) throw new Error(`sampler: seed must be a u32, got ${o.seed}`);
  if (!Number.isInteger(o.maxResponseLength) || o.maxResponseLength < 1) throw new Error(`sampler: maxResponseLength must be an integer ≥ 1, got ${o.maxResponseLength}`);
  for (const k of ['eosId', 'padId'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 0 || o[k] >= V) throw new Error(`sampler: ${k} must be a token id in [0, ${V}), got ${o[k]}`);
  }
}

export function writeSampler(rt: CpuRuntime, ptr: number, o: SamplerOptions, V: number): void {
  checkSampler(o, V);
  rt.f64(ptr, 2).set([o.temperature, o.topP]);
  rt.u32(ptr + 16, 4).set([o.seed >>> 0, o.maxResponseLength, o.eosId, o.padId]);
}
