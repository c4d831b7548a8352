/**
 * The reference-run file format, shared by the CLI that writes it (src/sweep/reference.ts) and
 * the page that reads it (src/ui/lib/reference.ts). Pure: no Node imports, so the page can import
 * it. A reference file is a sweep's or a finding's curves: per preset per curve metric a step
 * grid (at most REFERENCE_POINTS points), the mean over seeds, its 95% band and every seed's
 * curve on the same grid, rounded to 4 decimals (null where undefined); plus a few scalar
 * results and, for a finding, its claim, rule, verdict and checks. `index.json` lists them.
 * A file made at a model rung other than tiny carries `rung` (it and its index entry) and is
 * named <name>-<rung>.json, so a rung's runs never stand in for tiny's presets of the same name.
 */

export const REFERENCE_SCHEMA = 'magic-lab-reference/1';
export const REFERENCE_INDEX_SCHEMA = 'magic-lab-reference-index/1';
/** Points per reference curve. */
export const REFERENCE_POINTS = 40;
/** Scalar results carried per preset. */
export const REFERENCE_SCALARS = [
  'start/avg/t1.0',
  'final/avg/t1.0',
  'gain/avg/t1.0',
  'final/avg/t0.6',
  'gain/avg/t0.6',
  'final/pass/t1.0',
  'entropy/second_half',
  'entropy/min10',
  'entropy/collapsed',
  'tokens',
  'wall_s',
];

/** A finding's verdict (the same four as src/sweep/stats.ts's Verdict). */
export type ReferenceVerdict = 'reproduced' | 'contradicted' | 'inconclusive' | 'not-testable';
export const REFERENCE_VERDICTS: readonly ReferenceVerdict[] = ['reproduced', 'contradicted', 'inconclusive', 'not-testable'];

/** How the page and the reports word a verdict: 'not-testable' reads "not testable here". */
export function verdictText(v: ReferenceVerdict): string {
  return v === 'not-testable' ? 'not testable here' : v;
}

/** Numbers rounded to 4 decimals; null where undefined (NaN). */
export type Num = number | null;

export interface ReferenceCurve {
  steps: number[];
  mean: Num[];
  lower: Num[];
  upper: Num[];
  /** seed → values on `steps` */
  seeds: Record<string, Num[]>;
}

export interface ReferenceCheck {
  describe: string;
  estimate: Num;
  lower: Num;
  upper: Num;
  verdict: ReferenceVerdict;
}

/** A finding's premise as its runs showed it (or not), with the evidence in words. */
export interface ReferencePremise {
  says: string;
  holds: boolean;
  evidence: string;
}

export interface ReferencePreset {
  seeds: number[];
  entropyTarget: Num;
  scalars: Record<string, { mean: Num; lower: Num; upper: Num }>;
  curves: Record<string, ReferenceCurve>;
}

export interface ReferenceFile {
  schema: typeof REFERENCE_SCHEMA;
  name: string;
  kind: 'finding' | 'sweep';
  title: string;
  /** The model rung its runs were made at (src/rl/config/rungs.ts); absent: tiny. */
  rung?: string;
  /** The finding's claim, rule and result (kind 'finding'). */
  claim?: string;
  rule?: string;
  verdict?: ReferenceVerdict;
  /** The finding's premises (absent: it has none). */
  premises?: ReferencePremise[];
  checks?: ReferenceCheck[];
  command: string;
  schedule: { steps: number | null; minutes: number | null; backend: string | null; evalProblems: number; evalK: number };
  /** Interval method of every band and scalar. */
  interval: string;
  presets: Record<string, ReferencePreset>;
}

export interface ReferenceIndexEntry {
  name: string;
  file: string;
  kind: 'finding' | 'sweep';
  title: string;
  /** As the file's `rung`; absent: tiny. */
  rung?: string;
  presets: string[];
  seeds: number[];
  steps: number | null;
  verdict?: ReferenceVerdict;
}

export interface ReferenceIndex {
  schema: typeof REFERENCE_INDEX_SCHEMA;
  entries: ReferenceIndexEntry[];
}

export function r4(x: number): Num {
  return Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : null;
}

/** Reference names become file names: lower-case letters, digits, '.', '-' and '_'. */
export function checkReferenceName(name: string): boolean {
  return /^[a-z0-9][a-z0-9._-]{0,63}$/.test(name) && name !== 'index';
}

/** The rung a reference file or index entry was made at: its `rung`, tiny when absent. */
export const referenceRung = (x: { rung?: string }): string => x.rung ?? 'tiny';

/** A reference's name (and file stem) at a rung: `<name>` at tiny, `<name>-<rung>` at any other. */
export const referenceNameAt = (name: string, rung: string | null | undefined): string => (rung && rung !== 'tiny' ? `${name}-${rung}` : name);
