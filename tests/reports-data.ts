/**
 * The reports' raw data (run pools, metrics, summaries) lives on the branch `reports-data`, not in
 * the tracked tree (scripts/reports-data.sh). Tests that recompute from it bring it back first,
 * with the same one command a user runs (`npm run reports:data`): the files land git-ignored
 * beside the tracked reports.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** The raw files the branch holds (paths under the repository root). */
export function reportsDataFiles(): string[] {
  return execFileSync('git', ['ls-tree', '-r', '--name-only', reportsDataRev()], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }).toString().split('\n').filter(Boolean);
}

/** The data commit restore reads: the local branch, else the one main names in reports/raw-data.commit (scripts/reports-data.sh rev). */
export function reportsDataRev(): string {
  return execFileSync('sh', ['scripts/reports-data.sh', 'rev'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
}

/** Restores the raw data into the working tree unless every file of it is already there. */
export function ensureReportsData(): void {
  let files: string[] = [];
  try {
    files = reportsDataFiles();
  } catch {
    // The branch is not in this clone: the script fetches it from origin, or says why it cannot.
  }
  const present = () => files.length > 0 && files.every((f) => existsSync(join(ROOT, f)));
  if (present()) return;
  // One restorer at a time (test files run in parallel): the others wait, then find the files whole.
  const lock = join(ROOT, '.reports-data.lock');
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock}: held for 5 minutes; remove it if no test is restoring`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!present()) execFileSync('sh', ['scripts/reports-data.sh', 'restore'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmdirSync(lock);
  }
}
