/**
 * Float64 twin of grouped-query causal attention (shaders/gqa.wgsl), the attention of Llama and Qwen2.
 *
 * q is [B·T, H, hd], k and v are [B·T, H_kv, hd] (a token's heads side by side, as the q/k/v projections
 * write them); query head h reads kv head ⌊h / (H / H_kv)⌋. att[b,h,t,s] = softmax_s(q_t·k_s / √hd) for
 * s ≤ t, 0 for s > t; out [B·T, H, hd] = Σ_s att·v_s. H_kv = H is ordinary multi-head attention.
 */

export interface GqaShape {
  B: number;
  T: number;
  H: number;
  Hkv: number;
  hd: number;
}

export function gqaForward(q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>, s: GqaShape): { out: Float64Array; att: Float64Array } {
  const { B, T, H, Hkv, hd } = s;
  const group = H / Hkv, scale = 1 / Math.sqrt(hd);
  const out = new Float64Array(B * T * H * hd);
  const att = new Float64Array(B * H * T * T);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / group);
      for (let t = 0; t < T; t++) {
        const qo = ((b * T + t) * H + h) * hd, ao = ((b * H + h) * T + t) * T;
        let mx = -Infinity;
        for (let u = 0; u <= t; u++) {
          const ko = ((b * T + u) * Hkv + g) * hd;
          let dot = 0;
          for (let i = 0; i < hd; i++) dot += q[qo + i] * k[ko + i];
          att[ao + u] = dot * scale;
          mx = Math.max(mx, att[ao + u]);
        }
        let z = 0;
        for (let u = 0; u <= t; u++) z += att[ao + u] = Math.exp(att[ao + u] - mx);
        for (let u = 0; u <= t; u++) {
          att[ao + u] /= z;
          const vo = ((b * T + u) * Hkv + g) * hd;
          for (let i = 0; i < hd; i++) out[qo + i] += att[ao + u] * v[vo + i];
        }
      }
    }
  return { out, att };
}

/**
 * From dout [B·T, H, hd] and the saved att: dpre[t,s] = att[t,s]·(dout_t·v_s − Σ_u att[t,u]·dout_t·v_u)/√hd,
 * dq_t = Σ_s dpre[t,s]·k_s, and for each kv head the sums over the query heads of its group:
 * dk_s = Σ_h Σ_t dpre[t,s]·q_t, dv_s = Σ_h Σ_t att[t,s]·dout_t.
 */
export function gqaBackward(
  dout: ArrayLike<number>,
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  att: ArrayLike<number>,
  s: GqaShape,
): { dq: Float64Array; dk: Float64Array; dv: Float64Array } {
  const { B, T, H, Hkv, hd } = s;
  const group = H / Hkv, scale = 1 / Math.sqrt(hd);
  const dq = new Float64Array(B * T * H * hd);
  const dk = new Float64Array(B * T * Hkv * hd), dv = new Float64Array(B * T * Hkv * hd);
  const datt = new Float64Array(T);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / group);
      for (let t = 0; t < T; t++) {
        const qo = ((b * T + t) * H + h) * hd, ao = ((b * H + h) * T + t) * T;
        let weighted = 0;
        for (let u = 0; u <= t; u++) {
          const vo = ((b * T + u) * Hkv + g) * hd;
          let dot = 0;
          for (let i = 0; i < hd; i++) {
            dot += dout[qo + i] * v[vo + i];
            dv[vo + i] += att[ao + u] * dout[qo + i];
          }
          datt[u] = dot;
          weighted += att[ao + u] * dot;
        }
        for (let u = 0; u <= t; u++) {
          const dpre = att[ao + u] * (datt[u] - weighted) * scale;
          const ko = ((b * T + u) * Hkv + g) * hd;
          for (let i = 0; i < hd; i++) {
            dq[qo + i] += dpre * k[ko + i];
            dk[ko + i] += dpre * q[qo + i];
          }
        }
      }
    }
  return { dq, dk, dv };
}

/**
 * One decoding step: q [B, H, hd] of the token at position pos against caches [B, Tmax, Hkv, hd] holding
 * positions 0 … pos (the token's own k and v included); out [B, H, hd]. Equals gqaForward's row pos.
 */
export function gqaDecodeStep(q: ArrayLike<number>, kcache: ArrayLike<number>, vcache: ArrayLike<number>, pos: number, s: { B: number; Tmax: number; H: number; Hkv: number; hd: number }): Float64Array {
  const { B, Tmax, H, Hkv, hd } = s;
  const group = H / Hkv, scale = 1 / Math.sqrt(hd);
  const out = new Float64Array(B * H * hd);
  const p = new Float64Array(pos + 1);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / group), qo = (b * H + h) * hd;
      let mx = -Infinity;
      for (let u = 0; u <= pos; u++) {
        const ko = ((b * Tmax + u) * Hkv + g) * hd;
        let dot = 0;
        for (let i = 0; i < hd; i++) dot += q[qo + i] * kcache[ko + i];
        p[u] = dot * scale;
        mx = Math.max(mx, p[u]);
      }
      let z = 0;
      for (let u = 0; u <= pos; u++) z += p[u] = Math.exp(p[u] - mx);
      for (let u = 0; u <= pos; u++) {
        const vo = ((b * Tmax + u) * Hkv + g) * hd;
        for (let i = 0; i < hd; i++) out[qo + i] += (p[u] / z) * vcache[vo + i];
      }
    }
  return out;
}
