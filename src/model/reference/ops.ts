/**
 * Float64 reference implementations of every op the GPU policy uses, forward and backward.
 *
 * This is the readable twin of the WGSL kernels: plain loops, no tricks, float64 everywhere,
 * so GPU results can be compared against it and its gradients can be checked by finite
 * differences. All matrices are row-major. Every function returns new arrays unless it says
 * "in place". Weight convention (llm.c): a linear weight is [out, in] and y = x · Wᵀ + b.
 */

export type TokenArray = Uint32Array | Int32Array | ArrayLike<number>;

// ---------------------------------------------------------------------------------------------
// Matrix products
// ---------------------------------------------------------------------------------------------

/**
 * C[M×N] = op(A) · op(B), where op(A) is M×K and op(B) is K×N.
 * transA: A is stored K×M (so op(A) = Aᵀ). transB: B is stored N×K (so op(B) = Bᵀ).
 */
export function gemm(
  A: Float64Array,
  B: Float64Array,
  M: number,
  N: number,
  K: number,
  transA: boolean,
  transB: boolean,
): Float64Array {
  const C = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let sum = 0;
      for (let k = 0; k < K; k++) {
        const a = transA ? A[k * M + i] : A[i * K + k];
        const b = transB ? B[j * K + k] : B[k * N + j];
        sum += a * b;
      }
      C[i * N + j] = sum;
    }
  }
  return C;
}

/** y[rows×outF] = x[rows×inF] · wᵀ + b, with w stored [outF, inF]. */
export function linearForward(
  x: Float64Array,
  w: Float64Array,
  b: Float64Array | null,
  rows: number,
  inF: number,
  outF: number,
): Float64Array {
  const y = gemm(x, w, rows, outF, inF, false, true);
  if (b) {
    for (let r = 0; r < rows; r++) for (let o = 0; o < outF; o++) y[r * outF + o] += b[o];
  }
  return y;
}

/** Gradients of y = x·wᵀ + b: dx = dy·w, dw = dyᵀ·x, db = column sums of dy. */
export function linearBackward(
  dy: Float64Array,
  x: Float64Array,
  w: Float64Array,
  rows: number,
  inF: number,
  outF: number,
): { dx: Float64Array; dw: Float64Array; db: Float64Array } {
  const dx = gemm(dy, w, rows, inF, outF, false, false);
  const dw = gemm(dy, x, outF, inF, rows, true, false);
  const db = new Float64Array(outF);
  for (let r = 0; r < rows; r++) for (let o = 0; o < outF; o++) db[o] += dy[r * outF + o];
  return { dx, dw, db };
}

// ---------------------------------------------------------------------------------------------
// Embeddings
// ---------------------------------------------------------------------------------------------

/** x[b,t] = wte[token] + wpe[t]; output is [B·T × C]. */
export function encoderForward(
  tokens: TokenArray,
  wte: Float64Array,
  wpe: Float64Array,
  B: number,
  T: number,
  C: number,
): Float64Array {
  const x = new Float64Array(B * T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const tok = tokens[b * T + t];
      const row = (b * T + t) * C;
      for (let c = 0; c < C; c++) x[row + c] = wte[tok * C + c] + wpe[t * C + c];
    }
  }
  return x;
}

/** Scatter-adds dx into the rows of the tables that produced it. dwpe has only T rows. */
export function encoderBackward(
  dx: Float64Array,
  tokens: TokenArray,
  B: number,
  T: number,
  C: number,
  V: number,
): { dwte: Float64Array; dwpe: Float64Array } {
  const dwte = new Float64Array(V * C);
  const dwpe = new Float64Array(T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const tok = tokens[b * T + t];
      const row = (b * T + t) * C;
      for (let c = 0; c < C; c++) {
        dwte[tok * C + c] += dx[row + c];
        dwpe[t * C + c] += dx[row + c];
      }
    }
  }
  return { dwte, dwpe };
}

