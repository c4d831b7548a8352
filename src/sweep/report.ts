/**
 * Reports of findings: `report.json` and `report.md` of one `magic-lab ablate FINDING` (from its
 * sweep summary), and REPLICATION.md assembled from the reports present — generated text only,
 * every number read from a report.json.
 */
import { deviationsMarkdown } from './deviations';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { DEFAULT_RUNG, RUNG_NAMES, type RungName } from '../rl/config';
import { checkMetrics, FINDINGS, type Finding, type FindingResult } from './findings';
import { referenceNameAt, verdictText } from './reference-format';
import { formatValue, metricDef, unitSuffix } from './run-metrics';
import type { Verdict } from './stats';
import type { Summary } from './summary';
import { coverageMarkdown, formatCheck } from './summary-markdown';
import type { PresetCoverage } from './coverage';

export const REPORT_SCHEMA = 'magic-lab-finding-report/1';
export const DEFAULT_REPORTS_DIR = 'reports';

export interface FindingReport {
  schema: typeof REPORT_SCHEMA;
  finding: Finding;
  command: string;
  complete: boolean;
  seeds: number[];
  schedule: {
    steps: number | null;
    minutes: number | null;
    backend: string | null;
    evalProblems: number;
    evalK: number;
    /** Per preset: stages as run (max response length, steps). */
    stages: Record<string, { maxResponseLength: number; steps: number | null }[]>;
    /** Steps actually run: min and max over the runs. */
    stepsRun: { min: number; max: number };
  };
  devices: string[];
  result: FindingResult;
  /** Per preset, per metric: mean [95% t interval] over seeds, and the mean single-run SE for precise accuracies. */
  measured: Record<string, Record<string, { n: number; mean: number; lower: number; upper: number; meanRunSE?: number }>>;
  /** Chart files relative to the report's directory. */
  charts: string[];
  /** The finding's presets' pass@k curves (summary.ts `coverage`), where the runs wrote coverage reports. */
  coverage?: Record<string, PresetCoverage>;
}

/** Metrics a report tabulates: the finding's own, then the usual ones. */
export function reportMetrics(f: Finding): string[] {
  const own = [...f.checks.flatMap(checkMetrics), ...(f.premises ?? []).flatMap((p) => (p.kind === 'measured' ? [p.metric] : [])), ...(f.shows ?? [])];
  return [...new Set([...own, 'start/avg/t1.0', 'final/avg/t1.0', 'gain/avg/t1.0', 'final/avg/t0.6', 'entropy/second_half', 'truncation/mean', 'tokens', 'wall_s'])];
}

export function buildFindingReport(f: Finding, s: Summary, charts: string[]): FindingReport {
  const result = s.findings.find((r) => r.finding === f.id);
  if (!result) throw new Error(`the sweep does not cover finding ${f.id} (presets ${f.presets.join(', ')})`);
  const measured: FindingReport['measured'] = {};
  for (const p of f.presets) {
    measured[p] = {};
    for (const id of reportMetrics(f)) {
      const m = s.presets[p]?.metrics[id];
      if (!m) continue;
      measured[p][id] = { n: m.n, mean: m.mean, lower: m.lower, upper: m.upper, ...(m.meanRunSE !== undefined ? { meanRunSE: m.meanRunSE } : {}) };
    }
  }
  const steps = s.runs.map((r) => r.values.steps).filter((x) => Number.isFinite(x));
  const coverage = s.coverage ? Object.fromEntries(f.presets.filter((p) => s.coverage![p]).map((p) => [p, s.coverage![p]])) : null;
  return {
    schema: REPORT_SCHEMA,
    finding: f,
    command: s.command,
    complete: s.complete,
    seeds: s.sweep.seeds,
    schedule: {
      steps: s.sweep.steps,
      minutes: s.sweep.minutes,
      backend: s.sweep.backend,
      evalProblems: s.sweep.evalProblems,
      evalK: s.sweep.evalK,
      stages: Object.fromEntries(f.presets.map((p) => [p, s.presets[p]?.stages ?? []])),
      stepsRun: { min: steps.length ? Math.min(...steps) : NaN, max: steps.length ? Math.max(...steps) : NaN },
    },
    devices: [...new Set(s.runs.map((r) => r.device).filter((d): d is string => !!d))],
    result,
    measured,
    charts,
    ...(coverage && Object.keys(coverage).length ? { coverage } : {}),
  };
}

const VERDICT_WORD: Record<Verdict, string> = {
  reproduced: '**reproduced**',
  contradicted: '**contradicted**',
  inconclusive: '**inconclusive**',
  'not-testable': '**not testable here**',
};

