/** Float64 twin of RMSNorm and LayerNorm (shaders/norm.wgsl, src/cpu/assembly/norm.ts). */

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
