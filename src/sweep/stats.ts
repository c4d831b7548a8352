/**
 * Pure statistics for sweeps: means, Student-t intervals over seeds, paired differences, a
 * seeded percentile bootstrap, Pearson correlation with a Fisher-z interval, the standard error
 * of one run's avg@k, and the verdict rules the findings use. No I/O, no Math.random.
 *
 * Conventions: NaN stands for "not defined" (e.g. an interval from one value); the JSON writers
 * turn it into null. Intervals are two-sided at `level` (default 0.95).
 */
import { Rng } from '../util/rng';
import { incompleteBeta, incompleteGamma, incompleteGammaP, logGamma } from './special-functions';

export { incompleteBeta, incompleteGammaP, logGamma };

// ---------------------------------------------------------------------------------------------
// Basic moments

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample variance with the n − 1 denominator (NaN for fewer than 2 values). */
export function variance(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) * (x - m);
  return s / (n - 1);
}

export function sd(xs: readonly number[]): number {
  return Math.sqrt(variance(xs));
}

/** Standard error of the mean, sd/√n. */
export function sem(xs: readonly number[]): number {
  return sd(xs) / Math.sqrt(xs.length);
}

/** Linear-interpolated quantile of sorted values (type 7, as R's default and numpy's). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

// ---------------------------------------------------------------------------------------------
// Normal and Student-t distributions

/** Standard normal CDF Φ(z) through the incomplete gamma of ½ (the lower tail to ~1e-15 relative). */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return NaN;
  if (z === Infinity) return 1;
  if (z === -Infinity) return 0;
  // Φ(z) = ½(1 + P(½, z²/2)) for z ≥ 0; the lower tail ½Q(½, z²/2) directly, without cancellation.
  const g = incompleteGamma(0.5, (z * z) / 2);
  return z >= 0 ? 0.5 + 0.5 * g.p : 0.5 * g.q;
}

/** Standard normal quantile Φ⁻¹(p): Acklam's rational approximation, then two Newton steps on Φ. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const pl = 0.02425;
  let x: number;
  if (p < pl) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - pl) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  for (let i = 0; i < 2; i++) {
    const pdf = Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
    if (pdf === 0) break;
    x -= (normalCdf(x) - p) / pdf;
  }
  return x;
}

/** Student-t CDF with df > 0 degrees of freedom (df = Infinity: the normal). */
export function tCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (df === Infinity) return normalCdf(t);
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

function tPdf(t: number, df: number): number {
  return Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log(1 + (t * t) / df));
}

/**
 * Student-t quantile: the t with tCdf(t, df) = p. Brackets the root (the CDF is monotone),
 * bisects to a narrow interval, then polishes with Newton steps; agrees with the tables to
 * every printed digit (t_{0.975,4} = 2.776, t_{0.975,9} = 2.262, df → ∞ → 1.960).
 */
export function tQuantile(p: number, df: number): number {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return NaN;
  if (df === Infinity) return normalQuantile(p);
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  if (p === 1) return Infinity;
  let lo = 0;
  let hi = Math.max(1, normalQuantile(p));
  while (tCdf(hi, df) < p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) return Infinity;
  }
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = 0.5 * (lo + hi);
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  let x = 0.5 * (lo + hi);
  for (let i = 0; i < 3; i++) {
    const f = tPdf(x, df);
    if (!(f > 0)) break;
    const next = x - (tCdf(x, df) - p) / f;
    if (!(next > lo - 1e-9 && next < hi + 1e-9)) break;
    x = next;
  }
  return x;
}

// ---------------------------------------------------------------------------------------------
// Intervals

export interface Interval {
  n: number;
  mean: number;
  sd: number;
  /** sd/√n */
  se: number;
  lower: number;
  upper: number;
  level: number;
}

/**
 * Student-t confidence interval of the mean over n independent values (e.g. one per seed):
 * mean ± t_{(1+level)/2, n−1} · sd/√n. Bounds are NaN for n < 2.
 */
export function tInterval(xs: readonly number[], level = 0.95): Interval {
  const vals = xs.filter((x) => Number.isFinite(x));
  const n = vals.length;
  const m = mean(vals);
  const s = sd(vals);
  const se = s / Math.sqrt(n);
  if (n < 2) return { n, mean: m, sd: NaN, se: NaN, lower: NaN, upper: NaN, level };
  const t = tQuantile((1 + level) / 2, n - 1);
  return { n, mean: m, sd: s, se, lower: m - t * se, upper: m + t * se, level };
}

