/**
 * The tracked tree's size: what a GPU machine run carries (the working tree's tracked files; the
 * run also takes `.device/`, 64 MiB in all). The budget keeps room for the device bundle.
 *
 *   npx tsx scripts/tree-size.ts        prints the total and the biggest folders and files
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** The tracked tree's budget: 64 MiB per device run, less the device bundle (~35 MiB) and headroom. */
export const TREE_BUDGET_BYTES = 24 * 1024 * 1024;

export interface TrackedFile {
  path: string;
  bytes: number;
}

/**
 * Every tracked file with its size in the working tree (a run copies the working tree); a tracked
 * file deleted from the working tree counts 0, as a run would not carry it.
 */
export function trackedFiles(root: string): TrackedFile[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const paths = out.toString('utf8').split('\0').filter(Boolean);
  return [...new Set(paths)].map((path) => {
    let bytes = 0;
    try {
      const s = statSync(join(root, path));
      bytes = s.isFile() ? s.size : 0;
    } catch {
      // deleted in the working tree: not carried
    }
    return { path, bytes };
  });
}

/** Whether `root` is inside a git work tree (a `git archive` copy is not, and has nothing "tracked"). */
export function isGitCheckout(root: string): boolean {
  try {
    return execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() === 'true';
  } catch {
    return false;
  }
}

const mib = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MiB`;

/** Sizes summed per folder prefix of `depth` components (a file at the top level is its own entry). */
export function folderSizes(files: TrackedFile[], depth: number): TrackedFile[] {
  const by = new Map<string, number>();
  for (const f of files) {
    const parts = f.path.split('/');
    const key = parts.length > depth ? `${parts.slice(0, depth).join('/')}/` : f.path;
    by.set(key, (by.get(key) ?? 0) + f.bytes);
  }
  return [...by].map(([path, bytes]) => ({ path, bytes })).sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path));
}

/** The total and, largest first, the `top` biggest folders (two levels) and files: what to look at when over budget. */
export function treeSizeReport(files: TrackedFile[], budget = TREE_BUDGET_BYTES, top = 8): { total: number; over: boolean; text: string } {
  const total = files.reduce((s, f) => s + f.bytes, 0);
  const biggestFiles = [...files].sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path)).slice(0, top);
  const lines = [
    `tracked tree ${mib(total)} (${total} bytes) of a ${mib(budget)} budget${total > budget ? `: ${mib(total - budget)} over` : ''}`,
    'biggest folders:',
    ...folderSizes(files, 2).slice(0, top).map((f) => `  ${mib(f.bytes).padStart(10)}  ${f.path}`),
    'biggest files:',
    ...biggestFiles.map((f) => `  ${mib(f.bytes).padStart(10)}  ${f.path}`),
  ];
  return { total, over: total > budget, text: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = treeSizeReport(trackedFiles(process.cwd()));
  console.log(r.text);
  process.exit(r.over ? 1 : 0);
}
