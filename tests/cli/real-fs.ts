/**
 * Real file-system faults for the CLI tests: small tmpfs mounts (full, nearly full, read-only) and
 * device nodes, made with the kernel's own mount and mknod. CI runs as root; elsewhere (no root, or
 * a container without CAP_SYS_ADMIN) `realFsSkip` says why and the tests that need them skip.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const mounted: string[] = [];

function probe(): string | null {
  if (process.platform !== 'linux') return 'tmpfs mounts need Linux';
  if (process.getuid?.() !== 0) return 'mounting tmpfs and mknod need root (CI runs as root)';
  const d = mkdtempSync(join(tmpdir(), 'magic-probe-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', d], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(d, { recursive: true, force: true });
    return `mount -t tmpfs failed (${(r.stderr || r.error?.message || '').trim()}): no CAP_SYS_ADMIN here`;
  }
  spawnSync('umount', [d]);
  rmSync(d, { recursive: true, force: true });
  return null;
}

/** Why real faults cannot be made here, or null when they can. */
export const realFsSkip: string | null = probe();

/** A fresh tmpfs of `kib` KiB (optionally read-only), unmounted by `unmountAll`. */
export function mountTmpfs(kib: number, opts: { readOnly?: boolean } = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'magic-tmpfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k${opts.readOnly ? ',ro' : ''}`, 'tmpfs', d], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
  mounted.push(d);
  return d;
}

/** Remounts a mounted tmpfs read-only (its files stay). */
export function remountReadOnly(dir: string): void {
  const r = spawnSync('mount', ['-o', 'remount,ro', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`remount failed: ${r.stderr}`);
}

export function unmountAll(): void {
  for (const d of mounted.splice(0)) {
    spawnSync('umount', ['-l', d]);
    rmSync(d, { recursive: true, force: true });
  }
}

/** Free bytes of the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

/**
 * Fills the file system of `dir` with a filler file until at most `leave` bytes are free (a
 * multiple of the page size on tmpfs); returns the filler's path (remove it to free the space).
 */
export function fillLeaving(dir: string, leave: number): string {
  const filler = join(dir, `.filler-${process.pid}-${mounted.length}-${Date.now()}`);
  const fd = openSync(filler, 'a');
  try {
    const chunk = Buffer.alloc(4096, 0x78);
    while (freeBytes(dir) > leave) {
      const n = Math.min(chunk.length, freeBytes(dir) - leave);
      if (writeSync(fd, chunk, 0, n) <= 0) break;
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

/** A character device node like /dev/null (major 1, minor 3) at `file`, made with mknod. */
export function makeNullDevice(file: string): void {
  const r = spawnSync('mknod', [file, 'c', '1', '3'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mknod failed: ${r.stderr}`);
}
