/**
 * Debiased exponential moving average (as TensorBoard's smoothing slider): weight w in [0, 1),
 * s_t = w·s_{t−1} + (1−w)·x_t, divided by (1 − w^n) so the first points are not pulled to 0.
 * Missing values (NaN, null, ±Infinity) stay missing and do not update the average.
 */
export function emaSmooth(values: readonly (number | null | undefined)[], weight: number): (number | null)[] {
  if (!(weight >= 0 && weight < 1)) throw new RangeError(`smoothing weight must be in [0, 1), got ${weight}`);
  const out: (number | null)[] = new Array(values.length);
  let acc = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x === null || x === undefined || !Number.isFinite(x)) {
      out[i] = null;
      continue;
    }
    if (weight === 0) {
      out[i] = x;
      continue;
    }
    acc = weight * acc + (1 - weight) * x;
    n++;
    out[i] = acc / (1 - Math.pow(weight, n));
  }
  return out;
}

/** Keeps at most `max` evenly spaced items (always the first and the last). */
export function downsample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max || max < 2) return items.slice();
  const out: T[] = [];
  const stride = (items.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(items[Math.round(i * stride)]);
  return out;
}
