/**
 * `magic-lab ablate FINDING`: runs one finding's presets through the sweep runner and writes its
 * report (reports/<finding>/report.md and report.json: claim, presets, seeds, schedule, command,
 * means ± intervals, the verdict with its rule, charts). `--list` lists the findings;
 * `--replication` assembles REPLICATION.md from the reports present. At a rung other than tiny
 * (--rung) the report folder is reports/<finding>-<rung> and the reference file
 * public/reference/<finding>-<rung>.json, so tiny's reports and references keep their names.
 *
 * Runs live in a pool shared by every finding (reports/runs/<schedule tag>/<preset>/seed-<S>/),
 * so a preset × seed that several findings use (magic is in most) trains once.
 */

import { replaceFileWhole } from '../run/write-file';
import { join } from 'node:path';
import { crc32Label } from '../model/checkpoint';
import { presetNames } from '../rl/config';
import { FINDINGS, getFinding, findingIds } from '../sweep/findings';
import { DEFAULT_REFERENCE_DIR, referenceFromSummary, referenceNameAt, writeReference } from '../sweep/reference';
import { buildFindingReport, DEFAULT_REPORTS_DIR, findingReportMarkdown, replicationMarkdown } from '../sweep/report';
import type { SweepDeps, SweepOptions } from '../sweep/runner';
import { toJson } from '../sweep/summary';
import { parseFlags, RunFailure, UsageError, type FlagSpec } from './args';
import { checkReplication } from '../sweep/replication-check';
import { checkFindingDiffers } from '../sweep/differ';
import { mergeConfigInput } from '../sweep/coverage';
import { parseRungFlag } from './rung';
import { asUsageErrors, DEFAULT_DEPS, HELP_FLAG, RUN_FLAGS, runAndSummarize, sweepOptionsFromFlags } from './sweep';

export const ABLATE_FLAGS: Record<string, FlagSpec> = {
  list: { type: 'bool', help: 'list the findings and their presets' },
  replication: { type: 'bool', help: 'write REPLICATION.md (--out, default REPLICATION.md) from the reports under --reports' },
  check: { type: 'bool', help: 'with --replication: write nothing; recompute every report.json, summary and REPLICATION.md from the committed runs and compare (exit 1 on a difference)' },
  reports: { type: 'string', help: `reports directory (default ${DEFAULT_REPORTS_DIR})` },
  out: { type: 'string', help: `report directory (default ${DEFAULT_REPORTS_DIR}/<finding>, at a rung other than tiny <finding>-<rung>); with --replication the file written` },
  ...RUN_FLAGS,
  reference: { type: 'bool', help: `also write ${DEFAULT_REFERENCE_DIR}/<finding>.json for the page (<finding>-<rung>.json at a rung other than tiny)` },
  help: HELP_FLAG,
};

const USAGE_LINE = 'ablate FINDING [--seeds N] [--steps N | --minutes M] [--backend B] [--out DIR]  |  ablate --list  |  ablate --replication';

/** Directory name of a run pool: runs made with the same schedule, config, backend and base share it. */
export function poolTag(o: SweepOptions): string {
  const crc = (v: unknown) => crc32Label(new TextEncoder().encode(JSON.stringify(v))).slice(6);
  const parts = [o.steps !== null ? `steps${o.steps}` : o.minutes !== null ? `min${o.minutes}` : 'full'];
  if (o.steps !== null && o.minutes !== null) parts.push(`min${o.minutes}`);
  parts.push(o.backend ?? 'default');
  if (o.threads !== null) parts.push(`t${o.threads}`);
  if (o.config !== null) parts.push(`cfg${crc(o.config)}`);
  if (o.base !== null) parts.push(`base${crc(o.base)}`);
  if (o.rung && o.rung !== 'tiny') parts.push(o.rung); // a rung's runs never share a pool with tiny's
  return parts.join('-');
}

export function listFindings(): string {
  const w = Math.max(...FINDINGS.map((f) => f.id.length));
  return FINDINGS.map((f) => `${f.id.padEnd(w)}  ${f.title}\n${' '.repeat(w + 2)}presets: ${f.presets.join(', ')}`).join('\n');
}

