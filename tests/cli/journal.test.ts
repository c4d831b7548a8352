/**
 * Journals read line by line (src/run/journal.ts, issue #27): what `train --resume` keeps and
 * drops is what the whole-file reader kept and dropped, read in pieces so small that lines cross
 * them; the rewrite goes through a temp file, so damage leaves the journal as it was.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filterJournal, JournalDamageError, journalRecords } from '../../src/run/journal';

const dir = mkdtempSync(join(tmpdir(), 'magic-journal-'));
const lines = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ type: i % 3 === 2 ? 'eval' : 'step', step: i, note: 'é😀'.repeat(i % 4) }));

describe('journalRecords / filterJournal', () => {
  for (const chunk of [1, 3, 64, 1 << 20]) {
    it(`keeps records up to a step, line for line (pieces of ${chunk} bytes)`, () => {
      const f = join(dir, `m${chunk}.jsonl`);
      const all = lines(40);
      writeFileSync(f, all.join('\n') + '\n\n');
      const dropped: number[] = [];
      expect([...journalRecords(f, (l) => dropped.push(l), chunk)].map((r) => r.text)).toEqual(all);
      expect(filterJournal(f, (r) => (r.step as number) <= 20, (l) => dropped.push(l), chunk)).toBe(21);
      expect(readFileSync(f, 'utf8')).toBe(all.slice(0, 21).join('\n') + '\n');
      expect(dropped).toEqual([]);
    });
  }

  it('a partial last record is dropped and reported; blank lines skipped', () => {
    const f = join(dir, 'partial.jsonl');
    writeFileSync(f, `${lines(3).join('\n\n')}\n{"type":"st`);
    const dropped: number[] = [];
    expect(filterJournal(f, () => true, (l) => dropped.push(l), 5)).toBe(3);
    expect(dropped).toEqual([6]);
    expect(readFileSync(f, 'utf8')).toBe(lines(3).join('\n') + '\n');
  });

  it('damage before the last line: JournalDamageError naming file:line, the journal unchanged, no temp file left', () => {
    const f = join(dir, 'damaged', 'metrics.jsonl');
    const sub = join(dir, 'damaged');
    mkdirSync(sub);
    const text = `${lines(2).join('\n')}\nnot json\n${lines(3)[2]}\n`;
    writeFileSync(f, text);
    expect(() => filterJournal(f, () => true, undefined, 4)).toThrow(JournalDamageError);
    expect(() => filterJournal(f, () => true)).toThrow(`--resume: ${f}:3 is not a JSON record; the run's journal is damaged before its end (restore it or start a new run)`);
    expect(readFileSync(f, 'utf8')).toBe(text);
    expect(readdirSync(sub)).toEqual(['metrics.jsonl']);
  });
});
