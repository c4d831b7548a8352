/**
 * The coverage lesson (components/CoverageLesson.tsx): pass@k curves on a log-k axis of the base,
 * the no-control twin and MAGIC from the shipped reference (public/reference/coverage/<rung>.json,
 * src/sweep/coverage-reference.ts), per group (all problems, a family, a base class), the live
 * run's own curve at each in-run evaluation, and the sentence under the chart — every number in
 * it computed here from the file, never written by hand. Pure except the fetch, which takes the
 * fetch function and base URL.
 */
import { formatTemperature } from '../../rl/metrics';
import { validateCoverageReference, COVERAGE_ARMS, CoverageReferenceError, type CoverageArm, type CoverageGroupCurves, type CoverageReference } from '../../sweep/coverage-reference';
import { defaultBase, fetchJson, ReferenceFileError, type FetchFn } from './reference';

export const ARM_LABEL: Record<CoverageArm, string> = { base: 'base (start weights)', 'entropy-off': 'twin (entropy-off)', magic: 'MAGIC' };

export function coverageReferencePath(rung: string): string {
  return `reference/coverage/${rung}.json`;
}

/** The rung's coverage reference, validated (a missing or malformed file: one Error naming the file). */
export async function fetchCoverageReference(rung: string, fetchFn: FetchFn = fetch, base = defaultBase()): Promise<CoverageReference> {
  const path = coverageReferencePath(rung);
  try {
    return validateCoverageReference(await fetchJson(path, fetchFn, base), path);
  } catch (e) {
    if (e instanceof ReferenceFileError || e instanceof CoverageReferenceError) throw new Error(e.message);
    throw e;
  }
}

/** A group's label in the picker: "all problems (256)", "multiply (128)", "base unsolved (73)". */
export function groupLabel(g: Pick<CoverageGroupCurves, 'id' | 'kind' | 'problems'>): string {
  const name = g.kind === 'all' ? 'all problems' : g.kind === 'class' ? `base ${g.id}` : g.id;
  return `${name} (${g.problems})`;
}

/** One curve: [k, pass@k] by ascending k. */
export type CurvePoints = [number, number][];

export function armCurve(g: CoverageGroupCurves, arm: CoverageArm): CurvePoints {
  const c = g.curves[arm];
  return c ? Object.entries(c).map(([k, p]): [number, number] => [Number(k), p.mean]).sort((a, b) => a[0] - b[0]) : [];
}

/** The arm's interval at each k where it has one (two seeds or more): [k, lower, upper]. */
export function armBand(g: CoverageGroupCurves, arm: CoverageArm): [number, number, number][] {
  const c = g.curves[arm];
  if (!c) return [];
  return Object.entries(c)
    .filter(([, p]) => p.lower !== null && p.upper !== null)
    .map(([k, p]): [number, number, number] => [Number(k), Math.max(0, p.lower!), Math.min(1, p.upper!)])
    .sort((a, b) => a[0] - b[0]);
}

// ---------------------------------------------------------------------------------------------
// The live run's curves

/** The eval-record keys of a group's pass@k at τ: overall val/pass@K/t1.0, a family's val/<family>/pass@K/t1.0; a base class has none in a run. */
function groupKeyRe(g: Pick<CoverageGroupCurves, 'id' | 'kind'>, temperature: number): RegExp | null {
  const t = formatTemperature(temperature).replace('.', '\\.');
  if (g.kind === 'all') return new RegExp(`^val/pass@(\\d+)/t${t}$`);
  if (g.kind === 'family') return new RegExp(`^val/${g.id.replace(/[^a-z0-9_-]/gi, '')}/pass@(\\d+)/t${t}$`);
  return null;
}

export interface LiveCurve {
  step: number;
  points: CurvePoints;
}

/**
 * The run's pass@k curve at each in-run evaluation, for the group at temperature τ (the keys the
 * trainer logs: src/rl/coverage.ts coverageRecord). Evaluations without the group's keys are left
 * out; a base class gives none (a run does not know its base's classes).
 */
