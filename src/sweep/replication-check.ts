/**
 * Recomputes the reported numbers from the committed runs: for each finding under reports/ (and
 * its reports at other rungs, reports/<finding>-<rung>/), its
 * sweep.json names the runs (the pool) and the evaluation; the runs' metrics.jsonl(.gz) and
 * precise evaluations give the summary, the summary gives report.json, and the reports give
 * REPLICATION.md. `magic-lab ablate --replication --check` and tests/sweep/replication.test.ts
 * compare every one of them with what is committed, so no interval in REPLICATION.md rests on
 * a file the repository no longer holds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINDINGS } from './findings';
import { readStoredText } from './gz-file';
import { planSweep, sweepSpec, type BaseRef, type PlannedRun, type RunResult, type SweepOptions } from './plan';
import { buildFindingReport, findingReportSlots, replicationMarkdown, type FindingReport } from './report';
import { loadRun } from './runner';
import { buildSummary, summaryJson, toJson, type Summary } from './summary';

/** The summary of a sweep's runs, as `magic-lab sweep` writes it to summary.json. */
export function sweepSummary(o: SweepOptions, results: RunResult[], planned: number): Summary {
  return buildSummary({
    spec: sweepSpec(o),
    command: o.command,
    presets: o.presets,
    planned,
    runs: results,
  });
}

/** The sweep options a finished sweep directory was made with (its sweep.json; the command from its report). */
export function sweepOptionsOf(dir: string, command: string): SweepOptions {
  const s = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as Record<string, unknown> & SweepOptions & { runs: string };
  return {
    presets: s.presets,
    variants: s.variants ?? null,
    seeds: s.seeds,
    steps: s.steps,
    minutes: s.minutes,
    config: s.config,
    backend: s.backend,
    threads: s.threads,
    ...(s.evalBackend ? { evalBackend: s.evalBackend } : {}),
    evalProblems: s.evalProblems,
    evalK: s.evalK,
    evalTemperatures: s.evalTemperatures,
    base: s.base,
    ...(s.rung ? { rung: s.rung } : {}),
    out: dir,
    runs: join(dir, s.runs),
    command,
  };
}

/**
 * The run as it was trained: with the base its sweep-run.json records (file and CRC), not the one
 * the base file holds today. A shipped base re-stored differently (the small base in half floats)
 * does not make the committed runs someone else's: their start evaluations stay keyed by the
 * weights they started from.
 */
export function asTrained(run: PlannedRun): PlannedRun {
  const file = join(run.dir, 'sweep-run.json');
  if (!existsSync(file)) return run;
  const recorded = (JSON.parse(readFileSync(file, 'utf8')) as { base?: BaseRef | null }).base;
  return recorded === undefined ? run : { ...run, base: recorded };
}

export interface ReplicationMismatch {
  file: string;
  /** What differs, in a line. */
  what: string;
}

/** The first differing line of two texts, for a message. */
function firstDiff(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return `line ${i + 1}: committed ${JSON.stringify((x[i] ?? '').slice(0, 120))}, recomputed ${JSON.stringify((y[i] ?? '').slice(0, 120))}`;
  return 'same';
}

/**
 * Recomputes every finding's report.json (and REPLICATION.md when `replicationFile` is given)
 * from the runs under `reportsDir`; returns what differs from the committed files (empty: all agree).
 */
export function checkReplication(reportsDir: string, replicationFile: string | null, log: (s: string) => void = () => {}): ReplicationMismatch[] {
  const bad: ReplicationMismatch[] = [];
  for (const f of FINDINGS) for (const slot of findingReportSlots(reportsDir, f)) {
    const dir = join(reportsDir, slot.folder);
    const reportFile = join(dir, 'report.json');
    if (!existsSync(reportFile)) continue;
    const committedText = readFileSync(reportFile, 'utf8');
    const committed = JSON.parse(committedText) as FindingReport;
    const o = sweepOptionsOf(dir, committed.command);
    const planned = planSweep(o);
    const results: RunResult[] = [];
    for (const run of planned) {
      const r = loadRun(asTrained(run), o);
      if (!r) {
        bad.push({ file: run.dir, what: 'the run is missing or incomplete' });
        continue;
      }
      results.push(r);
    }
    if (results.length !== planned.length) continue;
    const summary = sweepSummary(o, results, planned.length);
    const recomputed = toJson(buildFindingReport(f, summary, committed.charts));
    if (recomputed !== committedText) bad.push({ file: reportFile, what: firstDiff(committedText, recomputed) });
    // The summary too, where it is committed (summary.json or summary.json.gz).
    const sumFile = join(dir, 'summary.json');
    if (existsSync(sumFile) || existsSync(`${sumFile}.gz`)) {
      const text = readStoredText(sumFile);
      if (text !== summaryJson(summary)) bad.push({ file: sumFile, what: firstDiff(text, summaryJson(summary)) });
    }
    log(`${slot.folder}: ${results.length} runs recomputed`);
  }
  if (replicationFile !== null) {
    const committed = readFileSync(replicationFile, 'utf8');
    const recomputed = replicationMarkdown(reportsDir, replicationFile);
    if (committed !== recomputed) bad.push({ file: replicationFile, what: firstDiff(committed, recomputed) });
  }
  return bad;
}
