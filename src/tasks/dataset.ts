/**
 * Fixed train/test sets from a seed, with exact-duplicate and near-duplicate removal and
 * decontamination of train against test (the Skywork data pipeline, at toy scale), plus
 * JSON-lines (de)serialisation.
 */
import { hash32, Rng } from '../util/rng';
import { checkFamilies, difficultyFor, getFamily, isFamilyName, type DifficultySpec } from './registry';
import { TaskFieldError, type FamilyName, type Problem } from './types';

export interface DatasetOptions {
  seed: number;
  families: readonly FamilyName[];
  difficulty: DifficultySpec;
  /** The test set's level when it differs from the training set's (a held-out split harder than training); default `difficulty`. */
  testDifficulty?: DifficultySpec;
  trainSize: number;
  testSize: number;
  /** Generation attempts allowed per requested problem before giving up (default 50, at least 1000 per family). */
  attemptsPerProblem?: number;
}

export interface DatasetReport {
  /** Problems generated for both sets, kept or not. */
  generated: number;
  /** Same prompt as one already kept in the same set. */
  exactDuplicatesRemoved: number;
  /** Different prompt, same canonical key as one already kept in the same set. */
  nearDuplicatesRemoved: number;
  /** Train candidates whose canonical key belongs to a test problem. */
  decontaminatedRemoved: number;
  trainSize: number;
  testSize: number;
}

export interface Dataset {
  train: Problem[];
  test: Problem[];
  report: DatasetReport;
}

// Independent streams, so changing trainSize never changes the test set.
const TEST_STREAM = 0x7e57_0001;
const TRAIN_STREAM = 0x7a1e_0002;
const MIN_ATTEMPTS_PER_FAMILY = 1000;

