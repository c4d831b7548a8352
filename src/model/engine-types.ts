/**
 * The options and results both engines share, stated once for the layers above (rl, cli, the Worker): the
 * GRPO loss, AdamW and the sampler. The backends below (src/gpu/kernels, src/cpu/blocks.ts) import
 * nothing from src/model, so each states the shape it reads; TypeScript checks these types against
 * them structurally wherever src/model hands one to a kernel.
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
  /** u32; the PRNG draws uniformAt(seed, b, pos), so change it for every new rollout batch. */
  seed: number;
  maxResponseLength: number;
  eosId: number;
  padId: number;
}

/** One batched generation (PolicyEngine.generate). */
export interface GenerateRequest {
  /** Token ids of each prompt (BOS included), 1 ≤ length < contextLength. */
  prompts: number[][];
  maxResponseLength: number;
  temperature: number;
  topP: number;
  /** u32 seed of the counter-based sampler: same seed, same adapter → same tokens. */
  seed: number;
  eosId: number;
  padId: number;
}

export type FinishReason = 'eos' | 'truncated';

export interface GenerateResult {
  /** Response tokens (EOS included when the response ended with it). */
  responses: number[][];
  finish: FinishReason[];
  /** Log-prob and entropy of each response token's distribution at the sampling temperature. */
  logp: number[][];
  entropy: number[][];
  /** Decode steps run (the batch stops when every sequence has finished). */
  steps: number;
}
