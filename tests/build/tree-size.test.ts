/**
 * The tracked tree stays under its budget (24 MiB): a GPU machine run carries the working tree plus
 * the device bundle, 64 MiB in all. Over budget, the failure names the biggest folders and files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderSizes, isGitCheckout, trackedFiles, TREE_BUDGET_BYTES, treeSizeReport } from '../../scripts/tree-size';

const ROOT = join(__dirname, '../..');
const MiB = 1024 * 1024;

describe('tree size report', () => {
  const files = [
    { path: 'reports/pool/a.gz', bytes: 10 * MiB },
    { path: 'reports/pool/b.gz', bytes: 9 * MiB },
    { path: 'public/checkpoints/base.mlck', bytes: 6 * MiB },
    { path: 'README.md', bytes: 1000 },
  ];

  it('over budget: says by how much and names the biggest folders and files, largest first', () => {
    const r = treeSizeReport(files, 24 * MiB, 2);
    expect(r.over).toBe(true);
    expect(r.total).toBe(25 * MiB + 1000);
    const lines = r.text.split('\n');
    expect(lines[0]).toMatch(/^tracked tree 25\.00 MiB \(\d+ bytes\) of a 24\.00 MiB budget: 1\.00 MiB over$/);
    expect(lines.slice(1)).toEqual([
      'biggest folders:',
      '   19.00 MiB  reports/pool/',
      '    6.00 MiB  public/checkpoints/',
      'biggest files:',
      '   10.00 MiB  reports/pool/a.gz',
      '    9.00 MiB  reports/pool/b.gz',
    ]);
  });

  it('at the budget exactly it is not over', () => {
    expect(treeSizeReport([{ path: 'x', bytes: 24 * MiB }], 24 * MiB).over).toBe(false);
    expect(treeSizeReport([{ path: 'x', bytes: 24 * MiB + 1 }], 24 * MiB).over).toBe(true);
  });

  it('folders sum at the given depth; top-level files stand alone', () => {
    expect(folderSizes(files, 1).map((f) => [f.path, f.bytes])).toEqual([
      ['reports/', 19 * MiB],
      ['public/', 6 * MiB],
      ['README.md', 1000],
    ]);
  });
});

// A `git archive` copy has no index: there is nothing "tracked" to measure there.
describe.skipIf(!isGitCheckout(ROOT))('the tracked tree', () => {
  it('is within 24 MiB', () => {
    const files = trackedFiles(ROOT);
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.path === 'package.json' && f.bytes > 0)).toBe(true);
    const r = treeSizeReport(files);
    expect(TREE_BUDGET_BYTES).toBe(24 * MiB);
    expect(r.over, r.text).toBe(false);
  });
});

// Screenshots (visual baselines, the README's) are 256-colour palette PNGs: a third of the size of
// full colour, and no pixel differs beyond Playwright's threshold (scripts/shrink-png.sh checks that).
describe.skipIf(!isGitCheckout(ROOT))('tracked screenshots', () => {
  it('are palette PNGs (run sh scripts/shrink-png.sh FILE… after updating one)', () => {
    const pngs = trackedFiles(ROOT).filter((f) => /^(e2e\/__screenshots__\/|docs\/).*\.png$/.test(f.path));
    expect(pngs.length).toBeGreaterThan(5);
    // PNG: 8-byte signature, then IHDR (length, "IHDR", width, height, bit depth, colour type at byte 25; 3 = palette).
    const fullColour = pngs.filter((f) => readFileSync(join(ROOT, f.path))[25] !== 3).map((f) => f.path);
    expect(fullColour).toEqual([]);
  });
});