// ---------------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------------

/** RMSNorm: out = x · rstd · w with rstd = 1/sqrt(mean(x²) + eps) per row. */
export function rmsnormForward(
  x: Float64Array,
  w: Float64Array,
  rows: number,
  C: number,
  eps = 1e-5,
): { out: Float64Array; rstd: Float64Array } {
  const out = new Float64Array(rows * C);
  const rstd = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x[r * C + c] * x[r * C + c];
    const s = 1 / Math.sqrt(ss / C + eps);
    rstd[r] = s;
    for (let c = 0; c < C; c++) out[r * C + c] = x[r * C + c] * s * w[c];
  }
  return { out, rstd };
}

/**
 * With n = x·rstd and dn = dout·w: dx = rstd · (dn − n · mean(dn·n)), dw = Σ_rows dout·n.
 * (The mean term is the gradient through rstd's dependence on x.)
 */
export function rmsnormBackward(
  dout: Float64Array,
  x: Float64Array,
  w: Float64Array,
  rstd: Float64Array,
  rows: number,
  C: number,
): { dx: Float64Array; dw: Float64Array } {
  const dx = new Float64Array(rows * C);
  const dw = new Float64Array(C);
  for (let r = 0; r < rows; r++) {
    const s = rstd[r];
    let dotMean = 0;
    for (let c = 0; c < C; c++) dotMean += dout[r * C + c] * w[c] * x[r * C + c] * s;
    dotMean /= C;
    for (let c = 0; c < C; c++) {
      const n = x[r * C + c] * s;
      const dn = dout[r * C + c] * w[c];
      dx[r * C + c] = s * (dn - n * dotMean);
      dw[c] += dout[r * C + c] * n;
    }
  }
  return { dx, dw };
}

/** LayerNorm with biased variance: out = (x − mean)·rstd·w + b. */
export function layernormForward(
  x: Float64Array,
  w: Float64Array,
  b: Float64Array,
  rows: number,
  C: number,
  eps = 1e-5,
): { out: Float64Array; mean: Float64Array; rstd: Float64Array } {
  const out = new Float64Array(rows * C);
  const mean = new Float64Array(rows);
  const rstd = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let c = 0; c < C; c++) m += x[r * C + c];
    m /= C;
    let v = 0;
    for (let c = 0; c < C; c++) v += (x[r * C + c] - m) ** 2;
    v /= C;
    const s = 1 / Math.sqrt(v + eps);
    mean[r] = m;
    rstd[r] = s;
    for (let c = 0; c < C; c++) out[r * C + c] = (x[r * C + c] - m) * s * w[c] + b[c];
  }
  return { out, mean, rstd };
}

/**
 * With n = (x − mean)·rstd and dn = dout·w (llm.c form):
 * dx = rstd · (dn − mean(dn) − n · mean(dn·n)); dw = Σ dout·n; db = Σ dout.
 */
export function layernormBackward(
  dout: Float64Array,
  x: Float64Array,
  w: Float64Array,
  mean: Float64Array,
  rstd: Float64Array,
  rows: number,
  C: number,
): { dx: Float64Array; dw: Float64Array; db: Float64Array } {
  const dx = new Float64Array(rows * C);
  const dw = new Float64Array(C);
  const db = new Float64Array(C);
  for (let r = 0; r < rows; r++) {
    const m = mean[r];
    const s = rstd[r];
    let dnMean = 0;
    let dnNMean = 0;
    for (let c = 0; c < C; c++) {
      const n = (x[r * C + c] - m) * s;
      const dn = dout[r * C + c] * w[c];
      dnMean += dn;
      dnNMean += dn * n;
    }
    dnMean /= C;
    dnNMean /= C;
    for (let c = 0; c < C; c++) {
      const n = (x[r * C + c] - m) * s;
      const dn = dout[r * C + c] * w[c];
      dx[r * C + c] = s * (dn - dnMean - n * dnNMean);
      dw[c] += dout[r * C + c] * n;
      db[c] += dout[r * C + c];
    }
  }
  return { dx, dw, db };
}

