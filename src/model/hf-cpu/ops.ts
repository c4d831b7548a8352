/**
 * The Llama / Qwen2 block's kernels for the CPU engine of real models: f32 storage, every dot product and
 * reduction summed in float64 (JavaScript numbers), so they agree with the float64 twins
 * (src/model/hf/reference-forward.ts, reference-backward.ts) to f32 rounding. Each is tested against
 * its twin on fresh random inputs with poisoned outputs (tests/model/hf-cpu/ops.test.ts).
 *
 * Layouts: activations [T, n] row-major; Linear weights [out, in] as PyTorch stores them.
 * Backward kernels ADD into their gradient outputs (callers zero them), so gradients accumulate over rows.
 */

/** Σ_i a[ao + i]·b[bo + i] for i < n in float64, four partial sums (independent chains for the CPU's pipelines). */
export function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, n: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[ao + i] * b[bo + i];
    s1 += a[ao + i + 1] * b[bo + i + 1];
    s2 += a[ao + i + 2] * b[bo + i + 2];
    s3 += a[ao + i + 3] * b[bo + i + 3];
  }
  for (; i < n; i++) s0 += a[ao + i] * b[bo + i];
  return s0 + s1 + s2 + s3;
}

/** y[t, o] = Σ_i x[t, i]·W[o, i] + b[o], written into y (its old contents are ignored). */
export function linearF(x: Float32Array, T: number, n: number, W: Float32Array, m: number, b: Float32Array | null, y: Float32Array): void {
  for (let t = 0; t < T; t++) {
    const xo = t * n;
    for (let o = 0; o < m; o++) y[t * m + o] = (b ? b[o] : 0) + dot(x, xo, W, o * n, n);
  }
}

/**
 * Backward of linearF: dW[o, i] += Σ_t dy[t, o]·x[t, i], db[o] += Σ_t dy[t, o], dx[t, i] += Σ_o dy[t, o]·W[o, i].
 * Any of dW, db, dx may be null (a frozen weight, no bias, no input gradient).
 */
export function linearB(x: Float32Array, T: number, n: number, W: Float32Array, m: number, dy: Float32Array, dW: Float32Array | null, db: Float32Array | null, dx: Float32Array | null): void {
  if (dx) {
    const acc = new Float64Array(n);
    for (let t = 0; t < T; t++) {
      acc.fill(0);
      for (let o = 0; o < m; o++) {
        const g = dy[t * m + o];
        if (g === 0) continue;
        const wo = o * n;
        for (let i = 0; i < n; i++) acc[i] += g * W[wo + i];
      }
      for (let i = 0; i < n; i++) dx[t * n + i] += acc[i];
    }
  }
  if (dW || db) {
    const acc = new Float64Array(n);
    for (let o = 0; o < m; o++) {
      acc.fill(0);
      let sb = 0;
      for (let t = 0; t < T; t++) {
        const g = dy[t * m + o];
        if (g === 0) continue;
        sb += g;
        const xo = t * n;
        for (let i = 0; i < n; i++) acc[i] += g * x[xo + i];
      }
      if (db) db[o] += sb;
      if (dW) for (let i = 0, wo = o * n; i < n; i++) dW[wo + i] += acc[i];
    }
  }
}

/** y = x·r·w with r[t] = 1/√(mean(x[t]²) + ε); r is written for the backward. */
export function rmsNormF(x: Float32Array, T: number, d: number, w: Float32Array, eps: number, y: Float32Array, r: Float32Array): void {
  for (let t = 0; t < T; t++) {
    let ss = 0;
    for (let i = 0; i < d; i++) ss += x[t * d + i] * x[t * d + i];
    const rt = 1 / Math.sqrt(ss / d + eps);
    r[t] = rt;
    for (let i = 0; i < d; i++) y[t * d + i] = x[t * d + i] * rt * w[i];
  }
}

/** Backward of rmsNormF: dw[i] += Σ_t dy·x·r (dw may be null: frozen); dx += r·w⊙dy − r³·x·(Σ_j w_j dy_j x_j)/d. */
export function rmsNormB(x: Float32Array, r: Float32Array, T: number, d: number, w: Float32Array, dy: Float32Array, dw: Float32Array | null, dx: Float32Array): void {
  for (let t = 0; t < T; t++) {
    let dot = 0;
    const rt = r[t];
    for (let i = 0; i < d; i++) {
      const k = t * d + i;
      dot += w[i] * dy[k] * x[k];
      if (dw) dw[i] += dy[k] * x[k] * rt;
    }
    const r3 = (rt * rt * rt) / d;
    for (let i = 0; i < d; i++) dx[t * d + i] += rt * w[i] * dy[t * d + i] - r3 * x[t * d + i] * dot;
  }
}

