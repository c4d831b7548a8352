/**
 * `magic-lab sweep`: every preset × seed through `train`, precise evaluations through `eval`,
 * then DIR/summary.json, DIR/summary.md and DIR/charts/ (src/sweep/). Resumable: the same
 * command continues a stopped sweep; another sweep config in DIR is refused (exit 2).
 */
import { existsSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { writeStoredText } from '../sweep/gz-file';
import { join } from 'node:path';
import { presetNames, type RunConfigInput } from '../rl/config';
import { writeCharts } from '../sweep/charts';
import { DEFAULT_REFERENCE_DIR, checkReferenceName, referenceFromSummary, writeReference } from '../sweep/reference';
import { resolveRunConfig, runSweep, type RunResult, type SweepDeps, type SweepOptions, type Variant } from '../sweep/runner';
import { summaryJson, type Summary } from '../sweep/summary';
import { summaryMarkdown } from '../sweep/summary-markdown';
import { sweepSummary } from '../sweep/replication-check';
import { parseFlags, UsageError, type FlagSpec, type Flags } from './args';
import { evalCommand, EVAL_FLAGS } from './eval';
import { readJsonFile } from './sft';
import { runTraining, TRAIN_FLAGS } from './train';
import { parseRungFlag, RUNG_FLAG } from './rung';
import { SweepError } from '../sweep/errors';
import { checkDifferOnly, parseDifferOnly } from '../sweep/differ';
import { applyShard, SHARD_FLAG, sweepMerge } from './sweep-shard';
import { checkSweepFits } from './resources';
import { THREADS_FLAG } from './backend';

export const BACKENDS = ['auto', 'webgpu', 'wasm'];
export const DEFAULT_SEED_BASE = 101;

/** Flags sweep and ablate share. */
/** The most seeds a sweep takes per preset (planning 10^8 of them used to hang the sweep before it printed anything). */
export const MAX_SEEDS = 10_000;

export const RUN_FLAGS: Record<string, FlagSpec> = {
  seeds: { type: 'int', min: 1, max: { value: MAX_SEEDS, why: 'every run of a sweep is planned and checked before the first one trains; each seed is a whole run per preset' }, help: `seeds per preset (default 5, at most ${MAX_SEEDS})` },
  'seed-base': { type: 'int', min: 0, help: `first seed; seeds are S, S+1, … (default ${DEFAULT_SEED_BASE}, away from seed 1 the defaults were tuned on)` },
  steps: { type: 'int', min: 1, help: 'steps per run (default: each preset\'s whole schedule); prefer it to --minutes' },
  minutes: { type: 'number', min: 0, help: 'wall-clock minutes per run (what ran is recorded; not reproducible across machines)' },
  config: { type: 'string', help: 'JSON file: a partial RunConfig merged over every preset' },
  backend: { type: 'string', help: `${BACKENDS.join('|')}, passed to train and eval (default: theirs)` },
  'eval-backend': { type: 'string', help: `${BACKENDS.join('|')}: the precise evaluations' engine when not --backend (e.g. train on webgpu, evaluate every arm on wasm)` },
  threads: { ...THREADS_FLAG, help: 'CPU engine threads, passed to train and eval (default: theirs)' },
  'eval-problems': { type: 'int', min: 1, help: 'test problems of each precise evaluation (default: the whole test set, 256, or the smallest arm\'s, e.g. 8 for -tiny presets)' },
  'eval-k': { type: 'int', min: 1, help: 'samples per problem of each precise evaluation (default 8)' },
  rung: RUNG_FLAG,
  base: { type: 'string', help: 'start weights of every run (default: the rung\'s public/checkpoints/base*.mlck when its model matches, as train)' },
  runs: { type: 'string', help: 'run pool directory (default OUT/runs)' },
  'reference-dir': { type: 'string', help: `where --reference writes (default ${DEFAULT_REFERENCE_DIR})` },
  // SVG is what the reports link and git keeps (a PNG beside each doubled reports/ for no reader's gain).
  png: { type: 'bool', help: 'also render each chart as PNG with headless Chromium (default: SVG only)' },
  'no-png': { type: 'bool', help: 'charts as SVG only (the default; kept for older command lines)' },
};

export const HELP_FLAG: FlagSpec = { type: 'bool', help: 'show this help' };

export const SWEEP_FLAGS: Record<string, FlagSpec> = {
  presets: { type: 'string', help: 'comma-separated presets or --variants labels, e.g. magic,grpo (required)' },
  variants: { type: 'string', help: 'JSON file {"LABEL": {"preset": P, "config": {partial RunConfig}}, …}: named configs --presets can list (tuning)' },
  'differ-only': { type: 'string', help: 'FIELD[,FIELD…]: refuse (exit 2) unless every preset/variant\'s resolved config differs from the first listed only in these fields, e.g. loss.entropy' },
  out: { type: 'string', help: 'sweep directory (required): runs/, summary.json, summary.md, charts/' },
  ...RUN_FLAGS,
  reference: { type: 'string', help: 'also write public/reference/NAME.json (and its index entry) from the summary' },
  shard: SHARD_FLAG,
  help: HELP_FLAG,
};

/** The sweep options common to sweep and ablate, from parsed flags. */
export function sweepOptionsFromFlags(flags: Flags, presets: string[], out: string, command: string): SweepOptions {
  const seeds = (flags.seeds as number | undefined) ?? 5;
  const seedBase = (flags['seed-base'] as number | undefined) ?? DEFAULT_SEED_BASE;
  if (seedBase + seeds - 1 > 0xffffffff) throw new UsageError('--seed-base: seeds must stay below 2^32');
  const backend = flags.backend === undefined ? null : String(flags.backend);
  if (backend !== null) {
    if (!BACKENDS.includes(backend)) throw new UsageError(`--backend: expected one of ${BACKENDS.join(', ')}, got ${JSON.stringify(backend)}`);
    if (!('backend' in TRAIN_FLAGS) || !('backend' in EVAL_FLAGS)) throw new UsageError('--backend: train and eval of this build have no --backend flag yet');
  }
  const threads = (flags.threads as number | undefined) ?? null;
  const evalBackend = flags['eval-backend'] === undefined ? null : String(flags['eval-backend']);
  if (evalBackend !== null && !BACKENDS.includes(evalBackend)) throw new UsageError(`--eval-backend: expected one of ${BACKENDS.join(', ')}, got ${JSON.stringify(evalBackend)}`);
  if (threads !== null && (!('threads' in TRAIN_FLAGS) || !('threads' in EVAL_FLAGS))) throw new UsageError('--threads: train and eval of this build have no --threads flag');
  let config: RunConfigInput | null = null;
  if (flags.config !== undefined) config = readJsonFile(String(flags.config), '--config') as RunConfigInput;
  const rung = parseRungFlag(flags.rung) ?? null;
  const base = flags.base === undefined ? null : String(flags.base);
  if (base !== null && !existsSync(base)) throw new UsageError(`--base: ${base} does not exist`);
  return {
    presets,
    seeds: Array.from({ length: seeds }, (_, i) => seedBase + i),
    steps: (flags.steps as number | undefined) ?? null,
    minutes: (flags.minutes as number | undefined) ?? null,
    config,
    backend,
    threads,
    evalBackend,
    evalProblems: (flags['eval-problems'] as number | undefined) ?? 256,
    evalK: (flags['eval-k'] as number | undefined) ?? 8,
    evalTemperatures: [1, 0.6],
    base,
    ...(rung !== null ? { rung } : {}),
    variants: null,
    out,
    runs: flags.runs === undefined ? undefined : String(flags.runs),
    command,
  };
}

export function parsePresetList(text: string): string[] {
  const presets = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (!presets.length) throw new UsageError('--presets: expected a comma-separated list of presets');
  const dup = presets.find((p, i) => presets.indexOf(p) !== i);
  if (dup) throw new UsageError(`--presets: ${dup} is listed twice`);
  return presets;
}

const VARIANT_LABEL = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * --variants FILE: {"LABEL": {"preset": "magic", "config": {…}}, …}. Each is checked here (label,
 * preset, config over it), so a bad file is one line naming the label before anything runs.
 */
export function readVariants(file: string): Record<string, Variant> {
  const raw = readJsonFile(file, '--variants');
  const out: Record<string, Variant> = {};
  for (const [label, v] of Object.entries(raw)) {
    if (!VARIANT_LABEL.test(label)) throw new UsageError(`--variants: ${JSON.stringify(label)} is not a label (lower-case letters, digits, . - _)`);
    if (presetNames().includes(label)) throw new UsageError(`--variants: ${label} is a preset's name; give the variant another label`);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError(`--variants: ${label} must be {"preset": …, "config": {…}}`);
    const { preset, config, ...rest } = v as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length) throw new UsageError(`--variants: ${label}: unknown field ${extra[0]} (expected preset and config)`);
    if (typeof preset !== 'string') throw new UsageError(`--variants: ${label}.preset must name a preset`);
    if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new UsageError(`--variants: ${label}.config must be a partial RunConfig object`);
    out[label] = { preset, config: config as RunConfigInput };
    resolveRunConfig(label, null, 0, out); // names the label in its SweepError
  }
  return out;
}

