// A checkpoint written before the clean-up (commit 1eebff2) resumes under today's code to the very records the old
// code wrote when it resumed it (tests/cli/fixtures/resume-1eebff2/README.md): refactors keep runs bit for bit.
import { describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { cliRunner } from './harness';

const FIXTURE = join(__dirname, 'fixtures', 'resume-1eebff2');
const run = cliRunner(main);

/** The journal's records without what the clock decides. */
function records(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'time_ms' && !k.startsWith('perf/') && !k.startsWith('timing_s/'))));
}

describe('resume across versions', () => {
  it('a 1eebff2 checkpoint resumes to the same metrics and samples the old code wrote', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'resume-compat-')), 'run');
    cpSync(FIXTURE, dir, { recursive: true });
    const r = await run('train', '--backend', 'wasm', '--steps', '8', '--resume', dir);
    expect(r.code, r.err).toBe(0);
    const all = records(join(dir, 'metrics.jsonl'));
    // Evaluations have logged the samples' mean entropy (val/entropy/t…) since: the old journal has no such key; every other value matches.
    const later = (k: string) => k.startsWith('val/entropy/t');
    // (the records before the checkpoint are the old run's own, kept as they were; those written now have it)
    expect(all.some((x) => x.type === 'eval' && x.step !== 0 && Object.keys(x).some(later))).toBe(true);
    const got = all.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !later(k))));
    const want = records(join(FIXTURE, 'expected-metrics.jsonl'));
    expect(got.filter((x) => x.type === 'step').map((x) => x.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Evaluations now also log the coverage curve (pass@1 … pass@k, and per family): keys the old code did not write, beside
    // every key it did, unchanged. pass@1 is avg@k by definition.
    const coverageKey = /^val\/([a-z]+\/)?pass@\d+\/t/;
    const added = got.map((g, i) => Object.keys(g).filter((k) => !(k in (want[i] ?? {}))));
    for (const keys of added) for (const k of keys) expect(k).toMatch(coverageKey);
    const fresh = got.filter((_, i) => added[i].length);
    expect(fresh.length).toBeGreaterThan(0);
    for (const g of fresh) expect(g['val/pass@1/t1.0']).toBeCloseTo(g['val/avg@2/t1.0'] as number, 12);
    expect(got.map((g, i) => Object.fromEntries(Object.entries(g).filter(([k]) => !added[i].includes(k))))).toEqual(want);
    expect(readFileSync(join(dir, 'samples.jsonl'), 'utf8')).toBe(readFileSync(join(FIXTURE, 'expected-samples.jsonl'), 'utf8'));
  });
});
