/** The coverage reference file (src/sweep/coverage-reference.ts) and its script (scripts/coverage-reference.ts), on synthetic evaluations. */
import { describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCoverageReference, validateCoverageReference, COVERAGE_REFERENCE_SCHEMA, type CoverageEvalInput } from '../../src/sweep/coverage-reference';
import { passAtK } from '../../src/rl/metrics';
import { tInterval } from '../../src/sweep/stats';
import { main } from '../../scripts/coverage-reference';
import { ablate } from '../../src/cli/ablate';
import { fakeEval, fakeTrain } from './fakes';

const n = 8;
const rows = (seed: number, cs: number[]) => cs.map((c, i) => ({ id: `${i % 2 ? 'sort' : 'multiply'}:${seed}-${i}`, n, correct: c }));
const mean = (cs: number[], k: number) => cs.reduce((a, c) => a + passAtK(n, c, k), 0) / cs.length;
// Two seeds; the base's counts set the classes: 0 unsolved, 1 rare (⌊8/8⌋ = 1), more often.
const base = { 1: [0, 1, 5, 0], 2: [3, 0, 8, 1] } as const;
const magic = { 1: [2, 1, 8, 0], 2: [4, 1, 8, 3] } as const;
const twin = { 1: [0, 3, 8, 0], 2: [5, 0, 8, 0] } as const;
const evals: CoverageEvalInput[] = [1, 2].flatMap((s) => [
  { arm: 'base' as const, seed: s, rows: rows(s, [...base[s as 1 | 2]]) },
  { arm: 'magic' as const, seed: s, rows: rows(s, [...magic[s as 1 | 2]]) },
  { arm: 'entropy-off' as const, seed: s, rows: [...rows(s, [...twin[s as 1 | 2]])].reverse() },
]);
const opts = { kind: 'tuning' as const, source: 'x', note: 'synthetic', rung: 'small', temperature: 1 };