export const DEFAULT_DEPS: SweepDeps = { train: (options, log) => runTraining(options, log), evaluate: evalCommand, checkRuns: checkSweepFits };

/** A SweepError (a refused OUT or run pool, an unknown preset) is the user's to fix: a usage error, exit 2, same line. */
export async function asUsageErrors<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof SweepError) throw new UsageError(e.message);
    throw e;
  }
}

/** Summary of the runs so far: DIR/summary.json and DIR/summary.md (charts when final). */
export async function writeSummary(
  o: SweepOptions,
  results: RunResult[],
  planned: number,
  final: { charts: boolean; png: boolean; log: (s: string) => void },
): Promise<{ summary: Summary; charts: string[] }> {
  const summary = sweepSummary(o, results, planned);
  writeStoredText(join(o.out, 'summary.json'), summaryJson(summary));
  const charts = final.charts ? await writeCharts(o.out, summary, { png: final.png, log: final.log }) : [];
  replaceFileWhole(join(o.out, 'summary.md'), summaryMarkdown(summary, { charts }));
  return { summary, charts };
}

/** Runs the sweep and writes its summary; returns the summary and the chart paths (relative to OUT). */
export async function runAndSummarize(o: SweepOptions, deps: SweepDeps, log: (s: string) => void, png: boolean): Promise<{ summary: Summary; charts: string[] }> {
  const outcome = await runSweep(o, deps, log, async (results) => {
    await writeSummary(o, results, o.presets.length * o.seeds.length, { charts: false, png, log });
  });
  const res = await writeSummary(o, outcome.results, outcome.planned.length, { charts: true, png, log });
  log(`sweep: ${outcome.results.length}/${outcome.planned.length} runs (${outcome.trained} trained now, ${outcome.skipped} finished earlier); summary in ${join(o.out, 'summary.md')}`);
  for (const p of o.presets) {
    const m = res.summary.presets[p].metrics;
    const g = m['gain/avg/t1.0'];
    const f = m['final/avg/t1.0'];
    const pts = (x: number) => (Number.isFinite(x) ? (x * 100).toFixed(1) : '–');
    log(
      `  ${p}: final avg@${o.evalK} τ=1.0 ${pts(f.mean)}% [${pts(f.lower)}, ${pts(f.upper)}] (run SE ${pts(f.meanRunSE ?? NaN)}), ` +
        `gain ${pts(g.mean)} [${pts(g.lower)}, ${pts(g.upper)}] points (95% t over ${f.n} seeds)`,
    );
  }
  return res;
}

