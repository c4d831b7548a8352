/**
 * The sweep runner with fake train/eval: layout, cached start evaluations, resume after a kill
 * mid-run and mid-evaluation (same summary.json byte for byte), skipping finished runs, and the
 * refusal of a directory made by another sweep config.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStoredText } from '../../src/sweep/gz-file';
import { UsageError } from '../../src/cli/args';
import { ablate } from '../../src/cli/ablate';
import { main } from '../../src/cli/main';
import { sweep } from '../../src/cli/sweep';
import { lock } from '../../src/sweep/pool-files';
import { formatDuration, planSweep, progressText, trainArgs, type SweepOptions } from '../../src/sweep/runner';
import type { Summary } from '../../src/sweep/summary';
import { fakeEval, fakeTrain } from './fakes';
import { COVERAGE_CHECK_METRICS, COVERAGE_REGIME } from '../../src/sweep/coverage';

const BASE = 'public/checkpoints/base-tiny.mlck';
const args = (out: string, ...extra: string[]) => [
  '--presets',
  'magic-tiny,grpo-tiny',
  '--seeds',
  '3',
  '--seed-base',
  '1',
  '--eval-problems',
  '8',
  '--eval-k',
  '2',
  '--base',
  BASE,
  '--no-png',
  '--out',
  out,
  ...extra,
];

function quietLog() {
  const lines: string[] = [];
  return { lines, log: (s: string) => lines.push(s) };
}

describe('sweep runner (fake train and eval)', () => {
  it('runs presets × seeds in their own directories, evaluates start and final, caches the start evaluation', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-fake-'));
    const trainCalls: string[][] = [];
    const evalCalls: string[][] = [];
    const { lines, log } = quietLog();
    const s = await sweep(args(out), log, { train: fakeTrain({ calls: trainCalls }), evaluate: fakeEval({ calls: evalCalls }) });
    expect(s.complete).toBe(true);
    expect(s.runs.map((r) => `${r.preset}/${r.seed}`)).toEqual(['magic-tiny/1', 'magic-tiny/2', 'magic-tiny/3', 'grpo-tiny/1', 'grpo-tiny/2', 'grpo-tiny/3']);
    for (const r of s.runs) {
      const dir = join(out, 'runs', r.preset, `seed-${r.seed}`);
      // A finished run's metrics are kept gzipped (src/sweep/gz-file.ts).
      for (const f of ['sweep-run.json', 'config.json', 'metrics.jsonl.gz', 'checkpoint.mlck', 'train-done.json', 'train.log', `eval-final-8x2-s${r.seed}.json`]) expect(existsSync(join(dir, f)), f).toBe(true);
    }
    // train: --preset --seed --out --base (no --quiet: the sweep reads its step lines for the progress line).
    expect(trainCalls[0]).toEqual(['--preset', 'magic-tiny', '--seed', '1', '--out', join(out, 'runs', 'magic-tiny', 'seed-1'), '--base', BASE, '--filter-cache', join(out, 'runs', 'offline-filters')]);
    // 6 final evals + 3 start evals: magic-tiny and grpo-tiny share the data config, so seed S's start evaluation is cached.
    expect(evalCalls.length).toBe(9);
    expect(evalCalls.filter((a) => a[1].endsWith('.mlck') && a[1].includes('start-evals')).length).toBe(3);
    const finalOf = evalCalls.find((a) => a[1] === join(out, 'runs', 'grpo-tiny', 'seed-2', 'checkpoint.mlck'))!;
    // --json: the coverage report beside the evaluation's file (the fake eval writes none: no coverage metrics).
    expect(finalOf).toEqual(['--checkpoint', finalOf[1], '--json', join(out, 'runs', 'grpo-tiny', 'seed-2', 'eval-final-8x2-s2.coverage.json'), '--problems', '8', '--k', '2', '--temperatures', '1,0.6', '--seed', '2']);
    expect(s.runs[0].values['final/pass@1/t1.0']).toBeUndefined();
    expect(Object.keys(s.presets['magic-tiny'].metrics)).not.toContain('final/pass@n/t1.0');
    expect('coverage' in s).toBe(false);
    // The synthetic start checkpoint is removed after its evaluation; the result stays.
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/magic-tiny \| 1 \| 4 \| \d+\.\d ± \d+\.\d/);
    expect(s.runs[0].values['start/avg/t1.0']).toBe(s.runs[3].values['start/avg/t1.0']); // same seed, same start
    expect(lines.some((l) => /^\[sweep 6\/6\] grpo-tiny seed 3: 4 steps; avg@2 on 8 problems: τ=1.0 .*% \(SE .*\) → .*gain/.test(l))).toBe(true);
    expect(existsSync(join(out, 'charts', 'actor-entropy.svg'))).toBe(true);
    expect(existsSync(join(out, 'charts', 'val-avg-2-t1.0.svg'))).toBe(true);
  });

  it('with coverage reports (eval --json), runs and summaries carry the coverage metrics, kept gzipped', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-coverage-'));
    const s = await sweep(args(out), () => {}, { train: fakeTrain(), evaluate: fakeEval({ coverage: true }) });
    const dir = join(out, 'runs', 'grpo-tiny', 'seed-2');
    expect(existsSync(join(dir, 'eval-final-8x2-s2.coverage.json.gz'))).toBe(true);
    for (const r of s.runs) {
      for (const id of ['start/pass@1/t1.0', 'final/pass@1/t1.0', 'final/pass@n/t0.6']) expect(r.values[id], id).toBeGreaterThanOrEqual(0);
      expect(r.values['final/pass@16/t1.0']).toBeNaN(); // k = 2 < 16
    }
    expect(s.presets['magic-tiny'].metrics['final/pass@n/t1.0'].n).toBe(3);
    expect(s.pairs[0].metrics['final/pass@1/t1.0'].n).toBe(3);
    // The summary's mean curves per preset (start = the base's reference), overall and per family.
    const c = s.coverage!['magic-tiny'];
    expect(Object.keys(c.final['1.0'].all)).toEqual(['1', '2']);
    expect(Object.keys(c.final['1.0'].families)).toEqual(['sort']);
    expect(c.start['0.6'].all['2'].n).toBe(3);
    const runs = s.runs.filter((r) => r.preset === 'magic-tiny');
    expect(c.final['1.0'].all['1'].mean).toBeCloseTo(runs.reduce((a, r) => a + r.values['final/pass@1/t1.0'], 0) / runs.length, 12);
    expect(c.final['0.6'].all['2'].mean).toBeCloseTo(runs.reduce((a, r) => a + r.values['final/pass@n/t0.6'], 0) / runs.length, 12);
  });

  it('a sweep killed mid-run and mid-evaluation, then continued, writes the same summary.json as one never stopped', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sweep-resume-')), 'sweep');
    await sweep(args(out), () => {}, { train: fakeTrain(), evaluate: fakeEval() });
    const straight = readStoredText(join(out, 'summary.json'));
    rmSync(out, { recursive: true });

    // 1. killed at step 3 of grpo-tiny seed 2 (its last checkpoint is at step 2; step 3's record is on disk).
    await expect(sweep(args(out), () => {}, { train: fakeTrain({ killAt: { preset: 'grpo-tiny', seed: 2, step: 3 } }), evaluate: fakeEval() })).rejects.toThrow('killed');
    const partial = JSON.parse(readStoredText(join(out, 'summary.json'))) as Summary;
    expect(partial.complete).toBe(false);
    expect(partial.runs.length).toBe(4);
    const grpo2 = join(out, 'runs', 'grpo-tiny', 'seed-2');
    expect(existsSync(join(grpo2, 'train-done.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(grpo2, 'checkpoint.mlck'), 'utf8')).step).toBe(2);

    // 2. continued, and killed again during the next evaluation (the resumed run's final eval).
    const calls: string[][] = [];
    const { lines, log } = quietLog();
    await expect(sweep(args(out), log, { train: fakeTrain({ calls }), evaluate: fakeEval({ failOnCall: 1 }) })).rejects.toThrow('killed during eval');
    expect(calls).toEqual([['--resume', grpo2]]);
    expect(lines.filter((l) => / skipped$/.test(l)).length).toBe(4);
    expect(existsSync(join(grpo2, 'train-done.json'))).toBe(true);

    // 3. continued to the end.
    const calls3: string[][] = [];
    await sweep(args(out), () => {}, { train: fakeTrain({ calls: calls3 }), evaluate: fakeEval() });
    expect(calls3.map((a) => a.slice(0, 4))).toEqual([['--preset', 'grpo-tiny', '--seed', '3']]);
    expect(readStoredText(join(out, 'summary.json'))).toBe(straight);

    // 4. a finished sweep re-run trains nothing and rewrites the same summary.
    const calls4: string[][] = [];
    await sweep(args(out), () => {}, { train: fakeTrain({ calls: calls4 }), evaluate: fakeEval({ calls: calls4 }) });
    expect(calls4).toEqual([]);
    expect(readStoredText(join(out, 'summary.json'))).toBe(straight);
  });

  it('a run killed before its first checkpoint starts again from scratch, and the summary is the same', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sweep-early-kill-')), 'sweep');
    await sweep(args(out), () => {}, { train: fakeTrain(), evaluate: fakeEval() });
    const straight = readStoredText(join(out, 'summary.json'));
    rmSync(out, { recursive: true });
    // Killed at step 1: its records are on disk, its first checkpoint (step 2) is not.
    await expect(sweep(args(out), () => {}, { train: fakeTrain({ killAt: { preset: 'magic-tiny', seed: 2, step: 1 } }), evaluate: fakeEval() })).rejects.toThrow('killed');
    const dir = join(out, 'runs', 'magic-tiny', 'seed-2');
    expect(existsSync(join(dir, 'checkpoint.mlck'))).toBe(false);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toMatch(/"step":1/);
    const calls: string[][] = [];
    await sweep(args(out), () => {}, { train: fakeTrain({ calls }), evaluate: fakeEval() });
    expect(calls[0].slice(0, 4)).toEqual(['--preset', 'magic-tiny', '--seed', '2']);
    expect(readStoredText(join(out, 'summary.json'))).toBe(straight);
  });

  it('refuses a directory made by another sweep config: exit 2, one line naming the difference', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-mismatch-'));
    await sweep(args(out), () => {}, { train: fakeTrain(), evaluate: fakeEval() });
    const err = await sweep(args(out).map((a) => (a === '3' ? '2' : a)), () => {}, { train: fakeTrain(), evaluate: fakeEval() }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/--out: .* holds a different sweep \(seeds: 1,2,3 there, 1,2 now\)/);
    const errs: string[] = [];
    const code = await main(['sweep', ...args(out, '--steps', '2')], () => {}, (s) => errs.push(s));
    expect(code).toBe(2);
    expect(errs.join('\n').split('\n')).toHaveLength(1);
    expect(errs[0]).toMatch(/^magic-lab sweep: --out: .* holds a different sweep \(steps: none there, 2 now\)/);
  });

  it('without --eval-problems a -tiny sweep evaluates its whole test set (8), with a note; the default stays 256 for full presets', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-evalp-'));
    const { lines, log } = quietLog();
    const s = await sweep(['--presets', 'magic-tiny,grpo-tiny', '--seeds', '2', '--out', out, '--steps', '2', '--eval-k', '2'], log, { train: fakeTrain(), evaluate: fakeEval() });
    expect(s.sweep.evalProblems).toBe(8);
    expect(lines.join('\n')).toContain('sweep: precise evaluations use 8 problems, the whole test set of magic-tiny (pass --eval-problems N ≤ 8 to choose)');
    const full = mkdtempSync(join(tmpdir(), 'sweep-evalp-full-'));
    const quiet = quietLog();
    const f = await sweep(['--presets', 'magic', '--seeds', '1', '--out', full, '--steps', '4', '--eval-k', '2'], quiet.log, { train: fakeTrain(), evaluate: fakeEval() });
    expect(f.sweep.evalProblems).toBe(256);
    expect(quiet.lines.join('\n')).not.toContain('precise evaluations use');
  });

  it("the sweep's lock is the run directories' lock (pid, host, start time): a live holder is refused in one line, a dead one's lock reclaimed", async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-lock-'));
    const unlock = lock(out);
    const held = JSON.parse(readFileSync(join(out, '.sweep-lock'), 'utf8'));
    expect(held).toMatchObject({ pid: process.pid, host: hostname() });
    expect(typeof held.startedAt).toBe('string');
    unlock();
    expect(existsSync(join(out, '.sweep-lock'))).toBe(false);
    // A live holder (the parent process): exit 2, the sweep's own message.
    for (const text of [JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-01-01T00:00:00Z' }), String(process.ppid)]) {
      writeFileSync(join(out, '.sweep-lock'), text);
      const errs: string[] = [];
      const code = await main(['sweep', ...args(out)], () => {}, (e) => errs.push(e));
      expect(code).toBe(2);
      expect(errs).toEqual([`magic-lab sweep: --out: another sweep (process ${process.ppid}) is using ${out}; wait for it or remove ${join(out, '.sweep-lock')}`]);
    }
    // A dead holder's lock (a child that has exited) is taken over.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(out, '.sweep-lock'), JSON.stringify({ pid: dead, host: hostname(), startedAt: '2026-01-01T00:00:00Z' }));
    const s = await sweep(args(out), () => {}, { train: fakeTrain(), evaluate: fakeEval() });
    expect(s.complete).toBe(true);
    expect(existsSync(join(out, '.sweep-lock'))).toBe(false);
  });

  it('usage errors name the flag (exit 2)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-usage-'));
    const cases: [string[], RegExp][] = [
      [['sweep', '--out', out], /--presets P1,P2,… is required/],
      [['sweep', '--presets', 'magic-tiny', '--out', out, '--eval-problems', '9'], /--eval-problems: preset magic-tiny's test set has 8 problems, asked for 9/],
      [['sweep', '--presets', 'nope', '--out', out], /--presets: .*unknown preset "nope"/],
      [['sweep', '--presets', 'magic-tiny,magic-tiny', '--out', out], /--presets: magic-tiny is listed twice/],
      [['sweep', '--presets', 'magic-tiny', '--out', out, '--backend', 'cuda'], /--backend: expected one of auto, webgpu, wasm/],
      [['sweep', '--presets', 'magic-tiny', '--out', out, '--base', 'public/checkpoints/base.mlck', '--eval-problems', '8'], /--base: .* holds a different model than preset magic-tiny's/],
      [['sweep', '--presets', 'magic-tiny,grpo-tiny', '--out', out, '--differ-only', 'loss.entropy'], /^magic-lab sweep: --differ-only: grpo-tiny differs from magic-tiny in data.onlineFilter, not only in loss.entropy$/],
      [['sweep', '--presets', 'magic-tiny,entropy-off-tiny', '--out', out, '--differ-only', 'loss.entropi'], /--differ-only: loss.entropi is not a field of the run config/],
      [['ablate'], /ablate: name a finding/],
      [['ablate', 'nope'], /unknown finding "nope"/],
    ];
    for (const [argv, re] of cases) {
      const errs: string[] = [];
      const code = await main(argv, () => {}, (s) => errs.push(s));
      expect(code, argv.join(' ')).toBe(2);
      expect(errs.join('\n'), argv.join(' ')).toMatch(re);
    }
  });

  it('ablate coverage runs under its regime (its config, its own pool, n samples per problem) and decides on the coverage metrics', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ablate-coverage-'));
    const reports = join(root, 'reports');
    const evalCalls: string[][] = [];
    // Its regime was fixed at the small rung: anywhere else is refused before anything runs.
    await expect(ablate(['coverage', '--seeds', '2', '--steps', '4', '--reports', reports, '--no-png'], () => {}, { train: fakeTrain(), evaluate: fakeEval() })).rejects.toThrow(/fixed at the small rung.*pass --rung small/);
    expect(existsSync(reports)).toBe(false);
    await ablate(['coverage', '--rung', 'small', '--seeds', '2', '--steps', '4', '--reports', reports, '--no-png', '--eval-problems', '16'], () => {}, { train: fakeTrain(), evaluate: fakeEval({ coverage: true, calls: evalCalls }) });
    // The regime's evaluation size (no --eval-k given) and its config in every run.
    for (const argv of evalCalls) expect(argv[argv.indexOf('--k') + 1]).toBe(String(COVERAGE_REGIME.evalK));
    const pools = readdirSync(join(reports, 'runs'));
    expect(pools).toHaveLength(1);
    expect(pools[0]).toMatch(/^steps4-default-cfg[0-9a-f]+-small$/);
    const cfg = JSON.parse(readFileSync(join(reports, 'runs', pools[0], 'magic', 'seed-101', 'config.json'), 'utf8'));
    expect(cfg.data.offlineFilter.enabled).toBe(false);
    expect(cfg.stages.map((s: { maxResponseLength: number; steps: number }) => [s.maxResponseLength, s.steps])).toEqual([[80, 200], [160, 600]]);
    const report = JSON.parse(readFileSync(join(reports, 'coverage-small', 'report.json'), 'utf8'));
    expect(report.finding.id).toBe('coverage');
    expect(report.result.checks.map((c: { check: { metric: string } }) => c.check.metric)).toEqual([...COVERAGE_CHECK_METRICS]);
    // pass@1, @16 and @n measured in both seeds (the fake base may leave no problem unsolved: then (d) has no seeds).
    expect(report.result.checks.slice(0, 3).map((c: { n: number }) => c.n)).toEqual([2, 2, 2]);
    // Four fake steps show no collapse: the premise fails, whatever the checks say.
    expect(report.result.verdict).toBe('not-testable');
    // The report carries both arms' curves (start = the base, final) overall, per family and per base class, and prints them.
    for (const p of ['magic', 'entropy-off']) {
      const fin = report.coverage[p].final['1.0'];
      expect(Object.keys(fin.all).map(Number)).toEqual([1, 2, 4, 8, 16, 32, 64]);
      expect(fin.all['1'].n).toBe(2);
      const classes = Object.keys(fin.classes);
      expect(classes.length).toBeGreaterThan(0);
      expect(Object.values(fin.classProblems as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(2 * 16);
    }
    const md = readFileSync(join(reports, 'coverage-small', 'report.md'), 'utf8');
    expect(md).toContain('## Coverage: pass@k curves, mean [95% CI over seeds]');
    expect(md).toMatch(/\| entropy-off \| final \| base (unsolved|rare|often) \(\d+\) \|/);
  });

  it('ablate runs a finding into its report, sharing a run pool; --list and --replication', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ablate-'));
    const reports = join(root, 'reports');
    const { lines, log } = quietLog();
    await ablate(['--list'], log);
    expect(lines.join('\n')).toMatch(/magic-vs-grpo\s+MAGIC vs vanilla GRPO \(a comparison of recipes\)\n\s+presets: magic, grpo/);
    // Full-size presets through fakes: --steps 4 keeps the fake short; the base of the full model is the shipped one.
    const deps = { train: fakeTrain(), evaluate: fakeEval() };
    const common = ['--seeds', '3', '--steps', '4', '--reports', reports, '--no-png', '--eval-problems', '16', '--eval-k', '2', '--reference', '--reference-dir', join(root, 'ref')];
    await ablate(['magic-vs-grpo', ...common], () => {}, deps);
    const report = JSON.parse(readFileSync(join(reports, 'magic-vs-grpo', 'report.json'), 'utf8'));
    expect(report.finding.id).toBe('magic-vs-grpo');
    // Four steps cannot show grpo's collapse (the premise), so the recipe comparison is not testable here.
    expect(report.result.verdict).toBe('not-testable');
    expect(report.seeds).toEqual([101, 102, 103]);
    const md = readFileSync(join(reports, 'magic-vs-grpo', 'report.md'), 'utf8');
    expect(md).toMatch(/## Verdict: \*\*not testable here\*\*/);
    expect(md).toMatch(/- Premise — vanilla GRPO's entropy collapses prematurely: \*\*not shown\*\*\. no run of grpo has 10 steps of entropy/);
    expect(existsSync(join(reports, 'runs', 'steps4-default', 'magic', 'seed-101', 'train-done.json'))).toBe(true);
    // A second finding reuses the magic runs of the pool: only no-rejection trains.
    const calls: string[][] = [];
    await ablate(['rejection', ...common], () => {}, { train: fakeTrain({ calls }), evaluate: fakeEval() });
    expect(calls.map((c) => c[1])).toEqual(['no-rejection', 'no-rejection', 'no-rejection']);
    const ref = JSON.parse(readFileSync(join(root, 'ref', 'rejection.json'), 'utf8'));
    expect(ref.kind).toBe('finding');
    expect(Object.keys(ref.presets)).toEqual(['magic', 'no-rejection']);
    const index = JSON.parse(readFileSync(join(root, 'ref', 'index.json'), 'utf8'));
    expect(index.entries.map((e: { name: string }) => e.name)).toEqual(['magic-vs-grpo', 'rejection']);
    // REPLICATION.md from the two reports; the other findings are "not run yet".
    const repl = join(root, 'REPLICATION.md');
    // Findings kept from an earlier recipe are linked, not mixed in.
    mkdirSync(join(reports, 'recipe-v0'), { recursive: true });
    writeFileSync(join(reports, 'recipe-v0', 'REPLICATION.md'), '# old\n');
    await ablate(['--replication', '--reports', reports, '--out', repl], () => {});
    const text = readFileSync(repl, 'utf8');
    expect(text).toContain('kept as they were: [recipe-v0](reports/recipe-v0/REPLICATION.md)');
    expect(text).toMatch(/\| \[MAGIC vs vanilla GRPO \(a comparison of recipes\)\]\(#magic-vs-grpo\) \| not testable here \| 3 \| 4 steps \|/);
    expect(text.match(/not run yet/gi)!.length).toBe(9 * 2);
    expect(text).toContain('Its central lesson: premature entropy collapse hurts');
    expect(text).toContain('](reports/magic-vs-grpo/report.md)');
  });

  it('train arguments: fresh, --resume, and what is left of a --minutes budget', () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-args-'));
    const o: SweepOptions = {
      presets: ['magic-tiny'],
      seeds: [7],
      steps: null,
      minutes: 10,
      config: { loss: { epsHigh: 0.25 } },
      variants: null,
      backend: 'wasm',
      threads: 2,
      evalProblems: 8,
      evalK: 2,
      evalTemperatures: [1, 0.6],
      base: BASE,
      out,
      command: 'x',
    };
    const [run] = planSweep(o);
    expect(run.dir).toBe(join(out, 'runs', 'magic-tiny', 'seed-7'));
    expect(run.config.loss.epsHigh).toBe(0.25);
    expect(run.config.seed).toBe(7);
    expect(trainArgs(run, o)).toEqual(['--preset', 'magic-tiny', '--seed', '7', '--out', run.dir, '--config', join(run.dir, 'sweep-config.json'), '--base', BASE, '--filter-cache', join(out, 'runs', 'offline-filters'), '--minutes', '10', '--backend', 'wasm', '--threads', '2']);
    mkdirSync(run.dir, { recursive: true });
    writeFileSync(join(run.dir, 'checkpoint.mlck'), '');
    writeFileSync(join(run.dir, 'metrics.jsonl'), JSON.stringify({ type: 'step', step: 40, time_ms: 4 * 60000 }) + '\n');
    expect(trainArgs(run, o)).toEqual(['--resume', run.dir, '--minutes', '6', '--backend', 'wasm', '--threads', '2']);
    writeFileSync(join(run.dir, 'metrics.jsonl'), JSON.stringify({ type: 'step', step: 90, time_ms: 11 * 60000 }) + '\n');
    expect(trainArgs(run, { ...o, backend: null, threads: null })).toEqual(['--resume', run.dir, '--steps', '90']); // budget spent: finish where it got to
  });

  it('variants: named configs run beside presets, get paired differences, and a changed variant or default is refused', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sweep-variants-'));
    const vfile = join(root, 'variants.json');
    writeFileSync(vfile, JSON.stringify({ 'lr-hi': { preset: 'magic-tiny', config: { update: { lr: 1e-3 } } }, 'g8': { preset: 'grpo-tiny', config: { rollout: { groupSize: 8 } } } }));
    const out = join(root, 'sweep');
    const calls: string[][] = [];
    const argv = args(out).map((a) => (a === 'magic-tiny,grpo-tiny' ? 'magic-tiny,lr-hi' : a));
    const s = await sweep([...argv, '--variants', vfile], () => {}, { train: fakeTrain({ calls }), evaluate: fakeEval() });
    expect(s.complete).toBe(true);
    expect(Object.keys(s.presets)).toEqual(['magic-tiny', 'lr-hi']);
    expect(s.pairs.map((p) => `${p.a}-${p.b}`)).toEqual(['magic-tiny-lr-hi']);
    // The variant trains as its preset with its whole resolved config; its own run directory.
    const dir = join(out, 'runs', 'lr-hi', 'seed-2');
    const call = calls.find((c) => c.includes(dir))!;
    expect(call.slice(0, 2)).toEqual(['--preset', 'magic-tiny']);
    expect(call[call.indexOf('--config') + 1]).toBe(join(dir, 'sweep-config.json'));
    const trained = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(trained.update.lr).toBe(1e-3);
    expect(trained.seed).toBe(2);
    expect(JSON.parse(readFileSync(join(out, 'runs', 'magic-tiny', 'seed-2', 'config.json'), 'utf8')).update.lr).not.toBe(1e-3);
    expect(JSON.parse(readFileSync(join(dir, 'sweep-run.json'), 'utf8')).variant).toEqual({ preset: 'magic-tiny', config: { update: { lr: 1e-3 } } });
    expect(JSON.parse(readFileSync(join(out, 'runs', 'magic-tiny', 'seed-2', 'sweep-run.json'), 'utf8'))).not.toHaveProperty('variant');
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('- `lr-hi` = `magic-tiny` + `{"update":{"lr":0.001}}`');
    // A re-run with the same file trains nothing.
    const again: string[][] = [];
    await sweep([...argv, '--variants', vfile], () => {}, { train: fakeTrain({ calls: again }), evaluate: fakeEval() });
    expect(again).toEqual([]);

    // Another sweep sharing the run pool with a changed variant under the same label: refused, names the field.
    writeFileSync(vfile, JSON.stringify({ 'lr-hi': { preset: 'magic-tiny', config: { update: { lr: 2e-3 } } } }));
    const pooled = [...args(join(root, 'other')).map((a) => (a === 'magic-tiny,grpo-tiny' ? 'lr-hi' : a)), '--variants', vfile, '--runs', join(out, 'runs')];
    const err = await sweep(pooled, () => {}, { train: fakeTrain(), evaluate: fakeEval() }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/--runs: .*lr-hi.seed-1 holds a lr-hi run made with another variant/);

    // A pool run whose config.json no longer matches what its preset resolves to (defaults changed since).
    const m1 = join(out, 'runs', 'magic-tiny', 'seed-1', 'config.json');
    const c = JSON.parse(readFileSync(m1, 'utf8'));
    c.update.lr = 0.123;
    writeFileSync(m1, JSON.stringify(c));
    const staleArgs = [...args(join(root, 'stale')).map((a) => (a === 'magic-tiny,grpo-tiny' ? 'magic-tiny' : a)), '--runs', join(out, 'runs')];
    const stale = await sweep(staleArgs, () => {}, { train: fakeTrain(), evaluate: fakeEval() }).catch((e) => e);
    expect(stale).toBeInstanceOf(UsageError);
    expect(stale.message).toMatch(/magic-tiny.seed-1 holds a magic-tiny run trained with another update\.lr \(0\.123 there, 0\.0006 now: its defaults changed since\)/);

    // Bad files: one line naming the label or field, exit 2.
    const bad: [unknown, RegExp][] = [
      [[1], /variants\.json is not a JSON object/],
      [{ 'Bad Label': { preset: 'magic-tiny', config: {} } }, /"Bad Label" is not a label/],
      [{ magic: { preset: 'magic-tiny', config: {} } }, /magic is a preset's name/],
      [{ x: { preset: 'nope', config: {} } }, /--variants: x: .*unknown preset "nope"/],
      [{ x: { preset: 'magic-tiny', config: { update: { lr: -1 } } } }, /--variants: x: .*update\.lr/],
      [{ x: { preset: 'magic-tiny', config: {}, lr: 1 } }, /--variants: x: unknown field lr/],
    ];
    for (const [content, re] of bad) {
      writeFileSync(vfile, JSON.stringify(content));
      const errs: string[] = [];
      const code = await main(['sweep', '--presets', 'magic-tiny', '--out', join(root, 'bad'), '--variants', vfile], () => {}, (e) => errs.push(e));
      expect(code, JSON.stringify(content)).toBe(2);
      expect(errs.join('\n'), JSON.stringify(content)).toMatch(re);
    }
    writeFileSync(vfile, JSON.stringify({ x: { preset: 'magic-tiny', config: {} } }));
    const errs: string[] = [];
    expect(await main(['sweep', '--presets', 'lr-lo', '--out', join(root, 'bad2'), '--variants', vfile], () => {}, (e) => errs.push(e))).toBe(2);
    expect(errs[0]).toMatch(/--presets: .*unknown preset "lr-lo".*\(variants: x\)/);
  });

  it('--eval-backend: the precise evaluations run on another engine than training, and the sweep remembers it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-evalbackend-'));
    const trainCalls: string[][] = [];
    const evalCalls: string[][] = [];
    const argv = [...args(out).map((a) => (a === 'magic-tiny,grpo-tiny' ? 'magic-tiny' : a === '3' ? '1' : a)), '--backend', 'webgpu', '--eval-backend', 'wasm'];
    const s = await sweep(argv, () => {}, { train: fakeTrain({ calls: trainCalls }), evaluate: fakeEval({ calls: evalCalls }) });
    expect(s.sweep.evalBackend).toBe('wasm');
    expect(trainCalls[0].slice(-2)).toEqual(['--backend', 'webgpu']);
    expect(evalCalls.length).toBe(2);
    for (const c of evalCalls) expect(c.slice(-2)).toEqual(['--backend', 'wasm']);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('backend webgpu (precise evaluations on wasm)');
    const err = await sweep(argv.slice(0, -2), () => {}, { train: fakeTrain(), evaluate: fakeEval() }).catch((e) => e);
    expect(err.message).toMatch(/holds a different sweep \(evalBackend: wasm there, none now\)/);
    const errs: string[] = [];
    expect(await main(['sweep', '--presets', 'magic-tiny', '--out', out, '--eval-backend', 'tpu'], () => {}, (e) => errs.push(e))).toBe(2);
    expect(errs[0]).toMatch(/--eval-backend: expected one of auto, webgpu, wasm/);
  });

  it('progress line', () => {
    expect(progressText({ index: 3, total: 10, preset: 'magic', seed: 102, step: 45, plannedSteps: 200, etaS: 4320 })).toBe('[sweep 3/10] magic seed 102 · step 45/200 · ETA 1 h 12 min');
    expect(formatDuration(NaN)).toBe('–');
    expect(formatDuration(89)).toBe('1 min');
  });
});
