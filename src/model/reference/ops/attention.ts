/** Float64 twin of causal multi-head attention (shaders/attention.wgsl, src/cpu/assembly/attention.ts). */

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