// ---------------------------------------------------------------------------------------------
// GELU (GPT-2 tanh approximation)
// ---------------------------------------------------------------------------------------------

const GELU_SCALE = Math.sqrt(2 / Math.PI);
const GELU_CUBE = 0.044715;

/** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), elementwise. */
export function geluForward(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    y[i] = 0.5 * xi * (1 + Math.tanh(GELU_SCALE * (xi + GELU_CUBE * xi * xi * xi)));
  }
  return y;
}

/** dx = dout · d/dx gelu(x), from the forward's input x. */
export function geluBackward(x: Float64Array, dout: Float64Array): Float64Array {
  const dx = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const t = Math.tanh(GELU_SCALE * (xi + GELU_CUBE * xi * xi * xi));
    const du = GELU_SCALE * (1 + 3 * GELU_CUBE * xi * xi);
    dx[i] = dout[i] * (0.5 * (1 + t) + 0.5 * xi * (1 - t * t) * du);
  }
  return dx;
}

// ---------------------------------------------------------------------------------------------
// Causal multi-head self-attention
// ---------------------------------------------------------------------------------------------

/**
 * qkv rows are [q(C) | k(C) | v(C)]; head h uses channels h·hs..(h+1)·hs of each part.
 * att[b,h,t,s] = softmax_s(q_t·k_s / √hs) over s ≤ t, and 0 for s > t (causal).
 * out[b,t, h·hs + i] = Σ_s att[b,h,t,s] · v_s[i].
 */
export function attentionForward(
  qkv: Float64Array,
  B: number,
  T: number,
  C: number,
  H: number,
): { out: Float64Array; att: Float64Array } {
  const hs = C / H;
  const scale = 1 / Math.sqrt(hs);
  const C3 = 3 * C;
  const out = new Float64Array(B * T * C);
  const att = new Float64Array(B * H * T * T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const qOff = (b * T + t) * C3 + h * hs;
        const aOff = ((b * H + h) * T + t) * T;
        // Scores for s ≤ t, with the max subtracted for a stable softmax.
        let max = -Infinity;
        for (let s = 0; s <= t; s++) {
          const kOff = (b * T + s) * C3 + C + h * hs;
          let dot = 0;
          for (let i = 0; i < hs; i++) dot += qkv[qOff + i] * qkv[kOff + i];
          att[aOff + s] = dot * scale;
          if (att[aOff + s] > max) max = att[aOff + s];
        }
        let sum = 0;
        for (let s = 0; s <= t; s++) {
          att[aOff + s] = Math.exp(att[aOff + s] - max);
          sum += att[aOff + s];
        }
        for (let s = 0; s <= t; s++) att[aOff + s] /= sum;
        // Weighted sum of values.
        const oOff = (b * T + t) * C + h * hs;
        for (let s = 0; s <= t; s++) {
          const vOff = (b * T + s) * C3 + 2 * C + h * hs;
          const p = att[aOff + s];
          for (let i = 0; i < hs; i++) out[oOff + i] += p * qkv[vOff + i];
        }
      }
    }
  }
  return { out, att };
}

/**
 * Backward of attentionForward. Per (b, h, t):
 * datt_s = dout_t·v_s; dv_s += att_s·dout_t; softmax backward dpre_s = att_s·(datt_s − Σ att·datt);
 * dq_t += scale·Σ_s dpre_s·k_s; dk_s += scale·dpre_s·q_t.
 */
