/**
 * The gradient of a weighted sum of per-token log-probs and entropies,
 * L = Σ_t c_t · log p(tokens[t+1] | tokens[..t]) + Σ_t e_t · H_t (H_t the entropy of that prediction),
 * with respect to every weight of the Llama / Qwen2 decoder, in float64: the twin the backward
 * kernels (WGSL, CPU engine) will be checked against, itself checked by central differences
 * (tests/model/hf/reference-backward.test.ts). GRPO's policy-gradient term is this L with c_t the
 * token's advantage-weighted coefficient; MAGIC's entropy term is e_t = α / (number of tokens).
 *
 * The forward is recomputed here keeping what the backward needs (reference-forward.ts keeps
 * nothing); the head's log-softmax is visited in vocabulary chunks in both directions, recomputing
 * each chunk's logits in the backward rather than storing [T, V].
 */
import { applyRope, chunkedVocabStats, DEFAULT_VOCAB_CHUNK } from './reference-forward';
import type { HfLayerWeights, HfWeights } from './weights';

/** One gradient per weight, the same shapes as HfWeights (float64). */
export interface HfGrads {
  embed: Float64Array;
  layers: Record<keyof HfLayerWeights, Float64Array | null>[];
  norm: Float64Array;
  /** null when the head is tied (its gradient is added to `embed`). */
  lmHead: Float64Array | null;
}

interface Norm { y: Float64Array; r: Float64Array }

export function rmsNormF(x: Float64Array, T: number, d: number, w: Float32Array, eps: number): Norm {
  const y = new Float64Array(T * d), r = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    let ss = 0;
    for (let i = 0; i < d; i++) ss += x[t * d + i] ** 2;
    r[t] = 1 / Math.sqrt(ss / d + eps);
    for (let i = 0; i < d; i++) y[t * d + i] = x[t * d + i] * r[t] * w[i];
  }
  return { y, r };
}

/** y = x·r·w: dw_i += Σ_t dy·x·r; dx = r·w⊙dy − r³·x·(Σ_j w_j dy_j x_j)/d. Returns dx. */
export function rmsNormB(x: Float64Array, r: Float64Array, T: number, d: number, w: Float32Array, dy: Float64Array, dw: Float64Array): Float64Array {
  const dx = new Float64Array(T * d);
  for (let t = 0; t < T; t++) {
    let dot = 0;
    for (let i = 0; i < d; i++) {
      dot += w[i] * dy[t * d + i] * x[t * d + i];
      dw[i] += dy[t * d + i] * x[t * d + i] * r[t];
    }
    const r3 = r[t] ** 3 / d;
    for (let i = 0; i < d; i++) dx[t * d + i] = r[t] * w[i] * dy[t * d + i] - r3 * x[t * d + i] * dot;
  }
  return dx;
}

export function linearF(x: Float64Array, T: number, n: number, W: Float32Array, m: number, b: Float32Array | null): Float64Array {
  const y = new Float64Array(T * m);
  for (let t = 0; t < T; t++)
    for (let o = 0; o < m; o++) {
      let s = b ? b[o] : 0;
      for (let i = 0; i < n; i++) s += x[t * n + i] * W[o * n + i];
      y[t * m + o] = s;
    }
  return y;
}

