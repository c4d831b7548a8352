// RMSNorm and LayerNorm (biased variance), forward and backward (twins: rmsnorm* / layernorm* in
// src/model/reference/ops.ts). Row passes split rows; the weight/bias gradients are column sums,
// split by columns, each column summed over rows in order.
import { at, hsum4 } from './common';

const EPS: f32 = 1e-5;
export const RMSNORM: i32 = 0;
export const LAYERNORM: i32 = 1;

/** Σ_c x[c] with 4 lane partials, then the tail (fixed order). */
@inline function rowSum(x: usize, C: i32): f32 {
  let acc = f32x4.splat(0);
  let c = 0;
  for (; c + 4 <= C; c += 4) acc = f32x4.add(acc, v128.load(at(x, c)));
  let s = hsum4(acc);
  for (; c < C; c++) s += load<f32>(at(x, c));
  return s;
}

/** Σ_c (x[c] − m)². */
@inline function rowSumSq(x: usize, m: f32, C: i32): f32 {
  const mv = f32x4.splat(m);
  let acc = f32x4.splat(0);
  let c = 0;
  for (; c + 4 <= C; c += 4) {
    const d = f32x4.sub(v128.load(at(x, c)), mv);
    acc = f32x4.add(acc, f32x4.mul(d, d));
  }
  let s = hsum4(acc);
  for (; c < C; c++) {
    const d = load<f32>(at(x, c)) - m;
    s += d * d;
  }
  return s;
}

/**
 * Rows [r0, r1): rmsnorm out = x·rstd·w; layernorm out = (x − mean)·rstd·w + b. mean (layernorm
 * only) and rstd are saved per row for the backward.
 */
export function normForward(kind: i32, inp: usize, w: usize, b: usize, out: usize, mean: usize, rstd: usize, C: i32, r0: i32, r1: i32): void {
  const row = <usize>C << 2;
  for (let r = r0; r < r1; r++) {
    const x = inp + <usize>r * row;
    const o = out + <usize>r * row;
    let m: f32 = 0;
    if (kind == LAYERNORM) {
      m = rowSum(x, C) / <f32>C;
      store<f32>(at(mean, r), m);
    }
    const s: f32 = 1.0 / Mathf.sqrt(rowSumSq(x, m, C) / <f32>C + EPS);
    store<f32>(at(rstd, r), s);
    const mv = f32x4.splat(m);
    const sv = f32x4.splat(s);
    let c = 0;
    if (kind == LAYERNORM) {
      for (; c + 4 <= C; c += 4) {
        const n = f32x4.mul(f32x4.sub(v128.load(at(x, c)), mv), sv);
        v128.store(at(o, c), f32x4.add(f32x4.mul(n, v128.load(at(w, c))), v128.load(at(b, c))));
      }
      for (; c < C; c++) store<f32>(at(o, c), (load<f32>(at(x, c)) - m) * s * load<f32>(at(w, c)) + load<f32>(at(b, c)));
    } else {
      for (; c + 4 <= C; c += 4) v128.store(at(o, c), f32x4.mul(f32x4.mul(v128.load(at(x, c)), sv), v128.load(at(w, c))));
      for (; c < C; c++) store<f32>(at(o, c), load<f32>(at(x, c)) * s * load<f32>(at(w, c)));
    }
  }
}

/**
 * Rows [r0, r1) of the input gradient. n = (x − mean)·rstd (rmsnorm: x·rstd), dn = dout·w:
 * layernorm dx = rstd·(dn − mean(dn) − n·mean(dn·n)); rmsnorm dx = rstd·(dn − n·mean(dn·n)).
 * accumulate: dinp += dx (the residual stream's gradient), else dinp = dx.
 */
