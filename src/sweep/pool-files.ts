/**
 * The files that make a sweep resumable and its run pool shareable: OUT/sweep.json and each run's
 * sweep-run.json (identities compared on every re-run), atomic JSON writes, and the lock that
 * keeps two sweeps out of one directory.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { acquireLock, readLockHolder, RunLockError } from '../run/dir-lock';
import { replaceFile } from '../run/replace-file';
import { validateRunConfig, type RunConfigInput } from '../rl/config';
import { SweepError } from './errors';
import { sweepSpec, SWEEP_SCHEMA, type PlannedRun, type SweepOptions } from './plan';

// ---------------------------------------------------------------------------------------------
// Files

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Atomic JSON write (temp file + rename): a kill never leaves half a marker. */
export function writeJson(file: string, value: unknown): void {
  replaceFile(file, JSON.stringify(value, null, 2) + '\n');
}

/** Names the first top-level field where two identities differ. */
function firstDifference(a: Record<string, unknown>, b: Record<string, unknown>): string | null {
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) return k;
  }
  return null;
}

const show = (v: unknown) => (v === null || v === undefined ? 'none' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** OUT/sweep.json: created on the first call, compared on every later one. */
export function checkSweepIdentity(o: SweepOptions): void {
  const file = join(o.out, 'sweep.json');
  const spec: Record<string, unknown> = { schema: SWEEP_SCHEMA, ...sweepSpec(o) };
  if (existsSync(file)) {
    const old = readJson<Record<string, unknown>>(file);
    const diff = firstDifference(old, spec);
    if (diff !== null) {
      throw new SweepError(
        `--out: ${o.out} holds a different sweep (${diff}: ${show(old[diff])} there, ${show(spec[diff])} now); re-run it with its own flags or choose another --out`,
      );
    }
    return;
  }
  writeJson(file, spec);
}

/** The run's identity file: written before it starts, compared when the pool already holds the run. */
export function checkRunIdentity(run: PlannedRun): void {
  const file = join(run.dir, 'sweep-run.json');
  if (existsSync(file)) {
    const old = readJson<Record<string, unknown>>(file);
    const diff = firstDifference(old, run.identity as unknown as Record<string, unknown>);
    if (diff !== null) {
      throw new SweepError(`--runs: ${run.dir} holds a ${run.preset} run made with another ${diff} (${show(old[diff])}); use another --runs or --out`);
    }
    checkRunConfig(run);
    return;
  }
  writeJson(file, run.identity);
}

/** Dotted path of the first field where two JSON values differ, or null. */
export function firstDifferentField(a: unknown, b: unknown, path = ''): string | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      const d = firstDifferentField(ra[k], rb[k], path ? `${path}.${k}` : k);
      if (d !== null) return d;
    }
  }
  return path || '(whole config)';
}

/**
 * A pool run trained under the config its preset resolved to then (its config.json): when the
 * preset's defaults have changed since, reusing it would report old training under a new name.
 */
function checkRunConfig(run: PlannedRun): void {
  const file = join(run.dir, 'config.json');
  if (!existsSync(file)) return;
  const trained = validateRunConfig(readJson<RunConfigInput>(file));
  const field = firstDifferentField(trained, run.config);
  if (field !== null) {
    throw new SweepError(
      `--runs: ${run.dir} holds a ${run.preset} run trained with another ${field} (${show(fieldAt(trained, field))} there, ${show(fieldAt(run.config, field))} now: its defaults changed since); use another --runs or --out`,
    );
  }
}

function fieldAt(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((x, k) => (typeof x === 'object' && x !== null ? (x as Record<string, unknown>)[k] : undefined), v);
}

/**
 * A lock so two sweeps never write one directory at once: the run directories' lock
 * (src/run/dir-lock.ts: O_EXCL, pid + host + start time, a dead holder's lock reclaimed) under the
 * sweep's own name and message. A plain pid, as sweeps wrote before, is read as a holder on this host.
 */
export function lock(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '.sweep-lock');
  if (existsSync(file)) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      // unreadable: acquireLock says so
    }
    const holder = /^\d+$/.test(text) ? Number(text) : readLockHolder(file)?.host === hostname() ? readLockHolder(file)!.pid : null;
    // This process's own lock (a sweep of this process that stopped early), or a plain pid: rewritten in the holder format first.
    if (holder === process.pid) rmSync(file, { force: true });
    else if (/^\d+$/.test(text)) writeFileSync(file, JSON.stringify({ pid: holder, host: hostname(), startedAt: 'unknown' }) + '\n');
  }
  try {
    return acquireLock(file, `sweep directory ${dir}`);
  } catch (e) {
    if (!(e instanceof RunLockError)) throw e;
    const h = readLockHolder(file);
    throw new SweepError(`--out: another sweep (process ${h ? `${h.pid}${h.host === hostname() ? '' : ` on host ${h.host}`}` : 'unknown'}) is using ${dir}; wait for it or remove ${file}`);
  }
}