function scheduleText(r: FindingReport): string {
  const sch = r.schedule;
  const stages = Object.entries(sch.stages)
    .map(([p, st]) => `${p}: ${st.map((s) => `${s.steps ?? '?'} steps at ${s.maxResponseLength} tokens`).join(' → ')}`)
    .join('; ');
  const cap = sch.steps !== null ? `stopped at step ${sch.steps}` : sch.minutes !== null ? `${sch.minutes} minutes per run (wall clock)` : 'whole schedule';
  const ran = Number.isFinite(sch.stepsRun.min) ? (sch.stepsRun.min === sch.stepsRun.max ? `${sch.stepsRun.min} steps run` : `${sch.stepsRun.min}–${sch.stepsRun.max} steps run`) : 'no runs yet';
  return `${cap} (${ran}); stages — ${stages}; backend ${sch.backend ?? 'default'}; precise evaluation ${sch.evalProblems} problems × ${sch.evalK} samples at τ = 1.0 and 0.6`;
}

function measuredTable(r: FindingReport): string[] {
  const presets = Object.keys(r.measured);
  const ids = reportMetrics(r.finding);
  const L = [`| metric | ${presets.join(' | ')} |`, `| --- |${presets.map(() => ' --- |').join('')}`];
  for (const id of ids) {
    const d = metricDef(id);
    const cells = presets.map((p) => {
      const m = r.measured[p][id];
      if (!m) return '–';
      const signed = id.startsWith('gain/');
      const se = m.meanRunSE !== undefined && m.meanRunSE !== null && Number.isFinite(m.meanRunSE) ? ` (run SE ${formatValue(d.unit, m.meanRunSE)})` : '';
      return `${formatValue(d.unit, m.mean, signed)} [${formatValue(d.unit, m.lower, signed)}, ${formatValue(d.unit, m.upper, signed)}]${se}`;
    });
    L.push(`| ${d.label}${unitSuffix(d.unit) ? ` (${unitSuffix(d.unit).trim()})` : ''} | ${cells.join(' | ')} |`);
  }
  return L;
}

/** The premises (what the runs must show first, with the evidence), then the checks. */
function checksList(r: FindingReport): string[] {
  const premises = (r.result.premises ?? []).map((p) => `- Premise — ${p.premise.says}: ${p.holds ? 'shown' : '**not shown**'}. ${p.evidence}`);
  // Reports written before checks said their direction (archives) have no `reads` nor `because`.
  const checks = r.result.checks.map((c) => `- ${c.check.says}: ${c.describe} → ${formatCheck(withNaN(c))}${c.reads ? `, ${c.reads}` : ''} → ${c.verdict}`);
  const note = r.result.verdict === 'not-testable' ? ['', 'A premise is not shown in these runs, so the checks below cannot decide the claim: they are reported, not judged.'] : [];
  return [...premises, ...note, ...(premises.length ? [''] : []), ...checks, ...(r.result.because ? ['', `Combined: ${r.result.because}.`] : [])];
}

/** A report read back from JSON has null where it had NaN. */
function withNaN<T extends { estimate: number | null; lower: number | null; upper: number | null }>(c: T): T {
  const f = (x: number | null) => (x === null ? NaN : x);
  return { ...c, estimate: f(c.estimate), lower: f(c.lower), upper: f(c.upper) };
}

export function findingReportMarkdown(r: FindingReport): string {
  const f = r.finding;
  const L: string[] = [];
  L.push(`# ${f.title}`, '');
  L.push(`Generated by \`magic-lab ablate ${f.id}\` from its sweep (summary.json); do not edit.`, '');
  if (!r.complete) L.push('**Partial:** not every planned run has finished; the same command continues the sweep.', '');
  L.push(`> ${f.claim}`, '');
  if (f.detail) L.push(`> ${f.detail.section}: "${f.detail.quote}"`, '');
  L.push(`Source: ${f.source}.`, '');
  L.push(`- Presets: ${f.presets.map((p) => `\`${p}\``).join(', ')}`);
  L.push(`- Seeds: ${r.seeds.join(', ')} (${r.seeds.length} per preset)`);
  L.push(`- Schedule: ${scheduleText(r)}`);
  if (r.devices.length) L.push(`- Device: ${r.devices.join('; ')}${r.devices.length > 1 ? ' — **mixed devices**: the runs did not all use one backend' : ''}`);
  L.push(`- Command: \`${r.command}\``, '');
  L.push(`## Verdict: ${VERDICT_WORD[r.result.verdict]}`, '');
  L.push(...checksList(r), '');
  L.push(`Rule: ${f.rule}`, '');
  L.push('## Measured: mean [95% CI over seeds]', '');
  L.push('Accuracies in % (precise avg@k), gains in points, entropy in nats, train time in minutes; "run SE" is one run\'s evaluation standard error (see docs/sweeps.md).', '');
  L.push(...measuredTable(r), '');
  L.push(...coverageMarkdown(r.coverage));
  if (r.charts.length) {
    L.push('## Charts', '');
    for (const c of r.charts) L.push(`![${c}](${c})`, '');
  }
  return L.join('\n');
}

