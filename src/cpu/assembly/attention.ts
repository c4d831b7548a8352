// Causal multi-head self-attention: training forward/backward and single-position decode against
// a KV cache (twins: attentionForward / attentionBackward in src/model/reference/ops.ts).
//
// qkv rows are [q(C) | k(C) | v(C)]; head h uses channels h·hs..(h+1)·hs of each part.
// A softmax row is computed the same way everywhere, so decode step `pos` reproduces training row
// `pos` bit for bit: score_s = (Σ_i q_i·k_s,i in channel order)·scale, m = max, e_s = exp(score − m),
// Σe in s order, p = e·(1/Σe), out_i = Σ_s p_s·v_s,i in s order.
// Work unit: one (b, h) pair (training) or one sequence b (decode); per-thread scratch holds a
// transposed key (or value) block [hs × T] and, for the backward, the dpre block [T × T].
import { at, exp1, exp4 } from './common';

/** dst[i·T + s] = qkv[(b·T + s)·3C + off + i] for s < n: one head's keys (or values) as [hs × T]. */
@inline function gatherT(qkv: usize, dst: usize, rowBase: i32, C3: i32, off: i32, hs: i32, T: i32, n: i32): void {
  for (let s = 0; s < n; s++) {
    const src = at(qkv, (rowBase + s) * C3 + off);
    for (let i = 0; i < hs; i++) store<f32>(at(dst, i * T + s), load<f32>(at(src, i)));
  }
}

/**
 * scores[s] = (Σ_i q[i]·kt[i·T + s])·scale for s ≤ t (4 keys per vector, each lane a sequential
 * sum over i; lanes past t are computed and ignored). Returns the max over s ≤ t.
 */
@inline function scoreRow(q: usize, kt: usize, scores: usize, t: i32, hs: i32, T: i32, scale: f32): f32 {
  const n = t + 1;
  let s = 0;
  // 16 keys at a time: four independent accumulation chains instead of one latency-bound chain.
  for (; s + 16 <= n; s += 16) {
    let a0 = f32x4.splat(0);
    let a1 = f32x4.splat(0);
    let a2 = f32x4.splat(0);
    let a3 = f32x4.splat(0);
    let pk = at(kt, s);
    for (let i = 0; i < hs; i++) {
      const x = v128.load32_splat(at(q, i));
      a0 = f32x4.add(a0, f32x4.mul(x, v128.load(pk)));
      a1 = f32x4.add(a1, f32x4.mul(x, v128.load(pk, 16)));
      a2 = f32x4.add(a2, f32x4.mul(x, v128.load(pk, 32)));
      a3 = f32x4.add(a3, f32x4.mul(x, v128.load(pk, 48)));
      pk += <usize>T << 2;
    }
    const sc = f32x4.splat(scale);
    v128.store(at(scores, s), f32x4.mul(a0, sc));
    v128.store(at(scores, s + 4), f32x4.mul(a1, sc));
    v128.store(at(scores, s + 8), f32x4.mul(a2, sc));
    v128.store(at(scores, s + 12), f32x4.mul(a3, sc));
  }
  for (; s + 4 <= n; s += 4) {
    let acc = f32x4.splat(0);
    for (let i = 0; i < hs; i++) acc = f32x4.add(acc, f32x4.mul(v128.load32_splat(at(q, i)), v128.load(at(kt, i * T + s))));
    v128.store(at(scores, s), f32x4.mul(acc, f32x4.splat(scale)));
  }
  for (; s < n; s++) {
    let acc: f32 = 0;
    for (let i = 0; i < hs; i++) acc += load<f32>(at(q, i)) * load<f32>(at(kt, i * T + s));
    store<f32>(at(scores, s), acc * scale);
  }
  return rowMax(scores, n);
}