/**
 * No --eval-problems: the whole test set, the same for every arm — 256, or the smallest arm's test
 * set when it is smaller (the -tiny presets have 8), with a note. An explicit value larger than an
 * arm's test set is refused by the plan, naming the flag and the limit.
 */
function defaultEvalProblems(o: SweepOptions, log: (s: string) => void): void {
  const sizes = o.presets.map((p) => ({ p, n: resolveRunConfig(p, o.config, o.seeds[0], o.variants, o.rung ?? null).data.testSize }));
  const least = sizes.reduce((a, b) => (b.n < a.n ? b : a));
  if (least.n >= o.evalProblems) return;
  o.evalProblems = least.n;
  log(`sweep: precise evaluations use ${least.n} problems, the whole test set of ${least.p} (pass --eval-problems N ≤ ${least.n} to choose)`);
}

export async function sweep(argv: string[], log: (s: string) => void = console.log, deps: SweepDeps = DEFAULT_DEPS): Promise<Summary> {
  return asUsageErrors(() => sweepCommand(argv, log, deps));
}

async function sweepCommand(argv: string[], log: (s: string) => void, deps: SweepDeps): Promise<Summary> {
  if (argv[0] === 'merge') return sweepMerge(argv.slice(1), log, writeSummary);
  const flags = parseFlags(argv, SWEEP_FLAGS, 'sweep');
  if (flags.presets === undefined) throw new UsageError('sweep: --presets P1,P2,… is required');
  if (flags.out === undefined) throw new UsageError('sweep: --out DIR is required');
  const reference = flags.reference === undefined ? null : String(flags.reference);
  if (reference !== null && !checkReferenceName(reference)) throw new UsageError(`--reference: ${JSON.stringify(reference)} is not a reference name (lower-case letters, digits, . - _)`);
  const o = sweepOptionsFromFlags(flags, parsePresetList(String(flags.presets)), String(flags.out), `magic-lab sweep ${argv.join(' ')}`);
  if (flags.variants !== undefined) o.variants = readVariants(String(flags.variants));
  if (flags['differ-only'] !== undefined) checkDifferOnly(o, o.presets, parseDifferOnly(String(flags['differ-only']), o, o.presets[0]));
  if (flags['eval-problems'] === undefined) defaultEvalProblems(o, log);
  applyShard(flags, argv, o, reference !== null);
  const { summary } = await runAndSummarize(o, deps, log, Boolean(flags.png) && !flags['no-png']);
  if (reference !== null) {
    if (!summary.complete) throw new UsageError('--reference: the sweep is not complete; reference runs are written from finished sweeps only');
    const dir = String(flags['reference-dir'] ?? DEFAULT_REFERENCE_DIR);
    const w = writeReference(dir, referenceFromSummary(summary, { name: reference, kind: 'sweep', title: `Sweep: ${o.presets.join(' vs ')}` }));
    log(`reference: ${w.file} (${(w.bytes / 1024).toFixed(1)} KB) and ${join(dir, 'index.json')}`);
  }
  return summary;
}
