/**
 * The streaming import (import-verl's path: logs read line by line, the run file written line by
 * line with a running checksum) writes the same bytes as the in-memory importer did before it
 * streamed: tests/verl/fixtures/import-golden/ holds that importer's output for each case.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { importRunFiles, parseRunFile, runToJsonl } from '../../src/io/runfile';
import { writeImportedRunJsonl } from '../../src/io/runfile-stream';
import { readLinesSync } from '../../src/run/read-file';
import { textSource } from '../../src/verl/import';
import { GOLDEN_CASES } from './import-golden-cases';

const FIX = join(import.meta.dirname, 'fixtures');
const golden = (id: string, ext: string) => readFileSync(join(FIX, 'import-golden', `${id}.${ext}`), 'utf8');
const logText = (r: { format: string; warnings: { file: string; line: number | null; reason: string }[]; notes: string[] }) =>
  [`format: ${r.format}`, ...r.warnings.map((w) => `warning ${w.file}:${w.line}: ${w.reason}`), ...r.notes.map((n) => `note ${n}`)].join('\n') + '\n';

describe('streaming import = the in-memory importer, byte for byte', () => {
  beforeEach(() => void vi.spyOn(Date, 'now').mockReturnValue(1700000000000));
  afterEach(() => void vi.restoreAllMocks());

  for (const c of GOLDEN_CASES) {
    it(c.id, () => {
      const texts = c.files.map((f) => ({ name: f, text: readFileSync(join(FIX, f), 'utf8') }));
      // The page's path: whole texts in memory.
      const mem = importRunFiles(texts, c.opts ?? {});
      expect(runToJsonl(mem.run)).toBe(golden(c.id, 'run.jsonl'));
      expect(logText(mem)).toBe(golden(c.id, 'log.txt'));
      // The CLI's path: files read line by line (small pieces, so lines cross piece ends), written line by line.
      const sources = c.files.map((f) => ({ name: f, lines: () => readLinesSync(join(FIX, f), 'LOG', 7) }));
      let out = '';
      const r = writeImportedRunJsonl(sources, c.opts ?? {}, (s) => (out += s));
      expect(out).toBe(golden(c.id, 'run.jsonl'));
      expect(logText(r)).toBe(golden(c.id, 'log.txt'));
      expect([r.steps, r.evals]).toEqual([mem.run.steps.length, mem.run.evals.length]);
      // And from text sources (what the page could stream).
      let out2 = '';
      writeImportedRunJsonl(texts.map(textSource), c.opts ?? {}, (s) => (out2 += s));
      expect(out2).toBe(out);
    });
  }

  it('writes a run file that reads back, with name and config overridden', () => {
    let out = '';
    writeImportedRunJsonl([textSource({ name: 'a.log', text: 'step:1 - actor/entropy:0.5\nstep:2 - actor/entropy:0.4\n' })], {}, (s) => (out += s), { name: 'mine' });
    const run = parseRunFile(out, 'a.jsonl');
    expect(run.name).toBe('mine');
    expect(run.steps.map((s) => s['actor/entropy'])).toEqual([0.5, 0.4]);
  });
});

describe('readLinesSync', () => {
  const dir = mkdtempSync(join(tmpdir(), 'magic-lines-'));
  const cases = ['', 'a', 'a\n', '\uFEFFx\r\ny\n\n', 'é€😀\nzz\n'.repeat(50), 'no newline at all'];
  for (const [i, text] of cases.entries()) {
    it(`gives what split('\\n') gives (case ${i})`, () => {
      const f = join(dir, `t${i}.txt`);
      writeFileSync(f, text);
      for (const chunk of [1, 2, 3, 5, 1 << 20]) expect([...readLinesSync(f, 'LOG', chunk)]).toEqual(readFileSync(f, 'utf8').split('\n'));
    });
  }
  it('refuses a directory before reading', () => {
    expect(() => [...readLinesSync(dir, 'LOG')]).toThrow(/is a directory/);
  });
});