export function normBackwardDx(kind: i32, dout: usize, inp: usize, w: usize, mean: usize, rstd: usize, dinp: usize, C: i32, accumulate: i32, r0: i32, r1: i32): void {
  const row = <usize>C << 2;
  const ln = kind == LAYERNORM;
  for (let r = r0; r < r1; r++) {
    const x = inp + <usize>r * row;
    const d = dout + <usize>r * row;
    const o = dinp + <usize>r * row;
    const m: f32 = ln ? load<f32>(at(mean, r)) : 0;
    const s = load<f32>(at(rstd, r));
    const mv = f32x4.splat(m);
    const sv = f32x4.splat(s);
    let dnAcc = f32x4.splat(0);
    let dnnAcc = f32x4.splat(0);
    let c = 0;
    for (; c + 4 <= C; c += 4) {
      const n = f32x4.mul(f32x4.sub(v128.load(at(x, c)), mv), sv);
      const dn = f32x4.mul(v128.load(at(d, c)), v128.load(at(w, c)));
      dnAcc = f32x4.add(dnAcc, dn);
      dnnAcc = f32x4.add(dnnAcc, f32x4.mul(dn, n));
    }
    let dnSum = hsum4(dnAcc);
    let dnnSum = hsum4(dnnAcc);
    for (; c < C; c++) {
      const n = (load<f32>(at(x, c)) - m) * s;
      const dn = load<f32>(at(d, c)) * load<f32>(at(w, c));
      dnSum += dn;
      dnnSum += dn * n;
    }
    const dnMean: f32 = ln ? dnSum / <f32>C : 0;
    const dnnMean: f32 = dnnSum / <f32>C;
    const dmv = f32x4.splat(dnMean);
    const dnnv = f32x4.splat(dnnMean);
    c = 0;
    for (; c + 4 <= C; c += 4) {
      const n = f32x4.mul(f32x4.sub(v128.load(at(x, c)), mv), sv);
      const dn = f32x4.mul(v128.load(at(d, c)), v128.load(at(w, c)));
      let g = f32x4.mul(sv, f32x4.sub(f32x4.sub(dn, dmv), f32x4.mul(n, dnnv)));
      if (accumulate) g = f32x4.add(v128.load(at(o, c)), g);
      v128.store(at(o, c), g);
    }
    for (; c < C; c++) {
      const n = (load<f32>(at(x, c)) - m) * s;
      const dn = load<f32>(at(d, c)) * load<f32>(at(w, c));
      let g = s * ((dn - dnMean) - n * dnnMean);
      if (accumulate) g = load<f32>(at(o, c)) + g;
      store<f32>(at(o, c), g);
    }
  }
}

/** Columns [c0, c1) of dw[c] += Σ_r dout·n and (layernorm, db ≠ 0) db[c] += Σ_r dout, rows in order. */
export function normBackwardDw(kind: i32, dout: usize, inp: usize, mean: usize, rstd: usize, dw: usize, db: usize, rows: i32, C: i32, c0: i32, c1: i32): void {
  const row = <usize>C << 2;
  const ln = kind == LAYERNORM;
  let c = c0;
  for (; c + 4 <= c1; c += 4) {
    let gw = v128.load(at(dw, c));
    let gb = ln ? v128.load(at(db, c)) : f32x4.splat(0);
    for (let r = 0; r < rows; r++) {
      const m: f32 = ln ? load<f32>(at(mean, r)) : 0;
      const n = f32x4.mul(f32x4.sub(v128.load(at(inp + <usize>r * row, c)), f32x4.splat(m)), f32x4.splat(load<f32>(at(rstd, r))));
      const g = v128.load(at(dout + <usize>r * row, c));
      gw = f32x4.add(gw, f32x4.mul(g, n));
      if (ln) gb = f32x4.add(gb, g);
    }
    v128.store(at(dw, c), gw);
    if (ln) v128.store(at(db, c), gb);
  }
  for (; c < c1; c++) {
    let gw = load<f32>(at(dw, c));
    let gb: f32 = ln ? load<f32>(at(db, c)) : 0;
    for (let r = 0; r < rows; r++) {
      const m: f32 = ln ? load<f32>(at(mean, r)) : 0;
      const n = (load<f32>(at(inp + <usize>r * row, c)) - m) * load<f32>(at(rstd, r));
      const g = load<f32>(at(dout + <usize>r * row, c));
      gw += g * n;
      if (ln) gb += g;
    }
    store<f32>(at(dw, c), gw);
    if (ln) store<f32>(at(db, c), gb);
  }
}
