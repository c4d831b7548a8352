/**
 * Every subcommand × hostile paths (issue #27): a read-only directory, a file where a directory
 * belongs, a directory where a file belongs, a device file as input. Each is the user's to fix:
 * exit 2, exactly one line on stderr, no stack trace. The tests run as root (which can write in a
 * mode-0555 directory), so the read-only mount is simulated under the CLI (this file has its own
 * module graph): every write call under RO fails with EROFS as a read-only file system's does.
 * A closed stdout (`train … | head -1`) runs the real command in a shell.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cliRunner } from './harness';

const root = mkdtempSync(join(tmpdir(), 'magic-hostile-'));
const RO = join(root, 'ro');

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const erofs = (syscall: string, path: unknown) => Object.assign(new Error(`EROFS: read-only file system, ${syscall} '${String(path)}'`), { code: 'EROFS', errno: -30, syscall, path: String(path) });
  const under = (p: unknown) => typeof p === 'string' && p.startsWith(RO + '/');
  const guard = <F extends (...a: never[]) => unknown>(name: string, f: F, writes: (...a: Parameters<F>) => boolean = () => true): F =>
    ((...a: Parameters<F>) => {
      if (under(a[0]) && writes(...a)) throw erofs(name, a[0]);
      return f(...a);
    }) as F;
  const writing = {
    writeFileSync: guard('open', fs.writeFileSync),
    appendFileSync: guard('open', fs.appendFileSync),
    mkdirSync: guard('mkdir', fs.mkdirSync, (p) => !fs.existsSync(p as string)),
    renameSync: guard('rename', fs.renameSync),
    copyFileSync: guard('copyfile', fs.copyFileSync),
    openSync: guard('open', fs.openSync, (_p, flags) => flags !== undefined && flags !== 'r'),
    createWriteStream: guard('open', fs.createWriteStream),
  };
  return { ...fs, default: { ...fs, ...writing }, ...writing };
});

const { main } = await import('../../src/cli/main');
const run = cliRunner(main);

const FILE = join(root, 'a-file');
const DIR = join(root, 'a-dir');
const DEV = '/dev/zero';
mkdirSync(RO);
mkdirSync(DIR);
writeFileSync(FILE, 'not a directory\n');
const LOG = join(__dirname, '..', 'verl', 'fixtures', 'verl-console.txt');
const tiny = ['--backend', 'wasm', '--threads', '1', '--quiet'];

/** [label, argv]: every one must exit 2 with one line and no trace. */
const cases: [string, string[]][] = [
  // read-only directory
  ['train --out RO/run', ['train', '--preset', 'magic-tiny', '--out', join(RO, 'run'), ...tiny]],
  ['data build --out RO/d', ['data', 'build', '--preset', 'magic-tiny', '--out', join(RO, 'd')]],
  ['export-verl --out RO/x', ['export-verl', '--preset', 'magic-tiny', '--out', join(RO, 'x')]],
  ['import-verl --out RO/x.jsonl', ['import-verl', LOG, '--out', join(RO, 'x.jsonl')]],
  // a file where a directory belongs
  ['train --out FILE/run', ['train', '--preset', 'magic-tiny', '--out', join(FILE, 'run'), ...tiny]],
  ['data build --out FILE/d', ['data', 'build', '--preset', 'magic-tiny', '--out', join(FILE, 'd')]],
  ['export-verl --out FILE/x', ['export-verl', '--preset', 'magic-tiny', '--out', join(FILE, 'x')]],
  ['import-verl --out FILE/x.jsonl', ['import-verl', LOG, '--out', join(FILE, 'x.jsonl')]],
  ['train --resume FILE', ['train', '--resume', FILE, ...tiny]],
  // a directory where a file belongs
  ['train --out FILE', ['train', '--preset', 'magic-tiny', '--out', FILE, ...tiny]],
  ['train --base DIR', ['train', '--preset', 'magic-tiny', '--base', DIR, '--out', join(root, 'r1'), ...tiny]],
  ['train --config DIR', ['train', '--preset', 'magic-tiny', '--config', DIR, '--out', join(root, 'r2'), ...tiny]],
  ['eval --checkpoint DIR', ['eval', '--checkpoint', DIR]],
  ['sft --resume DIR', ['sft', '--resume', DIR, '--out', join(root, 's.mlck')]],
  ['sft --config DIR', ['sft', '--config', DIR]],
  ['import-verl DIR', ['import-verl', DIR, '--out', join(root, 'y.jsonl')]],
  ['import-verl --out DIR', ['import-verl', LOG, '--out', DIR]],
  ['export-verl --run DIR', ['export-verl', '--run', DIR, '--out', join(root, 'ex')]],
  // a device file as input
  ['eval --checkpoint /dev/zero', ['eval', '--checkpoint', DEV]],
  ['train --base /dev/zero', ['train', '--preset', 'magic-tiny', '--base', DEV, '--out', join(root, 'r3'), ...tiny]],
  ['train --config /dev/zero', ['train', '--preset', 'magic-tiny', '--config', DEV, '--out', join(root, 'r4'), ...tiny]],
  ['sft --resume /dev/zero', ['sft', '--resume', DEV, '--out', join(root, 's2.mlck')]],
  ['sft --config /dev/zero', ['sft', '--config', DEV]],
  ['import-verl /dev/zero', ['import-verl', DEV, '--out', join(root, 'z.jsonl')]],
  ['import-verl --config /dev/zero', ['import-verl', LOG, '--out', join(root, 'z2.jsonl'), '--config', DEV]],
];

describe('every subcommand × hostile paths: exit 2, one line, no stack trace', () => {
  for (const [label, argv] of cases) {
    it(label, async () => {
      const r = await run(...argv);
      expect(r.code, r.err.slice(0, 600)).toBe(2);
      expect(r.errLines, r.err.slice(0, 600)).toHaveLength(1);
      expect(r.err).not.toMatch(/\n|\bat .*\.(ts|js|mjs):\d+/);
      expect(r.err).toMatch(new RegExp(`^magic-lab ${argv[0]}: `));
    }, 60_000);
  }
});

describe('a closed stdout', () => {
  it('train … | head -1: the run finishes, exit 0, no EPIPE trace', () => {
    const out = join(root, 'piped');
    const r = spawnSync('bash', ['-c', `node bin/magic-lab.mjs train --preset magic-tiny --out ${out} --backend wasm --threads 1 2>${join(root, 'piped.err')} | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"; cat ${join(root, 'piped.err')}`], { encoding: 'utf8', cwd: join(__dirname, '..', '..') });
    const [code, ...err] = r.stdout.trim().split('\n');
    expect(err.join('\n')).not.toMatch(/EPIPE|\bat .*\.(ts|js|mjs):\d+/);
    expect(code).toBe('0');
  }, 120_000);
});
