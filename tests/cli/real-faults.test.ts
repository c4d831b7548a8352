/**
 * The CLI on real faults, not mocks (issue "Reliability III"): small tmpfs file systems filled to
 * a few pages, remounted read-only, device nodes made with mknod, and concurrent CLI processes.
 * Each case was checked to fail on the sources before its fix. Needs root (CI runs as root):
 * elsewhere the suite skips and says why.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { cliRunner, journal } from './harness';
import { fillLeaving, makeNullDevice, mountTmpfs, realFsSkip, remountReadOnly, unmountAll } from './real-fs';

const run = cliRunner(main);
const root = mkdtempSync(join(tmpdir(), 'magic-real-faults-'));
const engine = ['--backend', 'wasm', '--threads', '1', '--quiet'];
const cfg = join(root, 'cfg.json');
writeFileSync(cfg, JSON.stringify({ stages: [{ maxResponseLength: 12, steps: 4 }], eval: { everySteps: 2, k: 2, temperatures: [1], testProblems: 2 }, checkpoint: { everySteps: 2 } }));
const train = (out: string, ...more: string[]) => run('train', '--preset', 'magic-tiny', '--config', cfg, '--out', out, ...engine, ...more);

/** Every file of a directory and its bytes: "nothing changed" is this, equal before and after. */
export const snapshot = (d: string) => Object.fromEntries(readdirSync(d).sort().map((f) => [f, readFileSync(join(d, f)).toString('base64')]));

