/**
 * Bounded reads (issue #27): every file a user names is stat'ed before it is read, so a device,
 * a directory or a header that is too large or nests too deep is one line (exit 2) — not 20 GB of
 * memory read from /dev/zero, an EISDIR trace or a stack overflow.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { assembleCheckpoint, checkpointSizeBound, splitCheckpoint } from '../../src/model/checkpoint';
import { cliRunner } from './harness';

const run = cliRunner(main);
const dir = mkdtempSync(join(tmpdir(), 'magic-bounds-'));
const tinyBase = 'public/checkpoints/base-tiny.mlck';

/** Exit 2, exactly one line on stderr, no stack trace. */
function expectOneLine(r: { code: number; errLines: string[]; err: string }, msg: RegExp) {
  expect(r.code, r.err).toBe(2);
  expect(r.errLines).toHaveLength(1);
  expect(r.err).not.toMatch(/\n|\bat .*\.(ts|js):\d+/);
  expect(r.err).toMatch(msg);
}

describe('bounded reads of checkpoints', () => {
  it('eval --checkpoint /dev/zero: one line, nothing read', async () => {
    const before = process.memoryUsage().rss;
    expectOneLine(await run('eval', '--checkpoint', '/dev/zero'), /^magic-lab eval: --checkpoint: \/dev\/zero is a device, not a file$/);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 ** 2);
  });

  it('a directory as --checkpoint, --base or --resume F: one line', async () => {
    const d = join(dir, 'a-dir');
    mkdirSync(d);
    expectOneLine(await run('eval', '--checkpoint', d), new RegExp(`--checkpoint: ${d} is a directory, not a file$`));
    expectOneLine(await run('train', '--preset', 'magic-tiny', '--base', d, '--out', join(dir, 'r'), '--quiet'), new RegExp(`--base: ${d} is a directory, not a file$`));
    expectOneLine(await run('sft', '--resume', d, '--out', join(dir, 'sft.mlck')), new RegExp(`--resume: ${d} is a directory, not a file$`));
  });

  it('a checksum-valid checkpoint whose meta nests 50,000 deep: one line, no stack overflow', async () => {
    const parts = splitCheckpoint(new Uint8Array(readFileSync(tinyBase)));
    const depth = 50_000;
    const header = parts.headerText.trimEnd().replace('"meta":{', `"meta":{"deep":${'['.repeat(depth)}${']'.repeat(depth)},`);
    expect(header).not.toBe(parts.headerText.trimEnd());
    const file = join(dir, 'deep.mlck');
    writeFileSync(file, assembleCheckpoint(header, parts.data));
    expectOneLine(await run('eval', '--checkpoint', file), /deep\.mlck: header JSON nests deeper than 64 levels: not a header this lab wrote$/);
    expectOneLine(await run('train', '--preset', 'magic-tiny', '--base', file, '--out', join(dir, 'r2'), '--quiet'), /header JSON nests deeper than 64 levels/);
  });

  it('a header length over the limit: one line before the file is read whole', async () => {
    const bytes = new Uint8Array(readFileSync(tinyBase));
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(12, 0xfffffff0, true);
    const file = join(dir, 'huge-header.mlck');
    writeFileSync(file, bytes);
    expectOneLine(await run('eval', '--checkpoint', file), /header length 4294967280 is over the limit/);
  });

  it('a checkpoint larger than its model needs: one line from its header, the rest never read', async () => {
    // 1.5 GiB on disk (sparse): the size check runs on the header and the stat, before any read of the data.
    const file = join(dir, 'padded.mlck');
    writeFileSync(file, readFileSync(tinyBase));
    truncateSync(file, 1.5 * 1024 ** 3);
    const rss0 = process.memoryUsage().rss;
    for (const args of [['eval', '--checkpoint', file], ['train', '--preset', 'magic-tiny', '--base', file, '--out', join(dir, 'r3'), '--quiet']]) {
      expectOneLine(await run(...args), /padded\.mlck is 1610612736 bytes, more than its model \(1 layer × d 16, vocabulary 24, context 64\) needs with optimizer state \(at most \d+\): not a checkpoint this lab wrote$/);
    }
    expect(process.memoryUsage().rss - rss0).toBeLessThan(512 * 1024 ** 2);
  });

  it('checkpointSizeBound: header, model floats ×3 (parameters and AdamW moments)', () => {
    const { headerText } = splitCheckpoint(new Uint8Array(readFileSync(tinyBase)));
    const header = new TextEncoder().encode(headerText);
    const bound = checkpointSizeBound(2, header)!;
    expect(bound.bytes).toBeGreaterThanOrEqual(readFileSync(tinyBase).length);
    expect(checkpointSizeBound(2, new TextEncoder().encode('{"model": 3}'))).toBeNull();
    expect(checkpointSizeBound(7, header)).toBeNull();
  });
});

describe('sft --resume takes the output lock', () => {
  const sleeper = spawn('sleep', ['60']);
  afterAll(() => sleeper.kill());
  it('a live holder of the output → exit 2 naming it', async () => {
    const out = join(dir, 'sft-out.mlck');
    writeFileSync(`${out}.lock`, JSON.stringify({ pid: sleeper.pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }));
    expectOneLine(await run('sft', '--resume', tinyBase, '--out', out), new RegExp(`sft output ${out} is in use by process ${sleeper.pid} \\(since 2026-01-01T00:00:00.000Z\\)`));
  });
});