export function liveCurves(evals: readonly Record<string, number>[], g: Pick<CoverageGroupCurves, 'id' | 'kind'>, temperature: number): LiveCurve[] {
  const re = groupKeyRe(g, temperature);
  if (!re) return [];
  const out: LiveCurve[] = [];
  for (const rec of evals) {
    const points: CurvePoints = [];
    for (const [key, v] of Object.entries(rec)) {
      const m = re.exec(key);
      if (m && Number.isFinite(v)) points.push([Number(m[1]), v]);
    }
    if (points.length) out.push({ step: rec.step, points: points.sort((a, b) => a[0] - b[0]) });
  }
  return out.sort((a, b) => a.step - b.step);
}

// ---------------------------------------------------------------------------------------------
// The chart: log2 k across, pass@k up

export interface ChartBox {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const COVERAGE_CHART_BOX: ChartBox = { width: 560, height: 250, left: 44, right: 12, top: 10, bottom: 34 };

export interface CoverageChart {
  kMax: number;
  xTicks: { k: number; x: number }[];
  yTicks: { v: number; y: number }[];
  x(k: number): number;
  y(v: number): number;
  /** An SVG path through the points. */
  path(points: CurvePoints): string;
  /** An SVG path around a band (upper edge out, lower edge back). */
  bandPath(band: [number, number, number][]): string;
}

/** Scales for curves up to k = kMax on a log2 axis (ticks at 1, 2, 4, … up to the power of two at or above kMax) and 0–100% up. */
export function coverageChart(kMax: number, box: ChartBox = COVERAGE_CHART_BOX): CoverageChart {
  const top = Math.max(1, Math.ceil(Math.log2(Math.max(1, kMax))));
  const w = box.width - box.left - box.right;
  const h = box.height - box.top - box.bottom;
  const x = (k: number) => box.left + (Math.log2(k) / top) * w;
  const y = (v: number) => box.top + (1 - v) * h;
  const r = (n: number) => Math.round(n * 10) / 10;
  const xTicks: { k: number; x: number }[] = [];
  for (let k = 1; k <= 2 ** top; k *= 2) xTicks.push({ k, x: r(x(k)) });
  return {
    kMax: 2 ** top,
    xTicks,
    yTicks: [0, 0.25, 0.5, 0.75, 1].map((v) => ({ v, y: r(y(v)) })),
    x,
    y,
    path: (pts) => pts.map(([k, v], i) => `${i ? 'L' : 'M'}${r(x(k))},${r(y(v))}`).join(''),
    bandPath: (band) =>
      band.length < 2 ? '' : [...band.map(([k, , u]) => [k, u] as const), ...[...band].reverse().map(([k, l]) => [k, l] as const)].map(([k, v], i) => `${i ? 'L' : 'M'}${r(x(k))},${r(y(v))}`).join('') + 'Z',
  };
}

// ---------------------------------------------------------------------------------------------
// The sentence, computed from the file

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const round1 = (v: number) => Math.round(v * 1000) / 1000;
const pts = (d: number) => `${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d * 100).toFixed(1)} points`;

/** Where MAGIC's curve and the twin's cross: between k = from and k = to (the difference changing sign). */
export interface Crossing {
  from: number;
  to: number;
}

export interface CoverageStatement {
  /** The sentence as shown. */
  text: string;
  k1: { k: number; magic: number; twin: number; base: number };
  kMax: { k: number; magic: number; twin: number; base: number };
  crossings: Crossing[];
  /** Seeds and problems behind every number. */
  seeds: number;
  problems: number;
  samples: number;
}

/** The value at k of a curve (undefined where it has none). */
const at = (c: CurvePoints, k: number) => c.find((p) => p[0] === k)?.[1];

/**
 * What the group's reference curves show, in words and numbers: MAGIC against the twin at k = 1 and
 * at the largest k all three arms have (each with the seeds and problems behind it), where the two
 * curves cross, and where the untrained base stands at the largest k. Null when an arm lacks the group.
 */
export function coverageStatement(ref: CoverageReference, g: CoverageGroupCurves): CoverageStatement | null {
  const c = Object.fromEntries(COVERAGE_ARMS.map((a) => [a, armCurve(g, a)])) as Record<CoverageArm, CurvePoints>;
  if (COVERAGE_ARMS.some((a) => !c[a].length)) return null;
  const ks = c.magic.map((p) => p[0]).filter((k) => at(c['entropy-off'], k) !== undefined && at(c.base, k) !== undefined);
  if (!ks.length) return null;
  const pick = (k: number) => ({ k, magic: at(c.magic, k)!, twin: at(c['entropy-off'], k)!, base: at(c.base, k)! });
  const first = pick(ks[0]);
  const last = pick(ks[ks.length - 1]);
  const crossings: Crossing[] = [];
  const sign = (k: number) => Math.sign(at(c.magic, k)! - at(c['entropy-off'], k)!);
  // A level point (equal values) is no side: the crossing is between the last k on one side and the first on the other.
  let side: { k: number; s: number } | null = null;
  for (const k of ks) {
    const s = sign(k);
    if (s === 0) continue;
    if (side && side.s !== s) crossings.push({ from: side.k, to: k });
    side = { k, s };
  }
  const seeds = Math.min(...COVERAGE_ARMS.flatMap((a) => Object.values(g.curves[a]!).map((p) => p.n)));
  const name = g.kind === 'all' ? 'all test problems' : g.kind === 'class' ? `the problems the base ${g.id === 'unsolved' ? 'never solved' : g.id === 'rare' ? 'solved rarely' : 'solved often'} (class ${g.id})` : g.id;
  const n = `${g.problems} problem${g.problems === 1 ? '' : 's'} × ${ref.samples} samples from ${seeds} seed${seeds === 1 ? '' : 's'}`;
  // The gap is that of the two shown percentages, so the sentence adds up as read.
  const cmp = (p: typeof first) => `MAGIC ${pct(p.magic)}, the twin ${pct(p.twin)} (MAGIC ${pts(round1(p.magic) - round1(p.twin))})`;
  const cross =
    crossings.length === 0
      ? `MAGIC's curve is ${side === null ? 'level with' : side.s > 0 ? 'above or level with' : 'below or level with'} the twin's at every k from ${first.k} to ${last.k}.`
      : `The curves cross between k = ${crossings[0].from} and k = ${crossings[0].to}${crossings.length > 1 ? ` (and ${crossings.length - 1} more time${crossings.length > 2 ? 's' : ''})` : ''}.`;
  const hi = Math.max(last.magic, last.twin);
  const lo = Math.min(last.magic, last.twin);
  const baseWhere = last.base > hi ? 'above both trained policies' : last.base < lo ? 'below both trained policies' : 'between the two trained policies';
  // The classes come from the base's own samples: at the largest k its class curves are 0 (unsolved) and 100% (rare, often) by definition.
  const baseText =
    g.kind === 'class'
      ? `The base's curve here is ${g.id === 'unsolved' ? '0' : `${pct(last.base)} at k = ${last.k}`} by the class's definition (its classes come from these same samples).`
      : `The base, before training, reaches ${pct(last.base)} at k = ${last.k}: ${baseWhere}.`;
  const text = `On ${name}, ${n}: at k = ${first.k}, ${cmp(first)}; at k = ${last.k}, ${cmp(last)}. ${cross} ${baseText}`;
  return { text, k1: first, kMax: last, crossings, seeds, problems: g.problems, samples: ref.samples };
}

/** Where the numbers come from, from the file: its seeds (and whether they are tuning seeds), rung, temperature and size. */
export function provenanceText(ref: CoverageReference): string {
  const s = ref.seeds;
  const seeds = `${s.length} ${ref.kind === 'tuning' ? 'tuning ' : ''}seed${s.length === 1 ? '' : 's'} (${s.join(', ')})`;
  const what =
    ref.kind === 'tuning'
      ? `Reference runs from ${seeds} — runs that choose the regime, not the finding's evidence${s.length === 1 ? '; one seed is an anecdote: nothing here says how the curves vary between seeds' : ''}.`
      : `Reference runs from ${seeds}; the shaded bands are 95% intervals over seeds.`;
  return `${what} Rung ${ref.rung}, τ = ${ref.temperature}, ${ref.samples} samples per test problem; ${ref.note} (${ref.source}).`;
}
