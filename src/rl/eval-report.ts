/**
 * What `magic-lab eval --json` writes (the coverage report of one evaluation) and the base-
 * solvability file (`--write-solvability` / `--solvability`): a base's correct count on every
 * test problem, keyed by the problem's identity and the test set's definition so that a file
 * measured on another test set is refused rather than silently joined. Pure.
 */
import type { Problem } from '../tasks';
import { coverageSplit, solvabilityClass, unsolvedSolvedShare, type CoverageSplit, type SolvabilityClass } from './coverage';
import { formatTemperature } from './metrics';
import type { EvalProblemResult } from './rollout';

export const EVAL_REPORT_SCHEMA = 'magic-lab-eval/1';
export const SOLVABILITY_SCHEMA = 'magic-lab-solvability/1';

/** What decides a run's test set (buildRunDataset): the seed and the data fields, at the test level. */
export interface TestSetDefinition {
  seed: number;
  families: string[];
  /** The test set's level (data.testDifficulty when set, else data.difficulty). */
  difficulty: unknown;
  testSize: number;
}

/** A problem's identity across files: its family and canonical key (unique in a built dataset). */
export const problemIdentity = (p: Pick<Problem, 'family' | 'id'>) => `${p.family}:${p.id}`;

export interface EvalProblemRow {
  /** problemIdentity: family and canonical key. */
  id: string;
  family: string;
  difficulty: number;
  prompt: string;
  n: number;
  correct: number;
  /** The base's class on this problem (with --solvability). */
  class?: SolvabilityClass;
}

export interface EvalTemperatureReport extends CoverageSplit {
  /** The evaluation record's keys at this temperature (val/avg@k/t…, …), as the text output prints them. */
  metrics: Record<string, number>;
  /** Of the base-unsolved problems (with --solvability), the share this checkpoint solved at least once. */
  baseUnsolvedSolved?: number;
  problems: EvalProblemRow[];
}

export interface EvalReport {
  schema: string;
  checkpoint: string;
  testSet: TestSetDefinition;
  /** Samples per problem (--k). */
  n: number;
  seed: number;
  maxResponseLength: number;
  topP: number;
  /** The solvability file the classes came from, or null. */
  solvability: string | null;
  /** Keyed by temperature as eval keys write it ("1.0", "0.6"). */
  temperatures: Record<string, EvalTemperatureReport>;
}

export interface SolvabilityFile {
  schema: string;
  /** The checkpoint measured (path as given, and crc32 of its bytes). */
  checkpoint: { file: string; crc: string };
  testSet: TestSetDefinition;
  sampling: { n: number; temperature: number; maxResponseLength: number; topP: number; seed: number };
  /** Classes: 0 of n → unsolved, 1..max(1, ⌊n/8⌋) → rare, more → often (coverage.ts). */
  problems: { id: string; family: string; difficulty: number; prompt: string; correct: number; class: SolvabilityClass }[];
}

export interface EvalReportInput {
  checkpoint: string;
  testSet: TestSetDefinition;
  problems: readonly Problem[];
  n: number;
  seed: number;
  maxResponseLength: number;
  topP: number;
  temperatures: readonly number[];
  record: Record<string, number>;
  /** Per temperature, one result per problem (rollout.evaluatePolicyDetailed). */
  results: readonly (readonly EvalProblemResult[])[];
  solvability?: { file: string; classes: SolvabilityClass[] } | null;
}

export function buildEvalReport(o: EvalReportInput): EvalReport {
  const temperatures: Record<string, EvalTemperatureReport> = {};
  o.temperatures.forEach((t, ti) => {
    const tag = formatTemperature(t);
    const classes = o.solvability?.classes;
    const problems: EvalProblemRow[] = o.results[ti].map((r, i) => {
      const p = o.problems[r.index];
      return { id: problemIdentity(p), family: p.family, difficulty: p.difficulty, prompt: p.prompt, n: r.n, correct: r.correct, ...(classes ? { class: classes[i] } : {}) };
    });
    const split = coverageSplit(problems, classes);
    const metrics = Object.fromEntries(Object.entries(o.record).filter(([k]) => k.endsWith(`/t${tag}`)));
    temperatures[tag] = { metrics, ...split, ...(classes ? { baseUnsolvedSolved: unsolvedSolvedShare(problems, classes) } : {}), problems };
  });
  return { schema: EVAL_REPORT_SCHEMA, checkpoint: o.checkpoint, testSet: o.testSet, n: o.n, seed: o.seed, maxResponseLength: o.maxResponseLength, topP: o.topP, solvability: o.solvability?.file ?? null, temperatures };
}

/** The solvability file of one evaluation at its first temperature. */
export function buildSolvability(report: EvalReport, crc: string): SolvabilityFile {
  const [tag, first] = Object.entries(report.temperatures)[0];
  return {
    schema: SOLVABILITY_SCHEMA,
    checkpoint: { file: report.checkpoint, crc },
    testSet: report.testSet,
    sampling: { n: report.n, temperature: Number(tag), maxResponseLength: report.maxResponseLength, topP: report.topP, seed: report.seed },
    problems: first.problems.map((p) => ({ id: p.id, family: p.family, difficulty: p.difficulty, prompt: p.prompt, correct: p.correct, class: solvabilityClass(p.correct, p.n) })),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The base class of each of `problems` from a solvability file (parsed JSON). Throws one Error
 * naming what does not match: the schema, a field of the test-set definition, or a problem the
 * file does not hold.
 */
export function solvabilityClasses(file: unknown, testSet: TestSetDefinition, problems: readonly Problem[]): SolvabilityClass[] {
  const f = file as Partial<SolvabilityFile> | null;
  if (!f || typeof f !== 'object' || f.schema !== SOLVABILITY_SCHEMA) throw new Error(`not a solvability file (schema ${JSON.stringify(f && typeof f === 'object' ? f.schema : f)}, expected ${SOLVABILITY_SCHEMA})`);
  if (!f.testSet || typeof f.testSet !== 'object' || !Array.isArray(f.problems)) throw new Error('testSet and problems are missing');
  for (const k of ['seed', 'families', 'difficulty', 'testSize'] as const) {
    if (!same(f.testSet[k], testSet[k])) throw new Error(`measured on another test set: testSet.${k} is ${JSON.stringify(f.testSet[k])}, this evaluation's is ${JSON.stringify(testSet[k])}`);
  }
  const by = new Map(f.problems.map((p) => [p.id, p]));
  return problems.map((p) => {
    const row = by.get(problemIdentity(p));
    if (!row) throw new Error(`holds no problem ${problemIdentity(p)} (it measured ${f.problems!.length} problems; evaluate at most those)`);
    if (!(['unsolved', 'rare', 'often'] as const).includes(row.class)) throw new Error(`problem ${row.id}: class ${JSON.stringify(row.class)} is not unsolved, rare or often`);
    return row.class;
  });
}
