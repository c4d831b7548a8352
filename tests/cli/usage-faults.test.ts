/**
 * User faults outside the file system, each one line and exit 2 (or a clear stop): resource flags
 * past what the machine runs, a usage error printed to a closed stderr, random init with the offline
 * filter on, a shortened SFT run, and a real policy collapse (the tiny rung's base at lr 1 without a
 * gradient clip: reward 0 and entropy ~0.12 nats from step 2 on), also across a kill -9 and resume.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { MAX_THREADS } from '../../src/cli/backend';
import { cliRunner } from './harness';

const run = cliRunner(main);
const dir = mkdtempSync(join(tmpdir(), 'magic-usage-faults-'));
const ROOT = join(__dirname, '..', '..');

describe('resource flags and usage faults', () => {
  it('--threads past the machine: exit 2, one line naming the bound, before an engine opens', async () => {
    for (const cmd of [['train', '--preset', 'magic-tiny', '--out', join(dir, 't')], ['eval', '--checkpoint', 'public/checkpoints/base.mlck'], ['sweep', '--presets', 'magic-tiny', '--seeds', '1', '--out', join(dir, 's')]]) {
      const r = await run(...cmd, '--backend', 'wasm', '--threads', '100000');
      expect(r.code, r.err).toBe(2);
      expect(r.errLines).toEqual([`magic-lab ${cmd[0]}: --threads: must be at most ${MAX_THREADS} (this machine has ${availableParallelism()} logical core${availableParallelism() === 1 ? '' : 's'}), got 100000`]);
    }
    expect(existsSync(join(dir, 't'))).toBe(false);
  });

  it('every flag that sizes memory or time, past what the machine does: exit 2, one line naming the flag and its bound, nothing written', async () => {
    const ck = 'public/checkpoints/base.mlck';
    const w = ['--backend', 'wasm', '--threads', '1'];
    const cases: [string[], RegExp][] = [
      [['sweep', '--presets', 'magic-tiny', '--seeds', '100000000', '--out', join(dir, 'sw-seeds'), ...w], /^magic-lab sweep: --seeds: must be at most 10000 \(every run of a sweep is planned and checked before the first one trains; each seed is a whole run per preset\), got 100000000$/],
      [['sweep', '--presets', 'magic-tiny', '--seeds', '1', '--eval-k', '100000000', '--out', join(dir, 'sw-k'), ...w], /^magic-lab sweep: --eval-k: evaluating 8 problems × 100000000 samples would hold .* of JS objects; this process may use .* \(run magic-tiny\)$/],
      [['sweep', '--presets', 'magic-tiny', '--seeds', '1', '--eval-problems', '100000000', '--out', join(dir, 'sw-p'), ...w], /^magic-lab sweep: --eval-problems: preset magic-tiny's test set has 8 problems, asked for 100000000$/],
      [['sweep', '--presets', 'magic-tiny', '--steps', '1e300', '--out', join(dir, 'sw-steps'), ...w], /^magic-lab sweep: --steps: must be at most 9007199254740991 \(the largest exact integer\), got 1e\+300$/],
      [['eval', '--checkpoint', ck, '--k', '100000000', ...w], /^magic-lab eval: --k: evaluating 64 problems × 100000000 samples would hold .* of JS objects; this process may use /],
      [['eval', '--checkpoint', ck, '--problems', '100000000', ...w], /^magic-lab eval: --problems: the test set has 256 problems, asked for 100000000$/],
      [['data', 'filter', '--checkpoint', ck, '--samples', '100000000', ...w], /^magic-lab data: data\.offlineFilter\.samples: must be an integer in \[2, 1024\], got 100000000$/],
      [['train', '--preset', 'magic-tiny', '--steps', '1e300', '--out', join(dir, 'tr-steps'), ...w], /^magic-lab train: --steps: must be at most 9007199254740991 /],
      [['sft', '--rung', 'tiny', '--steps', '100000000000', '--out', join(dir, 'sft-steps'), ...w], /^magic-lab sft: config: steps: must be an integer in \[1, 1000000000\], got 100000000000$/],
      [['bench', '--steps', '1000000000', ...w], /^magic-lab bench: --steps: must be at most 100000 \(a bench times steps, it does not train\), got 1000000000$/],
      [['bench', '--rl-steps', '1000000000', ...w], /^magic-lab bench: --rl-steps: must be at most 100000 /],
      [['bench', '--config', 'batch=100000000', ...w], /^magic-lab bench: out of memory: CPU engine: out of memory \(needs \d+ MiB, limit \d+ MiB\) — use a smaller model, batch or --problems/],
    ];
    for (const [argv, line] of cases) {
      const r = await run(...argv);
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
      expect(r.errLines, argv.join(' ')).toEqual([expect.stringMatching(line)]);
    }
    for (const d of ['sw-seeds', 'sw-k', 'sw-p', 'sw-steps', 'tr-steps', 'sft-steps']) expect(existsSync(join(dir, d)), d).toBe(false);
  }, 120_000);

  it('a usage error with stdout and stderr on a closed pipe still exits 2 (no EPIPE trace, no exit 1)', () => {
    // The reader (true) exits at once; the CLI starts a second later and writes its one line into the closed pipe.
    const status = join(dir, 'status');
    spawnSync('bash', ['-c', `(sleep 1; node bin/magic-lab.mjs train --bogus; echo $? > ${status}) 2>&1 | true; while [ ! -s ${status} ]; do sleep 0.2; done`], { cwd: ROOT, timeout: 60_000 });
    expect(spawnSync('cat', [status], { encoding: 'utf8' }).stdout.trim()).toBe('2');
  }, 60_000);

  it('train --base none with the offline filter on: exit 2, one line, before sampling or writing', async () => {
    const out = join(dir, 'random-init');
    const t0 = performance.now();
    const r = await run('train', '--preset', 'magic', '--base', 'none', '--out', out, '--backend', 'wasm', '--threads', '1');
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toEqual([
      'magic-lab train: --base none: the offline filter (data.offlineFilter.enabled) keeps the prompts the starting policy solves sometimes, and a random policy solves none; turn it off with {"data": {"offlineFilter": {"enabled": false}}} in --config, or start from a base checkpoint (--base F)',
    ]);
    expect(performance.now() - t0).toBeLessThan(30_000); // not after sampling 1,024 prompts × 16
    expect(existsSync(out)).toBe(false);
  });

  it('sft --rung small --steps 3: the rung\'s decay scales with the run (it used to be refused on lrDecayStart 3500 > 2)', async () => {
    const cfg = join(dir, 'sft.json');
    writeFileSync(cfg, JSON.stringify({ trainSize: 8, testSize: 1, batch: 2, evalK: 1, evalProblems: 1, evalEvery: 0 }));
    const out = join(dir, 'small.mlck');
    const r = await run('sft', '--rung', 'small', '--steps', '3', '--config', cfg, '--out', out, '--weights-only', '--backend', 'wasm', '--threads', '1');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('--steps 3: the learning-rate decay scaled with the run (steps 3500–4500 of 5000 → 2–3)');
    expect(existsSync(out)).toBe(true);
  }, 120_000);
});

describe('a real policy collapse', () => {
  const cfg = join(dir, 'collapse.json');
  writeFileSync(cfg, JSON.stringify({ stages: [{ maxResponseLength: 24, steps: 7 }], eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 }, checkpoint: { everySteps: 0 }, update: { lr: 1, gradClip: null }, data: { offlineFilter: { enabled: false } } }));
  const common = ['--rung', 'tiny', '--config', cfg, '--backend', 'wasm', '--threads', '1', '--quiet'];

  it('warns once the streak reaches 5 steps; --stop-on-collapse stops there like a divergence (exit 1, one line)', async () => {
    const warned = await run('train', ...common, '--out', join(dir, 'collapse-warn'));
    expect(warned.code, warned.err).toBe(0);
    expect(warned.out).toMatch(/warning: the policy collapsed by step 6: entropy at most 0\.159 nats \(5% of ln 24\) and reward 0 for 5 steps in a row .*; --stop-on-collapse stops a run here/);
    expect(warned.out.match(/policy collapsed/g)).toHaveLength(1);

    const out = join(dir, 'collapse-stop');
    const stopped = await run('train', ...common, '--out', out, '--stop-on-collapse');
    expect(stopped.code).toBe(1);
    expect(stopped.errLines).toHaveLength(1);
    expect(stopped.err).toMatch(/^magic-lab train: the policy collapsed by step 6: .*; stopped \(--stop-on-collapse\) — no checkpoint was written before it$/);
  }, 120_000);

  it('the streak survives a kill -9 and resume inside the collapse window (rebuilt from the journal): the warning and the stop still come at step 6', async () => {
    // Checkpoint at step 4, killed (SIGKILL) after step 5's records: the streak was 4 (steps 2–5).
    const killed = join(dir, 'collapse-killed');
    const cfgK = join(dir, 'collapse-ckpt.json');
    writeFileSync(cfgK, JSON.stringify({ ...JSON.parse(readFileSync(cfg, 'utf8')), checkpoint: { everySteps: 4 } }));
    const k = spawnSync(process.execPath, [join(__dirname, 'kill-at-step.mjs'), '5', 'train', '--rung', 'tiny', '--config', cfgK, '--backend', 'wasm', '--threads', '1', '--quiet', '--out', killed], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(k.signal, k.stderr).toBe('SIGKILL');
    const steps = readFileSync(join(killed, 'metrics.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"step"'));
    expect(steps).toHaveLength(5);
    const copy = join(dir, 'collapse-killed-2');
    cpSync(killed, copy, { recursive: true });

    // The resume drops step 5 and goes on from the step-4 checkpoint with the streak at 3 (steps 2–4), not 0.
    const warned = await run('train', '--resume', killed, '--backend', 'wasm', '--threads', '1', '--quiet');
    expect(warned.code, warned.err).toBe(0);
    expect(warned.out).toMatch(/warning: the policy collapsed by step 6: .*; --stop-on-collapse stops a run here/);
    expect(warned.out.match(/policy collapsed/g)).toHaveLength(1);

    const stopped = await run('train', '--resume', copy, '--backend', 'wasm', '--threads', '1', '--quiet', '--stop-on-collapse');
    expect(stopped.code).toBe(1);
    expect(stopped.errLines).toEqual([expect.stringMatching(new RegExp(`^magic-lab train: the policy collapsed by step 6: .*; stopped \\(--stop-on-collapse\\) — the last good checkpoint is ${copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/checkpoint\\.mlck \\(step 4\\)$`))]);
  }, 240_000);
});
