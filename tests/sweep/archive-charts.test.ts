// The archives under reports/ keep summaries, not charts: `npm run charts` writes every chart their markdown links.
import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { regenerateCharts } from '../../scripts/charts';
import { ensureReportsData } from '../reports-data';

const ROOT = join(__dirname, '../..');
const ARCHIVES = ['reports/recipe-v1/kl', 'reports/recipe-v3/entropy-coef', 'reports/recipe-v4/entropy-control', 'reports/tuning/round-12'];

describe('archived charts', () => {
  it.each(ARCHIVES)('%s: every chart its markdown links is written from its summary', async (dir) => {
    ensureReportsData(); // the summaries are raw data (branch reports-data)
    const out = join(mkdtempSync(join(tmpdir(), 'archive-charts-')), 'd');
    mkdirSync(out);
    for (const f of readdirSync(join(ROOT, dir))) if (/^summary\.json(\.gz)?$/.test(f)) copyFileSync(join(ROOT, dir, f), join(out, f));
    const lines: string[] = [];
    expect(await regenerateCharts([out, join(out, 'missing')], (s) => lines.push(s))).toEqual([out]);
    expect(lines[1]).toMatch(/no summary\.json, skipped$/);
    const md = ['report.md', 'summary.md'].filter((f) => existsSync(join(ROOT, dir, f))).map((f) => readFileSync(join(ROOT, dir, f), 'utf8')).join('\n');
    const linked = [...md.matchAll(/\]\((charts\/[^)]+\.svg)\)/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThan(0);
    for (const c of linked) expect(existsSync(join(out, c)), c).toBe(true);
  });
});