/** Max of row[0..n) (n ≥ 1; exact, so the reduction order does not matter). */
@inline function rowMax(row: usize, n: i32): f32 {
  let mx = load<f32>(row);
  let s = 0;
  if (n >= 4) {
    let v = v128.load(row);
    for (s = 4; s + 4 <= n; s += 4) v = f32x4.pmax(v, v128.load(at(row, s)));
    mx = max(max(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), max(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
  }
  for (; s < n; s++) mx = max(mx, load<f32>(at(row, s)));
  return mx;
}

/** In place: row[s] = exp(row[s] − mx)/Σ for s < n (Σ: 4 lane partials, lanes combined, then the tail). */
@inline function softmaxRow(row: usize, n: i32, mx: f32): void {
  const mv = f32x4.splat(mx);
  let acc = f32x4.splat(0);
  let s = 0;
  for (; s + 4 <= n; s += 4) {
    const e = exp4(f32x4.sub(v128.load(at(row, s)), mv));
    v128.store(at(row, s), e);
    acc = f32x4.add(acc, e);
  }
  let sum: f32 = (f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1)) + (f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3));
  for (; s < n; s++) {
    const e = exp1(load<f32>(at(row, s)) - mx);
    store<f32>(at(row, s), e);
    sum += e;
  }
  const inv: f32 = 1.0 / sum;
  const iv = f32x4.splat(inv);
  s = 0;
  for (; s + 4 <= n; s += 4) v128.store(at(row, s), f32x4.mul(v128.load(at(row, s)), iv));
  for (; s < n; s++) store<f32>(at(row, s), load<f32>(at(row, s)) * inv);
}

/** out[i] = Σ_{s<n} p[s]·v[s·stride + i] (s order; 16, then 4, then 1 channel at a time). */
@inline function weightedSum(p: usize, v: usize, stride: i32, out: usize, n: i32, hs: i32): void {
  let i = 0;
  for (; i + 16 <= hs; i += 16) {
    let a0 = f32x4.splat(0);
    let a1 = f32x4.splat(0);
    let a2 = f32x4.splat(0);
    let a3 = f32x4.splat(0);
    let pv = at(v, i);
    for (let s = 0; s < n; s++) {
      const w = v128.load32_splat(at(p, s));
      a0 = f32x4.add(a0, f32x4.mul(w, v128.load(pv)));
      a1 = f32x4.add(a1, f32x4.mul(w, v128.load(pv, 16)));
      a2 = f32x4.add(a2, f32x4.mul(w, v128.load(pv, 32)));
      a3 = f32x4.add(a3, f32x4.mul(w, v128.load(pv, 48)));
      pv += <usize>stride << 2;
    }
    v128.store(at(out, i), a0);
    v128.store(at(out, i + 4), a1);
    v128.store(at(out, i + 8), a2);
    v128.store(at(out, i + 12), a3);
  }
  for (; i + 4 <= hs; i += 4) {
    let acc = f32x4.splat(0);
    for (let s = 0; s < n; s++) acc = f32x4.add(acc, f32x4.mul(v128.load32_splat(at(p, s)), v128.load(at(v, s * stride + i))));
    v128.store(at(out, i), acc);
  }
  for (; i < hs; i++) {
    let acc: f32 = 0;
    for (let s = 0; s < n; s++) acc += load<f32>(at(p, s)) * load<f32>(at(v, s * stride + i));
    store<f32>(at(out, i), acc);
  }
}

/**
 * Training forward for (b, h) pairs [u0, u1), u = b·H + h: att[b,h,t,:] = causal softmax row
 * (zeros above the diagonal), out[b,t,h·hs..] = att·v. scratch: hs·T floats.
 */
export function attentionForward(qkv: usize, out: usize, att: usize, scratch: usize, T: i32, C: i32, H: i32, u0: i32, u1: i32): void {
  const hs = C / H;
  const C3 = 3 * C;
  const scale: f32 = 1.0 / Mathf.sqrt(<f32>hs);
  for (let u = u0; u < u1; u++) {
    const b = u / H;
    const h = u % H;
    gatherT(qkv, scratch, b * T, C3, C + h * hs, hs, T, T);
    for (let t = 0; t < T; t++) {
      const row = at(att, (u * T + t) * T);
      const mx = scoreRow(at(qkv, (b * T + t) * C3 + h * hs), scratch, row, t, hs, T, scale);
      softmaxRow(row, t + 1, mx);
      if (t + 1 < T) memory.fill(at(row, t + 1), 0, <usize>(T - t - 1) << 2);
      weightedSum(row, at(qkv, b * T * C3 + 2 * C + h * hs), C3, at(out, (b * T + t) * C + h * hs), t + 1, hs);
    }
  }
}