/** Seeded PRNG for the bootstrap (the lab's Mulberry32): the same seed gives the same interval. */
export function seededUniform(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

export interface BootstrapInterval {
  lower: number;
  upper: number;
  level: number;
  resamples: number;
  seed: number;
}

/**
 * Percentile bootstrap of the mean: `resamples` resamples with replacement (drawn with a
 * seeded generator), the (1−level)/2 and (1+level)/2 quantiles of their means. With 5 seeds
 * this is narrower than the t interval (it ignores that sd itself is estimated); it is shown
 * beside the t interval, never instead of it.
 */
export function bootstrapMeanInterval(xs: readonly number[], o: { level?: number; resamples?: number; seed?: number } = {}): BootstrapInterval {
  const level = o.level ?? 0.95;
  const resamples = o.resamples ?? 10000;
  const seed = o.seed ?? 12345;
  const vals = xs.filter((x) => Number.isFinite(x));
  const n = vals.length;
  if (n < 2) return { lower: NaN, upper: NaN, level, resamples, seed };
  const u = seededUniform(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += vals[Math.floor(u() * n)];
    means[r] = s / n;
  }
  means.sort();
  const sorted = Array.from(means);
  return { lower: quantileSorted(sorted, (1 - level) / 2), upper: quantileSorted(sorted, (1 + level) / 2), level, resamples, seed };
}

export interface PairedDifference extends Interval {
  /** Seeds present in both arms, ascending. */
  seeds: number[];
  /** a(seed) − b(seed), in the order of `seeds`. */
  diffs: number[];
}

/**
 * Paired difference a − b over the seeds both arms have (same seed → same data, test set and
 * evaluation seed, so the difference cancels what the arms share): the t interval of the
 * per-seed differences.
 */
export function pairedDifference(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>, level = 0.95): PairedDifference {
  const seeds = [...a.keys()].filter((s) => b.has(s) && Number.isFinite(a.get(s)!) && Number.isFinite(b.get(s)!)).sort((x, y) => x - y);
  const diffs = seeds.map((s) => a.get(s)! - b.get(s)!);
  return { ...tInterval(diffs, level), seeds, diffs };
}

// ---------------------------------------------------------------------------------------------
// Correlation

export function pearson(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length) throw new RangeError(`pearson: ${xs.length} x values but ${ys.length} y values`);
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
}

export interface CorrelationInterval {
  n: number;
  r: number;
  lower: number;
  upper: number;
  level: number;
}

/** Pearson r with the Fisher-z interval tanh(atanh r ± z_{(1+level)/2}/√(n−3)); bounds NaN for n ≤ 3. */
export function correlationInterval(xs: readonly number[], ys: readonly number[], level = 0.95): CorrelationInterval {
  const keep = xs.map((x, i) => Number.isFinite(x) && Number.isFinite(ys[i]));
  const x = xs.filter((_, i) => keep[i]);
  const y = ys.filter((_, i) => keep[i]);
  const n = x.length;
  const r = pearson(x, y);
  if (n <= 3 || !Number.isFinite(r)) return { n, r, lower: NaN, upper: NaN, level };
  const rc = Math.max(-1 + 1e-15, Math.min(1 - 1e-15, r));
  const z = Math.atanh(rc);
  const h = normalQuantile((1 + level) / 2) / Math.sqrt(n - 3);
  return { n, r, lower: Math.tanh(z - h), upper: Math.tanh(z + h), level };
}

export interface WithinCorrelationInterval extends CorrelationInterval {
  /** Groups that entered (those with at least 2 complete pairs). */
  groups: number;
}

/**
 * Pooled within-group Pearson r: x and y centred on their own group's means (each group a preset,
 * so differences between presets' levels drop out), then r over every point. It is the partial
 * correlation of x and y given the group, so its Fisher-z interval loses one degree of freedom per
 * group beyond the first: tanh(atanh r ± z_{(1+level)/2}/√(n − g − 2)) for n points in g groups,
 * bounds NaN when n − g − 2 ≤ 0. A pair with a non-finite value is dropped; a group left with fewer
 * than 2 pairs carries no within-group information and is dropped too.
 */
export function withinCorrelationInterval(groups: readonly { xs: readonly number[]; ys: readonly number[] }[], level = 0.95): WithinCorrelationInterval {
  const dx: number[] = [];
  const dy: number[] = [];
  let g = 0;
  for (const grp of groups) {
    if (grp.xs.length !== grp.ys.length) throw new RangeError(`withinCorrelationInterval: a group has ${grp.xs.length} x values but ${grp.ys.length} y values`);
    const keep = grp.xs.map((x, i) => Number.isFinite(x) && Number.isFinite(grp.ys[i]));
    const x = grp.xs.filter((_, i) => keep[i]);
    const y = grp.ys.filter((_, i) => keep[i]);
    if (x.length < 2) continue;
    g++;
    const mx = mean(x);
    const my = mean(y);
    x.forEach((v, i) => {
      dx.push(v - mx);
      dy.push(y[i] - my);
    });
  }
  const n = dx.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += dx[i] * dy[i];
    sxx += dx[i] * dx[i];
    syy += dy[i] * dy[i];
  }
  const r = sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
  const df = n - g - 2;
  if (df <= 0 || !Number.isFinite(r)) return { n, groups: g, r, lower: NaN, upper: NaN, level };
  const rc = Math.max(-1 + 1e-15, Math.min(1 - 1e-15, r));
  const z = Math.atanh(rc);
  const h = normalQuantile((1 + level) / 2) / Math.sqrt(df);
  return { n, groups: g, r, lower: Math.tanh(z - h), upper: Math.tanh(z + h), level };
}

