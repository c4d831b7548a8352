/**
 * Writes the page's coverage reference (public/reference/coverage/<rung>.json, format in
 * src/sweep/coverage-reference.ts): the pass@k curves of the base, `entropy-off` and `magic` at one
 * temperature, from the per-problem counts of k-sample evaluations. Two sources:
 *
 *   npx tsx scripts/coverage-reference.ts --sweep reports/coverage-small --note '…'
 *     a sweep or finding folder (its sweep.json): each run's final evaluation (magic, entropy-off)
 *     and each seed's start evaluation (the base), as the sweep's summary reads them
 *
 *   npx tsx scripts/coverage-reference.ts --rung small --note '…' \
 *     --eval base:201:reports/coverage-tuning/round-1/base-start-seed201-k64.json.gz \
 *     --eval magic:201:reports/coverage-tuning/round-1/runs/magic/seed-201/eval-k64.json.gz \
 *     --eval entropy-off:201:reports/coverage-tuning/round-1/runs/entropy-off/seed-201/eval-k64.json.gz
 *     named `magic-lab eval --json` reports (gzipped or not), ARM:SEED:FILE each
 *
 * The file is 'tuning' when every seed is a tuning seed (201 and up), 'reported' otherwise; the page
 * says which, with the seeds. --temperature picks the curves' τ (default 1), --out the file.
 * A mistake in the arguments or the data: one line, exit 2.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { formatTemperature } from '../src/rl/metrics';
import type { EvalReport } from '../src/rl/eval-report';
import { COVERAGE_ARMS, buildCoverageReference, validateCoverageReference, type CoverageArm, type CoverageEvalInput } from '../src/sweep/coverage-reference';
import { existsStored, readStoredText } from '../src/sweep/gz-file';
import { planSweep } from '../src/sweep/plan';
import { asTrained, sweepOptionsOf } from '../src/sweep/replication-check';
import { loadRun } from '../src/sweep/runner';

/** The first seed of the tuning range (reported findings run on 101–105). */
export const FIRST_TUNING_SEED = 201;

class ArgError extends Error {}

interface Args {
  sweep: string | null;
  evals: { arm: CoverageArm; seed: number; file: string }[];
  note: string;
  rung: string | null;
  temperature: number;
  out: string | null;
}

export function parseArgs(argv: readonly string[]): Args {
  const a: Args = { sweep: null, evals: [], note: '', rung: null, temperature: 1, out: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new ArgError(`${flag}: needs a value`);
    i++;
    if (flag === '--sweep') a.sweep = value;
    else if (flag === '--note') a.note = value;
    else if (flag === '--rung') a.rung = value;
    else if (flag === '--out') a.out = value;
    else if (flag === '--temperature') {
      a.temperature = Number(value);
      if (!(a.temperature > 0)) throw new ArgError(`--temperature: expected a positive number, got ${JSON.stringify(value)}`);
    } else if (flag === '--eval') {
      const m = /^([a-z-]+):(\d+):(.+)$/.exec(value);
      if (!m || !(COVERAGE_ARMS as readonly string[]).includes(m[1])) throw new ArgError(`--eval: expected ARM:SEED:FILE with ARM one of ${COVERAGE_ARMS.join(', ')}, got ${JSON.stringify(value)}`);
      a.evals.push({ arm: m[1] as CoverageArm, seed: Number(m[2]), file: m[3] });
    } else throw new ArgError(`unknown flag ${flag} (flags: --sweep DIR | --eval ARM:SEED:FILE …, --note TEXT, --rung R, --temperature T, --out FILE)`);
  }
  if ((a.sweep === null) === (a.evals.length === 0)) throw new ArgError('give either --sweep DIR or --eval ARM:SEED:FILE (one per arm and seed)');
  if (!a.note.trim()) throw new ArgError('--note: say in a line how the runs were made (their regime); the page shows it');
  if (a.evals.length && !a.rung) throw new ArgError('--rung: the rung the evaluated runs trained at (with --eval)');
  return a;
}