/**
 * Training backward for (b, h) pairs [u0, u1): writes (not accumulates) dq, dk, dv of the pair's
 * channels in dqkv. datt_s = dout_t·v_s; dpre_s = att_s·(datt_s − Σ_u att_u·datt_u)·scale;
 * dq_t = Σ_s dpre[t,s]·k_s; dk_s = Σ_t dpre[t,s]·q_t; dv_s = Σ_t att[t,s]·dout_t (t order).
 * scratch: hs·T + T·T floats.
 */
export function attentionBackward(dout: usize, qkv: usize, att: usize, dqkv: usize, scratch: usize, T: i32, C: i32, H: i32, u0: i32, u1: i32): void {
  const hs = C / H;
  const C3 = 3 * C;
  const scale: f32 = 1.0 / Mathf.sqrt(<f32>hs);
  const vt = scratch;
  const dpre = at(scratch, hs * T);
  for (let u = u0; u < u1; u++) {
    const b = u / H;
    const h = u % H;
    const seq = b * T;
    gatherT(qkv, vt, seq, C3, 2 * C + h * hs, hs, T, T);
    // dpre rows.
    for (let t = 0; t < T; t++) {
      const drow = at(dpre, t * T);
      const arow = at(att, (u * T + t) * T);
      const n = t + 1;
      // datt (scoreRow's dot with scale 1).
      scoreRow(at(dout, (seq + t) * C + h * hs), vt, drow, t, hs, T, 1.0);
      let weighted: f32 = 0;
      for (let s = 0; s < n; s++) weighted += load<f32>(at(arow, s)) * load<f32>(at(drow, s));
      const wv = f32x4.splat(weighted);
      const sc = f32x4.splat(scale);
      let s = 0;
      for (; s + 4 <= n; s += 4) {
        v128.store(at(drow, s), f32x4.mul(f32x4.mul(v128.load(at(arow, s)), f32x4.sub(v128.load(at(drow, s)), wv)), sc));
      }
      for (; s < n; s++) store<f32>(at(drow, s), load<f32>(at(arow, s)) * (load<f32>(at(drow, s)) - weighted) * scale);
    }
    // dq_t = Σ_{s≤t} dpre[t,s]·k_s.
    const kBase = at(qkv, seq * C3 + C + h * hs);
    const qBase = at(qkv, seq * C3 + h * hs);
    for (let t = 0; t < T; t++) weightedSum(at(dpre, t * T), kBase, C3, at(dqkv, (seq + t) * C3 + h * hs), t + 1, hs);
    // dk_s = Σ_{t≥s} dpre[t,s]·q_t and dv_s = Σ_{t≥s} att[t,s]·dout_t (t order).
    const dBase = at(dout, seq * C + h * hs);
    const aBase = at(att, u * T * T);
    for (let s = 0; s < T; s++) {
      const dk = at(dqkv, (seq + s) * C3 + C + h * hs);
      const dv = at(dqkv, (seq + s) * C3 + 2 * C + h * hs);
      let i = 0;
      for (; i + 8 <= hs; i += 8) {
        let k0 = f32x4.splat(0);
        let k1 = f32x4.splat(0);
        let v0 = f32x4.splat(0);
        let v1 = f32x4.splat(0);
        let pq = at(qBase, s * C3 + i);
        let pd = at(dBase, s * C + i);
        let pp = at(dpre, s * T + s);
        let pa = at(aBase, s * T + s);
        for (let t = s; t < T; t++) {
          const g = v128.load32_splat(pp);
          const a = v128.load32_splat(pa);
          k0 = f32x4.add(k0, f32x4.mul(g, v128.load(pq)));
          k1 = f32x4.add(k1, f32x4.mul(g, v128.load(pq, 16)));
          v0 = f32x4.add(v0, f32x4.mul(a, v128.load(pd)));
          v1 = f32x4.add(v1, f32x4.mul(a, v128.load(pd, 16)));
          pq += <usize>C3 << 2;
          pd += <usize>C << 2;
          pp += <usize>T << 2;
          pa += <usize>T << 2;
        }
        v128.store(at(dk, i), k0);
        v128.store(at(dk, i + 4), k1);
        v128.store(at(dv, i), v0);
        v128.store(at(dv, i + 4), v1);
      }
      for (; i + 4 <= hs; i += 4) {
        let ak = f32x4.splat(0);
        let av = f32x4.splat(0);
        for (let t = s; t < T; t++) {
          ak = f32x4.add(ak, f32x4.mul(v128.load32_splat(at(dpre, t * T + s)), v128.load(at(qBase, t * C3 + i))));
          av = f32x4.add(av, f32x4.mul(v128.load32_splat(at(aBase, t * T + s)), v128.load(at(dBase, t * C + i))));
        }
        v128.store(at(dk, i), ak);
        v128.store(at(dv, i), av);
      }
      for (; i < hs; i++) {
        let ak: f32 = 0;
        let av: f32 = 0;
        for (let t = s; t < T; t++) {
          ak += load<f32>(at(dpre, t * T + s)) * load<f32>(at(qBase, t * C3 + i));
          av += load<f32>(at(aBase, t * T + s)) * load<f32>(at(dBase, t * C + i));
        }
        store<f32>(at(dk, i), ak);
        store<f32>(at(dv, i), av);
      }
    }
  }
}

