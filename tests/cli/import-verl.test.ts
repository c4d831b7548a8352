/** `magic-lab import-verl`: a cluster run's log → a run file the page imports; exit codes and one-line errors. */
import { copyFileSync, existsSync, linkSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cliRunner } from './harness';
import { main } from '../../src/cli/main';
import { getPreset } from '../../src/rl/config';
import { parseRunFile } from '../../src/io/runfile';

const FIX = join(__dirname, '..', 'verl', 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'magic-import-verl-'));

const run = cliRunner(main);

describe('magic-lab import-verl', () => {
  it('writes a run file the page reads: steps, mapped evals, warnings on stderr as file:line', async () => {
    const log = join(FIX, 'verl-console.txt');
    const out = join(dir, 'nested', 'run.jsonl');
    const r = await run('import-verl', log, '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.errLines).toEqual([`${log}:22: "actor/entropy": not a number: "abc"`, `${log}:25: expected key:value, got "critic/score/me"`]);
    expect(r.out).toMatch(/^wrote .*run\.jsonl: "verl-console \(verl console log\)", 6 steps, 3 evaluations \(verl console log\); 2 warnings on stderr/);
    expect(r.out).toContain('val-core/countdown/acc/mean@8 → val/avg@8/t0.6');
    const back = parseRunFile(readFileSync(out, 'utf8'), 'run.jsonl');
    expect(back.steps.map((s) => s['actor/entropy'])).toEqual([0.612, 0.598, 0.571, 0.55, 0.531, 0.515]);
    expect(back.evals.map((e) => e['val/avg@8/t0.6'])).toEqual([0.21, 0.305, 0.352]);
    expect(back.steps[0]['perf/throughput' as never]).toBe(1523.118);
  });

  it('--max-warnings caps the list and counts the rest; --name, --val-temperature and --config apply', async () => {
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify(getPreset('grpo')));
    const out = join(dir, 'named.jsonl');
    const r = await run('import-verl', join(FIX, 'verl-console.txt'), '--out', out, '--max-warnings', '1', '--name', 'cluster 7B', '--val-temperature', '1', '--config', cfg);
    expect(r.code, r.err).toBe(0);
    expect(r.errLines).toHaveLength(2);
    expect(r.errLines[1]).toBe('… and 1 more warning');
    const back = parseRunFile(readFileSync(out, 'utf8'), 'named.jsonl');
    expect(back.name).toBe('cluster 7B');
    expect(back.config).toEqual(getPreset('grpo'));
    expect(back.evals[0]['val/avg@8/t1.0']).toBe(0.21);
  });

  it('merges several files by step (TensorBoard: one CSV per tag)', async () => {
    const clip = join(dir, 'run-r-tag-actor_pg_clipfrac.csv');
    writeFileSync(clip, 'Wall time,Step,Value\n1717236000.5,1,0.02\n1717236035.7,2,0.03\n');
    const out = join(dir, 'tb.jsonl');
    const r = await run('import-verl', join(FIX, 'run-grpo-qwen-7-tag-actor_entropy.csv'), clip, '--out', out);
    expect(r.code, r.err).toBe(0);
    const back = parseRunFile(readFileSync(out, 'utf8'), 'tb.jsonl');
    expect(back.steps[1]['actor/entropy']).toBe(0.688);
    expect(back.steps[1]['actor/pg_clipfrac']).toBe(0.03);
  });

  const noise = join(dir, 'noise.log');
  writeFileSync(noise, 'INFO starting\nnothing here\n');
  const broken = join(dir, 'broken.log');
  writeFileSync(broken, 'step:1 - actor/entropy:x\n');
  const cases: [string, string[], RegExp][] = [
    ['no log named', ['import-verl', '--out', join(dir, 'a.jsonl')], /name the log file/],
    ['no --out', ['import-verl', join(FIX, 'verl-console.txt')], /--out RUNFILE is required/],
    ['an unknown flag', ['import-verl', join(FIX, 'verl-console.txt'), '--out', join(dir, 'b.jsonl'), '--bogus'], /unknown flag --bogus/],
    ['a missing file', ['import-verl', join(dir, 'missing.log'), '--out', join(dir, 'c.jsonl')], /missing\.log: cannot read \(ENOENT\)/],
    ['a file that is no run log', ['import-verl', noise, '--out', join(dir, 'd.jsonl')], /noise\.log: not a run file/],
    ['a log with no usable record', ['import-verl', broken, '--out', join(dir, 'e.jsonl')], /broken\.log: no usable records \(verl console log; 1 malformed line skipped, first: .*broken\.log:1: /],
    ['--out naming an input', ['import-verl', noise, '--out', noise], /--out .*noise\.log: is also an input/],
    ['--out in a place that is a file', ['import-verl', join(FIX, 'verl-console.txt'), '--out', join(noise, 'x.jsonl')], /--out: cannot write .*noise\.log\/x\.jsonl \((ENOTDIR|EEXIST)\)/],
    ['a bad --config', ['import-verl', join(FIX, 'verl-console.txt'), '--out', join(dir, 'f.jsonl'), '--config', noise], /--config: cannot read .*noise\.log \(not valid JSON\)/],
    ['a bad --val-temperature', ['import-verl', join(FIX, 'verl-console.txt'), '--out', join(dir, 'g.jsonl'), '--val-temperature', 'hot'], /--val-temperature: expected a number/],
  ];
  for (const [what, argv, msg] of cases) {
    it(`${what} → exit 2, one line naming it`, async () => {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.errLines).toHaveLength(1);
      expect(r.err).toMatch(/^magic-lab import-verl: /);
      expect(r.err).toMatch(msg);
      expect(r.out).toBe('');
    });
  }

  it('--help lists the flags', async () => {
    const r = await run('import-verl', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--val-temperature/);
  });

  it('an internal failure is exit 1, not a usage error', async () => {
    vi.resetModules();
    vi.doMock('../../src/verl/import', async (orig) => ({
      ...(await orig<typeof import('../../src/verl/import')>()),
      importVerlSources: () => {
        throw new TypeError('boom');
      },
    }));
    try {
      const fresh = (await import('../../src/cli/main')).main;
      const err: string[] = [];
      const code = await fresh(['import-verl', join(FIX, 'verl-console.txt'), '--out', join(dir, 'h.jsonl')], () => {}, (s) => err.push(s));
      expect(code).toBe(1);
      expect(err.join('\n')).toMatch(/TypeError: boom/);
    } finally {
      vi.doUnmock('../../src/verl/import');
      vi.resetModules();
    }
  });
});

