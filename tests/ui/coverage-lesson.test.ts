/** The coverage lesson's pure helpers (src/ui/lib/coverage-lesson.ts): live curves, chart scales, the computed sentence. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { armBand, armCurve, coverageChart, coverageStatement, fetchCoverageReference, groupLabel, liveCurves, provenanceText } from '../../src/ui/lib/coverage-lesson';
import { coverageRecord } from '../../src/rl/coverage';
import { COVERAGE_REFERENCE_SCHEMA, type CoverageGroupCurves, type CoverageReference } from '../../src/sweep/coverage-reference';

const curve = (vals: number[], n = 1) => Object.fromEntries(vals.map((v, i) => [String(2 ** i), { n, mean: v, lower: n > 1 ? v - 0.05 : null, upper: n > 1 ? v + 0.05 : null }]));
const group = (id: string, kind: CoverageGroupCurves['kind'], base: number[], twin: number[], magic: number[], n = 1): CoverageGroupCurves => ({
  id,
  kind,
  problems: 10,
  curves: { base: curve(base, n), 'entropy-off': curve(twin, n), magic: curve(magic, n) },
});
const ref = (groups: CoverageGroupCurves[], seeds = [201], kind: CoverageReference['kind'] = 'tuning'): CoverageReference => ({
  schema: COVERAGE_REFERENCE_SCHEMA,
  kind,
  source: 'reports/x',
  note: 'regime A',
  rung: 'small',
  temperature: 1,
  samples: 8,
  seeds,
  groups,
});

describe('the live run\'s curves', () => {
  it('reads the pass@k curve the trainer logs at each evaluation, overall and per family, at the lesson\'s temperature', () => {
    const rows = (cs: number[]) => cs.map((c, i) => ({ family: i % 2 ? 'sort' : 'multiply', difficulty: 1, n: 4, correct: c }));
    const evals: Record<string, number>[] = [
      { step: 20, ...coverageRecord(rows([1, 4, 0, 2]), 1), ...coverageRecord(rows([0, 0, 0, 0]), 0.6) },
      { step: 0, ...coverageRecord(rows([0, 2, 0, 1]), 1) },
      { step: 10, 'val/avg@4/t1.0': 0.5 }, // an evaluation without the curve's keys (an older run): left out
    ];
    const all = liveCurves(evals, { id: 'all', kind: 'all' }, 1);
    expect(all.map((c) => c.step)).toEqual([0, 20]);
    expect(all[1].points.map((p) => p[0])).toEqual([1, 2, 4]);
    expect(all[1].points[0][1]).toBeCloseTo(7 / 16, 12);
    expect(all[1].points[2][1]).toBe(0.75);
    const sort = liveCurves(evals, { id: 'sort', kind: 'family' }, 1);
    expect(sort[1].points.map((p) => p[1])).toEqual([0.75, expect.closeTo(5 / 6 * 0.5 + 0.5, 12), 1]);
    expect(liveCurves(evals, { id: 'all', kind: 'all' }, 0.6).map((c) => c.step)).toEqual([20]);
    expect(liveCurves(evals, { id: 'unsolved', kind: 'class' }, 1)).toEqual([]);
  });
});

describe('the chart', () => {
  it('puts k on a log2 axis from 1 to the power of two at or above the largest k, pass@k 0–100% up', () => {
    const c = coverageChart(64, { width: 100, height: 100, left: 10, right: 10, top: 0, bottom: 0 });
    expect(c.xTicks.map((t) => t.k)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(c.x(1)).toBe(10);
    expect(c.x(64)).toBe(90);
    expect(c.x(8) - c.x(4)).toBeCloseTo(c.x(4) - c.x(2), 12);
    expect([c.y(1), c.y(0)]).toEqual([0, 100]);
    expect(coverageChart(48).kMax).toBe(64);
    expect(c.path([[1, 0.5], [64, 1]])).toBe('M10,50L90,0');
    expect(c.bandPath([[1, 0.4, 0.6], [2, 0.5, 0.7]])).toMatch(/^M10,40L.*Z$/);
    expect(c.bandPath([[1, 0.4, 0.6]])).toBe('');
  });

  it('an arm\'s curve and band come from the file; one seed has no band', () => {
    const g = group('all', 'all', [0.1, 0.2], [0.3, 0.4], [0.25, 0.45], 3);
    expect(armCurve(g, 'magic')).toEqual([[1, 0.25], [2, 0.45]]);
    expect(armBand(g, 'magic')).toEqual([[1, 0.2, 0.3], [2, 0.4, expect.closeTo(0.5, 12)]]);
    expect(armBand(group('all', 'all', [0.1], [0.2], [0.3]), 'magic')).toEqual([]);
    expect(groupLabel({ id: 'unsolved', kind: 'class', problems: 73 })).toBe('base unsolved (73)');
  });
});

describe('the sentence', () => {
  it('states MAGIC against the twin at k = 1 and the largest k with the seeds and problems, where they cross, and the base', () => {
    // Cross between k = 2 and k = 8 (level at k = 4): a level point is on no side.
    const g = group('all', 'all', [0.1, 0.3, 0.5, 0.9], [0.4, 0.5, 0.6, 0.7], [0.3, 0.45, 0.6, 0.8]);
    const s = coverageStatement(ref([g]), g)!;
    expect(s.k1).toEqual({ k: 1, magic: 0.3, twin: 0.4, base: 0.1 });
    expect(s.kMax).toEqual({ k: 8, magic: 0.8, twin: 0.7, base: 0.9 });
    expect(s.crossings).toEqual([{ from: 2, to: 8 }]);
    expect(s.text).toBe(
      'On all test problems, 10 problems × 8 samples from 1 seed: at k = 1, MAGIC 30.0%, the twin 40.0% (MAGIC −10.0 points); at k = 8, MAGIC 80.0%, the twin 70.0% (MAGIC +10.0 points). ' +
        'The curves cross between k = 2 and k = 8. The base, before training, reaches 90.0% at k = 8: above both trained policies.',
    );
  });

  it('no crossing: above or below at every k; the base between or below; the gap is the shown percentages\'', () => {
    const above = group('multiply', 'family', [0.1, 0.15], [0.1, 0.2], [0.30004, 0.30006], 5);
    const s = coverageStatement(ref([above]), above)!;
    expect(s.crossings).toEqual([]);
    expect(s.seeds).toBe(5);
    expect(s.text).toContain('On multiply, 10 problems × 8 samples from 5 seeds');
    expect(s.text).toContain("MAGIC's curve is above or level with the twin's at every k from 1 to 2.");
    expect(s.text).toContain('below both trained policies');
    const below = group('sort', 'family', [0.5, 0.65], [0.5, 0.7], [0.4, 0.6]);
    expect(coverageStatement(ref([below]), below)!.text).toContain("below or level with the twin's at every k from 1 to 2. The base, before training, reaches 65.0% at k = 2: between the two trained policies.");
    // 0.12345 vs 0.12355 show as 12.3% and 12.4%: the gap said is −0.1 (the shown values'), not the unrounded −0.0.
    const near = group('all', 'all', [0.1], [0.12355], [0.12345]);
    expect(coverageStatement(ref([near]), near)!.text).toContain('MAGIC 12.3%, the twin 12.4% (MAGIC −0.1 points)');
  });

  it('a base class says what its definition fixes; an arm without the group: no sentence', () => {
    const un = group('unsolved', 'class', [0, 0], [0.01, 0.02], [0.02, 0.05]);
    expect(coverageStatement(ref([un]), un)!.text).toMatch(/^On the problems the base never solved \(class unsolved\).*The base's curve here is 0 by the class's definition/);
    const partial = { ...un, curves: { base: un.curves.base } };
    expect(coverageStatement(ref([partial]), partial)).toBeNull();
  });

  it('the provenance line takes the seeds and their kind from the file', () => {
    const g = group('all', 'all', [0.1], [0.2], [0.3]);
    expect(provenanceText(ref([g]))).toMatch(/^Reference runs from 1 tuning seed \(201\) — runs that choose the regime, not the finding's evidence; one seed is an anecdote/);
    expect(provenanceText(ref([g], [101, 102, 103, 104, 105], 'reported'))).toMatch(/^Reference runs from 5 seeds \(101, 102, 103, 104, 105\); the shaded bands are 95% intervals over seeds\. Rung small, τ = 1, 8 samples per test problem; regime A \(reports\/x\)\.$/);
  });

  it('on the shipped file every group has a sentence whose numbers are its curves\'', () => {
    const shipped = JSON.parse(readFileSync('public/reference/coverage/small.json', 'utf8')) as CoverageReference;
    for (const g of shipped.groups) {
      const s = coverageStatement(shipped, g)!;
      expect(s.k1.magic).toBe(g.curves.magic!['1'].mean);
      expect(s.kMax.k).toBe(shipped.samples);
      expect(s.text).toContain(`at k = ${shipped.samples}, MAGIC ${(g.curves.magic![String(shipped.samples)].mean * 100).toFixed(1)}%`);
    }
  });
});

describe('fetching the file', () => {
  const res = (status: number, body: string, type = 'application/json') => ({ ok: status === 200, status, headers: new Headers({ 'content-type': type }), text: async () => body });
  it('validates what it fetched; a missing or malformed file is one message naming the file', async () => {
    const text = readFileSync('public/reference/coverage/small.json', 'utf8');
    const urls: string[] = [];
    const got = await fetchCoverageReference('small', async (u) => (urls.push(u), res(200, text)), '/lab/');
    expect(urls).toEqual(['/lab/reference/coverage/small.json']);
    expect(got.rung).toBe('small');
    await expect(fetchCoverageReference('medium', async () => res(404, ''), '/')).rejects.toThrow('reference/coverage/medium.json: not found (HTTP 404)');
    await expect(fetchCoverageReference('small', async () => res(200, '<html>', 'text/html'), '/')).rejects.toThrow(/coverage\/small\.json: not found \(the server answered with a web page\)/);
    await expect(fetchCoverageReference('small', async () => res(200, '{"schema":"x"}'), '/')).rejects.toThrow(/^reference\/coverage\/small\.json: schema: expected/);
  });
});