export function attentionBackward(
  dout: Float64Array,
  qkv: Float64Array,
  att: Float64Array,
  B: number,
  T: number,
  C: number,
  H: number,
): Float64Array {
  const hs = C / H;
  const scale = 1 / Math.sqrt(hs);
  const C3 = 3 * C;
  const dqkv = new Float64Array(B * T * C3);
  const datt = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        const qOff = (b * T + t) * C3 + h * hs;
        const aOff = ((b * H + h) * T + t) * T;
        const oOff = (b * T + t) * C + h * hs;
        let weighted = 0; // Σ_s att_s · datt_s
        for (let s = 0; s <= t; s++) {
          const vOff = (b * T + s) * C3 + 2 * C + h * hs;
          let dot = 0;
          for (let i = 0; i < hs; i++) {
            dot += dout[oOff + i] * qkv[vOff + i];
            dqkv[vOff + i] += att[aOff + s] * dout[oOff + i];
          }
          datt[s] = dot;
          weighted += att[aOff + s] * dot;
        }
        for (let s = 0; s <= t; s++) {
          const dpre = att[aOff + s] * (datt[s] - weighted) * scale;
          const kOff = (b * T + s) * C3 + C + h * hs;
          for (let i = 0; i < hs; i++) {
            dqkv[qOff + i] += dpre * qkv[kOff + i];
            dqkv[kOff + i] += dpre * qkv[qOff + i];
          }
        }
      }
    }
  }
  return dqkv;
}

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

import type { GrpoLossOptions } from '../engine-types';
// The loss options are the engines' own type, so the twin cannot drift from it.
export type { GrpoLossOptions, KlType } from '../engine-types';

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

// ---------------------------------------------------------------------------------------------
// Optimiser
// ---------------------------------------------------------------------------------------------

/** PyTorch clip_grad_norm_: norm = ‖g‖₂, scale = min(1, maxNorm/(norm + 1e-6)). Grads untouched. */
export function clipGradNorm(grads: Float64Array, maxNorm: number): { norm: number; scale: number } {
  let ss = 0;
  for (let i = 0; i < grads.length; i++) ss += grads[i] * grads[i];
  const norm = Math.sqrt(ss);
  return { norm, scale: Math.min(1, maxNorm / (norm + 1e-6)) };
}

export interface AdamWOptions {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  /** 1-based step count, for bias correction. */
  step: number;
  /** Multiplier on the gradients (clipGradNorm's scale). */
  gradScale: number;
  /** Elements [0, decayEnd) get weight decay; the rest do not. */
  decayEnd: number;
  /** The step's loss and global gradient norm (before clipping): a non-finite one rejects the step (stepIsFinite). Absent: always applied. */
  gate?: { loss: number; gradNorm: number };
}

/**
 * Whether an update may apply (both engines' rule, checked before AdamW): the loss and the
 * global gradient norm are both finite. A rejected step leaves params, m and v as they were.
 */
export function stepIsFinite(loss: number, gradNorm: number): boolean {
  return Number.isFinite(loss) && Number.isFinite(gradNorm);
}

/**
 * One AdamW step, in place on params, m and v. Weight decay is decoupled (AdamW) and uses the
 * parameter value from before this update. Returns false, touching nothing, when `gate` says the
 * step is not finite.
 */
export function adamwStep(
  params: Float64Array,
  grads: Float64Array,
  m: Float64Array,
  v: Float64Array,
  opts: AdamWOptions,
): boolean {
  const { lr, beta1, beta2, eps, weightDecay, step, gradScale, decayEnd, gate } = opts;
  if (gate && !stepIsFinite(gate.loss, gate.gradNorm)) return false;
  const bc1 = 1 - beta1 ** step;
  const bc2 = 1 - beta2 ** step;
  for (let i = 0; i < params.length; i++) {
    const g = grads[i] * gradScale;
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    const mhat = m[i] / bc1;
    const vhat = v[i] / bc2;
    const wd = i < decayEnd ? weightDecay : 0;
    params[i] -= lr * (mhat / (Math.sqrt(vhat) + eps) + wd * params[i]);
  }
  return true;
}