/** y = x·Wᵀ + b: dW[o, i] += Σ_t dy[t, o] x[t, i]; db += Σ_t dy; dx (added into `dx`). */
export function linearB(x: Float64Array, T: number, n: number, W: Float32Array, m: number, dy: Float64Array, dW: Float64Array, db: Float64Array | null, dx: Float64Array): void {
  for (let t = 0; t < T; t++)
    for (let o = 0; o < m; o++) {
      const g = dy[t * m + o];
      if (g === 0) continue;
      if (db) db[o] += g;
      for (let i = 0; i < n; i++) {
        dW[o * n + i] += g * x[t * n + i];
        dx[t * n + i] += g * W[o * n + i];
      }
    }
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * ∂L/∂weights for L = Σ_t coef[t] · log p(tokens[t+1] | tokens[..t]) + Σ_t entCoef[t] · H_t, t = 0 … T−2
 * (entCoef: none by default). ∂H/∂logit_v = −p_v (log p_v + H).
 */
export function hfLogprobGrads(w: HfWeights, tokens: readonly number[], coef: readonly number[], chunk = DEFAULT_VOCAB_CHUNK, entCoef?: readonly number[]): HfGrads {
  const c = w.config;
  const T = tokens.length, d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, M = c.intermediateSize, V = c.vocabSize;
  if (coef.length !== T - 1) throw new RangeError(`hfLogprobGrads: ${coef.length} coefficients for ${T - 1} predicted tokens`);
  if (entCoef && entCoef.length !== T - 1) throw new RangeError(`hfLogprobGrads: ${entCoef.length} entropy coefficients for ${T - 1} predicted tokens`);
  const group = H / Hkv, scale = 1 / Math.sqrt(hd), eps = c.rmsNormEps;
  // Forward, keeping each layer's intermediates.
  let h = new Float64Array(T * d);
  for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) h[t * d + i] = w.embed[tokens[t] * d + i];
  const caches = w.layers.map((L) => {
    const hIn = h;
    const n1 = rmsNormF(hIn, T, d, L.inputNorm, eps);
    const q = linearF(n1.y, T, d, L.q, H * hd, L.qBias), k = linearF(n1.y, T, d, L.k, Hkv * hd, L.kBias), v = linearF(n1.y, T, d, L.v, Hkv * hd, L.vBias);
    applyRope(q, T, H, hd, c.ropeTheta);
    applyRope(k, T, Hkv, hd, c.ropeTheta);
    const P = new Float64Array(H * T * T), att = new Float64Array(T * H * hd);
    for (let hh = 0; hh < H; hh++) {
      const kvh = Math.floor(hh / group);
      for (let t = 0; t < T; t++) {
        const row = (hh * T + t) * T;
        let mx = -Infinity;
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let j = 0; j < hd; j++) dot += q[(t * H + hh) * hd + j] * k[(s * Hkv + kvh) * hd + j];
          P[row + s] = dot * scale;
          mx = Math.max(mx, P[row + s]);
        }
        let z = 0;
        for (let s = 0; s <= t; s++) z += (P[row + s] = Math.exp(P[row + s] - mx));
        for (let s = 0; s <= t; s++) {
          P[row + s] /= z;
          for (let j = 0; j < hd; j++) att[(t * H + hh) * hd + j] += P[row + s] * v[(s * Hkv + kvh) * hd + j];
        }
      }
    }
    const o = linearF(att, T, H * hd, L.o, d, null);
    const h1 = Float64Array.from(hIn, (x, i) => x + o[i]);
    const n2 = rmsNormF(h1, T, d, L.postNorm, eps);
    const g = linearF(n2.y, T, d, L.gate, M, null), u = linearF(n2.y, T, d, L.up, M, null);
    const act = Float64Array.from(g, (z, i) => z * sigmoid(z) * u[i]);
    const down = linearF(act, T, M, L.down, d, null);
    h = Float64Array.from(h1, (x, i) => x + down[i]);
    return { hIn, n1, q, k, v, P, att, h1, n2, g, u, act };
  });
  const nf = rmsNormF(h, T, d, w.norm, eps);
  const head = w.lmHead ?? w.embed;
  const targets = tokens.map((_, t) => (t + 1 < T ? tokens[t + 1] : -1));
  const stats = chunkedVocabStats(nf.y, T, d, head, V, targets, chunk);
  const lse = stats.logSumExp;

  const grads: HfGrads = {
    embed: new Float64Array(w.embed.length),
    layers: w.layers.map((L) => Object.fromEntries(Object.entries(L).map(([k, a]) => [k, a ? new Float64Array(a.length) : null])) as HfGrads['layers'][number]),
    norm: new Float64Array(d),
    lmHead: w.lmHead ? new Float64Array(w.lmHead.length) : null,
  };
  const dHead = grads.lmHead ?? grads.embed;
  // Head: ∂L/∂logit[t, v] = c_t (1[v = target] − p_v) − e_t p_v (log p_v + H_t), one vocabulary chunk at a time.
  const dnf = new Float64Array(T * d);
  for (let c0 = 0; c0 < V; c0 += chunk) {
    const n = Math.min(chunk, V - c0);
    for (let t = 0; t < T - 1; t++) {
      const e = entCoef ? entCoef[t] : 0;
      if (coef[t] === 0 && e === 0) continue;
      for (let r = 0; r < n; r++) {
        const vRow = c0 + r;
        let l = 0;
        for (let i = 0; i < d; i++) l += nf.y[t * d + i] * head[vRow * d + i];
        const logp = l - lse[t], p = Math.exp(logp);
        const dl = coef[t] * ((vRow === targets[t] ? 1 : 0) - p) - e * p * (logp + stats.entropy[t]);
        for (let i = 0; i < d; i++) {
          dnf[t * d + i] += dl * head[vRow * d + i];
          dHead[vRow * d + i] += dl * nf.y[t * d + i];
        }
      }
    }
  }
  let dh = rmsNormB(h, nf.r, T, d, w.norm, dnf, grads.norm);
  for (let li = w.layers.length - 1; li >= 0; li--) {
    const L = w.layers[li], C = caches[li], G = grads.layers[li];
    // MLP: h = h1 + down(silu(g) ⊙ u), g and u from RMSNorm(h1).
    const dAct = new Float64Array(T * M);
    linearB(C.act, T, M, L.down, d, dh, G.down!, null, dAct);
    const dg = new Float64Array(T * M), du = new Float64Array(T * M);
    for (let i = 0; i < T * M; i++) {
      const z = C.g[i], s = sigmoid(z);
      du[i] = dAct[i] * z * s;
      dg[i] = dAct[i] * C.u[i] * s * (1 + z * (1 - s));
    }
    const dn2 = new Float64Array(T * d);
    linearB(C.n2.y, T, d, L.gate, M, dg, G.gate!, null, dn2);
    linearB(C.n2.y, T, d, L.up, M, du, G.up!, null, dn2);
    const dx2 = rmsNormB(C.h1, C.n2.r, T, d, L.postNorm, dn2, G.postNorm!);
    const dh1 = Float64Array.from(dh, (x, i) => x + dx2[i]);
    // Attention: h1 = hIn + o_proj(softmax(q kᵀ/√d_head) v), q and k rotated.
    const dAtt = new Float64Array(T * H * hd);
    linearB(C.att, T, H * hd, L.o, d, dh1, G.o!, null, dAtt);
    const dq = new Float64Array(T * H * hd), dk = new Float64Array(T * Hkv * hd), dv = new Float64Array(T * Hkv * hd);
    const dP = new Float64Array(T);
    for (let hh = 0; hh < H; hh++) {
      const kvh = Math.floor(hh / group);
      for (let t = 0; t < T; t++) {
        const row = (hh * T + t) * T, ao = (t * H + hh) * hd;
        let sum = 0;
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let j = 0; j < hd; j++) {
            dot += dAtt[ao + j] * C.v[(s * Hkv + kvh) * hd + j];
            dv[(s * Hkv + kvh) * hd + j] += C.P[row + s] * dAtt[ao + j];
          }
          dP[s] = dot;
          sum += C.P[row + s] * dot;
        }
        for (let s = 0; s <= t; s++) {
          const dS = C.P[row + s] * (dP[s] - sum) * scale;
          for (let j = 0; j < hd; j++) {
            dq[ao + j] += dS * C.k[(s * Hkv + kvh) * hd + j];
            dk[(s * Hkv + kvh) * hd + j] += dS * C.q[ao + j];
          }
        }
      }
    }
    // RoPE is a rotation: its backward is the rotation by the opposite angle.
    applyRope(dq, T, H, hd, c.ropeTheta, -1);
    applyRope(dk, T, Hkv, hd, c.ropeTheta, -1);
    const dn1 = new Float64Array(T * d);
    linearB(C.n1.y, T, d, L.q, H * hd, dq, G.q!, G.qBias, dn1);
    linearB(C.n1.y, T, d, L.k, Hkv * hd, dk, G.k!, G.kBias, dn1);
    linearB(C.n1.y, T, d, L.v, Hkv * hd, dv, G.v!, G.vBias, dn1);
    const dx1 = rmsNormB(C.hIn, C.n1.r, T, d, L.inputNorm, dn1, G.inputNorm!);
    dh = Float64Array.from(dh1, (x, i) => x + dx1[i]);
  }
  for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) grads.embed[tokens[t] * d + i] += dh[t * d + i];
  return grads;
}
