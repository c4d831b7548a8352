/**
 * Adaptive entropy control (paper Eq. 3.2; released code `EntController`).
 *
 *   α_k = c_k · 1{e_k < target}
 *   c_{k+1} = clamp(c_k + Δ if e_k < target else c_k − Δ, [c_min, c_max]),  c_0 = c0
 *
 * e_k is the kept (post-rejection) rollout batch's entropy under π_old, measured BEFORE the actor
 * step, with one of two estimators (`estimator`, see batchEntropy): 'exact' = the token mean of the
 * full next-token distribution's entropy H_t (what verl logs as actor/entropy), or 'sampled' =
 * −mean log π_old(sampled token), the estimate the paper's text describes. Both have the same
 * expectation when sampling at the loss's τ without top-p; the exact one has no sampling noise.
 * Per step the trainer does:
 *
 *   const alpha = entropyCoefForStep(cfg, state, e_k);   // α_k, uses c_k (not yet updated)
 *   …actor step with loss term −α_k·H…
 *   state = updateEntropyState(cfg, state, e_k);         // c_{k+1}: AFTER the actor step
 *
 * Order subtlety of the released code: update() runs after update_actor, so c lags e by one
 * step (the paper's formula). But its on/off gate `entropy_loss_enabled` is also set in
 * update(), from e_{k−1}, and starts at 1: the realised coefficient is c_k·1{e_{k−1} < target}.
 * gate 'current' follows the paper, 'lagged' reproduces the released code.
 * A skipped step (empty batch after rejection) must call neither function, as upstream.
 */

export type EntropyMode = 'adaptive' | 'constant' | 'off';
export type EntropyEstimator = 'exact' | 'sampled';

export interface EntropyControlConfig {
  mode: EntropyMode;
  /** tgt-ent: target entropy in nats. */
  target: number;
  /** Δ: step of c per update. */
  delta: number;
  /** c_min, c_max: clamp range of c. */
  cMin: number;
  cMax: number;
  /** c_0: initial coefficient. */
  c0: number;
  /** α in 'constant' mode. */
  constantCoef: number;
  /** 'current': gate on e_k (paper); 'lagged': gate on e_{k−1} (released code). */
  gate: 'current' | 'lagged';
  /** Which e_k the controller sees: 'exact' mean H_t or the 'sampled' −mean log π (batchEntropy). */
  estimator: EntropyEstimator;
}

/** Serialisable controller state (goes into checkpoints as plain JSON). */
export interface EntropyControllerState {
  /** c_k: coefficient for the next actor step. */
  c: number;
  /** 1{e_{k−1} < target}, for the 'lagged' gate; true before the first update as upstream. */
  lastBelowTarget: boolean;
  /** Updates applied so far. */
  updates: number;
}

export function initialEntropyState(cfg: EntropyControlConfig): EntropyControllerState {
  return { c: cfg.mode === 'adaptive' ? clamp(cfg.c0, cfg.cMin, cfg.cMax) : 0, lastBelowTarget: true, updates: 0 };
}

/** α_k to use in the loss of this step, given the rollout batch's entropy estimate e_k. */
export function entropyCoefForStep(cfg: EntropyControlConfig, state: EntropyControllerState, entropy: number): number {
  if (cfg.mode === 'off') return 0;
  if (cfg.mode === 'constant') return cfg.constantCoef;
  checkEntropy(entropy);
  const below = cfg.gate === 'lagged' ? state.lastBelowTarget : entropy < cfg.target;
  return below ? state.c : 0;
}

/** c_{k+1} after the actor step of step k. Pure: returns a new state. */
export function updateEntropyState(cfg: EntropyControlConfig, state: EntropyControllerState, entropy: number): EntropyControllerState {
  if (cfg.mode !== 'adaptive') return { ...state, updates: state.updates + 1 };
  checkEntropy(entropy);
  const below = entropy < cfg.target;
  const c = clamp(state.c + (below ? cfg.delta : -cfg.delta), cfg.cMin, cfg.cMax);
  return { c, lastBelowTarget: below, updates: state.updates + 1 };
}

/** The value logged as actor/entropy_coeff (c_k; the fixed α in constant mode; 0 when off). */
export function loggedEntropyCoef(cfg: EntropyControlConfig, state: EntropyControllerState): number {
  if (cfg.mode === 'off') return 0;
  return cfg.mode === 'constant' ? cfg.constantCoef : state.c;
}

/** e = −mean log-prob of the sampled response tokens (the rollout batch entropy estimate). */
export function sampledEntropy(logProbs: ArrayLike<number>, mask?: ArrayLike<boolean | number>): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < logProbs.length; i++) {
    if (mask !== undefined && !mask[i]) continue;
    s += logProbs[i];
    n++;
  }
  return n === 0 ? NaN : -s / n;
}

/** e = mean of the per-token full-distribution entropies H_t (the exact batch entropy). */
export function exactEntropy(entropies: ArrayLike<number>, mask?: ArrayLike<boolean | number>): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < entropies.length; i++) {
    if (mask !== undefined && !mask[i]) continue;
    s += entropies[i];
    n++;
  }
  return n === 0 ? NaN : s / n;
}

/** Per-token log π_old(sampled token) and H_t of one response (a Rollout has both). */
export interface ResponseEntropy {
  logp: ArrayLike<number>;
  entropy: ArrayLike<number>;
}

/**
 * Both estimates of a batch's entropy, each a token mean over every response token of the batch
 * (a long response weighs by its length, as the loss's 1/T_k does), summed in a fixed order:
 * exact = mean H_t, sampled = −mean log π_old(sampled token). NaN for a batch without tokens.
 */
export function batchEntropy(responses: readonly ResponseEntropy[]): { exact: number; sampled: number } {
  let h = 0;
  let lp = 0;
  let n = 0;
  for (const r of responses) {
    if (r.logp.length !== r.entropy.length) throw new RangeError(`a response has ${r.logp.length} log-probs but ${r.entropy.length} entropies`);
    for (let i = 0; i < r.logp.length; i++) {
      h += r.entropy[i];
      lp += r.logp[i];
    }
    n += r.logp.length;
  }
  return n === 0 ? { exact: NaN, sampled: NaN } : { exact: h / n, sampled: -lp / n };
}

/** e_k as the controller sees it: the estimate `estimator` picks from batchEntropy's pair. */
export function controllerEntropy(estimator: EntropyEstimator, estimates: { exact: number; sampled: number }): number {
  return estimator === 'exact' ? estimates.exact : estimates.sampled;
}

/** Validates and restores a checkpointed state (throws on a malformed one). */
export function entropyStateFromJSON(value: unknown): EntropyControllerState {
  const v = value as Partial<EntropyControllerState> | null;
  if (
    typeof v !== 'object' || v === null ||
    typeof v.c !== 'number' || !Number.isFinite(v.c) ||
    typeof v.lastBelowTarget !== 'boolean' ||
    typeof v.updates !== 'number' || !Number.isInteger(v.updates) || v.updates < 0
  ) {
    throw new TypeError(`invalid entropy controller state: ${JSON.stringify(value)}`);
  }
  return { c: v.c, lastBelowTarget: v.lastBelowTarget, updates: v.updates };
}

function checkEntropy(e: number): void {
  // A NaN would silently read as "above target" and decay c; fail loudly instead.
  if (!Number.isFinite(e)) throw new RangeError(`entropy estimate must be finite, got ${e}`);
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