/** The evaluations of a sweep folder at temperature label `t`: finals of magic and entropy-off, one start (the base) per seed. */
function sweepEvals(dir: string, t: string): { evals: CoverageEvalInput[]; rung: string | null } {
  if (!existsSync(join(dir, 'sweep.json'))) throw new ArgError(`--sweep: ${dir} has no sweep.json`);
  const o = sweepOptionsOf(dir, '');
  const evals: CoverageEvalInput[] = [];
  for (const run of planSweep(o)) {
    if (run.preset !== 'magic' && run.preset !== 'entropy-off') continue;
    const r = loadRun(asTrained(run), o);
    if (!r) throw new ArgError(`--sweep: the run ${relative(process.cwd(), run.dir)} is missing or incomplete (npm run reports:data restores committed runs)`);
    if (!r.coverage) throw new ArgError(`--sweep: the run ${relative(process.cwd(), run.dir)} wrote no coverage report (its evaluations predate eval --json)`);
    const fin = r.coverage.final[t];
    if (!fin) throw new ArgError(`--sweep: the run ${relative(process.cwd(), run.dir)} has no evaluation at τ = ${t}`);
    evals.push({ arm: r.preset as CoverageArm, seed: r.seed, rows: fin });
    const start = r.coverage.start?.[t];
    if (start && !evals.some((e) => e.arm === 'base' && e.seed === r.seed)) evals.push({ arm: 'base', seed: r.seed, rows: start });
  }
  return { evals, rung: o.rung ?? null };
}

/** One `eval --json` report's rows at temperature label `t`. */
function reportRows(file: string, t: string): CoverageEvalInput['rows'] {
  const plain = file.replace(/\.gz$/, '');
  if (!existsStored(plain)) throw new ArgError(`--eval: ${file} does not exist (npm run reports:data restores committed evaluations)`);
  let rep: EvalReport;
  try {
    rep = JSON.parse(readStoredText(plain)) as EvalReport;
  } catch (e) {
    throw new ArgError(`--eval: ${file} is not an eval --json report (${(e as Error).message})`);
  }
  if (rep?.schema !== 'magic-lab-eval/1') throw new ArgError(`--eval: ${file} is not an eval --json report (schema ${JSON.stringify(rep?.schema)})`);
  const at = rep.temperatures?.[t];
  if (!at) throw new ArgError(`--eval: ${file} has no evaluation at τ = ${t} (it has ${Object.keys(rep.temperatures ?? {}).join(', ') || 'none'})`);
  return at.problems.map((p) => ({ id: p.id, n: p.n, correct: p.correct }));
}

export function main(argv: readonly string[], log: (s: string) => void = console.log): number {
  try {
    const a = parseArgs(argv);
    const t = formatTemperature(a.temperature);
    const got = a.sweep !== null ? sweepEvals(a.sweep, t) : { evals: a.evals.map((e) => ({ arm: e.arm, seed: e.seed, rows: reportRows(e.file, t) })), rung: a.rung };
    const rung = a.rung ?? got.rung ?? 'tiny';
    const source = a.sweep ?? commonDir(a.evals.map((e) => e.file));
    const seeds = got.evals.map((e) => e.seed);
    let ref;
    try {
      ref = buildCoverageReference({ evals: got.evals, kind: seeds.every((s) => s >= FIRST_TUNING_SEED) ? 'tuning' : 'reported', source, note: a.note.trim(), rung, temperature: a.temperature });
    } catch (e) {
      throw new ArgError((e as Error).message);
    }
    const out = a.out ?? join('public', 'reference', 'coverage', `${rung}.json`);
    const text = JSON.stringify(ref, null, 1) + '\n';
    validateCoverageReference(JSON.parse(text), out);
    writeFileSync(out, text);
    log(`${out}: ${ref.kind} seeds ${ref.seeds.join(', ')}, ${ref.samples} samples per problem, groups ${ref.groups.map((g) => `${g.id} (${g.problems})`).join(', ')}; ${text.length} bytes`);
    return 0;
  } catch (e) {
    if (e instanceof ArgError) {
      console.error(`coverage-reference: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

/** The deepest folder every file is under (for the file's `source`). */
function commonDir(files: readonly string[]): string {
  const parts = files.map((f) => dirname(f).split('/'));
  const out: string[] = [];
  for (let i = 0; parts.every((p) => i < p.length && p[i] === parts[0][i]); i++) out.push(parts[0][i]);
  return out.join('/') || '.';
}

if (process.argv[1] && /coverage-reference\.ts$/.test(process.argv[1])) process.exitCode = main(process.argv.slice(2));
