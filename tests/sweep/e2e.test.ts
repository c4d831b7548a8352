/**
 * `magic-lab sweep` for real through main(): two tiny presets × 2 seeds × 2 steps, precise evals
 * on 8 problems × 2 samples, then the same command again (finished: nothing retrained, the same
 * summary). The CPU engine keeps it to seconds.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStoredText } from '../../src/sweep/gz-file';
import { main } from '../../src/cli/main';
import type { Summary } from '../../src/sweep/summary';

describe('magic-lab sweep end to end', () => {
  it('runs magic-tiny and grpo-tiny × 2 seeds, writes the summary and charts, and a re-run skips every run', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sweep-e2e-')), 'sweep');
    const argv = ['sweep', '--presets', 'magic-tiny,grpo-tiny', '--seeds', '2', '--steps', '2', '--eval-problems', '8', '--eval-k', '2', '--backend', 'wasm', '--base', 'public/checkpoints/base-tiny.mlck', '--png', '--out', out];
    const logs: string[] = [];
    const errs: string[] = [];
    const t0 = performance.now();
    const code = await main(argv, (s) => logs.push(s), (s) => errs.push(s));
    expect(code, errs.join('\n')).toBe(0);
    const s = JSON.parse(readStoredText(join(out, 'summary.json'))) as Summary;
    expect(s.complete).toBe(true);
    expect(s.runs.map((r) => [r.preset, r.seed, r.values.steps])).toEqual([
      ['magic-tiny', 101, 2],
      ['magic-tiny', 102, 2],
      ['grpo-tiny', 101, 2],
      ['grpo-tiny', 102, 2],
    ]);
    for (const r of s.runs) {
      for (const id of ['start/avg/t1.0', 'final/avg/t1.0', 'start/avg/t0.6', 'final/avg/t0.6']) {
        expect(r.values[id], `${r.preset} ${r.seed} ${id}`).toBeGreaterThanOrEqual(0);
        expect(r.values[id] * 16, 'a multiple of 1/(8·2)').toBeCloseTo(Math.round(r.values[id] * 16), 9);
        expect(r.se[id]).toBeLessThanOrEqual(Math.sqrt(0.25 / 16) + 1e-12);
      }
      expect(r.values.tokens).toBeGreaterThan(0);
      expect(r.device).toMatch(/CPU engine/);
    }
    // Same seed → same test set, start weights and eval seed: one start evaluation per seed, shared by both presets.
    expect(s.runs[0].values['start/avg/t1.0']).toBe(s.runs[2].values['start/avg/t1.0']);
    expect(s.presets['magic-tiny'].metrics['final/avg/t1.0'].n).toBe(2);
    expect(s.pairs.map((p) => `${p.a}-${p.b}`)).toEqual(['magic-tiny-grpo-tiny']);
    expect(Object.keys(s.curves)).toContain('actor/entropy');
    expect(existsSync(join(out, 'summary.md'))).toBe(true);
    expect(existsSync(join(out, 'charts', 'actor-entropy.svg'))).toBe(true);
    // --png asked for the PNGs beside the SVGs (SVG only by default).
    if (existsSync('/usr/bin/chromium')) expect(existsSync(join(out, 'charts', 'actor-entropy.png'))).toBe(true);
    expect(logs.some((l) => /^\[sweep 4\/4\] grpo-tiny seed 102: 2 steps; avg@2 on 8 problems: τ=1\.0 [\d.]+% \(SE [\d.]+\) → /.test(l))).toBe(true);
    const first = readStoredText(join(out, 'summary.json'));
    console.log(`sweep e2e: ${((performance.now() - t0) / 1000).toFixed(1)} s for 4 runs and 6 evaluations`);

    const again: string[] = [];
    expect(await main(argv, (l) => again.push(l), (l) => errs.push(l)), errs.join('\n')).toBe(0);
    expect(again.filter((l) => / skipped$/.test(l)).length).toBe(4);
    expect(readStoredText(join(out, 'summary.json'))).toBe(first);
  });

  it('two variants at one seed sample the offline filter once: the second run reads the pool\'s cached result', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sweep-filter-'));
    const data = { trainSize: 48, offlineFilter: { enabled: true, samples: 4 } };
    writeFileSync(join(root, 'variants.json'), JSON.stringify({ 'filter-a': { preset: 'magic-tiny', config: { data } }, 'filter-b': { preset: 'magic-tiny', config: { data, update: { lr: 1e-4 } } } }));
    const out = join(root, 'sweep');
    const argv = ['sweep', '--presets', 'filter-a,filter-b', '--variants', join(root, 'variants.json'), '--seeds', '1', '--steps', '1', '--eval-problems', '8', '--eval-k', '1', '--backend', 'wasm', '--base', 'public/checkpoints/base-tiny.mlck', '--out', out];
    const errs: string[] = [];
    expect(await main(argv, () => {}, (s) => errs.push(s)), errs.join('\n')).toBe(0);
    const log = (label: string) => readFileSync(join(out, 'runs', label, 'seed-101', 'train.log'), 'utf8');
    const kept = (text: string) => text.match(/offline filter \(N=4\): (kept .*)$/m)?.[1];
    expect(log('filter-a')).toMatch(/^offline filter: sampling 4 responses for each of 48 prompts$/m);
    expect(log('filter-b')).toMatch(/^offline filter: using the result stored in .*offline-filters$/m);
    expect(log('filter-b')).not.toMatch(/sampling 4 responses/);
    expect(kept(log('filter-b'))).toBeDefined();
    expect(kept(log('filter-b'))).toBe(kept(log('filter-a')));
    expect(readdirSync(join(out, 'runs', 'offline-filters')).length).toBe(1);
  });
});
