/**
 * Reference files in the page: validation (against the real fixture made by `magic-lab sweep …
 * --reference`, and broken copies of it), fetch errors naming the file, and the mapping of
 * reference curve metrics to chart series keys.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { evalKey } from '../../src/rl/metrics';
import { REFERENCE_SCHEMA, checkReferenceName, r4 } from '../../src/sweep/reference-format';
import * as nodeReference from '../../src/sweep/reference';
import { chartSpecs } from '../../src/ui/lib/chartdata';
import {
  ReferenceFileError,
  chartKeyForReferenceMetric,
  fetchReferenceFile,
  fetchReferenceIndex,
  referenceLegend,
  validateReferenceFile,
  validateReferenceIndex,
  verdictText,
  type FetchFn,
} from '../../src/ui/lib/reference';

const FIXTURES = 'e2e/fixtures/reference';
const fixtureText = (file: string) => readFileSync(`${FIXTURES}/${file}`, 'utf8');
const fixture = (file: string) => JSON.parse(fixtureText(file));
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** A fetch that serves the fixture folder under /reference/ (and 404 elsewhere). */
function fixtureFetch(over: Record<string, { status?: number; type?: string; body: string }> = {}): FetchFn {
  return async (url: string) => {
    const file = url.replace(/^.*\/reference\//, '');
    let hit = over[file];
    if (!hit) {
      try {
        hit = { body: fixtureText(file) };
      } catch {
        hit = { status: 404, body: 'not found' };
      }
    }
    const status = hit.status ?? 200;
    return { ok: status < 400, status, headers: new Headers({ 'content-type': hit.type ?? 'application/json' }), text: async () => hit.body };
  };
}

describe('the reference format module', () => {
  it('is the one the CLI writes with (reference.ts re-exports it)', () => {
    expect(nodeReference.REFERENCE_SCHEMA).toBe(REFERENCE_SCHEMA);
    expect(nodeReference.r4).toBe(r4);
    expect(nodeReference.checkReferenceName).toBe(checkReferenceName);
  });
  it('imports nothing from Node', () => {
    const src = readFileSync('src/sweep/reference-format.ts', 'utf8');
    expect(src).not.toMatch(/from ['"](node:|fs|path)/);
    expect(src).not.toMatch(/^import /m);
  });
});

describe('validation', () => {
  const index = fixture('index.json');
  it('accepts the real index and every file it lists', () => {
    const idx = validateReferenceIndex(index);
    expect(idx.entries.length).toBeGreaterThan(0);
    for (const e of idx.entries) {
      const ref = validateReferenceFile(fixture(e.file), `reference/${e.file}`, e);
      expect(ref.name).toBe(e.name);
      expect(Object.keys(ref.presets)).toEqual(e.presets);
      for (const p of Object.values(ref.presets)) {
        expect(p.seeds.length).toBeGreaterThan(0);
        for (const c of Object.values(p.curves)) {
          expect(c.mean).toHaveLength(c.steps.length);
          expect(Object.keys(c.seeds).map(Number)).toEqual(p.seeds);
        }
      }
      if (e.kind === 'finding') {
        expect(ref.claim).toBeTruthy();
        expect(ref.rule).toBeTruthy();
        expect(ref.verdict).toBe(e.verdict);
        expect(ref.checks!.length).toBeGreaterThan(0);
      }
    }
  });

  it('accepts the shipped public/reference/index.json (empty or not) and every file it lists', () => {
    const idx = validateReferenceIndex(JSON.parse(readFileSync('public/reference/index.json', 'utf8')));
    expect(Array.isArray(idx.entries)).toBe(true);
    for (const e of idx.entries) validateReferenceFile(JSON.parse(readFileSync(`public/reference/${e.file}`, 'utf8')), `reference/${e.file}`, e);
  });

  it('names the file and what is wrong', () => {
    const tiny = fixture('tiny-demo.json');
    const bad = (mutate: (x: Record<string, any>) => void) => {
      const x = clone(tiny);
      mutate(x);
      return () => validateReferenceFile(x, 'reference/tiny-demo.json');
    };
    expect(bad((x) => (x.schema = 'magic-lab-reference/0'))).toThrow('reference/tiny-demo.json: schema must be "magic-lab-reference/1", got "magic-lab-reference/0"');
    expect(bad((x) => delete x.presets)).toThrow('reference/tiny-demo.json: presets must be an object, got undefined');
    expect(bad((x) => (x.presets = {}))).toThrow('reference/tiny-demo.json: presets is empty');
    expect(bad((x) => x.presets['magic-tiny'].curves['actor/entropy'].mean.pop())).toThrow(
      'reference/tiny-demo.json: presets.magic-tiny.curves["actor/entropy"].mean has 3 values for 4 steps',
    );
    expect(bad((x) => (x.presets['grpo-tiny'].curves['actor/entropy'].upper[1] = 'high'))).toThrow('presets.grpo-tiny.curves["actor/entropy"].upper[1] must be a number, got "high"');
    expect(bad((x) => (x.presets['magic-tiny'].curves['actor/entropy'].steps = [1, 3, 2, 4]))).toThrow('steps must increase, got 2 after 3');
    expect(bad((x) => (x.kind = 'finding'))).toThrow('reference/tiny-demo.json: claim must be a string, got undefined');
    expect(bad((x) => ((x.kind = 'finding'), (x.claim = 'c'), (x.rule = 'r'), (x.verdict = 'maybe')))).toThrow('verdict must be one of reproduced, contradicted, inconclusive, not-testable, got "maybe"');
    const finding = (x: Record<string, any>) => ((x.kind = 'finding'), (x.claim = 'c'), (x.rule = 'r'), (x.verdict = 'not-testable'), (x.checks = []));
    expect(bad((x) => (finding(x), (x.premises = [{ says: 's', holds: 'no', evidence: 'e' }])))).toThrow('premises[0].holds must be true or false, got "no"');
    expect(bad((x) => (finding(x), (x.premises = [{ says: 's', holds: false }])))).toThrow('premises[0].evidence must be a string, got undefined');
    const e = (() => {
      try {
        bad((x) => (x.title = 3))();
      } catch (err) {
        return err as ReferenceFileError;
      }
    })();
    expect(e).toBeInstanceOf(ReferenceFileError);
    expect(e!.file).toBe('reference/tiny-demo.json');
  });

  it('accepts the fourth verdict, not-testable, with its premises and evidence (and files without premises)', () => {
    const e = validateReferenceIndex(index).entries[0];
    const x = clone(fixture(e.file));
    Object.assign(x, { kind: 'finding', claim: 'c', rule: 'r', verdict: 'not-testable', checks: [{ describe: 'd', estimate: -0.1, lower: -0.2, upper: -0.05, verdict: 'contradicted' }] });
    x.premises = [{ says: 'without the controller entropy collapses', holds: false, evidence: 'entropy-off collapsed in 0 of 5 seeds' }];
    const ref = validateReferenceFile(x, `reference/${e.file}`);
    expect(ref.verdict).toBe('not-testable');
    expect(ref.premises).toEqual([{ says: 'without the controller entropy collapses', holds: false, evidence: 'entropy-off collapsed in 0 of 5 seeds' }]);
    delete x.premises;
    expect(validateReferenceFile(x, `reference/${e.file}`).premises).toBeUndefined();
    const idx = clone(index);
    idx.entries[0].verdict = 'not-testable';
    expect(validateReferenceIndex(idx).entries[0].verdict).toBe('not-testable');
    expect(verdictText('not-testable')).toBe('not testable here');
    expect(verdictText('contradicted')).toBe('contradicted');
  });

  it('checks a file against its index entry', () => {
    const entry = validateReferenceIndex(index).entries.find((e) => e.name === 'tiny-demo')!;
    expect(() => validateReferenceFile(fixture('tiny-demo.json'), 'reference/tiny-demo.json', { ...entry, name: 'other' })).toThrow('name is "tiny-demo" but the index lists this file as "other"');
  });

  it('refuses index entries that point outside the reference folder, or twice at one name', () => {
    const i = clone(index);
    i.entries[0].file = '../checkpoints/base.mlck';
    expect(() => validateReferenceIndex(i)).toThrow('reference/index.json: entries[0].file must be a file name in the reference folder');
    const j = clone(index);
    j.entries.push(clone(j.entries[0]));
    expect(() => validateReferenceIndex(j)).toThrow(`two entries are named "${j.entries[0].name}"`);
    expect(() => validateReferenceIndex({ schema: 'magic-lab-reference-index/1' })).toThrow('reference/index.json: entries must be an array, got undefined');
  });
});

describe('fetching', () => {
  it('reads the index and a file from BASE_URL/reference/', async () => {
    const urls: string[] = [];
    const f = fixtureFetch();
    const spy: FetchFn = (u) => (urls.push(u), f(u));
    const idx = await fetchReferenceIndex(spy, '/lab/');
    const ref = await fetchReferenceFile(idx.entries.find((e) => e.name === 'tiny-demo')!, spy, '/lab/');
    expect(urls).toEqual(['/lab/reference/index.json', '/lab/reference/tiny-demo.json']);
    expect(ref.title).toBe('Sweep: magic-tiny vs grpo-tiny');
  });

  it('a missing, HTML or malformed file is one message naming it', async () => {
    const entry = { name: 'gone', file: 'gone.json', kind: 'sweep' as const, title: 'x', presets: [], seeds: [], steps: null };
    await expect(fetchReferenceFile(entry, fixtureFetch(), '/')).rejects.toThrow('reference/gone.json: not found (HTTP 404)');
    await expect(fetchReferenceIndex(fixtureFetch({ 'index.json': { type: 'text/html', body: '<!doctype html>' } }), '/')).rejects.toThrow(
      'reference/index.json: not found (the server answered with a web page)',
    );
    await expect(fetchReferenceFile({ ...entry, file: 'tiny-demo.json', name: 'tiny-demo' }, fixtureFetch({ 'tiny-demo.json': { body: fixtureText('tiny-demo.json').slice(0, 200) } }), '/')).rejects.toThrow(
      /^reference\/tiny-demo\.json: not valid JSON \(/,
    );
    const down: FetchFn = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(fetchReferenceIndex(down, '/')).rejects.toThrow('reference/index.json: could not be fetched (Failed to fetch)');
  });
});

describe('metric mapping', () => {
  const keys = (preset: string) => chartSpecs(getPreset(preset)).flatMap((s) => s.series.map((x) => x.key));
  it('step metrics map by name', () => {
    const k = keys('magic');
    for (const m of ['actor/entropy', 'actor/entropy_coeff_realized', 'critic/score/mean', 'response_length/mean', 'response_length/clip_ratio']) expect(chartKeyForReferenceMetric(m, k)).toBe(m);
    expect(chartKeyForReferenceMetric('actor/no_such_metric', k)).toBeNull();
  });
  it("held-out avg@k maps to the page's avg@k' at the same temperature, whatever k", () => {
    const k2 = keys('magic-tiny');
    expect(chartKeyForReferenceMetric('val/avg@8/t1.0', k2)).toBe(evalKey('avg', getPreset('magic-tiny').eval.k, 1));
    expect(chartKeyForReferenceMetric('val/avg@8/t0.6', k2)).toBe(evalKey('avg', getPreset('magic-tiny').eval.k, 0.6));
    expect(chartKeyForReferenceMetric('val/avg@8/t0.8', k2)).toBeNull();
    // pass@k depends on k: only the same key.
    expect(chartKeyForReferenceMetric('val/pass@8/t1.0', k2)).toBeNull();
  });
  it('legend text', () => {
    expect(referenceLegend('magic', 5)).toBe('reference: magic (5 seeds)');
    expect(referenceLegend('grpo', 1)).toBe('reference: grpo (1 seed)');
  });
});
