/**
 * One writer per run directory and identity checks on --resume (issue #27): two `train` on one
 * directory never interleave (the second is refused, exit 2, one line naming the holder); a lock
 * left by a dead process is reclaimed; a checkpoint from another run (seed, model, config) or past
 * its schedule is refused before anything in the directory changes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/model/checkpoint';
import { RUN_LOCK_FILE } from '../../src/run/dir-lock';
import { cliRunner } from './harness';

const run = cliRunner(main);
const dir = mkdtempSync(join(tmpdir(), 'magic-rundir-'));
const engine = ['--backend', 'wasm', '--threads', '1', '--quiet'];
const schedule = { stages: [{ maxResponseLength: 12, steps: 4 }], eval: { everySteps: 2, k: 2, temperatures: [1], testProblems: 2 }, checkpoint: { everySteps: 2 } };
const cfgFile = (name: string, extra: Record<string, unknown> = {}) => {
  const f = join(dir, `${name}.json`);
  writeFileSync(f, JSON.stringify({ ...schedule, ...extra }));
  return f;
};
const train = (out: string, cfg: string, ...more: string[]) => run('train', '--preset', 'magic-tiny', '--config', cfg, '--out', out, ...engine, ...more);
/** Every file of a run directory and its bytes: "nothing changed" is this, equal before and after. */
const snapshot = (d: string) => Object.fromEntries(readdirSync(d).sort().map((f) => [f, readFileSync(join(d, f)).toString('base64')]));
const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()).length;

const sleeper = spawn('sleep', ['60']);
afterAll(() => sleeper.kill());

