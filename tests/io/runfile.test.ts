import { describe, expect, it } from 'vitest';
import { importRunFiles, parseCsv, parseJsonl, parseRunFile, RunFileError, runToCsv, sameRunRecords, runToJsonl, sealRunJsonl } from '../../src/io/runfile';
import { fakeRun } from '../ui/helpers';

describe('JSONL export / import', () => {
  it('round-trips config, steps and evals (NaN survives as null)', () => {
    const run = fakeRun('a', 5);
    const text = runToJsonl(run);
    expect(text.split('\n')[0]).toContain('"format":"magic-lab-run"');
    const back = parseJsonl(text, 'a.jsonl');
    expect(back.config).toEqual(run.config);
    expect(back.name).toBe(run.name);
    expect(back.id).toBe('a');
    expect(back.steps).toHaveLength(5);
    expect(back.steps[2]['actor/entropy']).toBe(run.steps[2]['actor/entropy']);
    expect(Number.isNaN(back.steps[0]['actor/pg_clipfrac_lower'])).toBe(true);
    expect(back.evals).toEqual(run.evals);
  });

  it('names the file and line of a broken record', () => {
    const lines = runToJsonl(fakeRun('a', 3)).trim().split('\n');
    lines[2] = '{"type":"step", oops';
    // Version 2: the checksum catches the damage first; an edit re-sealed with a matching checksum reaches the line.
    expect(() => parseJsonl(lines.join('\n'), 'bad.jsonl')).toThrow(/^bad\.jsonl: checksum mismatch \(end record crc32:[0-9a-f]{8}, file crc32:[0-9a-f]{8}\): the file is corrupt or was edited$/);
    expect(() => parseJsonl(sealRunJsonl(lines.slice(0, -1)), 'bad.jsonl')).toThrow(/^bad\.jsonl:3: not valid JSON/);
  });

  it('rejects a missing header, a bad config, unknown records, missing metrics and decreasing steps (edited, re-sealed)', () => {
    const good = runToJsonl(fakeRun('a', 3)).trim().split('\n').slice(0, -1);
    const seal = (lines: string[]) => sealRunJsonl(lines);
    expect(() => parseJsonl(good.slice(1).join('\n'), 'x.jsonl')).toThrow(/x\.jsonl:1: the first line must be the run header/);
    const header = JSON.parse(good[0]);
    header.config.loss.epsLow = -1;
    expect(() => parseJsonl(seal([JSON.stringify(header), ...good.slice(1)]), 'x.jsonl')).toThrow(/x\.jsonl:1: invalid config: loss\.epsLow/);
    expect(() => parseJsonl(seal([good[0], '{"type":"weird"}']), 'x.jsonl')).toThrow(/x\.jsonl:2: unknown record type "weird"/);
    const step = JSON.parse(good[1]);
    delete step['actor/entropy'];
    expect(() => parseJsonl(seal([good[0], JSON.stringify(step)]), 'x.jsonl')).toThrow(/x\.jsonl:2: step record is missing "actor\/entropy"/);
    expect(() => parseJsonl(seal([good[0], good[2], good[1]]), 'x.jsonl')).toThrow(/x\.jsonl:3: steps must increase/);
    expect(() => parseJsonl('', 'empty.jsonl')).toThrow(RunFileError);
  });
});

