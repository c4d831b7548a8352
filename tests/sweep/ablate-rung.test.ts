/**
 * `ablate FINDING --rung R` away from tiny: the report folder is reports/<finding>-<rung> and the
 * reference file <finding>-<rung>.json (carrying `rung`, as its index entry does), tiny's file
 * and entry are left as they were, and `--replication` (with `--check`) takes the rung's report as
 * its own section.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablate } from '../../src/cli/ablate';
import { referenceNameAt } from '../../src/sweep/reference';
import { FINDINGS } from '../../src/sweep/findings';
import { fakeEval, fakeTrain } from './fakes';

describe('ablate at a rung other than tiny', () => {
  it('writes <finding>-<rung> reports and references beside tiny\'s, and REPLICATION.md checks both', async () => {
    expect(referenceNameAt('entropy-control', 'tiny')).toBe('entropy-control');
    expect(referenceNameAt('entropy-control', null)).toBe('entropy-control');
    expect(referenceNameAt('entropy-control', 'small')).toBe('entropy-control-small');
    const root = mkdtempSync(join(tmpdir(), 'ablate-rung-'));
    const reports = join(root, 'reports');
    const refDir = join(root, 'ref');
    // Tiny's reference of the same finding is there already: it must keep its bytes and its entry.
    mkdirSync(refDir, { recursive: true });
    const tinyText = '{"schema":"magic-lab-reference/1","name":"rejection"}\n';
    writeFileSync(join(refDir, 'rejection.json'), tinyText);
    const tinyEntry = { name: 'rejection', file: 'rejection.json', kind: 'finding', title: 'tiny', presets: ['magic', 'no-rejection'], seeds: [101], steps: null };
    writeFileSync(join(refDir, 'index.json'), JSON.stringify({ schema: 'magic-lab-reference-index/1', entries: [tinyEntry] }, null, 2) + '\n');
    const args = ['rejection', '--rung', 'small', '--seeds', '2', '--steps', '4', '--reports', reports, '--no-png', '--eval-problems', '16', '--eval-k', '2', '--reference', '--reference-dir', refDir];
    await ablate(args, () => {}, { train: fakeTrain(), evaluate: fakeEval() });
    expect(existsSync(join(reports, 'rejection-small', 'report.json'))).toBe(true);
    expect(existsSync(join(reports, 'rejection', 'report.json'))).toBe(false);
    expect(readFileSync(join(refDir, 'rejection.json'), 'utf8')).toBe(tinyText);
    const ref = JSON.parse(readFileSync(join(refDir, 'rejection-small.json'), 'utf8'));
    expect([ref.name, ref.rung]).toEqual(['rejection-small', 'small']);
    expect(ref.title).toMatch(/\(small rung\)$/);
    const index = JSON.parse(readFileSync(join(refDir, 'index.json'), 'utf8'));
    expect(index.entries[0]).toEqual(tinyEntry);
    expect(index.entries[1]).toMatchObject({ name: 'rejection-small', file: 'rejection-small.json', rung: 'small', presets: ['magic', 'no-rejection'] });
    // REPLICATION.md: rejection has its small-rung report only; every other finding is due at the small rung.
    const repl = join(root, 'REPLICATION.md');
    await ablate(['--replication', '--reports', reports, '--out', repl], () => {});
    const text = readFileSync(repl, 'utf8');
    expect(text).toMatch(/\| \[.*\(small rung\)\]\(#rejection-small\) \| \w[^|]* \| 2 \| 4 steps \|/);
    expect(text).toContain('](reports/rejection-small/report.md)');
    expect(text.match(/not run yet/gi)!.length).toBe((FINDINGS.length - 1) * 2); // the other findings, each in its row and its section
    const lines: string[] = [];
    await ablate(['--replication', '--check', '--reports', reports, '--out', repl], (s) => lines.push(s));
    expect(lines).toContain('rejection-small: 4 runs recomputed');
  });
});