/** cos and sin of RoPE's angles p·θ^(−2j/headDim) for positions [0, P), [P, headDim/2] each, in float64. */
export function ropeTable(P: number, headDim: number, theta: number): { cos: Float64Array; sin: Float64Array } {
  const half = headDim / 2;
  const cos = new Float64Array(P * half), sin = new Float64Array(P * half);
  for (let p = 0; p < P; p++)
    for (let j = 0; j < half; j++) {
      const a = p * Math.pow(theta, (-2 * j) / headDim);
      cos[p * half + j] = Math.cos(a);
      sin[p * half + j] = Math.sin(a);
    }
  return { cos, sin };
}

/**
 * RoPE in place on x [T, heads, headDim] at positions p0 … p0+T−1, rotate_half convention (halves, not
 * interleaved pairs); direction −1 rotates back: the inverse, which is also the backward.
 */
export function ropeApply(x: Float32Array, T: number, heads: number, headDim: number, p0: number, table: { cos: Float64Array; sin: Float64Array }, direction: 1 | -1 = 1): void {
  const half = headDim / 2;
  for (let t = 0; t < T; t++) {
    const p = p0 + t;
    for (let j = 0; j < half; j++) {
      const c = table.cos[p * half + j], s = direction * table.sin[p * half + j];
      for (let h = 0; h < heads; h++) {
        const base = (t * heads + h) * headDim;
        const a = x[base + j], b = x[base + j + half];
        x[base + j] = a * c - b * s;
        x[base + j + half] = b * c + a * s;
      }
    }
  }
}

/**
 * Causal grouped-query attention for T new queries at positions p0 … p0+T−1 over keys/values of positions
 * [0, p0+T): q [T, H, hd]; k, v [S, Hkv, hd] with S ≥ p0+T (a KV cache); query head h reads kv head
 * ⌊h/(H/Hkv)⌋; scale 1/√hd. out [T, H, hd] is written; P (optional, [H, T, p0+T]) keeps the probabilities.
 */
export function attentionF(q: Float32Array, k: Float32Array, v: Float32Array, T: number, p0: number, H: number, Hkv: number, hd: number, out: Float32Array, P: Float32Array | null): void {
  const group = H / Hkv, scale = 1 / Math.sqrt(hd), S = p0 + T;
  const sc = new Float64Array(S), acc = new Float64Array(hd);
  for (let h = 0; h < H; h++) {
    const kvh = Math.floor(h / group);
    for (let t = 0; t < T; t++) {
      const qo = (t * H + h) * hd, last = p0 + t;
      let mx = -Infinity;
      for (let s = 0; s <= last; s++) {
        const ko = (s * Hkv + kvh) * hd;
        let dot = 0;
        for (let j = 0; j < hd; j++) dot += q[qo + j] * k[ko + j];
        sc[s] = dot * scale;
        if (sc[s] > mx) mx = sc[s];
      }
      let z = 0;
      for (let s = 0; s <= last; s++) z += sc[s] = Math.exp(sc[s] - mx);
      acc.fill(0);
      for (let s = 0; s <= last; s++) {
        const p = sc[s] / z, vo = (s * Hkv + kvh) * hd;
        if (P) P[(h * T + t) * S + s] = p;
        for (let j = 0; j < hd; j++) acc[j] += p * v[vo + j];
      }
      for (let j = 0; j < hd; j++) out[qo + j] = acc[j];
      if (P) for (let s = last + 1; s < S; s++) P[(h * T + t) * S + s] = 0;
    }
  }
}