describe('JSONL checksum (version 2)', () => {
  const text = runToJsonl(fakeRun('a', 4));
  const lines = text.trim().split('\n');

  it('ends with an end record holding the record count and the checksum of every line before it', () => {
    expect(JSON.parse(lines[0]).version).toBe(2);
    const end = JSON.parse(lines[lines.length - 1]);
    expect(end).toEqual({ type: 'end', records: lines.length - 2, checksum: expect.stringMatching(/^crc32:[0-9a-f]{8}$/) });
    expect(text.endsWith('\n')).toBe(true);
  });

  it('refuses a truncated file, naming it', () => {
    // Cut at a line boundary: no end record.
    expect(() => parseJsonl(lines.slice(0, 3).join('\n') + '\n', 'cut.jsonl')).toThrow(/^cut\.jsonl:3: the file does not end with its \{"type":"end",…\} checksum record: it is truncated or damaged$/);
    // Cut inside the end record.
    expect(() => parseJsonl(text.slice(0, text.length - 10), 'cut.jsonl')).toThrow(/^cut\.jsonl:\d+: the file does not end with its/);
    // Lines dropped before an intact end record.
    expect(() => parseJsonl([lines[0], ...lines.slice(2)].join('\n'), 'cut.jsonl')).toThrow(/^cut\.jsonl: checksum mismatch/);
  });

  it('refuses any edit whose checksum was not recomputed, and an end record that does not match', () => {
    const edited = text.replace('"name":"run a"', '"name":"run b"');
    expect(() => parseJsonl(edited, 'e.jsonl')).toThrow(/^e\.jsonl: checksum mismatch/);
    const end = JSON.parse(lines[lines.length - 1]);
    const withEnd = (e: object) => [...lines.slice(0, -1), JSON.stringify(e)].join('\n');
    expect(() => parseJsonl(withEnd({ ...end, records: 99 }), 'e.jsonl')).toThrow(/^e\.jsonl:\d+: end record: "records" is 99, the file holds \d+/);
    expect(() => parseJsonl(withEnd({ ...end, checksum: 'abc' }), 'e.jsonl')).toThrow(/^e\.jsonl:\d+: end record: "checksum" must be "crc32:<8 hex>"/);
    expect(() => parseJsonl(withEnd({ ...end, extra: 1 }), 'e.jsonl')).toThrow(/^e\.jsonl:\d+: end record: unknown field "extra"/);
  });

  it('validates every header field of a version-2 file (edited, re-sealed)', () => {
    const body = lines.slice(0, -1);
    const withHeader = (edit: (h: Record<string, unknown>) => void) => {
      const h = JSON.parse(body[0]);
      edit(h);
      return sealRunJsonl([JSON.stringify(h), ...body.slice(1)]);
    };
    expect(() => parseJsonl(withHeader((h) => (h.createdAt = 'yesterday')), 'h.jsonl')).toThrow(/^h\.jsonl:1: run header: "createdAt" is not valid: "yesterday"/);
    expect(() => parseJsonl(withHeader((h) => (h.name = 7)), 'h.jsonl')).toThrow(/^h\.jsonl:1: run header: "name" is not valid: 7/);
    expect(() => parseJsonl(withHeader((h) => delete h.preset), 'h.jsonl')).toThrow(/^h\.jsonl:1: run header: "preset" is missing/);
    expect(() => parseJsonl(withHeader((h) => Object.defineProperty(h, 'constructor', { value: 1, enumerable: true })), 'h.jsonl')).toThrow(/^h\.jsonl:1: run header: unknown field "constructor"/);
    expect(() => parseJsonl(withHeader((h) => (h.version = 3)), 'h.jsonl')).toThrow(/^h\.jsonl:1: unsupported version 3 \(this lab reads versions 1 and 2\)/);
  });

  it('reads a file whose line ends became CRLF or that gained a byte-order mark', () => {
    expect(parseJsonl('\uFEFF' + text.replace(/\n/g, '\r\n'), 'w.jsonl').steps).toHaveLength(4);
  });

  it('still imports a version-1 export (no end record), validating its records', () => {
    const v1 = lines.slice(0, -1);
    const h = JSON.parse(v1[0]);
    h.version = 1;
    v1[0] = JSON.stringify(h);
    const back = importRunFiles([{ name: 'old.jsonl', text: v1.join('\n') + '\n' }]);
    expect(back.format).toBe('MAGIC Lab run file');
    expect(back.run.steps).toHaveLength(4);
    expect(back.run.name).toBe('run a');
    v1[2] = v1[2].replace('"type":"step"', '"type":"stop"');
    expect(() => parseJsonl(v1.join('\n'), 'old.jsonl')).toThrow(/^old\.jsonl:3: unknown record type "stop"/);
  });

  it('a damaged header is reported as a damaged run file, not read as metrics', () => {
    const retyped = [lines[0].replace('"type":"run"', '"type":"rum"'), ...lines.slice(1)].join('\n');
    expect(() => importRunFiles([{ name: 'd.jsonl', text: retyped }])).toThrow(/^d\.jsonl:1: the first line must be the run header/);
    const broken = [lines[0].slice(0, 20), ...lines.slice(1)].join('\n');
    expect(() => importRunFiles([{ name: 'd.jsonl', text: broken }])).toThrow(/^d\.jsonl:1: not valid JSON/);
  });
});

