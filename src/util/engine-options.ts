/**
 * The option shapes both engines' kernels read and the engine interface (src/model/engine-types.ts) hands
 * them: the GRPO loss, AdamW and the sampler. They live here, in the dependency-free bottom room, because
 * src/gpu/kernels and src/cpu sit below src/model and may import nothing above them; stated once, so the
 * two engines cannot drift apart.
 */

/** KL(π_θ‖π_ref) estimators: k1 = log ratio, k3 = exp(−d)+d−1 (Schulman), low_var_kl = k3 clamped to ±10 (verl). */
export type KlType = 'k1' | 'k3' | 'low_var_kl';

export interface GrpoLossOptions {
  /** ε_low: ρ is clipped below at 1 − ε_low. */
  epsLow: number;
  /** ε_high: ρ is clipped above at 1 + ε_high. */
  epsHigh: number;
  /** Dual-clip constant c > 1 (bounds negative-advantage losses), or null. */
  dualClip: number | null;
  /** α: entropy bonus coefficient. */
  entCoef: number;
  /** β: KL penalty coefficient. */
  klCoef: number;
  klType: KlType;
}

export interface AdamWOptions {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** clip: scale = min(1, max/(norm+1e-6)); Infinity = no clipping */
  maxGradNorm: number;
}

/** Sampler settings; the float64 twin in src/model/reference/sampling.ts follows the same rule. */
export interface SamplerOptions {
  /** τ > 0: logits are divided by it before the softmax. */
  temperature: number;
  /** Nucleus mass in (0, 1]; 1 keeps every token. */
  topP: number;
  /** u32; the PRNG draws uniformAt(seed, row, pos) (row: the sequence's index in the request), so change it for every new rollout batch. */
  seed: number;
  maxResponseLength: number;
  eosId: number;
  padId: number;
}

/**
 * The WebGPU matmul kernel variants (shaders/matmul.wgsl), each tested against the float64 twin. They
 * sum in different orders, so a run records the one it used (src/model/matmul-choice.ts) to replay bit for bit.
 */
export type MatmulVariant = 'blocked4x4' | 'tiled64';
export const MATMUL_VARIANTS: readonly MatmulVariant[] = ['blocked4x4', 'tiled64'];
