/**
 * The run-directory lock under real races between processes (src/run/dir-lock.ts). Contenders are
 * separate Node processes started on one wall-clock millisecond; under `strace` every unlink is
 * held 300 ms before it runs, which widens the window between "this lock is stale" and "take it"
 * from microseconds to what a loaded machine gives (the probe that found two resumes both running).
 * Exactly one contender may hold the lock at any moment, and every loser gets a RunLockError (the
 * CLI's one line, exit 2), never an EEXIST. Empty locks (a writer killed, or a full disk, between
 * create and write) are reclaimed, not a block forever.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/run/dir-lock';

const dir = mkdtempSync(join(tmpdir(), 'magic-lock-race-'));
const ROOT = join(__dirname, '..', '..');
const RACER = join(__dirname, 'fixtures', 'lock-race.ts');
const straceSkip = process.platform !== 'linux' ? 'strace needs Linux' : spawnSync('strace', ['-V']).status !== 0 ? 'strace is not installed' : null;

interface Outcome {
  won: boolean;
  at?: number;
  until?: number;
  error?: string;
  code?: string | null;
  message?: string;
}

/** `n` contenders for `file`, each holding it `holdMs` when it wins; unlinks delayed under strace. */
async function race(file: string, n: number, holdMs: number): Promise<Outcome[]> {
  const startAt = Date.now() + 6000; // after every process has started (tsx takes seconds on a loaded machine)
  const runs = Array.from({ length: n }, () =>
    new Promise<Outcome>((resolve, reject) => {
      const p = spawn('strace', ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=unlink,unlinkat', '-e', 'inject=unlink,unlinkat:delay_enter=300000', process.execPath, '--import', 'tsx', RACER, file, String(startAt), String(holdMs)], { cwd: ROOT });
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (err += d));
      p.on('close', () => {
        try {
          resolve(JSON.parse(out.trim()) as Outcome);
        } catch {
          reject(new Error(`contender printed ${JSON.stringify(out)} ${err}`));
        }
      });
    }),
  );
  return Promise.all(runs);
}

/** No two winners held the lock at one time. */
function expectExclusive(outcomes: Outcome[]): void {
  const held = outcomes.filter((o) => o.won).sort((a, b) => a.at! - b.at!);
  for (let i = 1; i < held.length; i++) expect(held[i].at!, JSON.stringify(held)).toBeGreaterThanOrEqual(held[i - 1].until!);
  for (const o of outcomes.filter((o) => !o.won)) expect([o.error, o.code]).toEqual(['RunLockError', null]);
}

describe.skipIf(straceSkip !== null)(`racing processes${straceSkip ? ` (skipped: ${straceSkip})` : ''}`, () => {
  it('three processes reclaiming one stale lock: exactly one holds it; the others are refused with a RunLockError', async () => {
    const file = join(dir, 'stale.lock');
    writeFileSync(file, JSON.stringify({ pid: spawnSync('true').pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }) + '\n');
    const outcomes = await race(file, 3, 2000);
    expect(outcomes.filter((o) => o.won)).toHaveLength(1);
    expectExclusive(outcomes);
    expect(readdirSync(dir).filter((f) => f.startsWith('stale.lock') || f.includes('stale.lock.'))).toEqual([]); // released; no marker or temp file left
  }, 60_000);
});

describe('empty and unreadable locks', () => {
  it('an empty lock older than a second is reclaimed with a warning', () => {
    const file = join(dir, 'empty.lock');
    writeFileSync(file, '');
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const log: string[] = [];
    const release = acquireLock(file, 'run directory D', (s) => log.push(s));
    expect(log).toEqual([`warning: reclaimed the lock of run directory D: ${file} was empty (a process killed, or a disk full, while it was written)`]);
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(process.pid);
    release();
    expect(existsSync(file)).toBe(false);
  });

  it('a fresh empty lock is waited for (a writer between its create and its write), then reclaimed', () => {
    const file = join(dir, 'fresh-empty.lock');
    writeFileSync(file, '');
    const t0 = Date.now();
    const release = acquireLock(file, 'run directory D');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    release();
  });

  it('a lock whose holder is this process is refused (a second run of one process), nothing removed', () => {
    const file = join(dir, 'own.lock');
    const release = acquireLock(file, 'run directory D');
    expect(() => acquireLock(file, 'run directory D')).toThrow(/^run directory D is in use by process \d+ \(since /);
    expect(existsSync(file)).toBe(true);
    release();
  });
});
