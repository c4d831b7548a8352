/** The magic-lab command: usage errors (exit 2, nothing written), a tiny run with resume, eval, data, gradcheck. */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from './harness';
import { main } from '../../src/cli/main';
import { assembleCheckpoint, decodeCheckpoint, encodeCheckpoint, splitCheckpoint } from '../../src/model/checkpoint';

const run = cliRunner(main);

describe('magic-lab usage errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'magic-cli-'));
  const cases: [string[], RegExp][] = [
    [['train', '--bogus'], /unknown flag --bogus/],
    [['train', '--preset', 'nope', '--out', join(dir, 'a')], /--preset: .*nope/],
    [['train', '--preset', 'magic-tiny', '--steps', 'x', '--out', join(dir, 'b')], /--steps: expected a number/],
    [['train', '--preset', 'magic-tiny', '--config', join(dir, 'missing.json'), '--out', join(dir, 'c')], /--config: cannot read/],
    [['train', '--resume', join(dir, 'nothing-here')], /--resume: .*does not exist/],
    [['eval'], /--checkpoint FILE is required/],
    [['data', 'explode'], /expected build, inspect or filter/],
    [['bench', '--config', 'vocab=32,heads=5'], /--config: dModel: must be divisible by nHeads/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['train', '--preset', 'magic-tiny', '--matmul-variant', 'tiled128', '--out', join(dir, 'd')], /--matmul-variant: expected one of auto, blocked4x4, tiled64, got "tiled128"/],
    [['train', '--preset', 'magic-tiny', '--backend', 'wasm', '--matmul-variant', 'tiled64', '--out', join(dir, 'e')], /--matmul-variant tiled64: only the WebGPU engine has matmul variants/],
    [['bench', '--matmul-variant', 'fastest'], /--matmul-variant: expected one of auto, blocked4x4, tiled64, got "fastest"/],
  ];
  for (const [argv, msg] of cases) {
    it(`${argv.join(' ')} → exit 2 with one clear message`, async () => {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.split('\n').length).toBeLessThanOrEqual(12);
    });
  }

  it('a config with a bad field names it and writes nothing', async () => {
    const cfg = join(dir, 'bad.json');
    writeFileSync(cfg, JSON.stringify({ loss: { epsLow: -1 } }));
    const out = join(dir, 'never');
    const r = await run('train', '--preset', 'magic-tiny', '--config', cfg, '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/loss\.epsLow: must be in \[0, 1\), got -1/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('magic-lab train / eval / data', () => {
  it('trains a tiny preset, stops at --steps, resumes to the end of the schedule, and evaluates the checkpoint', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'magic-run-')), 'run');
    const first = await run('train', '--preset', 'magic-tiny', '--steps', '2', '--out', out, '--quiet');
    expect(first.code, first.err).toBe(0);
    for (const f of ['config.json', 'metrics.jsonl', 'samples.jsonl', 'checkpoint.mlck']) expect(existsSync(join(out, f)), f).toBe(true);
    const lines = () => readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // eval at step 0, steps 1-2 (eval every 2 → at step 2), and the final eval is not repeated.
    expect(lines().filter((l) => l.type === 'step').map((l) => l.step)).toEqual([1, 2]);
    expect(lines().filter((l) => l.type === 'eval').map((l) => l.step)).toEqual([0, 2]);
    const second = await run('train', '--resume', out, '--quiet');
    expect(second.code, second.err).toBe(0);
    expect(second.out).toMatch(/resumed .* at step 2/);
    expect(lines().filter((l) => l.type === 'step').map((l) => l.step)).toEqual([1, 2, 3, 4]);
    expect(lines().every((l) => l.type !== 'step' || typeof l['actor/entropy'] === 'number')).toBe(true);
    const ev = await run('eval', '--checkpoint', join(out, 'checkpoint.mlck'), '--k', '2', '--problems', '3', '--temperatures', '1');
    expect(ev.code, ev.err).toBe(0);
    expect(ev.out).toMatch(/val\/avg@2\/t1\.0\s+\d\.\d{4}/);
    expect(ev.out).toMatch(/val\/pass@2\/t1\.0/);
  });

  it('resume: a partial last journal line is dropped with a warning, a damaged middle line is refused, a finished run gains no second final eval; --out never overwrites records', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'magic-journal-')), 'run');
    expect((await run('train', '--preset', 'magic-tiny', '--steps', '2', '--out', out, '--quiet')).code).toBe(0);
    const metrics = join(out, 'metrics.jsonl');
    const lines = () => readFileSync(metrics, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // A full disk mid-append: half a record at the end of each journal.
    appendFileSync(metrics, '{"type":"step","step":3,"actor/ent');
    appendFileSync(join(out, 'samples.jsonl'), '{"step":3,"gro');
    const resumed = await run('train', '--resume', out, '--quiet');
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.out).toMatch(/warning: .*metrics\.jsonl:\d+: dropped a partial last record/);
    expect(lines().filter((l) => l.type === 'step').map((l) => l.step)).toEqual([1, 2, 3, 4]);
    expect(lines().filter((l) => l.type === 'eval').map((l) => l.step)).toEqual([0, 2, 4]);
    // Resuming the finished run again trains nothing and appends no duplicate final eval.
    const again = await run('train', '--resume', out, '--quiet');
    expect(again.code, again.err).toBe(0);
    expect(lines().filter((l) => l.type === 'eval').map((l) => l.step)).toEqual([0, 2, 4]);
    // Damage before the end: refused with file:line, the journal left as it was.
    const text = readFileSync(metrics, 'utf8').split('\n');
    text[1] = '{oops';
    writeFileSync(metrics, text.join('\n'));
    const damaged = await run('train', '--resume', out, '--quiet');
    expect(damaged.code).toBe(2);
    expect(damaged.err).toMatch(/--resume: .*metrics\.jsonl:2 is not a JSON record/);
    expect(readFileSync(metrics, 'utf8').split('\n')[1]).toBe('{oops');
    // --out at records without a checkpoint (a run that died before its first one): refused, untouched.
    const crashed = join(mkdtempSync(join(tmpdir(), 'magic-crashed-')), 'run');
    mkdirSync(crashed);
    writeFileSync(join(crashed, 'metrics.jsonl'), '{"type":"step","step":1}\n');
    const fresh = await run('train', '--preset', 'magic-tiny', '--out', crashed, '--quiet');
    expect(fresh.code).toBe(2);
    expect(fresh.err).toMatch(/--out: .*metrics\.jsonl holds records of a run that has no checkpoint/);
    expect(readFileSync(join(crashed, 'metrics.jsonl'), 'utf8')).toBe('{"type":"step","step":1}\n');
  });

  it('a checkpoint with non-finite weights is refused by eval, train --base and --resume: exit 2, one line naming the file and tensor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-nan-'));
    const good = new Uint8Array(readFileSync('public/checkpoints/base-tiny.mlck'));
    const parts = splitCheckpoint(encodeCheckpoint(decodeCheckpoint(good)));
    const header = JSON.parse(parts.headerText);
    const data = parts.data.slice();
    new DataView(data.buffer, data.byteOffset).setFloat32(header.tensors[1].offset, Infinity, true);
    const bad = assembleCheckpoint(parts.headerText, data); // a checksum that matches: only the value is wrong
    const file = join(dir, 'diverged.mlck');
    writeFileSync(file, bad);
    for (const argv of [
      ['eval', '--checkpoint', file, '--k', '2', '--problems', '2'],
      ['train', '--preset', 'magic-tiny', '--base', file, '--out', join(dir, 'run'), '--quiet'],
    ]) {
      const r = await run(...argv);
      expect(r.code, argv[0]).toBe(2);
      expect(r.err.split('\n'), argv[0]).toHaveLength(1);
      expect(r.err).toMatch(new RegExp(`diverged\\.mlck: tensor ${header.tensors[1].name} holds a non-finite value \\(Infinity at element 0\\)`));
    }
    expect(existsSync(join(dir, 'run'))).toBe(false);
  });

  it('a run checkpoint is checked before it is used: --base refuses it, a tampered state or missing AdamW moments refuse --resume (exit 2, one line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-state-'));
    const runDir = join(dir, 'run');
    // From the tiny base, so the first steps earn rewards and take optimizer steps (AdamW moments matter).
    expect((await run('train', '--preset', 'magic-tiny', '--base', 'public/checkpoints/base-tiny.mlck', '--steps', '2', '--out', runDir, '--quiet')).code).toBe(0);
    const ckFile = join(runDir, 'checkpoint.mlck');
    expect((decodeCheckpoint(new Uint8Array(readFileSync(ckFile))).meta.state as { adamStep: number }).adamStep).toBeGreaterThan(0);
    const asBase = await run('train', '--preset', 'magic-tiny', '--base', ckFile, '--out', join(dir, 'other'), '--quiet');
    expect(asBase.code).toBe(2);
    expect(asBase.err).toMatch(/--base: .*checkpoint\.mlck is a run checkpoint \(step 2\); continue that run with --resume DIR/);
    const good = decodeCheckpoint(new Uint8Array(readFileSync(ckFile)), ckFile);
    const rawBytes = new Map<string, Uint8Array>();
    const cases: [string, Parameters<typeof encodeCheckpoint>[0], RegExp][] = [
      ['negative step', { ...good, meta: { ...good.meta, state: { ...(good.meta.state as object), step: -3 } } }, /run state step must be a non-negative integer, got -3/],
      ['pool past the data', { ...good, meta: { ...good.meta, state: { ...(good.meta.state as object), pool: [0, 99999] } } }, /run state pool\[1\] must be a training-prompt index below 16, got 99999/],
      ['history shorter than the steps', { ...good, meta: { ...good.meta, state: { ...(good.meta.state as object), scoreHistory: [] } } }, /run state scoreHistory must hold one score per step \(2\), got 0/],
      ['no AdamW moments', { ...good, adam: undefined }, /no-AdamW-moments.checkpoint\.mlck: a run at optimizer step \d+ without its AdamW moments .* would restart Adam from zero/],
      ['entropy controller outside its clamp', { ...good, meta: { ...good.meta, state: { ...(good.meta.state as object), entropy: { c: 99, lastBelowTarget: true, updates: 2 } } } }, /checkpoint\.mlck: run state entropy\.c \(99\) is outside \[c_min, c_max\]/],
      ['a bad run config', { ...good, meta: { ...good.meta, config: { ...(good.meta.config as object), seed: -1 } } }, /a-bad-run-config.checkpoint\.mlck: meta\.config\.seed/],
    ];
    const version = encodeCheckpoint(good);
    new DataView(version.buffer).setUint32(8, 7, true);
    const flipped = encodeCheckpoint(good);
    flipped[40] ^= 0x04; // inside the header JSON
    const raw: [string, Uint8Array, RegExp][] = [
      ['a header byte flipped', flipped, /a-header-byte-flipped.checkpoint\.mlck: checksum mismatch \(stored crc32:[0-9a-f]{8}, file crc32:[0-9a-f]{8}\): the file is corrupt$/],
      ['truncated', encodeCheckpoint(good).subarray(0, 1000), /truncated.checkpoint\.mlck: file is 1000 bytes, its prefix describes \d+ .*: the file is truncated$/],
      ['a later version', version, /a-later-version.checkpoint\.mlck: format version 7 is not supported \(this build reads versions 1 and 2; a newer MAGIC Lab wrote it\)$/],
    ];
    for (const [name, bytes, re] of raw) cases.push([name, null as never, re]), rawBytes.set(name, bytes);
    for (const [name, contents, re] of cases) {
      const d = join(dir, name.replace(/ /g, '-'));
      mkdirSync(d);
      writeFileSync(join(d, 'checkpoint.mlck'), rawBytes.get(name) ?? encodeCheckpoint(contents));
      writeFileSync(join(d, 'metrics.jsonl'), readFileSync(join(runDir, 'metrics.jsonl')));
      const before = readFileSync(join(d, 'metrics.jsonl'), 'utf8');
      const r = await run('train', '--resume', d, '--quiet');
      expect(r.code, name).toBe(2);
      expect(r.err.split('\n'), name).toHaveLength(1);
      expect(r.err, name).toMatch(re);
      expect(readFileSync(join(d, 'metrics.jsonl'), 'utf8'), name).toBe(before);
    }
  });

  it('data build writes the datasets and the dedup/decontamination report', async () => {
    const out = mkdtempSync(join(tmpdir(), 'magic-data-'));
    const r = await run('data', 'build', '--preset', 'magic-tiny', '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/train 16, test 8; removed \d+ exact duplicates, \d+ near duplicates, \d+ overlapping the test set/);
    expect(readFileSync(join(out, 'train.jsonl'), 'utf8').trim().split('\n')).toHaveLength(16);
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).testSize).toBe(8);
  });

  it('gradcheck passes every kernel and the whole policy', async () => {
    const r = await run('gradcheck', '--seed', '7');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/all \d+ checks within tolerance/);
    expect(r.out).toMatch(/matmul tiled64/);
    expect(r.out).toMatch(/tiny qwen2 \(HF\): logp, entropy and every weight gradient +\S+ +1e-4 ok/);
  });

  it('gradcheck --backend wasm checks the CPU engine; a tolerance below f32 round-off fails it (exit 1)', async () => {
    const r = await run('gradcheck', '--backend', 'wasm', '--threads', '2', '--seed', '11');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/^engine: CPU engine \(WebAssembly SIMD, 2 threads\)/);
    expect(r.out).toMatch(/all 19 checks within tolerance/);
    for (const name of ['matmul Aᵀ·B', 'attention forward \\+ backward', 'GRPO token loss', 'sampling vs reference step', 'whole policy: 3 clipped AdamW steps', 'small rung twin \\(hs 32, 2×255\\)', 'medium rung twin \\(hs 32, 1×511\\)']) expect(r.out).toMatch(new RegExp(`${name}.* ok$`, 'm'));
    // Errors are measured, not assumed: every kernel check differs from float64 by f32 round-off.
    const strict = await run('gradcheck', '--backend', 'wasm', '--seed', '11', '--tol', '1e-12');
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(/14 of 19 checks FAILED/);
    const bad = await run('gradcheck', '--backend', 'cuda');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--backend: expected one of auto, webgpu, wasm/);
  });
});