describe('the coverage reference file', () => {
  const ref = buildCoverageReference({ evals, ...opts });
  const group = (id: string) => ref.groups.find((g) => g.id === id)!;

  it('holds each arm\'s curve overall, per family and per base class, a band over the seeds', () => {
    expect(ref.schema).toBe(COVERAGE_REFERENCE_SCHEMA);
    expect(ref.seeds).toEqual([1, 2]);
    expect(ref.samples).toBe(8);
    expect(ref.groups.map((g) => [g.id, g.kind, g.problems])).toEqual([
      ['all', 'all', 8],
      ['multiply', 'family', 4],
      ['sort', 'family', 4],
      ['unsolved', 'class', 3],
      ['rare', 'class', 2],
      ['often', 'class', 3],
    ]);
    for (const k of [1, 2, 4, 8]) {
      const per = [mean([...magic[1]], k), mean([...magic[2]], k)];
      const iv = tInterval(per);
      const p = group('all').curves.magic![String(k)];
      expect(p.n).toBe(2);
      expect(p.mean).toBeCloseTo(iv.mean, 6);
      expect(p.lower!).toBeCloseTo(iv.lower, 6);
      expect(p.upper!).toBeCloseTo(iv.upper, 6);
    }
    // multiply = the even positions; the twin's rows came reversed (the join is by identity).
    expect(group('multiply').curves['entropy-off']!['2'].mean).toBeCloseTo((mean([0, 8], 2) + mean([5, 8], 2)) / 2, 6);
    // unsolved: seed 1's positions 0 and 3, seed 2's position 1. The base's own curve there is 0.
    expect(group('unsolved').curves.magic!['8'].mean).toBeCloseTo((mean([2, 0], 8) + mean([1], 8)) / 2, 6);
    expect(Object.values(group('unsolved').curves.base!).map((p) => p.mean)).toEqual([0, 0, 0, 0]);
    // rare: seed 1's position 1, seed 2's position 3.
    expect(group('rare').curves['entropy-off']!['1'].mean).toBeCloseTo((3 / 8 + 0) / 2, 6);
    expect(validateCoverageReference(JSON.parse(JSON.stringify(ref)), 'f')).toEqual(ref);
  });

  it('one seed: means, no interval (null), n = 1', () => {
    const one = buildCoverageReference({ evals: evals.filter((e) => e.seed === 1), ...opts });
    expect(one.groups[0].curves.magic!['1']).toEqual({ n: 1, mean: mean([...magic[1]], 1), lower: null, upper: null });
  });

  it('refuses an arm without evaluations, a seed without its base, and an arm on other problems', () => {
    expect(() => buildCoverageReference({ evals: evals.filter((e) => e.arm !== 'magic'), ...opts })).toThrow(/no evaluation of magic/);
    expect(() => buildCoverageReference({ evals: evals.filter((e) => !(e.arm === 'base' && e.seed === 2)), ...opts })).toThrow(/seed 2, which has no base evaluation/);
    const other = evals.map((e) => (e.arm === 'magic' && e.seed === 2 ? { ...e, rows: rows(3, [1, 1, 1, 1]) } : e));
    expect(() => buildCoverageReference({ evals: other, ...opts })).toThrow(/magic evaluation of seed 2 is not on its base's test problems \(multiply:3-0 is not among them\)/);
  });

  it('the validator names the field of a malformed file', () => {
    const bad = (f: (x: any) => void) => {
      const x = JSON.parse(JSON.stringify(ref));
      f(x);
      return () => validateCoverageReference(x, 'coverage-small.json');
    };
    expect(bad((x) => (x.schema = 'v0'))).toThrow(/^coverage-small\.json: schema: expected "magic-lab-coverage-reference\/1"/);
    expect(bad((x) => (x.seeds = []))).toThrow(/seeds: expected a non-empty list/);
    expect(bad((x) => (x.groups[1].curves.magic['2'].mean = 1.5))).toThrow(/groups\[1\]\.curves\.magic\["2"\]\.mean: expected a share in \[0, 1\]/);
    expect(bad((x) => (x.groups[0].curves.magic['16'] = x.groups[0].curves.magic['8']))).toThrow(/groups\[0\]\.curves\.magic\["16"\]: k must be an integer from 1 to samples \(8\)/);
    expect(bad((x) => delete x.groups[2].curves.base)).toThrow(/groups\[2\]\.curves\.base: missing/);
    expect(bad((x) => (x.groups[3].id = 'hard'))).toThrow(/groups\[3\]\.id: a class group is one of unsolved, rare, often/);
    expect(bad((x) => (x.groups = x.groups.slice(1)))).toThrow(/groups: no group "all"/);
  });

  it('the shipped file is valid, and says whose seeds it holds', () => {
    const file = 'public/reference/coverage/small.json';
    const shipped = validateCoverageReference(JSON.parse(readFileSync(file, 'utf8')), file);
    expect(shipped.kind).toBe(shipped.seeds.every((s) => s >= 201) ? 'tuning' : 'reported');
    const all = shipped.groups.find((g) => g.id === 'all')!;
    for (const arm of ['base', 'entropy-off', 'magic'] as const) expect(Object.keys(all.curves[arm]!).map(Number).at(-1)).toBe(shipped.samples);
    expect(readFileSync(file).length).toBeLessThan(32 * 1024);
  });
});

describe('scripts/coverage-reference.ts', () => {
  const report = (rs: CoverageEvalInput['rows']) => ({ schema: 'magic-lab-eval/1', n, temperatures: { '1.0': { problems: rs.map((r) => ({ ...r, family: r.id.split(':')[0], difficulty: 3, prompt: '' })) } } });
  it('writes the file from named eval --json reports (gzipped or not); the kind follows the seeds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'covref-'));
    const args: string[] = [];
    for (const e of evals) {
      const f = join(dir, `${e.arm}-${e.seed}.json${e.arm === 'magic' ? '.gz' : ''}`);
      const text = JSON.stringify(report(e.rows));
      writeFileSync(f, e.arm === 'magic' ? gzipSync(text) : text);
      args.push('--eval', `${e.arm}:${e.seed + 200}:${f}`);
    }
    const out = join(dir, 'out.json');
    const lines: string[] = [];
    expect(main([...args, '--rung', 'small', '--note', 'synthetic', '--out', out], (s) => lines.push(s))).toBe(0);
    const got = validateCoverageReference(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(got.kind).toBe('tuning');
    expect(got.seeds).toEqual([201, 202]);
    expect(got.source).toBe(dir);
    expect(got.groups).toEqual(buildCoverageReference({ evals, ...opts }).groups);
    expect(lines[0]).toMatch(/tuning seeds 201, 202, 8 samples per problem/);
  });

  it('from a finding\'s sweep folder: each seed\'s start evaluation is the base, the finals are the arms (the summary\'s curves)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'covref-sweep-'));
    const reports = join(root, 'reports');
    await ablate(['coverage', '--rung', 'small', '--seeds', '2', '--steps', '4', '--reports', reports, '--no-png', '--eval-problems', '16'], () => {}, { train: fakeTrain(), evaluate: fakeEval({ coverage: true }) });
    const out = join(root, 'coverage.json');
    expect(main(['--sweep', join(reports, 'coverage-small'), '--note', 'fake runs', '--out', out], () => {})).toBe(0);
    const got = validateCoverageReference(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(got.kind).toBe('reported');
    expect(got.seeds).toEqual([101, 102]);
    expect(got.samples).toBe(64);
    const report = JSON.parse(readFileSync(join(reports, 'coverage-small', 'report.json'), 'utf8'));
    const all = got.groups.find((g) => g.id === 'all')!;
    for (const k of ['1', '64']) {
      expect(all.curves.magic![k].mean).toBeCloseTo(report.coverage.magic.final['1.0'].all[k].mean, 6);
      expect(all.curves['entropy-off']![k].mean).toBeCloseTo(report.coverage['entropy-off'].final['1.0'].all[k].mean, 6);
      expect(all.curves.base![k].mean).toBeCloseTo(report.coverage.magic.start['1.0'].all[k].mean, 6);
    }
    expect(all.problems).toBe(2 * 16);
  });

  it('a mistake is one line and exit 2', () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(main(['--rung', 'small', '--note', 'x'])).toBe(2);
    expect(main(['--eval', 'magic:1:/nope.json', '--rung', 'small', '--note', 'x'])).toBe(2);
    expect(main(['--eval', 'grpo:1:/nope.json', '--note', 'x'])).toBe(2);
    expect(err.mock.calls.map((c) => c[0])).toEqual([
      'coverage-reference: give either --sweep DIR or --eval ARM:SEED:FILE (one per arm and seed)',
      'coverage-reference: --eval: /nope.json does not exist (npm run reports:data restores committed evaluations)',
      expect.stringMatching(/^coverage-reference: --eval: expected ARM:SEED:FILE with ARM one of base, entropy-off, magic/),
    ]);
    err.mockRestore();
  });
});