function checkSize(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${String(v)}`);
}

export type FilterVerdict = 'keep' | 'exact' | 'near' | 'contaminated';

/**
 * Admits problems one at a time, rejecting exact duplicates (same prompt, any family),
 * near-duplicates (same canonical key) and anything matching a blocked (test) problem.
 */
export class ProblemFilter {
  private readonly prompts = new Set<string>();
  private readonly keys = new Set<string>();
  private readonly blockedPrompts = new Set<string>();
  private readonly blockedKeys = new Set<string>();

  constructor(blocked: Iterable<Problem> = []) {
    for (const p of blocked) {
      this.blockedPrompts.add(p.prompt);
      this.blockedKeys.add(canonicalKeyOf(p));
    }
  }

  /** Classifies the problem and, if it is kept, remembers it. */
  admit(problem: Problem): FilterVerdict {
    const key = canonicalKeyOf(problem);
    if (this.prompts.has(problem.prompt)) return 'exact';
    if (this.keys.has(key)) return 'near';
    if (this.blockedPrompts.has(problem.prompt) || this.blockedKeys.has(key)) return 'contaminated';
    this.prompts.add(problem.prompt);
    this.keys.add(key);
    return 'keep';
  }
}

function canonicalKeyOf(problem: Problem): string {
  return getFamily(problem.family).canonicalKey(problem);
}

export interface DedupResult {
  kept: Problem[];
  exactDuplicatesRemoved: number;
  nearDuplicatesRemoved: number;
  decontaminatedRemoved: number;
}

/** Filters a list in order (first occurrence wins), optionally decontaminating against `against`. */
export function deduplicateProblems(problems: readonly Problem[], against: readonly Problem[] = []): DedupResult {
  const filter = new ProblemFilter(against);
  const result: DedupResult = { kept: [], exactDuplicatesRemoved: 0, nearDuplicatesRemoved: 0, decontaminatedRemoved: 0 };
  for (const p of problems) {
    const verdict = filter.admit(p);
    if (verdict === 'keep') result.kept.push(p);
    else if (verdict === 'exact') result.exactDuplicatesRemoved++;
    else if (verdict === 'near') result.nearDuplicatesRemoved++;
    else result.decontaminatedRemoved++;
  }
  return result;
}

export function buildDataset(opts: DatasetOptions): Dataset {
  const families = checkFamilies(opts.families);
  if (!Number.isInteger(opts.seed)) throw new RangeError(`seed must be an integer, got ${String(opts.seed)}`);
  checkSize('trainSize', opts.trainSize);
  checkSize('testSize', opts.testSize);
  const attemptsPerProblem = opts.attemptsPerProblem ?? 50;
  checkSize('attemptsPerProblem', attemptsPerProblem);
  for (const name of families) getFamily(name).maxPromptTokens(difficultyFor(opts.difficulty, name)); // validates difficulty up front

  const report: DatasetReport = {
    generated: 0,
    exactDuplicatesRemoved: 0,
    nearDuplicatesRemoved: 0,
    decontaminatedRemoved: 0,
    trainSize: 0,
    testSize: 0,
  };

  const testDifficulty = opts.testDifficulty ?? opts.difficulty;
  if (opts.testDifficulty !== undefined) for (const name of families) getFamily(name).maxPromptTokens(difficultyFor(testDifficulty, name));
  const fill = (set: 'test' | 'train', size: number, rng: Rng, filter: ProblemFilter): Problem[] => {
    const quota = families.map((_, i) => Math.floor(size / families.length) + (i < size % families.length ? 1 : 0));
    const kept: Problem[][] = families.map(() => []);
    const attempts = families.map(() => 0);
    const limit = quota.map((q) => Math.max(MIN_ATTEMPTS_PER_FAMILY, q * attemptsPerProblem));
    for (let pending = true; pending; ) {
      pending = false;
      families.forEach((name, i) => {
        if (kept[i].length >= quota[i]) return;
        const difficulty = difficultyFor(set === 'test' ? testDifficulty : opts.difficulty, name);
        if (attempts[i] >= limit[i]) {
          throw new Error(
            `buildDataset: found only ${kept[i].length} of ${quota[i]} distinct ${name} problems (difficulty ${difficulty}) ` +
              `for the ${set} set after ${attempts[i]} attempts; the problem space is (nearly) exhausted — ` +
              `lower trainSize/testSize or raise the difficulty`,
          );
        }
        attempts[i]++;
        report.generated++;
        const problem = getFamily(name).generate(rng, difficulty);
        const verdict = filter.admit(problem);
        if (verdict === 'exact') report.exactDuplicatesRemoved++;
        else if (verdict === 'near') report.nearDuplicatesRemoved++;
        else if (verdict === 'contaminated') report.decontaminatedRemoved++;
        else kept[i].push(problem);
        if (kept[i].length < quota[i]) pending = true;
      });
    }
    // Interleave the families, like generateProblems, so any prefix is a balanced mixture.
    const out: Problem[] = [];
    for (let j = 0; out.length < size; j++) kept.forEach((k) => j < k.length && out.push(k[j]));
    return out;
  };

  const base = hash32(opts.seed >>> 0);
  const test = fill('test', opts.testSize, new Rng(0, base ^ TEST_STREAM), new ProblemFilter());
  const train = fill('train', opts.trainSize, new Rng(0, base ^ TRAIN_STREAM), new ProblemFilter(test));

  report.trainSize = train.length;
  report.testSize = test.length;
  return { train, test, report };
}

/** One JSON object per line, fields in a fixed order, trailing newline. */
export function problemsToJsonl(problems: readonly Problem[]): string {
  return problems
    .map((p) =>
      JSON.stringify({ family: p.family, id: p.id, difficulty: p.difficulty, prompt: p.prompt, answer: p.answer, data: p.data }),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** A bad JSON-lines record; `line` is 1-based, `field` names what is wrong. */
export class ProblemFormatError extends Error {
  constructor(
    public readonly line: number,
    public readonly field: string,
    message: string,
  ) {
    super(`line ${line}: ${field}: ${message}`);
    this.name = 'ProblemFormatError';
  }
}

const PROBLEM_FIELDS = ['family', 'id', 'difficulty', 'prompt', 'answer', 'data'];

/** Parses and fully validates JSON lines (blank lines are skipped). */
export function problemsFromJsonl(text: string): Problem[] {
  const out: Problem[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (err) {
      throw new ProblemFormatError(line, '(json)', `invalid JSON: ${(err as Error).message}`);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
      throw new ProblemFormatError(line, '(record)', 'expected a JSON object');
    }
    const rec = obj as Record<string, unknown>;
    for (const key of Object.keys(rec)) {
      if (!PROBLEM_FIELDS.includes(key)) throw new ProblemFormatError(line, key, 'unknown field');
    }
    for (const key of PROBLEM_FIELDS) {
      if (!(key in rec)) throw new ProblemFormatError(line, key, 'missing');
    }
    if (!isFamilyName(rec.family)) {
      throw new ProblemFormatError(line, 'family', `unknown task family ${JSON.stringify(rec.family)}`);
    }
    const problem = rec as unknown as Problem;
    try {
      getFamily(problem.family).validate(problem);
    } catch (err) {
      if (err instanceof TaskFieldError) throw new ProblemFormatError(line, err.field, err.message.slice(err.field.length + 2));
      throw new ProblemFormatError(line, '(record)', (err as Error).message);
    }
    out.push({
      family: problem.family,
      id: problem.id,
      difficulty: problem.difficulty,
      prompt: problem.prompt,
      answer: problem.answer,
      data: problem.data,
    });
  });
  return out;
}
