import { describe, expect, it } from 'vitest';
import { parseCsv, parseJsonl, parseRunFile, RunFileError, runToCsv, runToJsonl } from '../../src/ui/lib/runfile';
import { fakeRun } from './helpers';

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
    expect(() => parseJsonl(lines.join('\n'), 'bad.jsonl')).toThrow(/^bad\.jsonl:3: not valid JSON/);
  });

  it('rejects a missing header, a bad config, unknown records, missing metrics and decreasing steps', () => {
    const good = runToJsonl(fakeRun('a', 3)).trim().split('\n');
    expect(() => parseJsonl(good.slice(1).join('\n'), 'x.jsonl')).toThrow(/x\.jsonl:1: the first line must be the run header/);
    const header = JSON.parse(good[0]);
    header.config.loss.epsLow = -1;
    expect(() => parseJsonl([JSON.stringify(header), ...good.slice(1)].join('\n'), 'x.jsonl')).toThrow(/x\.jsonl:1: invalid config: loss\.epsLow/);
    expect(() => parseJsonl([good[0], '{"type":"weird"}'].join('\n'), 'x.jsonl')).toThrow(/x\.jsonl:2: unknown record type "weird"/);
    const step = JSON.parse(good[1]);
    delete step['actor/entropy'];
    expect(() => parseJsonl([good[0], JSON.stringify(step)].join('\n'), 'x.jsonl')).toThrow(/x\.jsonl:2: step record is missing "actor\/entropy"/);
    expect(() => parseJsonl([good[0], good[2], good[1]].join('\n'), 'x.jsonl')).toThrow(/x\.jsonl:3: steps must increase/);
    expect(() => parseJsonl('', 'empty.jsonl')).toThrow(RunFileError);
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