describe('one writer per run directory', () => {
  const base = cfgFile('base');

  it('two train --resume on one directory at once: one runs, the other exits 2 naming the holder; the journal is whole', async () => {
    const clean = join(dir, 'clean');
    expect((await train(clean, base)).code).toBe(0);
    const partial = join(dir, 'twice');
    expect((await train(partial, base, '--steps', '2')).code).toBe(0);
    const resume = () => run('train', '--resume', partial, ...engine);
    const [a, b] = await Promise.all([resume(), resume()]);
    const codes = [a.code, b.code].sort();
    expect(codes, a.err + b.err).toEqual([0, 2]);
    const refused = a.code === 2 ? a : b;
    expect(refused.errLines).toHaveLength(1);
    expect(refused.err).toMatch(new RegExp(`^magic-lab train: run directory ${partial} is in use by process ${process.pid} \\(since .*\\); wait for it to finish, or remove .*${RUN_LOCK_FILE.replace('.', '\\.')} if that process is gone$`));
    expect(lines(join(partial, 'metrics.jsonl'))).toBe(lines(join(clean, 'metrics.jsonl')));
    expect(lines(join(partial, 'samples.jsonl'))).toBe(lines(join(clean, 'samples.jsonl')));
    expect(existsSync(join(partial, RUN_LOCK_FILE))).toBe(false); // released when the run returned
  });

  it('two new runs on one --out at once: the second is refused; config.json is the first run\'s', async () => {
    const out = join(dir, 'together');
    const [a, b] = await Promise.all([train(out, base, '--seed', '1'), train(out, base, '--seed', '2')]);
    expect([a.code, b.code].sort(), a.err + b.err).toEqual([0, 2]);
    const winner = a.code === 0 ? 1 : 2;
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).seed).toBe(winner);
    expect((decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'checkpoint.mlck')))).meta.config as { seed: number }).seed).toBe(winner);
  });

  it('a live holder (another process) → exit 2, one line naming its pid; nothing changed', async () => {
    const d = join(dir, 'held');
    cpSync(join(dir, 'twice'), d, { recursive: true });
    writeFileSync(join(d, RUN_LOCK_FILE), JSON.stringify({ pid: sleeper.pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
    const before = snapshot(d);
    const r = await run('train', '--resume', d, ...engine);
    expect(r.code).toBe(2);
    expect(r.errLines).toEqual([`magic-lab train: run directory ${d} is in use by process ${sleeper.pid} (since 2026-01-01T00:00:00.000Z); wait for it to finish, or remove ${join(d, RUN_LOCK_FILE)} if that process is gone`]);
    expect(snapshot(d)).toEqual(before);
  });

  it('a stale lock of a dead process on this host is reclaimed with a message', async () => {
    const d = join(dir, 'stale');
    cpSync(join(dir, 'twice'), d, { recursive: true });
    const dead = spawnSync('true').pid!;
    writeFileSync(join(d, RUN_LOCK_FILE), JSON.stringify({ pid: dead, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
    const r = await run('train', '--resume', d, ...engine);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`warning: reclaimed the lock of run directory ${d} from process ${dead} (started 2026-01-01T00:00:00.000Z), which is no longer running`);
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false);
  });
});

describe('--resume refuses a checkpoint of another run before anything is cut', () => {
  /** DIR = the half-done run; its checkpoint replaced by `ck`; resume must refuse with `msg` and change nothing. */
  async function expectRefused(name: string, ck: Uint8Array, msg: RegExp, configJson?: string) {
    const d = join(dir, name);
    cpSync(join(dir, 'twice'), d, { recursive: true });
    writeFileSync(join(d, 'checkpoint.mlck'), ck);
    if (configJson !== undefined) writeFileSync(join(d, 'config.json'), configJson);
    const before = snapshot(d);
    const r = await run('train', '--resume', d, ...engine);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(msg);
    expect(snapshot(d)).toEqual(before);
  }

  it('another seed', async () => {
    const other = join(dir, 'seed9');
    expect((await train(other, cfgFile('base'), '--seed', '9', '--steps', '1')).code).toBe(0);
    await expectRefused('foreign-seed', readFileSync(join(other, 'checkpoint.mlck')), /belongs to another run: it has seed 9 \(the run's is \d+\) than .*config\.json; nothing was changed$/);
  });

  it('another model', async () => {
    const other = join(dir, 'model');
    const model = { vocabSize: 24, contextLength: 64, dModel: 32, nLayers: 1, nHeads: 2 };
    const r = await train(other, cfgFile('model', { model }), '--steps', '1');
    expect(r.code, r.err).toBe(0);
    await expectRefused('foreign-model', readFileSync(join(other, 'checkpoint.mlck')), /belongs to another run: it has model \{.*"dModel":32.*\} \(the run's is \{.*"dModel":16.*\}\)/);
  });

  it('another config (same seed and model)', async () => {
    const other = join(dir, 'eval-k');
    expect((await train(other, cfgFile('k3', { eval: { ...schedule.eval, k: 3 } }), '--steps', '1')).code).toBe(0);
    await expectRefused('foreign-config', readFileSync(join(other, 'checkpoint.mlck')), /belongs to another run: it has a different config \(eval\.k\)/);
  });

  it('a step past the schedule', async () => {
    // The finished run's checkpoint (step 4) with a 2-step schedule, config.json agreeing: only the step is wrong.
    const ck = decodeCheckpoint(new Uint8Array(readFileSync(join(dir, 'clean', 'checkpoint.mlck'))));
    const config = { ...(ck.meta.config as Record<string, unknown>), stages: [{ ...(ck.meta.config as { stages: object[] }).stages[0], steps: 2 }] };
    const edited = encodeCheckpoint({ ...ck, meta: { ...ck.meta, config } });
    await expectRefused('past-schedule', edited, /checkpoint\.mlck is at step 4, past the end of its schedule \(2 steps\); nothing was changed$/, JSON.stringify(config, null, 2) + '\n');
  });

  it('another run\'s checkpoint in a directory without config.json: the journal names the run (score and training time per step)', async () => {
    // Without config.json only the journal can tell the runs apart (its time_ms is a wall-clock sum no other run shares).
    const other = join(dir, 'seed2-no-config');
    expect((await train(other, cfgFile('base'), '--seed', '2', '--steps', '2')).code).toBe(0);
    const d = join(dir, 'foreign-no-config');
    cpSync(join(dir, 'clean'), d, { recursive: true }); // a finished 4-step run
    rmSync(join(d, 'config.json'));
    writeFileSync(join(d, 'checkpoint.mlck'), readFileSync(join(other, 'checkpoint.mlck')));
    const before = snapshot(d);
    const r = await run('train', '--resume', d, ...engine);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(new RegExp(`^magic-lab train: --resume: ${d}/checkpoint\\.mlck belongs to another run: its (score|training time) at step \\d .*, ${d}/metrics\\.jsonl records .*; nothing was changed$`));
    expect(snapshot(d)).toEqual(before);
  });

  it('a checkpoint ahead of its journal (restored from a backup): refused, naming both steps', async () => {
    const d = join(dir, 'ahead');
    cpSync(join(dir, 'clean'), d, { recursive: true }); // checkpoint at step 4
    const keep = (f: string) => readFileSync(join(d, f), 'utf8').split('\n').filter((l) => l.trim() && (JSON.parse(l) as { step: number }).step <= 2).join('\n') + '\n';
    writeFileSync(join(d, 'metrics.jsonl'), keep('metrics.jsonl'));
    writeFileSync(join(d, 'samples.jsonl'), keep('samples.jsonl'));
    const before = snapshot(d);
    const r = await run('train', '--resume', d, ...engine);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toEqual([`magic-lab train: --resume: ${d}/checkpoint.mlck is at step 4, beyond the last step of ${d}/metrics.jsonl (2): resuming would leave steps 3–4 without records (a checkpoint restored from a backup, or a journal that lost its end); nothing was changed`]);
    expect(snapshot(d)).toEqual(before);
  });

  it('temp files of processes no longer running (a kill -9 mid-write) are removed by the next resume; a live process\'s are kept', async () => {
    const d = join(dir, 'temps');
    cpSync(join(dir, 'twice'), d, { recursive: true });
    const dead = spawnSync('true').pid!;
    writeFileSync(join(d, `.${dead}.checkpoint.mlck.tmp`), Buffer.alloc(60_000));
    writeFileSync(join(d, `.${dead}.metrics.jsonl.tmp`), '{"step":1}\n');
    writeFileSync(join(d, `.${sleeper.pid}.samples.jsonl.tmp`), 'x');
    const r = await run('train', '--resume', d, ...engine);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`note: removed 2 temp files of processes no longer running from ${d}`);
    expect(readdirSync(d).filter((f) => f.endsWith('.tmp'))).toEqual([`.${sleeper.pid}.samples.jsonl.tmp`]);
  });
});