/** Packed rows' table: per row, i32 [first token, tokens, first float of its attention matrices]. */
const ROW_ENTRY: usize = 12;

/**
 * Training forward over packed rows (rows of their own lengths, back to back; `table` as ROW_ENTRY):
 * units [u0, u1) of rows·H, u = row·H + h, each attentionForward's (b, h) pair over its row alone,
 * so every row and head of a batch is one work unit however many threads split them.
 */
export function attentionForwardRows(qkv: usize, out: usize, att: usize, scratch: usize, table: usize, C: i32, H: i32, u0: i32, u1: i32): void {
  for (let u = u0; u < u1; u++) {
    const e = table + <usize>(u / H) * ROW_ENTRY;
    const first = <usize>load<i32>(e);
    const h = u % H;
    attentionForward(qkv + ((first * <usize>(3 * C)) << 2), out + ((first * <usize>C) << 2), att + (<usize>load<i32>(e, 8) << 2), scratch, load<i32>(e, 4), C, H, h, h + 1);
  }
}

/** Training backward over packed rows: attentionBackward's (b, h) pairs as attentionForwardRows splits them. */
export function attentionBackwardRows(dout: usize, qkv: usize, att: usize, dqkv: usize, scratch: usize, table: usize, C: i32, H: i32, u0: i32, u1: i32): void {
  for (let u = u0; u < u1; u++) {
    const e = table + <usize>(u / H) * ROW_ENTRY;
    const first = <usize>load<i32>(e);
    const h = u % H;
    const rowQkv = (first * <usize>(3 * C)) << 2;
    attentionBackward(dout + ((first * <usize>C) << 2), qkv + rowQkv, att + (<usize>load<i32>(e, 8) << 2), dqkv + rowQkv, scratch, load<i32>(e, 4), C, H, h, h + 1);
  }
}

/**
 * Decode for sequences [b0, b1) at position pos: appends k, v of qkv row b to the caches at pos,
 * then out[b] = causal attention of q over positions 0..pos, all heads. The V cache is
 * [B × Tmax × C]; the K cache is transposed per sequence, [B × C × Tmax], so a head's scores run
 * through scoreRow, 16 keys per step as in training, instead of one latency-bound sum per key
 * (each key's sum is the same sequential sum over i either way: the same bits as training).
 * scratch: Tmax floats (scores).
 */
export function attentionDecode(qkv: usize, kcache: usize, vcache: usize, out: usize, scratch: usize, Tmax: i32, C: i32, H: i32, pos: i32, b0: i32, b1: i32): void {
  const hs = C / H;
  const C3 = 3 * C;
  const scale: f32 = 1.0 / Mathf.sqrt(<f32>hs);
  for (let b = b0; b < b1; b++) {
    const q = at(qkv, b * C3);
    const kt = at(kcache, b * C * Tmax);
    const k = at(q, C);
    for (let c = 0; c < C; c++) store<f32>(at(kt, c * Tmax + pos), load<f32>(at(k, c)));
    memory.copy(at(vcache, (b * Tmax + pos) * C), at(q, 2 * C), <usize>C << 2);
    const vb = at(vcache, b * Tmax * C);
    const n = pos + 1;
    for (let h = 0; h < H; h++) {
      const mx = scoreRow(at(q, h * hs), at(kt, h * hs * Tmax), scratch, pos, hs, Tmax, scale);
      softmaxRow(scratch, n, mx);
      weightedSum(scratch, at(vb, h * hs), C, at(out, b * C + h * hs), n, hs);
    }
  }
}
