/**
 * Min/max downsampling of chart rows to about one point per horizontal pixel: the rows are cut into
 * consecutive buckets, and each bucket keeps, for every series (column), the row holding its
 * smallest and the row holding its largest value, so a one-step spike (α switching on, a grad-norm
 * blow-up) stays on the line however long the run. The first and the last row are always kept. A
 * sparse series (held-out accuracy, one value per evaluation) keeps every value it has in a bucket's
 * min or max, so its dots survive. The sentence under a chart reads the run itself, never these rows.
 */

/** Rows with at most `maxPoints` entries are returned as they are (the same array). */
export function downsampleMinMax<T extends { step: number }>(rows: readonly T[], maxPoints: number): readonly T[] {
  if (!(maxPoints >= 2)) throw new RangeError(`maxPoints must be at least 2, got ${maxPoints}`);
  if (rows.length <= maxPoints) return rows;
  // Two points (min, max) per bucket: ~maxPoints per series.
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const size = rows.length / buckets;
  const keep = new Uint8Array(rows.length);
  keep[0] = 1;
  keep[rows.length - 1] = 1;
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor(b * size);
    const hi = Math.min(rows.length, Math.floor((b + 1) * size));
    const min = new Map<string, [number, number]>();
    const max = new Map<string, [number, number]>();
    for (let i = lo; i < hi; i++) {
      const r = rows[i] as Record<string, unknown>;
      for (const k in r) {
        if (k === 'step') continue;
        const v = r[k];
        if (typeof v !== 'number' || !Number.isFinite(v)) continue;
        const m = min.get(k);
        if (!m || v < m[0]) min.set(k, [v, i]);
        const M = max.get(k);
        if (!M || v > M[0]) max.set(k, [v, i]);
      }
    }
    for (const [, i] of min.values()) keep[i] = 1;
    for (const [, i] of max.values()) keep[i] = 1;
  }
  const out: T[] = [];
  for (let i = 0; i < rows.length; i++) if (keep[i]) out.push(rows[i]);
  return out;
}