/** The charts a finding is about: held-out avg@k at τ = 1.0, and the entropy when a check uses it. */
export function mainCharts(r: FindingReport): string[] {
  const usesEntropy = r.finding.checks.some((c) => checkMetrics(c).some((m) => m.startsWith('entropy/')));
  const pick = (re: RegExp) => r.charts.find((c) => re.test(c) && c.endsWith('.png')) ?? r.charts.find((c) => re.test(c));
  return [pick(/val-avg-\d+-t1\.0\./), usesEntropy ? pick(/actor-entropy\./) : undefined].filter((c): c is string => !!c);
}

export function readFindingReport(file: string): FindingReport {
  return JSON.parse(readFileSync(file, 'utf8')) as FindingReport;
}

/**
 * The rung the current replication runs its findings at (recipe v5 and REPLICATION.md v6: the small rung, where the no-control
 * twin collapses; the tiny rung's findings are archived in reports/recipe-v4). A finding with no report
 * at any rung is listed here as "not run yet".
 */
export const REPLICATION_RUNG: RungName = 'small';

/** A rung's report folder of a finding, named as `magic-lab ablate --rung` names it (referenceNameAt: <id> at tiny, <id>-<rung> else). */
function reportSlot(f: Pick<Finding, 'id' | 'title'>, rung: RungName): { folder: string; rung: RungName; title: string } {
  return { folder: referenceNameAt(f.id, rung), rung, title: rung === DEFAULT_RUNG ? f.title : `${f.title} (${rung} rung)` };
}

/**
 * A finding's report folders: one per rung that has a report.json, in ladder order (a rung other than
 * tiny names itself in the title); a finding with none gets REPLICATION_RUNG's, to be run.
 */
export function findingReportSlots(reportsDir: string, f: Pick<Finding, 'id' | 'title'>): { folder: string; rung: RungName; title: string }[] {
  const slots = RUNG_NAMES.map((rung) => reportSlot(f, rung)).filter((s) => existsSync(join(reportsDir, s.folder, 'report.json')));
  return slots.length ? slots : [reportSlot(f, REPLICATION_RUNG)];
}

/**
 * Findings whose place in REPLICATION.md is kept while they are being added: listed as "runs pending"
 * until the registry (findings.ts) has a finding of that id, which then takes the place as any
 * other (its report, or "not run yet").
 */
export const PENDING_FINDINGS: readonly { id: string; title: string; presets: string[]; what: string }[] = [
  {
    id: 'coverage',
    title: 'Coverage: does holding entropy keep the problems a policy can solve?',
    presets: ['magic', 'entropy-off'],
    what:
      'magic against its no-control twin entropy-off on coverage — paired held-out differences in pass@1, pass@16 and pass@k at the ' +
      'largest k, and the share of the base-unsolved test problems solved, over seeds 101–105 — in a regime where exploration can pay',
  },
];

