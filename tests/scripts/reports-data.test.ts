/**
 * The reports' raw data lives on the branch reports-data (scripts/reports-data.sh): the tracked
 * tree holds none of it, and `restore DIR` brings back exactly what the branch holds.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGitCheckout } from '../../scripts/tree-size';
import { reportsDataFiles, reportsDataRev } from '../reports-data';

const ROOT = join(__dirname, '../..');
const RAW = /(\/seed-[^/]+\/|\.gz$|\.xz$)/;
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });

describe.skipIf(!isGitCheckout(ROOT))('reports raw data', () => {
  it('is not tracked: no run folder, .gz or .xz file under reports/', () => {
    const tracked = git('ls-files', '-z', 'reports').toString().split('\0').filter(Boolean);
    expect(tracked.some((f) => f.endsWith('/report.json'))).toBe(true);
    expect(tracked.filter((f) => RAW.test(f))).toEqual([]);
  });

  it('a new raw file under reports/ is ignored, so it cannot slip back into the tree', () => {
    for (const f of ['reports/pool-x/magic/seed-7/config.json', 'reports/x/summary.json.gz', 'reports/x/pool.tar.xz']) {
      expect(() => git('check-ignore', '-q', '--no-index', f), f).not.toThrow();
    }
    for (const f of ['reports/x/report.json', 'reports/x/report.md', 'reports/x/summary.md', 'reports/x/charts/a.svg']) {
      expect(() => git('check-ignore', '-q', '--no-index', f), f).toThrow();
    }
  });

  it('restore DIR writes every file the branch holds, byte for byte', () => {
    const files = reportsDataFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.every((f) => f.startsWith('reports/') && RAW.test(f))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'reports-data-'));
    try {
      execFileSync('sh', ['scripts/reports-data.sh', 'restore', dir], { cwd: ROOT, stdio: 'pipe' });
      for (const f of files) expect(existsSync(join(dir, f)), f).toBe(true);
      const probe = files.find((f) => f.endsWith('metrics.jsonl.gz'))!;
      expect(readFileSync(join(dir, probe)).equals(git('show', `${reportsDataRev()}:${probe}`))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