describe('CSV export / import', () => {
  it('round-trips the metrics, evals on the row of their step', () => {
    const run = fakeRun('a', 4);
    const csv = runToCsv(run);
    const [header, row2] = [csv.split('\n')[0], csv.split('\n')[2]];
    expect(header.startsWith('step,time_ms,actor/entropy')).toBe(true);
    expect(header).toContain('val/avg@2/t1.0');
    expect(row2.startsWith('2,200,')).toBe(true);
    const back = parseCsv(csv, 'a.csv');
    expect(back.steps.map((s) => s.step)).toEqual([1, 2, 3, 4]);
    expect(back.steps[3]['critic/score/mean']).toBeCloseTo(run.steps[3]['critic/score/mean'], 12);
    expect(back.evals).toEqual(run.evals);
    expect(back.name).toMatch(/default config/);
  });

  it('names the file and line of a bad cell or a missing column', () => {
    const csv = runToCsv(fakeRun('a', 3)).split('\n');
    const cells = csv[2].split(',');
    cells[2] = 'abc';
    csv[2] = cells.join(',');
    expect(() => parseCsv(csv.join('\n'), 'm.csv')).toThrow(/^m\.csv:3: column "actor\/entropy": not a number: "abc"/);
    expect(() => parseCsv('step,time_ms\n1,2\n', 'm.csv')).toThrow(/m\.csv:1: missing columns "actor\/entropy"/);
    expect(() => parseCsv('foo\n', 'm.csv')).toThrow(/m\.csv:1: the first column must be "step"/);
    const short = runToCsv(fakeRun('a', 2)).split('\n');
    short[1] = '1,2,3';
    expect(() => parseCsv(short.join('\n'), 'm.csv')).toThrow(/m\.csv:2: expected \d+ cells, got 3/);
  });
});

describe('parseRunFile', () => {
  it('picks the format by extension and rejects anything else', () => {
    const run = fakeRun('a', 2);
    expect(parseRunFile(runToJsonl(run), 'r.jsonl').steps).toHaveLength(2);
    expect(parseRunFile(runToCsv(run), 'r.csv').steps).toHaveLength(2);
    expect(() => parseRunFile('hello', 'notes.txt')).toThrow(/notes\.txt: not a run file/);
  });
});

describe('sameRunRecords', () => {
  const step = (n: number, t: number) => ({ step: n, time_ms: t, 'actor/entropy': 0.2 }) as never;
  it('is the same run only when every step and evaluation is equal, wall-clock times included', () => {
    const a = { steps: [step(1, 10), step(2, 20)], evals: [] };
    expect(sameRunRecords(a, { steps: [step(1, 10), step(2, 20)], evals: [] })).toBe(true);
    expect(sameRunRecords(a, { steps: [step(1, 10), step(2, 21)], evals: [] })).toBe(false); // another run of the same seed
    expect(sameRunRecords(a, { steps: [step(1, 10)], evals: [] })).toBe(false);
    expect(sameRunRecords({ steps: [], evals: [] }, { steps: [], evals: [] })).toBe(false); // two empty runs are not one
    // What a file cannot hold (NaN, a key absent) and key order do not make two runs differ.
    const withNaN = { steps: [{ ...(step(1, 10) as object), 'actor/kl': NaN } as never, step(2, 20)], evals: [] };
    const reordered = { steps: [{ 'actor/entropy': 0.2, time_ms: 10, step: 1 } as never, step(2, 20)], evals: [] };
    expect(sameRunRecords(withNaN, reordered)).toBe(true);
  });
  it('a page run and its own export read back are the same run', () => {
    const run = fakeRun('a');
    expect(sameRunRecords(run, importRunFiles([{ name: 'r.jsonl', text: runToJsonl(run) }]).run)).toBe(true);
  });
});