/** REPLICATION.md from each finding's reports (findingReportSlots), in registry order; "not run yet" where there is none. */
export function replicationMarkdown(reportsDir: string, outFile: string): string {
  const L: string[] = [];
  L.push('# Replication of the MAGIC findings', '');
  L.push(
    `Generated by \`magic-lab ablate --replication\` from the reports under \`${reportsDir}/\`; do not edit by hand — every number here is read from a ` +
      '`report.json` that `magic-lab ablate FINDING` wrote from real runs. Verdict rule: reproduced when the paper\'s direction holds and the paired 95% ' +
      'interval (Student-t over seeds) excludes 0; contradicted when the opposite holds likewise; inconclusive otherwise (each finding states its own checks). ' +
      'A finding with several checks is reproduced when every check is and contradicted when every check is (the same agreement), inconclusive otherwise; each check prints its direction and interval. ' +
      'A finding with a premise (e.g. that its no-control run\'s entropy collapses) is not testable here when its own runs do not show it, whatever its checks say; the evidence is given. ' +
      'How the sweeps, statistics and standard errors work: docs/sweeps.md.',
    '',
  );
  const slotsByFinding = FINDINGS.map((f) => findingReportSlots(reportsDir, f));
  const rungs = RUNG_NAMES.filter((r) => slotsByFinding.some((slots) => slots.some((s) => s.rung === r)));
  L.push(`Rung${rungs.length > 1 ? 's' : ''}: ${rungs.join(', ')} (docs/ladder.md); a finding run at more than one rung is listed once per rung, a rung other than tiny named in its title.`, '');
  // Reports kept from earlier recipes (reports/recipe-*/REPLICATION.md): the current presets differ from theirs.
  const earlier = existsSync(reportsDir)
    ? readdirSync(reportsDir)
        .filter((d) => /^recipe-/.test(d) && existsSync(join(reportsDir, d, 'REPLICATION.md')))
        .sort()
    : [];
  if (earlier.length) {
    const links = earlier.map((d) => `[${d}](${relative(dirname(outFile), join(reportsDir, d, 'REPLICATION.md'))})`).join(', ');
    L.push(`Findings measured under earlier defaults of the presets, or decided by earlier rules, kept as they were: ${links} (each folder's README says what differed).`, '');
  }
  const rows: string[] = ['| finding | verdict | seeds | schedule |', '| --- | --- | --- | --- |'];
  const sections: string[] = [];
  for (const [fi, f] of FINDINGS.entries()) for (const slot of slotsByFinding[fi]) {
    const file = join(reportsDir, slot.folder, 'report.json');
    const anchor = slot.folder;
    const title = slot.title;
    if (!existsSync(file)) {
      rows.push(`| [${title}](#${anchor}) | not run yet | – | – |`);
      sections.push(`<a id="${anchor}"></a>`, `## ${title}`, '', `> ${f.claim}`, '', `Presets: ${f.presets.map((p) => `\`${p}\``).join(', ')}.`, '');
      const rungArg = slot.rung === DEFAULT_RUNG ? '' : ` --rung ${slot.rung}`;
      sections.push(`**Not run yet.** Run: \`magic-lab ablate ${f.id}${rungArg} --seeds 5\` (then \`magic-lab ablate --replication\`).`, '', `Rule: ${f.rule}`, '');
      continue;
    }
    const r = readFindingReport(file);
    const rel = (p: string) => relative(dirname(outFile), join(reportsDir, slot.folder, p)) || p;
    rows.push(`| [${title}](#${anchor}) | ${verdictText(r.result.verdict)}${r.complete ? '' : ' (partial)'} | ${r.seeds.length} | ${r.schedule.steps !== null ? `${r.schedule.steps} steps` : r.schedule.minutes !== null ? `${r.schedule.minutes} min` : 'full'} |`);
    sections.push(`<a id="${anchor}"></a>`, `## ${title}`, '');
    sections.push(`> ${r.finding.claim}`, '');
    if (r.finding.detail) sections.push(`> ${r.finding.detail.section}: "${r.finding.detail.quote}"`, '');
    if (!r.complete) sections.push('**Partial:** not every planned run has finished.', '');
    sections.push(`- Presets: ${r.finding.presets.map((p) => `\`${p}\``).join(', ')}`);
    sections.push(`- Seeds: ${r.seeds.join(', ')}`);
    sections.push(`- Schedule: ${scheduleText(r)}`);
    if (r.devices.length) sections.push(`- Device: ${r.devices.join('; ')}`);
    sections.push(`- Command: \`${r.command}\``);
    sections.push(`- Report: [${rel('report.md')}](${rel('report.md')})`, '');
    sections.push(`**Verdict: ${verdictText(r.result.verdict)}**`, '');
    sections.push(...checksList(r), '');
    sections.push(`Rule: ${r.finding.rule}`, '');
    sections.push(...measuredTable(r), '');
    const shown = mainCharts(r);
    if (shown.length) sections.push(...shown.map((c) => `![${c}](${rel(c)})`), '');
  }
  for (const p of PENDING_FINDINGS.filter((x) => !FINDINGS.some((f) => f.id === x.id))) {
    const anchor = referenceNameAt(p.id, REPLICATION_RUNG);
    rows.push(`| [${p.title}](#${anchor}) | runs pending | – | – |`);
    sections.push(`<a id="${anchor}"></a>`, `## ${p.title}`, '', `Presets: ${p.presets.map((x) => `\`${x}\``).join(', ')}.`, '');
    sections.push(`**${p.id}: runs pending.** Being added: ${p.what}. Its verdict appears here once \`magic-lab ablate ${p.id} --rung ${REPLICATION_RUNG}\` has written its report.`, '');
  }
  L.push(...rows, '', ...deviationsMarkdown(), ...sections);
  return L.join('\n');
}