export async function ablate(argv: string[], log: (s: string) => void = console.log, deps: SweepDeps = DEFAULT_DEPS): Promise<void> {
  const positional = argv.length && !argv[0].startsWith('--') ? argv[0] : undefined;
  const flags = parseFlags(positional === undefined ? argv : argv.slice(1), ABLATE_FLAGS, 'ablate');
  const reportsDir = String(flags.reports ?? DEFAULT_REPORTS_DIR);
  if (flags.list) {
    if (positional !== undefined) throw new UsageError('ablate: --list takes no finding');
    log(listFindings());
    return;
  }
  if (flags.replication) {
    if (positional !== undefined) throw new UsageError('ablate: --replication takes no finding');
    const out = String(flags.out ?? 'REPLICATION.md');
    if (flags.check) {
      const bad = checkReplication(reportsDir, out, log);
      for (const b of bad) log(`differs: ${b.file}: ${b.what}`);
      // The runs are raw data kept on the branch reports-data; a checkout without them has the reports only.
      const missingRuns = bad.some((b) => b.what === 'the run is missing or incomplete');
      if (bad.length) throw new RunFailure(`ablate --replication --check: ${bad.length} file${bad.length === 1 ? '' : 's'} do not recompute from the runs under ${reportsDir}/${missingRuns ? ' (runs missing: `npm run reports:data` brings them back from the branch reports-data)' : ''}`);
      log(`every report under ${reportsDir}/ and ${out} recompute from the committed runs`);
      return;
    }
    replaceFileWhole(out, replicationMarkdown(reportsDir, out));
    log(`wrote ${out} from the reports under ${reportsDir}/`);
    return;
  }
  if (positional === undefined) throw new UsageError(`ablate: name a finding (${findingIds().join(', ')}); usage: magic-lab ${USAGE_LINE}`);
  const finding = getFinding(positional);
  if (!finding) throw new UsageError(`ablate: unknown finding ${JSON.stringify(positional)} (known: ${findingIds().join(', ')})`);
  const missing = finding.presets.filter((p) => !presetNames().includes(p));
  if (missing.length) throw new UsageError(`ablate ${finding.id}: this build has no preset ${missing.join(', ')} (src/rl/config/presets.ts)`);
  const rung = parseRungFlag(flags.rung) ?? null;
  const out = String(flags.out ?? join(reportsDir, referenceNameAt(finding.id, rung)));
  const o = sweepOptionsFromFlags(flags, finding.presets, out, `magic-lab ablate ${argv.join(' ')}`);
  if (finding.regime?.rung !== undefined && (rung ?? 'tiny') !== finding.regime.rung) {
    throw new UsageError(`ablate ${finding.id}: its regime was fixed at the ${finding.regime.rung} rung (src/sweep/coverage.ts); pass --rung ${finding.regime.rung}`);
  }
  if (finding.regime) {
    // The finding's regime under any --config (which may refine it), and its evaluation size unless --eval-k says otherwise.
    o.config = mergeConfigInput(finding.regime.config, o.config);
    if (flags['eval-k'] === undefined) o.evalK = finding.regime.evalK;
  }
  // What the finding says its presets differ in holds for these configs (--config included), before anything runs.
  await asUsageErrors(async () => checkFindingDiffers(finding, o));
  if (flags.runs === undefined) o.runs = join(reportsDir, 'runs', poolTag(o));
  const { summary, charts } = await asUsageErrors(() => runAndSummarize(o, deps, log, Boolean(flags.png) && !flags['no-png']));
  const report = buildFindingReport(finding, summary, charts);
  replaceFileWhole(join(out, 'report.json'), toJson(report));
  replaceFileWhole(join(out, 'report.md'), findingReportMarkdown(report));
  log(`${finding.id}: ${report.result.verdict}`);
  for (const p of report.result.premises ?? []) log(`  premise ${p.holds ? 'shown' : 'NOT shown'}: ${p.evidence}`);
  for (const c of report.result.checks) log(`  ${c.describe}: ${c.estimate.toFixed(4)} [${c.lower.toFixed(4)}, ${c.upper.toFixed(4)}], ${c.reads} → ${c.verdict}`);
  log(`  combined: ${report.result.because}`);
  log(`report: ${join(out, 'report.md')}`);
  if (flags.reference) {
    const dir = String(flags['reference-dir'] ?? DEFAULT_REFERENCE_DIR);
    const w = writeReference(dir, referenceFromSummary(summary, { name: finding.id, kind: 'finding', title: finding.title, claim: finding.claim, rule: finding.rule, result: report.result, rung }));
    log(`reference: ${w.file} (${(w.bytes / 1024).toFixed(1)} KB) and ${join(dir, 'index.json')}`);
  }
}