/** Backward of attentionF with p0 = 0 (training): dq, dk, dv += (dk, dv summed over the query heads of a group). */
export function attentionB(q: Float32Array, k: Float32Array, v: Float32Array, P: Float32Array, T: number, H: number, Hkv: number, hd: number, dOut: Float32Array, dq: Float32Array, dk: Float32Array, dv: Float32Array): void {
  const group = H / Hkv, scale = 1 / Math.sqrt(hd);
  const dP = new Float64Array(T);
  for (let h = 0; h < H; h++) {
    const kvh = Math.floor(h / group);
    for (let t = 0; t < T; t++) {
      const row = (h * T + t) * T, ao = (t * H + h) * hd;
      let sum = 0;
      for (let s = 0; s <= t; s++) {
        const vo = (s * Hkv + kvh) * hd, p = P[row + s];
        let dot = 0;
        for (let j = 0; j < hd; j++) {
          dot += dOut[ao + j] * v[vo + j];
          dv[vo + j] += p * dOut[ao + j];
        }
        dP[s] = dot;
        sum += p * dot;
      }
      for (let s = 0; s <= t; s++) {
        const dS = P[row + s] * (dP[s] - sum) * scale;
        if (dS === 0) continue;
        const ko = (s * Hkv + kvh) * hd;
        for (let j = 0; j < hd; j++) {
          dq[ao + j] += dS * k[ko + j];
          dk[ko + j] += dS * q[ao + j];
        }
      }
    }
  }
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** SwiGLU: act = silu(g)·u, written into act. */
export function swigluF(g: Float32Array, u: Float32Array, act: Float32Array): void {
  for (let i = 0; i < g.length; i++) {
    const z = g[i];
    act[i] = z * sigmoid(z) * u[i];
  }
}

/** Backward of swigluF: dg = dAct·u·σ(g)(1 + g(1 − σ(g))), du = dAct·silu(g) (written). */
export function swigluB(g: Float32Array, u: Float32Array, dAct: Float32Array, dg: Float32Array, du: Float32Array): void {
  for (let i = 0; i < g.length; i++) {
    const z = g[i], s = sigmoid(z);
    du[i] = dAct[i] * z * s;
    dg[i] = dAct[i] * u[i] * s * (1 + z * (1 - s));
  }
}

export interface HeadStats {
  /** log p(target) at τ (NaN where the target is −1). */
  logp: Float64Array;
  /** Entropy of softmax(logits/τ). */
  entropy: Float64Array;
  /** log Σ_v exp(logit_v/τ). */
  lse: Float64Array;
}

/**
 * Log-prob of each target and entropy at temperature τ from hidden [T, d] and head [V, d], the vocabulary
 * `chunk` rows at a time with an online log-sum-exp (only a [chunk] block of logits per position exists).
 */
export function headStatsF(hidden: Float32Array, T: number, d: number, head: Float32Array, V: number, targets: ArrayLike<number>, tau: number, chunk: number): HeadStats {
  const logp = new Float64Array(T).fill(NaN), entropy = new Float64Array(T), lse = new Float64Array(T);
  const block = new Float64Array(Math.min(chunk, V));
  for (let t = 0; t < T; t++) {
    const ho = t * d, tg = targets[t];
    let mx = -Infinity, sum = 0, sumZ = 0, zt = NaN;
    for (let c0 = 0; c0 < V; c0 += chunk) {
      const n = Math.min(chunk, V - c0);
      let cm = -Infinity;
      for (let r = 0; r < n; r++) {
        const z = dot(hidden, ho, head, (c0 + r) * d, d) / tau;
        block[r] = z;
        if (z > cm) cm = z;
      }
      if (tg >= c0 && tg < c0 + n) zt = block[tg - c0];
      const m = Math.max(mx, cm);
      const rescale = mx === -Infinity ? 0 : Math.exp(mx - m);
      sum *= rescale;
      sumZ *= rescale;
      for (let r = 0; r < n; r++) {
        const e = Math.exp(block[r] - m);
        sum += e;
        sumZ += e * block[r];
      }
      mx = m;
    }
    const l = mx + Math.log(sum);
    lse[t] = l;
    entropy[t] = l - sumZ / sum;
    if (tg >= 0) logp[t] = zt - l;
  }
  return { logp, entropy, lse };
}

/**
 * Backward of headStatsF for L = Σ_t dlogp[t]·logp[t] + dent[t]·H[t]: ∂L/∂z_v = dlogp(1[v = target] − p_v)
 * − dent·p_v(log p_v + H), ∂logit = ∂z/τ. Each chunk's logits are recomputed, never stored. Adds into
 * dHidden [T, d] and dHead [V, d] (null: a frozen head).
 */
export function headStatsB(hidden: Float32Array, T: number, d: number, head: Float32Array, V: number, targets: ArrayLike<number>, tau: number, chunk: number, stats: HeadStats, dlogp: ArrayLike<number>, dent: ArrayLike<number>, dHidden: Float32Array, dHead: Float32Array | null): void {
  const acc = new Float64Array(d);
  for (let t = 0; t < T; t++) {
    const a = dlogp[t], e = dent[t];
    if (a === 0 && e === 0) continue;
    const ho = t * d, tg = targets[t], H = stats.entropy[t], l = stats.lse[t];
    acc.fill(0);
    for (let c0 = 0; c0 < V; c0 += chunk) {
      const n = Math.min(chunk, V - c0);
      for (let r = 0; r < n; r++) {
        const v = c0 + r, wo = v * d;
        const lp = dot(hidden, ho, head, wo, d) / tau - l, p = Math.exp(lp);
        const dz = a * ((v === tg ? 1 : 0) - p) - e * p * (lp + H);
        const dl = dz / tau;
        if (dl === 0) continue;
        for (let i = 0; i < d; i++) acc[i] += dl * head[wo + i];
        if (dHead) for (let i = 0; i < d; i++) dHead[wo + i] += dl * hidden[ho + i];
      }
    }
    for (let i = 0; i < d; i++) dHidden[ho + i] += acc[i];
  }
}
