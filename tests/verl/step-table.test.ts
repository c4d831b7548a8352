/**
 * import-verl's memory is bounded by design (src/verl/step-table.ts): the merged table holds 8 bytes
 * per (column, step) value, in chunks, plus a fixed amount per step and per logged line — measured
 * here as the ArrayBuffer memory the process really holds, on a wide W&B-style CSV streamed line by
 * line. The table before kept a value, a source file and a source line per cell (20 bytes, arrays
 * doubled): 15 columns × 1M rows took 515 MiB against a stated 300.
 */
import { describe, expect, it } from 'vitest';
import { RunFileError } from '../../src/io/runfile';
import { writeImportedRunJsonl } from '../../src/io/runfile-stream';
import { importVerlSources, type VerlLineSource } from '../../src/verl/import';
import { CHUNK, RECORD_BYTES, STEP_BYTES } from '../../src/verl/step-table';

/** A W&B wide CSV of `rows` steps and `cols` metric columns, generated line by line (never one string). */
function wideCsv(rows: number, cols: number): VerlLineSource {
  const keys = Array.from({ length: cols }, (_, j) => `actor/metric_${j}`);
  return {
    name: 'wide.csv',
    *lines() {
      yield ['Step', ...keys].join(',');
      for (let i = 1; i <= rows; i++) {
        let l = String(i);
        for (let j = 0; j < cols; j++) l += `,${((i * (j + 3)) % 1000) / 1000}`;
        yield l;
      }
    },
  };
}

/** The stated bound of the table (docs/verl-import.md): values by chunk, steps and records by doubling. */
const statedBytes = (cols: number, rows: number) => 8 * cols * Math.ceil(rows / CHUNK) * CHUNK + STEP_BYTES * rows + RECORD_BYTES * rows;

describe('the import step table: memory bounded by columns × rows', () => {
  it('15 columns × 140,000 rows hold at most the stated 8 bytes a value (plus per-step and per-line costs)', () => {
    const rows = 140_000;
    const cols = 15;
    const before = process.memoryUsage().arrayBuffers;
    const imp = importVerlSources([wideCsv(rows, cols)]);
    const held = process.memoryUsage().arrayBuffers - before;
    expect(imp.stepCount).toBe(rows);
    // The old table held 94 MiB here (20 bytes a cell, arrays doubled); the stated bound is 40 MiB.
    expect(held).toBeGreaterThan(8 * cols * rows);
    expect(held).toBeLessThanOrEqual(statedBytes(cols, rows) + 2 ** 20);
    // The records read back what was logged (the chunked columns are addressed right across chunk ends).
    let n = 0;
    for (const s of imp.steps()) {
      n++;
      if (s.step === CHUNK || s.step === CHUNK + 1 || s.step === rows) for (let j = 0; j < cols; j++) expect((s as Record<string, number>)[`actor/metric_${j}`]).toBe(((s.step * (j + 3)) % 1000) / 1000);
    }
    expect(n).toBe(rows);
  });

  it('past maxTableBytes the import is refused with one line naming the file and its columns × steps, before a byte is written', () => {
    let wrote = '';
    let err: unknown;
    try {
      writeImportedRunJsonl([wideCsv(100_000, 15)], { maxTableBytes: 4 * 2 ** 20 }, (s) => (wrote += s));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RunFileError);
    expect((err as Error).message).toMatch(/^wide\.csv: the import would hold more than 4 MiB \(\d+ columns × \d+ steps so far: 8 bytes a value, \d+ a step, \d+ a record\); import fewer keys or files at once$/);
    expect(wrote).toBe('');
  });

  it('a value overwritten by a later line names the line its first value came from, per key, across files', () => {
    const src = (name: string, text: string): VerlLineSource => ({ name, lines: () => text.split('\n') });
    const imp = importVerlSources([src('a.log', 'step:1 - actor/x:1 - actor/y:2\n'), src('b.log', 'step:1 - actor/y:3\n'), src('c.log', 'step:1 - actor/x:4\nstep:1 - actor/y:5\n')]);
    expect(imp.warnings.map((w) => `${w.file}:${w.line}: ${w.reason}`)).toEqual([
      'b.log:1: step 1 logged again (1 value first at a.log:1); the later values are kept',
      'c.log:1: step 1 logged again (1 value first at a.log:1); the later values are kept',
      'c.log:2: step 1 logged again (1 value first at b.log:1); the later values are kept',
    ]);
    expect([...imp.steps()].map((s) => [(s as Record<string, number>)['actor/x'], (s as Record<string, number>)['actor/y']])).toEqual([[4, 5]]);
  });
});
