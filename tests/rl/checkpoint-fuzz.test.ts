/**
 * Fuzzes the checkpoint loader (decodeCheckpoint + the meta checks every run-state loader uses):
 * mutated valid files must either load into valid contents or be refused with one CheckpointError
 * naming the file — never another exception, never a hang. Seeded: the same cases every run.
 */
import { describe, expect, it } from 'vitest';
import { CheckpointError, encodeCheckpoint, splitCheckpoint, assembleCheckpoint, type CheckpointContents } from '../../src/model/checkpoint';
import { layoutParams } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { getPreset } from '../../src/rl/config';
import { loadCheckpoint, type CheckedMeta } from '../../src/rl/run-checkpoint';
import { trackStages } from '../../src/rl/stages';
import { flipBits, fuzzCase, mutateJson, newTally, randomBytes, Rng, type FuzzTally } from '../fuzz';
import { validRunCheckpoint } from './run-checkpoint-fixtures';

/** What a loader may rely on in contents that loaded: checked independently of the validator. */
function checkLoaded({ contents, meta }: { contents: CheckpointContents; meta: CheckedMeta }): void {
  const n = layoutParams(contents.model).totalFloats;
  expect(contents.params.length).toBe(n);
  expect(contents.params.every(Number.isFinite)).toBe(true);
  if (contents.adam) for (const f of [contents.adam.m, contents.adam.v]) expect(f.length === n && f.every(Number.isFinite)).toBe(true);
  if (meta.kind !== 'run') return;
  expect(meta.config.model).toEqual(contents.model);
  if (meta.refParams) expect(meta.refParams.length).toBe(n);
  const st = meta.state;
  if (!st) return;
  const trainSize = meta.config.data.trainSize;
  expect(st.scoreHistory.length).toBe(st.step);
  expect(trackStages(meta.config.stages, st.scoreHistory).stage).toBeGreaterThanOrEqual(st.stageStarted);
  expect(st.pool.length > 0 && st.pool.every((i) => Number.isInteger(i) && i >= 0 && i < trainSize)).toBe(true);
  expect(st.position).toBeLessThanOrEqual(st.pool.length);
  expect(st.attempts.length === trainSize && st.solves.every((s, i) => Number.isInteger(s) && s >= 0 && s <= st.attempts[i])).toBe(true);
  expect(Number.isFinite(st.entropy.c) && typeof st.entropy.lastBelowTarget === 'boolean').toBe(true);
  expect(st.adamStep === 0 || contents.adam !== undefined).toBe(true);
}

function seeds(): [string, CheckpointContents][] {
  const run = validRunCheckpoint();
  const withOffline = validRunCheckpoint({ offline: true });
  const model = getPreset('magic-tiny').model;
  const params = initParams(model, 3);
  const refRun: CheckpointContents = { ...run, meta: { ...run.meta, refParams: Array.from(params) } };
  const base: CheckpointContents = {
    model,
    params,
    adam: { m: params.map((x) => x / 4), v: params.map((x) => x * x) },
    meta: { kind: 'magic-lab-base', sftState: { step: 40, rngState: 123456789 }, offlineFilter: { key: JSON.stringify({ weights: 'crc32:0badf00d', samples: 4 }), correct: [0, 1, 4, 2, 3, 0, 4, 1] } },
  };
  return [['run', run], ['run+offline', withOffline], ['run+ref', refRun], ['base', base]];
}

