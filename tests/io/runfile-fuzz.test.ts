/**
 * Fuzzes run-file import (what the page's "Import run…" and `magic-lab import-verl` read): mutated
 * valid exports must either import into a valid run or be refused with one RunFileError naming the
 * file — never another exception, never a hang. Seeded: the same cases every run.
 */
import { describe, expect, it } from 'vitest';
import { validateRunConfig } from '../../src/rl/config';
import { STEP_METRIC_KEY_LIST } from '../../src/rl/metrics';
import { importRunFiles, RunFileError, runToCsv, runToJsonl, sealRunJsonl, type RunImport } from '../../src/io/runfile';
import { flipChars, fuzzCase, mutateJson, newTally, randomText, Rng, type FuzzTally } from '../fuzz';
import { fakeRun } from '../ui/helpers';

/** What the page relies on in an imported run, checked independently of the importer. */
function checkImported({ run }: RunImport): void {
  expect(validateRunConfig(run.config)).toEqual(run.config);
  expect(typeof run.name === 'string' && typeof run.preset === 'string' && Number.isFinite(run.createdAt)).toBe(true);
  let last = -1;
  for (const s of run.steps) {
    expect(Number.isInteger(s.step) && s.step > last).toBe(true);
    last = s.step;
    for (const [k, v] of Object.entries(s)) expect(typeof v, k).toBe('number');
  }
  for (const e of run.evals) {
    expect(Number.isInteger(e.step) && e.step >= 0).toBe(true);
    for (const [k, v] of Object.entries(e)) expect(typeof v, k).toBe('number');
  }
}

describe('run file import fuzz', () => {
  const withNote = { ...fakeRun('b', 5), note: 'imported from a cluster' };
  const seeds = [
    { name: 'six', text: runToJsonl(fakeRun('a', 6)) },
    { name: 'note', text: runToJsonl(withNote) },
  ];
  const csv = runToCsv(fakeRun('c', 4));
  const run = (t: FuzzTally, label: string, text: string, i: number, ext = 'jsonl') => {
    const name = `fuzz/${label}-${i}.${ext}`;
    return fuzzCase(t, `${label} #${i}`, () => importRunFiles([{ name, text }]), RunFileError, `${name}:`, checkImported);
  };

  it('the valid seeds import', () => {
    for (const s of seeds) expect(() => checkImported(importRunFiles([{ name: 'x.jsonl', text: s.text }]))).not.toThrow();
    expect(() => checkImported(importRunFiles([{ name: 'x.csv', text: csv }]))).not.toThrow();
  });

  it('random text, bare or after a valid run header', () => {
    const rng = new Rng(1401);
    const t = newTally();
    const header = seeds[0].text.split('\n')[0];
    for (let i = 0; i < 300; i++) {
      const body = randomText(rng, rng.int(0, 400));
      run(t, 'random', i % 2 ? `${header}\n${body}` : body, i);
    }
    expect(t.refused).toBeGreaterThan(250);
  });

  it('truncations at every line boundary and at random points: a version-2 export refuses every one', () => {
    const rng = new Rng(1402);
    const t = newTally();
    let i = 0;
    for (const s of seeds) {
      const cuts = new Set<number>();
      for (let p = s.text.indexOf('\n'); p >= 0; p = s.text.indexOf('\n', p + 1)) for (const d of [-1, 0, 1]) cuts.add(p + d);
      for (let k = 0; k < 150; k++) cuts.add(rng.int(0, s.text.length - 2));
      for (const cut of cuts) if (cut >= 0 && cut < s.text.length - 1) expect(run(t, `cut-${s.name}`, s.text.slice(0, cut), i++)).toBe('refused');
    }
  });

  it('character flips anywhere in a version-2 export: every one refused', () => {
    const rng = new Rng(1403);
    const t = newTally();
    let i = 0;
    for (const s of seeds) {
      const headerEnd = s.text.indexOf('\n');
      for (let k = 0; k < 300; k++) {
        const inHeader = k % 3 === 0;
        const text = inHeader ? flipChars(rng, s.text, 0, headerEnd) : flipChars(rng, s.text, headerEnd + 1, s.text.length - 1);
        expect(run(t, `flip-${s.name}`, text, i++)).toBe('refused');
      }
    }
  });

  it('a CSV export mutated: imports valid runs or refuses them', () => {
    const rng = new Rng(1404);
    const t = newTally();
    for (let i = 0; i < 300; i++) {
      const text = i % 3 === 0 ? csv.slice(0, rng.int(0, csv.length)) : flipChars(rng, csv);
      run(t, 'csv', text, i, 'csv');
    }
    expect(t.refused + t.accepted).toBe(300);
  });

  it('edited records with the checksum recomputed: the validator, not the checksum, must catch it', () => {
    const rng = new Rng(1405);
    const t = newTally();
    let i = 0;
    for (const s of seeds) {
      const lines = s.text.trim().split('\n').slice(0, -1);
      for (let k = 0; k < 250; k++) {
        const edited = [...lines];
        const at = k % 3 === 0 ? 0 : rng.int(1, lines.length - 1);
        const obj = JSON.parse(lines[at]) as Record<string, unknown>;
        // A header edit starts at the header or in its config, a record edit at a metric.
        const start = at === 0 && rng.next() < 0.6 ? { ...obj, config: mutateJson(rng, obj.config).value } : (mutateJson(rng, obj).value as Record<string, unknown>);
        edited[at] = JSON.stringify(start) ?? 'null';
        if (k % 17 === 0) edited.splice(rng.int(1, edited.length), 0, edited[rng.int(1, edited.length - 1)]);
        run(t, `edit-${s.name}`, sealRunJsonl(edited), i++);
      }
    }
    expect(t.refused).toBeGreaterThan(0.4 * (t.refused + t.accepted));
    for (const f of ['run header', 'invalid config', 'step record is missing', 'steps must increase', '"step" must be', 'unknown record type'])
      expect([...t.messages].some((m) => m.includes(f)), `no refusal with "${f}" among:\n${[...t.messages].join('\n')}`).toBe(true);
    expect(t.slowestMs).toBeLessThan(1000);
  });

  it('step metrics named by the lab are all in the seeds (so edits reach them)', () => {
    const step = JSON.parse(seeds[0].text.split('\n')[1]);
    for (const k of STEP_METRIC_KEY_LIST) expect(k in step, k).toBe(true);
  });
});
