/**
 * A sweep over machines: `sweep … --shard i/n` slices, and `sweep merge` gathers the shards into the
 * summary a single-machine sweep writes — byte for byte (magic-tiny and grpo-tiny × 2 seeds × 2 steps
 * on the CPU engine, precise evals on 8 problems × 2 samples, as tests/sweep/e2e.test.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStoredText, storedPath } from '../../src/sweep/gz-file';
import { main } from '../../src/cli/main';
import { parseShard, shardRuns, withOut, withoutShard } from '../../src/sweep/shard';
import { SweepError } from '../../src/sweep/errors';
import { sameStartEval } from '../../src/sweep/shard-merge';
import type { Summary } from '../../src/sweep/summary';

describe('shards of a sweep', () => {
  it('parses i/n and refuses anything else, naming the flag', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3', '-1/2']) expect(() => parseShard(bad), bad).toThrow(SweepError);
    expect(() => parseShard('3/2')).toThrow(/^--shard: /);
  });

  it('slices every grid into n parts that hold each run exactly once, by position', () => {
    for (let size = 0; size <= 12; size++) {
      const grid = Array.from({ length: size }, (_, k) => k);
      for (let n = 1; n <= 5; n++) {
        const parts = Array.from({ length: n }, (_, i) => shardRuns(grid, { index: i + 1, count: n }));
        expect(parts.flat().sort((a, b) => a - b)).toEqual(grid);
        parts.forEach((p, i) => expect(p.every((k) => k % n === i)).toBe(true));
      }
      expect(shardRuns(grid, null)).toEqual(grid);
    }
  });

  it('drops --shard from the command line and puts the merge --out in place of the shard one', () => {
    expect(withoutShard(['--presets', 'a', '--shard', '1/2', '--out', 'x'])).toEqual(['--presets', 'a', '--out', 'x']);
    expect(withoutShard(['--shard=2/2', '--out=x'])).toEqual(['--out=x']);
    expect(withOut(['--presets', 'a', '--out', 'x', '--steps', '2'], 'm')).toEqual(['--presets', 'a', '--out', 'm', '--steps', '2']);
    expect(withOut(['--out=x'], 'm')).toEqual(['--out=m']);
  });
});

describe('magic-lab sweep --shard and sweep merge end to end', () => {
  it('2 shards merged write the very summary.json and summary.md of the whole sweep', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'sweep-shard-'));
    const grid = ['--presets', 'magic-tiny,grpo-tiny', '--seeds', '2', '--steps', '2', '--eval-problems', '8', '--eval-k', '2', '--backend', 'wasm', '--base', 'public/checkpoints/base-tiny.mlck'];
    const errs: string[] = [];
    const cli = async (...argv: string[]) => {
      const logs: string[] = [];
      const code = await main(argv, (s) => logs.push(s), (s) => errs.push(s));
      return { code, logs };
    };
    const merged = join(tmp, 'merged');
    const shard = (i: number) => join(tmp, `shard-${i}`);
    for (const i of [1, 2]) {
      const r = await cli('sweep', ...grid, '--out', shard(i), '--shard', `${i}/2`);
      expect(r.code, errs.join('\n')).toBe(0);
      // Runs 0 and 2 of the grid (magic-tiny and grpo-tiny at seed 101) to shard 1, runs 1 and 3 to shard 2.
      const s = JSON.parse(readStoredText(join(shard(i), 'summary.json'))) as Summary;
      expect(s.runs.map((x) => `${x.preset}/${x.seed}`)).toEqual(i === 1 ? ['magic-tiny/101', 'grpo-tiny/101'] : ['magic-tiny/102', 'grpo-tiny/102']);
    }
    // A shard directory is not continued as another shard, nor as the whole sweep.
    expect((await cli('sweep', ...grid, '--out', shard(1), '--shard', '2/2')).code).toBe(2);
    expect(errs.pop()).toMatch(/--shard: .* holds shard 1\/2, not 2\/2/);
    expect((await cli('sweep', ...grid, '--out', shard(1))).code).toBe(2);
    expect(errs.pop()).toMatch(/holds shard 1\/2 of a sweep/);
    // Merging one shard alone names the one missing.
    expect((await cli('sweep', 'merge', shard(1), '--out', join(tmp, 'half'))).code).toBe(2);
    expect(errs.pop()).toMatch(/shard 2\/2 missing/);

    const m = await cli('sweep', 'merge', shard(2), shard(1), '--out', merged);
    expect(m.code, errs.join('\n')).toBe(0);
    const mergedJson = readStoredText(join(merged, 'summary.json'));
    const mergedMd = readFileSync(join(merged, 'summary.md'), 'utf8');
    const s = JSON.parse(mergedJson) as Summary;
    expect(s.complete).toBe(true);
    expect(s.runs.map((x) => `${x.preset}/${x.seed}`)).toEqual(['magic-tiny/101', 'magic-tiny/102', 'grpo-tiny/101', 'grpo-tiny/102']);
    expect(s.command).toBe(`magic-lab sweep ${[...grid, '--out', merged].join(' ')}`);
    expect(existsSync(join(merged, 'charts', 'actor-entropy.svg'))).toBe(true);

    // The single-machine sweep of the same grid in that directory finds every run done and writes the same bytes.
    for (const f of ['summary.json', 'summary.md']) rmSync(storedPath(join(merged, f))!);
    const whole = await cli('sweep', ...grid, '--out', merged);
    expect(whole.code, errs.join('\n')).toBe(0);
    expect(whole.logs.filter((l) => / skipped$/.test(l)).length).toBe(4);
    expect(readStoredText(join(merged, 'summary.json'))).toBe(mergedJson);
    expect(readFileSync(join(merged, 'summary.md'), 'utf8')).toBe(mergedMd);

    // And one that trains every run itself reaches the same numbers; only the clock's (train time, tokens/s) differ.
    const alone = join(tmp, 'alone');
    expect((await cli('sweep', ...grid, '--out', alone)).code, errs.join('\n')).toBe(0);
    const clockFree = (text: string, out: string) => text.split(out).join('OUT').replace(/"(wall_s|tokens)": \{[^}]*\}|"(wall_s|tokens)": [-\d.e+]+/g, '"$1$2": "clock"');
    expect(clockFree(mergedJson, merged)).toContain('"wall_s": "clock"');
    expect(clockFree(readStoredText(join(alone, 'summary.json')), alone)).toBe(clockFree(mergedJson, merged));
  }, 600_000);
});

describe('sameStartEval: two shards evaluating the same start weights', () => {
  const evalFile = (runs: string, score: number) => JSON.stringify({ key: { seed: 101 }, argv: ['--checkpoint', `${runs}/base.mlck`, '--coverage', `${runs}/start-evals/x.coverage.json`], record: { 'avg@8': score }, problems: 256, k: 8, seed: 101 });
  it('agree when only the eval command (the shard folder in its paths) differs', () => {
    expect(sameStartEval(evalFile('shards/1/runs', 0.25), evalFile('/tmp/elsewhere/shards/2/runs', 0.25))).toBe(true);
  });
  it('differ when the result differs, or a file is not JSON and not the same bytes', () => {
    expect(sameStartEval(evalFile('shards/1/runs', 0.25), evalFile('shards/1/runs', 0.2578125))).toBe(false);
    expect(sameStartEval('not json', 'not json!')).toBe(false);
    expect(sameStartEval('not json', 'not json')).toBe(true);
  });
});
