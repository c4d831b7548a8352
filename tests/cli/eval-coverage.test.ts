/** `magic-lab eval --json` (the coverage report) and the base-solvability file, on the tiny base. */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { passAtK } from '../../src/rl/metrics';
import type { EvalReport, SolvabilityFile } from '../../src/rl/eval-report';
import { cliRunner } from './harness';

const run = cliRunner(main);
const dir = mkdtempSync(join(tmpdir(), 'eval-coverage-'));
const BASE = ['eval', '--checkpoint', 'public/checkpoints/base-tiny.mlck', '--backend', 'wasm', '--threads', '1'];

/** Mean pass@k of rows, recomputed here from (n, correct) alone. */
const meanPass = (rows: { n: number; correct: number }[], k: number) => rows.reduce((a, r) => a + passAtK(r.n, r.correct, k), 0) / rows.length;

describe('eval --json: the coverage report', () => {
  it('per temperature: pass@k for k = 1, 2, 4, … n, per family, the old metrics, and problems it recomputes from exactly', async () => {
    const file = join(dir, 'cov.json');
    const r = await run(...BASE, '--k', '4', '--problems', '6', '--temperatures', '1,0.6', '--json', file);
    expect(r.code, r.err).toBe(0);
    // The text output keeps its lines and keys.
    expect(r.out).toMatch(/6 test problems × 4 samples/);
    expect(r.out).toMatch(/val\/avg@4\/t1\.0\s+\d/);
    expect(r.out).toMatch(/val\/pass@4\/t0\.6\s+\d/);
    const rep = JSON.parse(readFileSync(file, 'utf8')) as EvalReport;
    expect(rep.schema).toBe('magic-lab-eval/1');
    expect(rep.n).toBe(4);
    expect(Object.keys(rep.temperatures)).toEqual(['1.0', '0.6']);
    for (const [tag, t] of Object.entries(rep.temperatures)) {
      expect(Object.keys(t['pass@k'])).toEqual(['1', '2', '4']);
      expect(t.problems).toHaveLength(6);
      for (const p of t.problems) {
        expect(p).toMatchObject({ n: 4 });
        expect(typeof p.family).toBe('string');
        expect(typeof p.difficulty).toBe('number');
        expect(p.id.startsWith(`${p.family}:`)).toBe(true);
        expect(p.prompt.length).toBeGreaterThan(0);
        expect(p.correct).toBeGreaterThanOrEqual(0);
        expect(p.correct).toBeLessThanOrEqual(4);
      }
      for (const k of [1, 2, 4]) expect(t['pass@k'][String(k)]).toBe(meanPass(t.problems, k));
      // Each family's curve is its own problems'.
      const fams = [...new Set(t.problems.map((p) => p.family))];
      expect(Object.keys(t.families).sort()).toEqual(fams.sort());
      for (const f of fams) {
        const rows = t.problems.filter((p) => p.family === f);
        expect(t.families[f].problems).toBe(rows.length);
        for (const k of [1, 2, 4]) expect(t.families[f]['pass@k'][String(k)]).toBe(meanPass(rows, k));
      }
      // The record's own pass@k and avg@k are the curve's ends.
      expect(t.metrics[`val/pass@4/t${tag}`]).toBeCloseTo(t['pass@k']['4'], 12);
      expect(t.metrics[`val/avg@4/t${tag}`]).toBeCloseTo(t['pass@k']['1'], 12);
      expect(t.difficulties).toBeUndefined(); // one level
      expect(t.classes).toBeUndefined();
    }
  }, 180_000);

  it('--write-solvability measures the base; --solvability splits by class and is refused on another test set', async () => {
    const sol = join(dir, 'base-tiny.solvability.json');
    // The tiny preset's data (level 1), where the tiny base solves some problems (at magic's level 2 it solves none).
    const w = await run(...BASE, '--preset', 'magic-tiny', '--k', '4', '--problems', '6', '--temperatures', '1', '--write-solvability', sol);
    expect(w.code, w.err).toBe(0);
    expect(w.out).toMatch(/solvability at τ = 1, 4 samples: \d+ unsolved, \d+ rare, \d+ often of 6/);
    const s = JSON.parse(readFileSync(sol, 'utf8')) as SolvabilityFile;
    expect(s.schema).toBe('magic-lab-solvability/1');
    expect(s.checkpoint.crc).toMatch(/^crc32:/);
    expect(s.sampling).toMatchObject({ n: 4, temperature: 1, seed: 0 });
    expect(s.testSet.difficulty).toBe(1);
    expect(s.problems.some((p) => p.correct > 0)).toBe(true);
    for (const p of s.problems) expect(p.class).toBe(p.correct === 0 ? 'unsolved' : p.correct === 1 ? 'rare' : 'often');

    const file = join(dir, 'classes.json');
    const r = await run(...BASE, '--preset', 'magic-tiny', '--k', '4', '--problems', '6', '--temperatures', '1', '--solvability', sol, '--json', file);
    expect(r.code, r.err).toBe(0);
    const t = (JSON.parse(readFileSync(file, 'utf8')) as EvalReport).temperatures['1.0'];
    // Same checkpoint, test set and eval seed: the classes are this evaluation's own counts.
    t.problems.forEach((p, i) => {
      expect(p.id).toBe(s.problems[i].id);
      expect(p.class).toBe(s.problems[i].class);
      expect(p.correct).toBe(s.problems[i].correct);
    });
    for (const [c, g] of Object.entries(t.classes!)) {
      const rows = t.problems.filter((p) => p.class === c);
      expect(g!.problems).toBe(rows.length);
      expect(g!['pass@k']['1']).toBe(meanPass(rows, 1));
    }
    const unsolved = t.problems.filter((p) => p.class === 'unsolved');
    if (unsolved.length) expect(t.baseUnsolvedSolved).toBe(0);
    else expect(t.baseUnsolvedSolved).toBeNull(); // NaN in JSON

    // Another test set (another level): one line naming the file and the field, exit 2, nothing written.
    const other = join(dir, 'other.json');
    const bad = await run(...BASE, '--preset', 'magic-tiny', '--difficulty', '2', '--k', '2', '--problems', '2', '--temperatures', '1', '--solvability', sol, '--json', other);
    expect(bad.code).toBe(2);
    expect(bad.errLines).toHaveLength(1);
    expect(bad.err).toMatch(/--solvability: .*base-tiny\.solvability\.json: measured on another test set: testSet\.difficulty is 1, this evaluation's is 2$/);
    expect(existsSync(other)).toBe(false);

    writeFileSync(join(dir, 'junk.json'), '{"schema":"x"}');
    const junk = await run(...BASE, '--k', '2', '--problems', '2', '--solvability', join(dir, 'junk.json'));
    expect(junk.code).toBe(2);
    expect(junk.err).toMatch(/not a solvability file/);
  }, 240_000);

  it('--json into a folder that does not exist: one line, exit 2, before any sampling', async () => {
    const r = await run(...BASE, '--k', '2', '--problems', '2', '--json', join(dir, 'no', 'such', 'f.json'));
    expect(r.code).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(/--json: the folder of .* does not exist/);
  });
});

describe('the shipped solvability file of the small base', () => {
  it('matches the shipped base-small checkpoint and the small rung\'s test set (magic preset, seed 1), problem by problem', async () => {
    const { getPreset, buildRunDataset } = await import('../../src/rl/config');
    const { solvabilityClasses } = await import('../../src/rl/eval-report');
    const { crc32Label } = await import('../../src/model/checkpoint');
    const file = JSON.parse(readFileSync('public/checkpoints/base-small.solvability.json', 'utf8')) as SolvabilityFile;
    expect(file.checkpoint.crc).toBe(crc32Label(new Uint8Array(readFileSync('public/checkpoints/base-small.mlck'))));
    const cfg = getPreset('magic', 'small');
    const test = buildRunDataset(cfg).test;
    expect(file.problems).toHaveLength(test.length);
    const classes = solvabilityClasses(file, { seed: cfg.seed, families: [...cfg.data.families], difficulty: cfg.data.difficulty, testSize: cfg.data.testSize }, test);
    expect(classes).toEqual(file.problems.map((p) => p.class));
    expect(file.sampling).toMatchObject({ n: 64, temperature: 1 });
    for (const p of file.problems) expect(p.class).toBe(p.correct === 0 ? 'unsolved' : p.correct <= 8 ? 'rare' : 'often');
  });
});