afterAll(() => {
  unmountAll();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(realFsSkip !== null)(`writes on a real nearly full disk${realFsSkip ? ` (skipped: ${realFsSkip})` : ''}`, () => {
  it('train --resume on a nearly full disk: exit 2, one line, both journals byte for byte as they were; with space again it ends as a resume with space to spare', async () => {
    const partial = join(root, 'partial');
    expect((await train(partial, '--steps', '3')).code).toBe(0); // checkpoint and journals at step 3
    const control = join(root, 'control'); // the same run resumed with space to spare
    cpSync(partial, control, { recursive: true });
    expect((await run('train', '--resume', control, ...engine)).code).toBe(0);
    const disk = mountTmpfs(512);
    const dir = join(disk, 'run');
    cpSync(partial, dir, { recursive: true });
    // Room for the lock and metrics.jsonl's rewrite, not for samples.jsonl's (18 KB): its copy is cut short.
    expect(statSync(join(dir, 'samples.jsonl')).size).toBeGreaterThan(12 * 1024);
    const filler = fillLeaving(disk, 12 * 1024);
    const before = snapshot(dir);
    const r = await run('train', '--resume', dir, ...engine);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.errLines).toEqual([`magic-lab train: writing ${join(dir, 'samples.jsonl')} failed: no space left on the disk (ENOSPC)`]);
    expect(snapshot(dir)).toEqual(before); // no journal cut, no temp file, no lock left

    rmSync(filler);
    const resumed = await run('train', '--resume', dir, ...engine);
    expect(resumed.code, resumed.err).toBe(0);
    expect(journal(dir)).toEqual(journal(control));
  }, 60_000);

  it('import-verl on a nearly full disk: exit 2, one line, no run file and no temp file', async () => {
    const log = join(root, 'w.csv');
    writeFileSync(log, 'step,actor/entropy\n' + Array.from({ length: 200 }, (_, i) => `${i + 1},${(0.5 + i / 1000).toFixed(4)}`).join('\n') + '\n');
    const whole = join(root, 'whole.jsonl');
    expect((await run('import-verl', log, '--out', whole)).code).toBe(0);
    const size = statSync(whole).size;
    expect(size).toBeGreaterThan(8192);
    const disk = mountTmpfs(256);
    fillLeaving(disk, 8192); // less than the run file: the one write that holds it is cut short
    const out = join(disk, 'run.jsonl');
    const r = await run('import-verl', log, '--out', out);
    expect(r.code, r.out).toBe(2);
    expect(r.errLines).toEqual([`magic-lab import-verl: --out: cannot write ${out} (ENOSPC)`]);
    expect(r.out).toBe('');
    expect(readdirSync(disk).filter((f) => !f.startsWith('.filler'))).toEqual([]);
  });

  it('export-verl on a nearly full disk: exit 2, one line, every file it left whole (none cut short), no temp file', async () => {
    const control = join(root, 'export-control');
    const args = ['export-verl', '--preset', 'magic-tiny'];
    const ok = await run(...args, '--out', control);
    expect(ok.code, ok.err).toBe(0);
    const whole = snapshot(control);
    const sizes = Object.keys(whole).map((f) => statSync(join(control, f)).size);
    const disk = mountTmpfs(256);
    fillLeaving(disk, Math.max(...sizes) - 1024); // room for some files, not for the largest
    const out = join(disk, 'export');
    const r = await run(...args, '--out', out);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(/ENOSPC/);
    const left = existsSync(out) ? snapshot(out) : {};
    for (const [f, bytes] of Object.entries(left)) expect(bytes, f).toBe(whole[f]); // whole or absent, never cut
    expect(Object.keys(left).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('import-verl --out at a device node: exit 2, one line, the node is still a device', async () => {
    const dev = join(root, 'null');
    makeNullDevice(dev);
    const r = await run('import-verl', join(__dirname, '..', 'verl', 'fixtures', 'verl-console.txt'), '--out', dev);
    expect(r.code).toBe(2);
    expect(r.errLines).toEqual([`magic-lab import-verl: --out: ${dev} is a device, not a regular file; give a file path to write`]);
    expect(statSync(dev).isCharacterDevice()).toBe(true);
    expect(readdirSync(root).filter((f) => f.includes('null'))).toEqual(['null']); // no temp file beside it
  });

  it('a checkpoint write on a full disk: exit 2 naming the file; the previous checkpoint whole, no temp file', async () => {
    const disk = mountTmpfs(512);
    const dir = join(disk, 'run');
    cpSync(join(root, 'partial'), dir, { recursive: true });
    // Space for the journals' appends, not for a second 60 KB checkpoint beside the first.
    fillLeaving(disk, 40 * 1024);
    const before = readFileSync(join(dir, 'checkpoint.mlck'));
    const r = await run('train', '--resume', dir, ...engine);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(/^magic-lab train: writing .*checkpoint\.mlck failed: no space left on the disk \(ENOSPC\); the run stopped at step 4 — the last good checkpoint is .*\(step 3\)/);
    expect(readFileSync(join(dir, 'checkpoint.mlck')).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(dir, '.magic-lab.lock'))).toBe(false);
  }, 60_000);
});

describe.skipIf(realFsSkip !== null)(`every subcommand on a real read-only file system${realFsSkip ? ` (skipped: ${realFsSkip})` : ''}`, () => {
  // Node's recursive mkdir reports ENOENT on a read-only mount (not EROFS) once a parent is missing: both are met here.
  const LOG = join(__dirname, '..', 'verl', 'fixtures', 'verl-console.txt');
  const sftCfg = join(root, 'sft.json');
  writeFileSync(sftCfg, JSON.stringify({ model: { vocabSize: 24, contextLength: 64, nLayers: 1, dModel: 16, nHeads: 2, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true }, difficulty: 1, trainSize: 30, testSize: 8, batch: 4, lr: 5e-3, evalK: 1, evalProblems: 2, evalMaxResponseLength: 8, steps: 2 }));
  const cases = (ro: string): [string, string[]][] => [
    ['train --out RO/run', ['train', '--preset', 'magic-tiny', '--config', cfg, '--out', join(ro, 'run'), ...engine]],
    ['train --out RO/a/b/run', ['train', '--preset', 'magic-tiny', '--config', cfg, '--out', join(ro, 'a', 'b', 'run'), ...engine]],
    ['data build --out RO/d', ['data', 'build', '--preset', 'magic-tiny', '--out', join(ro, 'd')]],
    ['data build --out RO/a/b/d', ['data', 'build', '--preset', 'magic-tiny', '--out', join(ro, 'a', 'b', 'd')]],
    ['export-verl --out RO/x', ['export-verl', '--preset', 'magic-tiny', '--out', join(ro, 'x')]],
    ['export-verl --out RO/a/b/x', ['export-verl', '--preset', 'magic-tiny', '--out', join(ro, 'a', 'b', 'x')]],
    ['import-verl --out RO/a/x.jsonl', ['import-verl', LOG, '--out', join(ro, 'a', 'x.jsonl')]],
    ['import-verl --out RO/x.jsonl', ['import-verl', LOG, '--out', join(ro, 'x.jsonl')]],
    ['sft --out RO/a/b.mlck', ['sft', '--config', sftCfg, '--out', join(ro, 'a', 'b.mlck'), '--backend', 'wasm', '--threads', '1']],
    ['sft --out RO/b.mlck', ['sft', '--config', sftCfg, '--out', join(ro, 'b.mlck'), '--backend', 'wasm', '--threads', '1']],
    ['sweep --out RO/a/s', ['sweep', '--presets', 'magic-tiny', '--seeds', '1', '--steps', '1', '--out', join(ro, 'a', 's'), '--backend', 'wasm', '--threads', '1']],
    ['train --resume RO/held (a run on a read-only mount)', ['train', '--resume', join(ro, 'held'), ...engine]],
  ];
  it.each(cases('RO'))('%s: exit 2, one line, no stack trace, nothing written', async (label) => {
    const disk = roDisk();
    const [, argv] = cases(disk).find(([l]) => l === label)!;
    const before = JSON.stringify(snapshotTree(disk));
    const r = await run(...argv);
    expect(r.code, r.err).toBe(2);
    expect(r.errLines, r.err).toHaveLength(1);
    expect(r.err).not.toMatch(/\bat .*\.(ts|js|mjs):\d+/);
    expect(r.err).toMatch(/read-only|EROFS/);
    expect(JSON.stringify(snapshotTree(disk))).toBe(before);
  }, 60_000);
});

let ro: string | null = null;
/** One read-only tmpfs holding a finished run in held/ (made once, written before the remount). */
function roDisk(): string {
  if (ro !== null) return ro;
  const d = mountTmpfs(1024);
  cpSync(join(root, 'partial'), join(d, 'held'), { recursive: true });
  remountReadOnly(d);
  ro = d;
  return d;
}
/** Every path under a directory and its bytes. */
function snapshotTree(d: string, out: Record<string, string> = {}, rel = ''): Record<string, string> {
  for (const f of readdirSync(join(d, rel)).sort()) {
    const p = join(rel, f);
    if (statSync(join(d, p)).isDirectory()) snapshotTree(d, out, p);
    else out[p] = readFileSync(join(d, p)).toString('base64');
  }
  return out;
}
