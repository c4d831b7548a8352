// Files kept compressed in reports/: every reader opens X or X.gz alike, and writers keep exactly one of them.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { compressFile, existsStored, GZIP_OVER_BYTES, readStoredText, storedPath, writeStoredText } from '../../src/sweep/gz-file';

const dir = () => mkdtempSync(join(tmpdir(), 'gz-file-'));

describe('gz-file', () => {
  it('reads X, or X.gz when only that exists; the plain file wins when both do', () => {
    const d = dir();
    const f = join(d, 'metrics.jsonl');
    expect(existsStored(f)).toBe(false);
    expect(() => readStoredText(f)).toThrow(/ENOENT.*metrics\.jsonl/);
    writeFileSync(f, 'a\nb\n');
    compressFile(f);
    expect(existsSync(f)).toBe(false);
    expect(storedPath(f)).toBe(`${f}.gz`);
    expect(readStoredText(f)).toBe('a\nb\n');
    writeFileSync(f, 'newer\n');
    expect(readStoredText(f)).toBe('newer\n');
  });

  it('writes a small text plain and a large one gzipped, removing the other name', () => {
    const d = dir();
    const f = join(d, 'summary.json');
    const big = JSON.stringify({ x: 'y'.repeat(GZIP_OVER_BYTES + 1) });
    writeStoredText(f, big);
    expect(existsSync(f)).toBe(false);
    expect(gunzipSync(readFileSync(`${f}.gz`)).toString('utf8')).toBe(big);
    writeStoredText(f, '{"small":1}');
    expect(existsSync(`${f}.gz`)).toBe(false);
    expect(readStoredText(f)).toBe('{"small":1}');
    writeStoredText(f, big);
    expect(existsSync(f)).toBe(false);
    expect(readStoredText(f)).toBe(big);
  });
});
