/**
 * Coverage metrics: the unbiased pass@k curve (k = 1, 2, 4, … up to n) of an evaluation, split by
 * task family, difficulty level and base-solvability class. Pure; the per-problem rows are what
 * `magic-lab eval --json` writes, so every number recomputes from them.
 *
 * pass@k of one problem with c correct of n samples is 1 − C(n−c, k)/C(n, k) (metrics.ts
 * passAtK, the numerically stable product form); a set's pass@k is its mean over problems.
 */
import { evalKey, formatTemperature, passAtK } from './metrics';

/** One evaluated problem: its identity, level and how many of its n samples were correct. */
export interface CoverageRow {
  family: string;
  difficulty: number;
  n: number;
  correct: number;
}

/** pass@k by k, keyed "1", "2", "4", … (string keys, as JSON writes them). */
export type PassAtKCurve = Record<string, number>;

/**
 * The k of a pass@k curve with n samples per problem: the powers of two below n, then n itself
 * (so the largest k is always n, whether or not n is a power of two). n ≥ 1.
 */
export function curveKs(n: number): number[] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`curveKs needs an integer n ≥ 1, got ${n}`);
  const ks: number[] = [];
  for (let k = 1; k < n; k *= 2) ks.push(k);
  ks.push(n);
  return ks;
}

/**
 * Mean unbiased pass@k over rows, for every k of curveKs(n) where n is the rows' smallest sample
 * count (a row with more samples is estimated from all of them). Empty rows: {}.
 */
export function passAtKCurve(rows: readonly CoverageRow[]): PassAtKCurve {
  if (rows.length === 0) return {};
  for (const r of rows) {
    if (!Number.isInteger(r.n) || r.n < 1 || !Number.isInteger(r.correct) || r.correct < 0 || r.correct > r.n) {
      throw new RangeError(`a coverage row needs integers 0 ≤ correct ≤ n, n ≥ 1; got n=${r.n} correct=${r.correct}`);
    }
  }
  const n = Math.min(...rows.map((r) => r.n));
  const out: PassAtKCurve = {};
  for (const k of curveKs(n)) {
    let s = 0;
    for (const r of rows) s += passAtK(r.n, r.correct, k);
    out[String(k)] = s / rows.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Base-solvability classes

export type SolvabilityClass = 'unsolved' | 'rare' | 'often';
export const SOLVABILITY_CLASSES: readonly SolvabilityClass[] = ['unsolved', 'rare', 'often'];

/**
 * The most correct samples (of n) a "rarely" solved problem has: n/8 rounded down, at least 1.
 * So rare = solved in 1 to 12.5% of samples (1..32 of 256, 1..8 of 64, 1..2 of 16, 1 of 8):
 * problems the base can reach but a sharpened policy may drop from its support.
 */
export function rareMaxCorrect(n: number): number {
  return Math.max(1, Math.floor(n / 8));
}

/** A problem's class from the base's c correct of n: 0 → unsolved, 1..rareMaxCorrect(n) → rare, more → often. */
export function solvabilityClass(correct: number, n: number): SolvabilityClass {
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(correct) || correct < 0 || correct > n) {
    throw new RangeError(`solvabilityClass needs integers 0 ≤ correct ≤ n, n ≥ 1; got correct=${correct} n=${n}`);
  }
  if (correct === 0) return 'unsolved';
  return correct <= rareMaxCorrect(n) ? 'rare' : 'often';
}

// ---------------------------------------------------------------------------------------------
// Splits

export interface CoverageGroup {
  /** Problems in the group. */
  problems: number;
  /** Share of them solved at least once (c ≥ 1) in the n samples. */
  solved: number;
  'pass@k': PassAtKCurve;
}

export interface CoverageSplit {
  'pass@k': PassAtKCurve;
  families: Record<string, CoverageGroup>;
  /** Per difficulty level, keyed "1", "2", …; present only when the rows mix levels. */
  difficulties?: Record<string, CoverageGroup>;
  /** Per base-solvability class; present only when classes are given. */
  classes?: Partial<Record<SolvabilityClass, CoverageGroup>>;
}

export function coverageGroup(rows: readonly CoverageRow[]): CoverageGroup {
  return { problems: rows.length, solved: rows.length ? rows.filter((r) => r.correct > 0).length / rows.length : NaN, 'pass@k': passAtKCurve(rows) };
}

function groupBy<R>(rows: readonly R[], key: (r: R, i: number) => string): Map<string, R[]> {
  const m = new Map<string, R[]>();
  rows.forEach((r, i) => {
    const k = key(r, i);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  });
  return m;
}

/**
 * The pass@k curve overall, per family (in first-seen order), per difficulty (when more than one
 * level) and per base class (`classes[i]` is row i's class; classes without rows are left out).
 */
export function coverageSplit(rows: readonly CoverageRow[], classes?: readonly SolvabilityClass[]): CoverageSplit {
  const out: CoverageSplit = { 'pass@k': passAtKCurve(rows), families: {} };
  for (const [f, rs] of groupBy(rows, (r) => r.family)) out.families[f] = coverageGroup(rs);
  const levels = groupBy(rows, (r) => String(r.difficulty));
  if (levels.size > 1) {
    out.difficulties = {};
    for (const l of [...levels.keys()].sort((a, b) => Number(a) - Number(b))) out.difficulties[l] = coverageGroup(levels.get(l)!);
  }
  if (classes) {
    if (classes.length !== rows.length) throw new RangeError(`coverageSplit: ${classes.length} classes for ${rows.length} rows`);
    const by = groupBy(rows, (_, i) => classes[i]);
    out.classes = {};
    for (const c of SOLVABILITY_CLASSES) if (by.has(c)) out.classes[c] = coverageGroup(by.get(c)!);
  }
  return out;
}

/**
 * Of the problems the base never solved (its class 'unsolved'), the share the evaluated policy
 * solved at least once; NaN when the base solved every problem at least once.
 */
export function unsolvedSolvedShare(rows: readonly CoverageRow[], classes: readonly SolvabilityClass[]): number {
  if (classes.length !== rows.length) throw new RangeError(`unsolvedSolvedShare: ${classes.length} classes for ${rows.length} rows`);
  const un = rows.filter((_, i) => classes[i] === 'unsolved');
  return un.length ? un.filter((r) => r.correct > 0).length / un.length : NaN;
}

// ---------------------------------------------------------------------------------------------
// Eval-record keys (in-run evaluations, sweeps)

/** A family's pass@k key at a temperature, e.g. 'val/multiply/pass@16/t1.0' (the overall one is metrics.evalKey('pass', k, τ)). */
export function familyPassKey(family: string, k: number, temperature: number): string {
  return `val/${family}/pass@${k}/t${formatTemperature(temperature)}`;
}

/**
 * The pass@k curve of one temperature's evaluation as eval-record keys: val/pass@k/t<τ> for every
 * k of curveKs(n) and val/<family>/pass@k/t<τ> per family. The record's val/pass@n/t<τ> (n = the
 * eval's k) is among them with the same value.
 */
export function coverageRecord(rows: readonly CoverageRow[], temperature: number): Record<string, number> {
  const out: Record<string, number> = {};
  const s = coverageSplit(rows);
  for (const [k, v] of Object.entries(s['pass@k'])) out[evalKey('pass', Number(k), temperature)] = v;
  for (const [f, g] of Object.entries(s.families)) for (const [k, v] of Object.entries(g['pass@k'])) out[familyPassKey(f, Number(k), temperature)] = v;
  return out;
}