describe('import-verl guards (issue #27)', () => {
  const d = mkdtempSync(join(tmpdir(), 'magic-import-guards-'));

  it('--out naming an input by another path (relative vs absolute, symlink, hard link) is refused and the input kept', async () => {
    const input = join(d, 'w.csv');
    copyFileSync(join(FIX, 'wandb.csv'), input);
    const before = readFileSync(input, 'utf8');
    symlinkSync(input, join(d, 'link.csv'));
    linkSync(input, join(d, 'hard.csv'));
    const rel = relative(process.cwd(), input);
    for (const out of [input, join(d, 'link.csv'), join(d, 'hard.csv'), join(d, '.', 'w.csv')]) {
      const r = await run('import-verl', rel, '--out', out);
      expect(r.code, out).toBe(2);
      expect(r.errLines).toHaveLength(1);
      expect(r.err).toMatch(/is the same file as the input|is also an input/);
    }
    expect(readFileSync(input, 'utf8')).toBe(before);
  });

  it('a directory or a device as a log: one line', async () => {
    for (const [f, what] of [[d, 'a directory'], ['/dev/zero', 'a device, pipe or socket']]) {
      const r = await run('import-verl', f, '--out', join(d, 'x.jsonl'));
      expect(r.code).toBe(2);
      expect(r.errLines).toEqual([`magic-lab import-verl: ${f}: is ${what}, not a log file`]);
    }
  });

  it('a file with no line breaks past 64 Mi characters: one line, no run file, nothing held whole', async () => {
    const f = join(d, 'one-line.csv');
    writeFileSync(f, 'Step,actor/entropy\n1,');
    truncateSync(f, 65 * 1024 ** 2);
    const r = await run('import-verl', f, '--out', join(d, 'one-line.jsonl'));
    expect(r.code).toBe(2);
    expect(r.errLines).toEqual([`magic-lab import-verl: ${f}:2: a line of more than 67108864 characters: not a log`]);
    expect(existsSync(join(d, 'one-line.jsonl'))).toBe(false);
  });

  it('a CSV of 130,000 steps imports (Math.min over spread rows used to overflow the stack)', async () => {
    const f = join(d, 'long-run.csv');
    const rows = ['Wall time,Step,Value'];
    for (let i = 1; i <= 130_000; i++) rows.push(`${1717236000 + i},${i},${(i % 97) / 100}`);
    writeFileSync(f, rows.join('\n') + '\n');
    const r = await run('import-verl', f, '--out', join(d, 'long-run.jsonl'), '--tag', 'actor/entropy');
    expect(r.code, r.err.slice(0, 300)).toBe(0);
    expect(r.out).toMatch(/130000 steps/);
  });
});
