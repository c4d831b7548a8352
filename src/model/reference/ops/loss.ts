/** Float64 twin of the loss head and the GRPO token loss (shaders/loss.wgsl, src/cpu/assembly/loss.ts). */
import type { TokenArray } from './types';
import type { GrpoLossOptions } from '../../engine-types';

// ---------------------------------------------------------------------------------------------
// Token log-probabilities and entropy at a temperature
// ---------------------------------------------------------------------------------------------

/**
 * z = logits/τ per row; logp = z_target − logsumexp(z); entropy = −Σ p·log p with p = softmax(z).
 */
export function logSoftmaxEntropyForward(
  logits: Float64Array,
  targets: TokenArray,
  rows: number,
  V: number,
  temperature: number,
): { logp: Float64Array; entropy: Float64Array } {
  const logp = new Float64Array(rows);
  const entropy = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const lse = rowLogSumExp(logits, r, V, temperature);
    let h = 0;
    for (let j = 0; j < V; j++) {
      const lp = logits[r * V + j] / temperature - lse;
      h -= Math.exp(lp) * lp;
    }
    logp[r] = logits[r * V + targets[r]] / temperature - lse;
    entropy[r] = h;
  }
  return { logp, entropy };
}

/**
 * dz_j = dlogp·(δ_{j,target} − p_j) + dent·(−p_j·(log p_j + H)); dlogits = dz/τ.
 * (−p_j·(log p_j + H) is ∂H/∂z_j.)
 */
export function logSoftmaxEntropyBackward(
  dlogp: Float64Array,
  dent: Float64Array,
  logits: Float64Array,
  targets: TokenArray,
  rows: number,
  V: number,
  temperature: number,
): Float64Array {
  const dlogits = new Float64Array(rows * V);
  for (let r = 0; r < rows; r++) {
    const lse = rowLogSumExp(logits, r, V, temperature);
    let h = 0;
    for (let j = 0; j < V; j++) {
      const lp = logits[r * V + j] / temperature - lse;
      h -= Math.exp(lp) * lp;
    }
    const target = targets[r];
    for (let j = 0; j < V; j++) {
      const lp = logits[r * V + j] / temperature - lse;
      const p = Math.exp(lp);
      const dz = dlogp[r] * ((j === target ? 1 : 0) - p) + dent[r] * (-p * (lp + h));
      dlogits[r * V + j] = dz / temperature;
    }
  }
  return dlogits;
}

/** logsumexp of row r of logits/τ, max-subtracted for stability. */
function rowLogSumExp(logits: Float64Array, r: number, V: number, temperature: number): number {
  let max = -Infinity;
  for (let j = 0; j < V; j++) max = Math.max(max, logits[r * V + j] / temperature);
  let sum = 0;
  for (let j = 0; j < V; j++) sum += Math.exp(logits[r * V + j] / temperature - max);
  return max + Math.log(sum);
}

// ---------------------------------------------------------------------------------------------
// GRPO / PPO clipped token loss with entropy bonus and optional KL penalty
// ---------------------------------------------------------------------------------------------

// The loss options are the engines' own type, so the twin cannot drift from it.
export type { GrpoLossOptions, KlType } from '../../engine-types';

export interface GrpoTokenInputs {
  /** Current policy log-prob of each sampled token. */
  logp: Float64Array;
  /** Rollout (behaviour) policy log-prob. */
  oldLogp: Float64Array;
  /** Reference policy log-prob, or null when there is no reference model. */
  refLogp: Float64Array | null;
  advantages: Float64Array;
  /** Aggregation weights (normalisation included); 0 wherever mask is 0. */
  weights: Float64Array;
  /** 1 for response tokens that count, 0 otherwise. */
  mask: Float64Array;
  /** Entropy of the current policy's full distribution at each token. */
  entropy: Float64Array;
}

export interface GrpoTokenLossResult {
  loss: number;
  dlogp: Float64Array;
  dent: Float64Array;
  pgLoss: number;
  klSum: number;
  entSum: number;
  clipfrac: number;
  clipfracLower: number;
  ppoKl: number;
}

/**
 * Per token: r = exp(logp − oldLogp); pg = max(−A·r, −A·clamp(r, 1−εl, 1+εh)), then for A < 0
 * with dual clip, pg = min(pg, −A·c). ℓ = pg − α·H + β·KL. loss = Σ w·ℓ.
 * Gradients are the exact derivatives of the branch taken (ties take the unclipped branch).
 */
export function grpoTokenLoss(inp: GrpoTokenInputs, opts: GrpoLossOptions): GrpoTokenLossResult {
  const N = inp.logp.length;
  const dlogp = new Float64Array(N);
  const dent = new Float64Array(N);
  const useKl = inp.refLogp !== null && opts.klCoef !== 0;
  let loss = 0;
  let pgLoss = 0;
  let klSum = 0;
  let entSum = 0;
  let maskCount = 0;
  let clipCount = 0;
  let clipLowerCount = 0;
  let ppoKl = 0;
  for (let i = 0; i < N; i++) {
    const w = inp.weights[i];
    const A = inp.advantages[i];
    const lp = inp.logp[i];
    const r = Math.exp(lp - inp.oldLogp[i]);
    const rClamped = Math.min(Math.max(r, 1 - opts.epsLow), 1 + opts.epsHigh);
    const pg1 = -A * r;
    const pg2 = -A * rClamped;
    const pgc = Math.max(pg1, pg2);
    // d pgc / d logp: the clipped branch is constant in logp when r was actually clamped.
    let gpg = pg2 > pg1 ? (rClamped !== r ? 0 : -A * r) : -A * r;
    let pg = pgc;
    let dualActive = false;
    if (opts.dualClip !== null && A < 0) {
      const pg3 = -A * opts.dualClip;
      if (pg3 < pgc) {
        pg = pg3;
        gpg = 0;
        dualActive = true;
      }
    }

    let kl = 0;
    let gkl = 0;
    if (useKl) {
      const d = (inp.refLogp as Float64Array)[i] - lp;
      if (opts.klType === 'k1') {
        kl = lp - (inp.refLogp as Float64Array)[i];
        gkl = 1;
      } else {
        const k3 = Math.exp(d) - d - 1;
        gkl = 1 - Math.exp(d);
        kl = k3;
        if (opts.klType === 'low_var_kl' && (k3 < -10 || k3 > 10)) {
          kl = Math.min(Math.max(k3, -10), 10);
          gkl = 0;
        }
      }
    }

    const H = inp.entropy[i];
    loss += w * (pg - opts.entCoef * H + opts.klCoef * kl);
    pgLoss += w * pg;
    klSum += w * kl;
    entSum += w * H;
    dlogp[i] = w * (gpg + opts.klCoef * gkl);
    dent[i] = -w * opts.entCoef;

    if (inp.mask[i] !== 0) {
      maskCount++;
      if (pg2 > pg1) clipCount++;
      if (dualActive) clipLowerCount++;
      ppoKl += inp.oldLogp[i] - lp;
    }
  }
  return {
    loss,
    dlogp,
    dent,
    pgLoss,
    klSum,
    entSum,
    clipfrac: maskCount > 0 ? clipCount / maskCount : 0,
    clipfracLower: maskCount > 0 ? clipLowerCount / maskCount : 0,
    ppoKl: maskCount > 0 ? ppoKl / maskCount : 0,
  };
}