// ---------------------------------------------------------------------------------------------
// Curves

/** Trapezoid area under (x, y) divided by the x range: the curve's mean level (one point: its value). */
export function normalizedArea(xs: readonly number[], ys: readonly number[]): number {
  const pts = xs.map((x, i) => [x, ys[i]] as const).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (pts.length === 0) return NaN;
  if (pts.length === 1) return pts[0][1];
  let area = 0;
  for (let i = 1; i < pts.length; i++) area += ((pts[i][0] - pts[i - 1][0]) * (pts[i][1] + pts[i - 1][1])) / 2;
  const span = pts[pts.length - 1][0] - pts[0][0];
  return span > 0 ? area / span : mean(pts.map((p) => p[1]));
}

// ---------------------------------------------------------------------------------------------
// Standard error of one evaluation

/**
 * Standard error of one checkpoint's avg@k from the aggregate alone: the sampling noise of
 * re-evaluating it on the same n problems with k samples each is √(Σ p_i(1−p_i)/k)/n, and
 * since p(1−p) is concave, Σ p_i(1−p_i)/n ≤ p̄(1−p̄). So √(p̄(1−p̄)/(n·k)) bounds it from above
 * for any spread of per-problem accuracies (≤ 1.10 points at 256 × 8, reached at p̄ = 0.5).
 */
export function avgAtKSamplingSE(avg: number, problems: number, k: number): number {
  if (!Number.isFinite(avg) || !(problems > 0) || !(k > 0)) return NaN;
  const p = Math.min(1, Math.max(0, avg));
  return Math.sqrt((p * (1 - p)) / (problems * k));
}

/**
 * Standard error of avg@k over problems, from per-problem correct counts c_i out of k:
 * sd_i(c_i/k)/√n. It adds the spread of the problems' difficulty (the test set as a sample of
 * the task distribution) to the sampling noise, so it is larger than avgAtKSamplingSE.
 */
export function avgAtKProblemSE(correct: readonly number[], k: number): number {
  return sem(correct.map((c) => c / k));
}

// ---------------------------------------------------------------------------------------------
// Verdicts

/**
 * 'not-testable': the finding's premise (e.g. that a run's entropy collapses) does not hold in
 * its own runs, so its checks cannot speak for or against the claim (premiseVerdict).
 */
export type Verdict = 'reproduced' | 'contradicted' | 'inconclusive' | 'not-testable';
export const VERDICTS: readonly Verdict[] = ['reproduced', 'contradicted', 'inconclusive', 'not-testable'];

/**
 * Directional rule: `direction` +1 when the paper says the quantity is positive (e.g. magic −
 * grpo > 0), −1 when negative. Reproduced: the interval lies entirely on the paper's side of 0;
 * contradicted: entirely on the other side; inconclusive: it contains 0 (or is undefined).
 */
export function directionalVerdict(direction: 1 | -1, iv: { lower: number; upper: number }): Verdict {
  const { lower, upper } = iv;
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return 'inconclusive';
  if (direction > 0 ? lower > 0 : upper < 0) return 'reproduced';
  if (direction > 0 ? upper < 0 : lower > 0) return 'contradicted';
  return 'inconclusive';
}

/**
 * Equivalence rule for "A ≈ B" with margin m: reproduced when the 95% interval of A − B lies
 * inside (−m, m) (two one-sided tests at 2.5% each); contradicted when it lies entirely outside
 * [−m, m]; inconclusive otherwise.
 */
export function equivalenceVerdict(iv: { lower: number; upper: number }, margin: number): Verdict {
  const { lower, upper } = iv;
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return 'inconclusive';
  if (lower > -margin && upper < margin) return 'reproduced';
  if (lower > margin || upper < -margin) return 'contradicted';
  return 'inconclusive';
}

/**
 * A finding with several checks: reproduced when all are, contradicted when all are (the same
 * agreement: one check against the paper while another shows nothing is not a contradiction of the
 * whole claim), inconclusive otherwise; not-testable when any check is.
 */
export function combineVerdicts(vs: readonly Verdict[]): Verdict {
  if (vs.length === 0) return 'inconclusive';
  if (vs.some((v) => v === 'not-testable')) return 'not-testable';
  if (vs.every((v) => v === 'contradicted')) return 'contradicted';
  if (vs.every((v) => v === 'reproduced')) return 'reproduced';
  return 'inconclusive';
}

/**
 * A finding with premises: its checks' combined verdict when every premise holds in its runs,
 * else 'not-testable' — never reproduced or contradicted on a premise the runs do not show.
 */
export function premiseVerdict(premisesHold: readonly boolean[], checks: Verdict): Verdict {
  return premisesHold.every((h) => h) ? checks : 'not-testable';
}
