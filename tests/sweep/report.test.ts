/** Reports state each finding's test and premise; a finding whose premise is absent reads "not testable here", never contradicted. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateFinding, FINDINGS, getFinding, type FindingData } from '../../src/sweep/findings';
import { findingReportMarkdown, findingReportSlots, replicationMarkdown, REPLICATION_RUNG, REPORT_SCHEMA, type FindingReport } from '../../src/sweep/report';
import { COLLAPSE_STEPS } from '../../src/sweep/run-metrics';
import { toJson } from '../../src/sweep/summary';

const seeds = [101, 102, 103, 104, 105];
/** magic clearly worse than its twin, but the twin never collapses: the premise is absent. */
function noCollapse(): FindingData {
  const run = (acc: number, min10: number) => new Map(seeds.map((s) => [s, { 'final/avg/t1.0': acc + 0.001 * s, 'final/pass/t1.0': acc + 0.2 + 0.001 * (s % 3), 'entropy/collapsed': 0, 'entropy/min10': min10 + 0.001 * (s - 100), 'entropy/below_target_longest': 0 }]));
  return { runs: new Map([['magic', run(0.2, 0.12)], ['entropy-off', run(0.4, 0.2)]]), entropyTarget: new Map([['magic', 0.1], ['entropy-off', 0.1]]) };
}

function report(): FindingReport {
  const f = getFinding('entropy-control')!;
  return {
    schema: REPORT_SCHEMA,
    finding: f,
    command: 'magic-lab ablate entropy-control --seeds 5',
    complete: true,
    seeds,
    schedule: { steps: 400, minutes: null, backend: 'wasm', evalProblems: 256, evalK: 8, stages: {}, stepsRun: { min: 400, max: 400 } },
    devices: [],
    result: evaluateFinding(f, noCollapse()),
    measured: { magic: {}, 'entropy-off': {} },
    charts: [],
  };
}

describe('finding reports', () => {
  it('a finding whose premise is absent reads not testable here, with the evidence, and states its test', () => {
    const r = report();
    expect(r.result.checks.map((c) => c.verdict)).toEqual(['contradicted', 'contradicted']);
    expect(r.result.verdict).toBe('not-testable');
    const md = findingReportMarkdown(r);
    expect(md).toContain('## Verdict: **not testable here**');
    expect(md).not.toMatch(/Verdict: \*\*contradicted/);
    expect(md).toContain("- Premise — without the controller entropy collapses: **not shown**. entropy-off collapsed in 0 of 5 seeds (the premise needs ≥ 80% of its seeds): its lowest 10-step mean 0.201–0.205 never fell below the target 0.1");
    expect(md).toContain('- Premise — with the controller it never does: shown.');
    expect(md).toContain('they are reported, not judged');
    // The rule printed states the test, the window, the premise and the criterion.
    expect(md).toMatch(/Rule: .*Premise: entropy-off collapses.*at least 50 consecutive steps.*paired over seeds.*95% Student-t interval/);
    expect(md).toContain(`${COLLAPSE_STEPS} consecutive steps`);
  });

  it('REPLICATION.md lists the new verdict and says what it means', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'reports');
    mkdirSync(join(dir, 'entropy-control'), { recursive: true });
    writeFileSync(join(dir, 'entropy-control', 'report.json'), toJson(report()));
    const text = replicationMarkdown(dir, join(dir, '..', 'REPLICATION.md'));
    expect(text).toContain('| [Adaptive entropy control prevents collapse, and collapse costs accuracy](#entropy-control) | not testable here | 5 | 400 steps |');
    expect(text).toContain('**Verdict: not testable here**');
    expect(text).toContain('is not testable here when its own runs do not show it');
    expect(text).toMatch(/- Premise — without the controller entropy collapses: \*\*not shown\*\*/);
  });

  it("REPLICATION.md lists each rung's report a finding has, and a finding with none at the replication rung", () => {
    const entropyControl = FINDINGS.find((f) => f.id === 'entropy-control')!;
    const temperature = FINDINGS.find((f) => f.id === 'temperature')!;
    const dir = join(mkdtempSync(join(tmpdir(), 'report-')), 'reports');
    const put = (folder: string) => {
      mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, folder, 'report.json'), toJson(report()));
    };
    // An archive's layout (every finding at the tiny rung only): nothing else is listed, nothing is "not run yet".
    for (const f of FINDINGS) put(f.id);
    expect(findingReportSlots(dir, entropyControl).map((s) => s.folder)).toEqual(['entropy-control']);
    const archive = replicationMarkdown(dir, join(dir, '..', 'REPLICATION.md'));
    expect(archive).not.toMatch(/not run yet/i);
    expect(archive).toContain('Rung: tiny (docs/ladder.md)');
    // A second rung's report gets its own slot after tiny's, titled with its rung.
    put('entropy-control-small');
    expect(findingReportSlots(dir, entropyControl)).toEqual([
      { folder: 'entropy-control', rung: 'tiny', title: entropyControl.title },
      { folder: 'entropy-control-small', rung: 'small', title: `${entropyControl.title} (small rung)` },
    ]);
    expect(replicationMarkdown(dir, join(dir, '..', 'REPLICATION.md'))).toContain('Rungs: tiny, small (docs/ladder.md)');
    // Once tiny's reports are archived away, a finding with no report is due at REPLICATION_RUNG, with the command that runs it.
    for (const f of FINDINGS) rmSync(join(dir, f.id), { recursive: true });
    expect(REPLICATION_RUNG).toBe('small');
    expect(findingReportSlots(dir, entropyControl).map((s) => s.folder)).toEqual(['entropy-control-small']);
    expect(findingReportSlots(dir, temperature)).toEqual([{ folder: 'temperature-small', rung: 'small', title: `${temperature.title} (small rung)` }]);
    const text = replicationMarkdown(dir, join(dir, '..', 'REPLICATION.md'));
    expect(text.match(/\| not run yet \|/g)!.length).toBe(FINDINGS.length - 1);
    expect(text).toContain(`| [${temperature.title} (small rung)](#temperature-small) | not run yet | – | – |`);
    expect(text).toContain('Run: `magic-lab ablate temperature --rung small --seeds 5`');
    expect(text).toContain('Rung: small (docs/ladder.md)');
  });
});
