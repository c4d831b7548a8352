/**
 * `magic-lab train` on a disk that fills up mid-run (issue #13): the write that fails is named in
 * one line, exit 2, with the last good checkpoint; what is on disk stays resumable — a journal
 * line cut by the full disk is dropped by `--resume`, a checkpoint write that fails leaves the
 * previous checkpoint whole — and the resumed run ends with the same records as one that never
 * stopped. The failures are injected under the CLI by mocking node:fs (this file has its own
 * module graph): a short write of half a chosen journal line or 100 bytes of a chosen checkpoint
 * save, then ENOSPC.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cliRunner, journal } from './harness';

/** The failure to inject next (null: none). */
let fail: { journalRecord: string } | { checkpointSave: number } | null = null;
let checkpointSaves = 0;

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

/**
 * A nearly full disk as the kernel shows it: the write that crosses the end takes what fits and
 * returns that count (a short write, no error); the next write of the same file fails with ENOSPC.
 * tests/cli/real-faults.test.ts makes the same faults on a real tmpfs; this mock picks the exact
 * line and save that fail.
 */
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const paths = new Map<number, string>();
  const full = new Set<number>();
  const openSync = ((path: import('node:fs').PathLike, ...rest: unknown[]) => {
    const fd = (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
    paths.set(fd, String(path));
    full.delete(fd);
    return fd;
  }) as typeof fs.openSync;
  const writeSync = ((fd: number, data: Uint8Array | string, ...rest: unknown[]) => {
    if (full.has(fd)) throw enospc();
    const path = paths.get(fd) ?? '';
    const offset = typeof rest[0] === 'number' ? rest[0] : 0;
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength).subarray(offset, offset + ((rest[1] as number | undefined) ?? data.byteLength - offset));
    if (fail && 'journalRecord' in fail && path.endsWith('metrics.jsonl') && bytes.toString('utf8').startsWith(fail.journalRecord)) {
      fail = null;
      full.add(fd);
      return fs.writeSync(fd, bytes, 0, Math.floor(bytes.length / 2)); // the disk took half the line
    }
    if (fail && 'checkpointSave' in fail && path.endsWith('checkpoint.mlck.tmp') && ++checkpointSaves === fail.checkpointSave) {
      fail = null;
      full.add(fd);
      return fs.writeSync(fd, bytes, 0, 100);
    }
    return (fs.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, openSync, writeSync }, openSync, writeSync };
});

const { main } = await import('../../src/cli/main');
const { decodeCheckpoint } = await import('../../src/model/checkpoint');

const run = cliRunner(main);


describe('magic-lab train on a full disk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'magic-enospc-'));
  const cfg = join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ stages: [{ maxResponseLength: 12, steps: 6 }], eval: { everySteps: 3, k: 2, temperatures: [1], testProblems: 2 }, checkpoint: { everySteps: 2 } }));
  const common = ['--preset', 'magic-tiny', '--config', cfg, '--backend', 'wasm', '--threads', '1', '--quiet'];

  it('a journal write: exit 2, one line naming the file and the last checkpoint; --resume finishes the same run', async () => {
    const clean = join(dir, 'clean');
    expect((await run('train', ...common, '--out', clean)).code).toBe(0);

    fail = { journalRecord: '{"type":"step","step":5,' };
    const out = join(dir, 'journal');
    const r = await run('train', ...common, '--out', out);
    expect(fail).toBeNull(); // the failure was injected
    expect(r.code, r.err).toBe(2);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toBe(
      `magic-lab train: writing ${join(out, 'metrics.jsonl')} failed: no space left on the disk (ENOSPC); the run stopped at step 5 — the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step 4): fix it and continue with magic-lab train --resume ${out}`,
    );
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8').endsWith('\n')).toBe(false); // the half line is there

    const resumed = await run('train', '--resume', out, '--backend', 'wasm', '--threads', '1', '--quiet');
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.out).toContain('dropped a partial last record');
    expect(journal(out)).toEqual(journal(clean));
  });

  it('a checkpoint write: the previous checkpoint stays whole, no temp file is left, and --resume goes on from it', async () => {
    checkpointSaves = 0;
    fail = { checkpointSave: 2 }; // the saves are at steps 2, 4, 6: the one at step 4 fails
    const out = join(dir, 'checkpoint');
    const r = await run('train', ...common, '--out', out);
    expect(fail).toBeNull();
    expect(r.code, r.err).toBe(2);
    expect(r.err).toBe(
      `magic-lab train: writing ${join(out, 'checkpoint.mlck')} failed: no space left on the disk (ENOSPC); the run stopped at step 4 — the last good checkpoint is ${join(out, 'checkpoint.mlck')} (step 2): fix it and continue with magic-lab train --resume ${out}`,
    );
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const kept = decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'checkpoint.mlck'))));
    expect((kept.meta.state as { step: number }).step).toBe(2);

    const resumed = await run('train', '--resume', out, '--backend', 'wasm', '--threads', '1', '--quiet');
    expect(resumed.code, resumed.err).toBe(0);
    expect(journal(out)).toEqual(journal(join(dir, 'clean')));
  });
});

describe('magic-lab train: a run directory that cannot be made', () => {
  it('a file, or a path under a file: exit 2, one line, before anything is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-outdir-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const common = ['--preset', 'magic-tiny', '--backend', 'wasm', '--threads', '1', '--steps', '1', '--quiet'];
    const a = await run('train', ...common, '--out', file);
    expect([a.code, a.err]).toEqual([2, `magic-lab train: --out: ${file} is a file, not a directory`]);
    const b = await run('train', ...common, '--out', join(file, 'run'));
    expect([b.code, b.err]).toEqual([2, `magic-lab train: --out: cannot create ${join(file, 'run')}: ${file} is a file`]);
    expect(readFileSync(file, 'utf8')).toBe('x');
    const c = await run('train', '--resume', file, '--backend', 'wasm');
    expect(c.code).toBe(2);
    expect(c.err.split('\n')).toHaveLength(1);
  });
});