describe('checkpoint loader fuzz', () => {
  const files = seeds().map(([name, c]) => ({ name, v2: encodeCheckpoint(c), v1: encodeCheckpoint(c, 1) }));
  const run = (t: FuzzTally, label: string, bytes: Uint8Array, i: number) => {
    const source = `fuzz/${label}-${i}.mlck`;
    return fuzzCase(t, `${label} #${i}`, () => loadCheckpoint(bytes, source), CheckpointError, `checkpoint ${source}: `, checkLoaded);
  };

  it('the valid seeds load', () => {
    for (const f of files) {
      for (const bytes of [f.v2, f.v1]) expect(() => checkLoaded(loadCheckpoint(bytes, f.name))).not.toThrow();
    }
  });

  it('random bytes, bare or behind a valid magic and version', () => {
    const rng = new Rng(1301);
    const t = newTally();
    for (let i = 0; i < 300; i++) {
      const body = randomBytes(rng, rng.int(0, 3000));
      if (i % 2 === 1 && body.length >= 12) {
        body.set(new TextEncoder().encode('MAGICLAB'));
        new DataView(body.buffer).setUint32(8, rng.pick([1, 2]), true);
        // Sometimes lengths that fit the file, so the checksum or the header parser is reached.
        if (i % 4 === 1 && body.length >= 24) {
          const h = rng.int(0, body.length - 24);
          new DataView(body.buffer).setUint32(12, h, true);
          new DataView(body.buffer).setUint32(16, body.length - 24 - h, true);
        }
      }
      expect(run(t, 'random', body, i)).toBe('refused');
    }
    expect(t.refused).toBe(300);
  });

  it('truncations at every region boundary and at random points', () => {
    const rng = new Rng(1302);
    const t = newTally();
    let i = 0;
    for (const f of files) {
      for (const [version, bytes] of [[2, f.v2], [1, f.v1]] as const) {
        const dv = new DataView(bytes.buffer);
        const prefix = version === 2 ? 24 : 16;
        const hlen = dv.getUint32(12, true);
        const header = JSON.parse(splitCheckpoint(bytes).headerText) as { tensors: { offset: number }[] };
        const cuts = new Set<number>([0, 1, 7, 8, 9, 11, 12, 15, 16, 17, 20, 23, 24, 25, prefix + hlen - 1, prefix + hlen, prefix + hlen + 1, bytes.length - 4, bytes.length - 1]);
        for (const tensor of header.tensors) for (const d of [-1, 0, 1, 4]) cuts.add(prefix + hlen + tensor.offset + d);
        for (let k = 0; k < 40; k++) cuts.add(rng.int(0, bytes.length - 1));
        for (const cut of cuts) {
          if (cut < 0 || cut >= bytes.length) continue;
          expect(run(t, `cut-v${version}-${f.name}`, bytes.subarray(0, cut), i++)).toBe('refused');
        }
      }
    }
    expect(t.refused).toBeGreaterThan(500);
  });

  it('bit flips in the header and the data: version 2 refuses every one by its checksum', () => {
    const rng = new Rng(1303);
    const t = newTally();
    const prefixTally = newTally();
    let i = 0;
    for (const f of files) {
      const hlen = new DataView(f.v2.buffer).getUint32(12, true);
      for (let k = 0; k < 150; k++) {
        const inHeader = k % 2 === 0;
        const bytes = inHeader ? flipBits(rng, f.v2, 24, 24 + hlen) : flipBits(rng, f.v2, 24 + hlen);
        expect(run(t, `flip-${f.name}`, bytes, i++)).toBe('refused');
      }
      // The prefix too: magic, version, lengths, the CRC word itself (a version flipped to 1 is read as version 1 and refused by its parser).
      for (let k = 0; k < 40; k++) expect(run(prefixTally, `flip-prefix-${f.name}`, flipBits(rng, f.v2, 0, 24), i++)).toBe('refused');
    }
    expect([...t.messages].filter((m) => !m.startsWith('checksum mismatch'))).toEqual([]);
    expect(t.refused).toBe(600);
  });

  it('bit flips in a version-1 file: data flips hit its data checksum; header flips load valid contents or are refused', () => {
    const rng = new Rng(1304);
    const t = newTally();
    let i = 0;
    for (const f of files) {
      const hlen = new DataView(f.v1.buffer).getUint32(12, true);
      for (let k = 0; k < 60; k++) expect(run(t, `v1-data-${f.name}`, flipBits(rng, f.v1, 16 + hlen), i++)).toBe('refused');
      for (let k = 0; k < 120; k++) run(t, `v1-header-${f.name}`, flipBits(rng, f.v1, 16, 16 + hlen), i++);
    }
    expect(t.refused).toBeGreaterThan(240);
  });

  it('edited header JSON with the checksum recomputed: the validator, not the checksum, must catch it', () => {
    const rng = new Rng(1305);
    const t = newTally();
    let i = 0;
    for (const f of files) {
      const { headerText, data } = splitCheckpoint(f.v2);
      const header = JSON.parse(headerText) as Record<string, unknown>;
      const meta = header.meta as Record<string, unknown>;
      const edits = f.name === 'run+ref' ? 60 : 250;
      for (let k = 0; k < edits; k++) {
        // Start the walk at the header, its meta, or deep in the run state, so every level is reached.
        const where = rng.pick(['header', 'meta', 'state', 'config', 'tensors'] as const);
        let edited: Record<string, unknown>;
        if (where === 'header') edited = mutateJson(rng, header).value as Record<string, unknown>;
        else if (where === 'tensors') edited = { ...header, tensors: mutateJson(rng, header.tensors).value };
        else if (where === 'meta' || meta[where] === undefined) edited = { ...header, meta: mutateJson(rng, meta).value };
        else edited = { ...header, meta: { ...meta, [where]: mutateJson(rng, meta[where]).value } };
        run(t, `edit-${f.name}`, assembleCheckpoint(JSON.stringify(edited) ?? 'null', data), i++);
      }
    }
    // Most edits are caught, by many different checks (not one catch-all).
    expect(t.refused).toBeGreaterThan(0.6 * (t.refused + t.accepted));
    const fields = ['run state', 'header.model', 'header.tensors', 'tensor ', 'meta.config', 'meta.refParams', 'meta.offlineFilter', 'meta.sftState', 'header.version', 'header.format'];
    for (const f of fields) expect([...t.messages].some((m) => m.startsWith(f)), `no refusal starting "${f}" among:\n${[...t.messages].join('\n')}`).toBe(true);
    expect(t.messages.size).toBeGreaterThan(40);
    expect(t.slowestMs).toBeLessThan(1000);
  });
});
