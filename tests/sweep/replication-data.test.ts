/**
 * Reports whose runs are not here (a checkout without the branch reports-data restored): the
 * replication check fails and says the one command that brings the runs back.
 */
import { copyFileSync, cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablate } from '../../src/cli/ablate';

const ROOT = join(__dirname, '../..');

describe('ablate --replication --check without the runs', () => {
  it('fails naming npm run reports:data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'repl-data-'));
    const reports = join(dir, 'reports');
    // One finding's tracked files only: report.json, sweep.json, markdown; its pool is absent.
    const src = join(ROOT, 'reports/clip-high-small');
    cpSync(src, join(reports, 'clip-high-small'), { recursive: true, filter: (f) => !/\.gz$/.test(f) });
    expect(readdirSync(join(reports, 'clip-high-small'))).toContain('report.json');
    copyFileSync(join(ROOT, 'REPLICATION.md'), join(dir, 'REPLICATION.md'));
    const lines: string[] = [];
    await expect(ablate(['--replication', '--check', '--reports', reports, '--out', join(dir, 'REPLICATION.md')], (s) => lines.push(s))).rejects.toThrow(
      /runs missing: `npm run reports:data` brings them back/,
    );
    expect(lines.some((l) => l.includes('the run is missing or incomplete'))).toBe(true);
  });
});
