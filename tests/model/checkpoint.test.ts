import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { assembleCheckpoint, CHECKPOINT_VERSION, CheckpointError, crc32, crc32Label, decodeCheckpoint, encodeCheckpoint, NonFiniteWeightsError, splitCheckpoint } from '../../src/model/checkpoint';
import { layoutParams, validateModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { floatToHalfBits, halfBitsToFloat } from '../../src/util/half-float';

const cfg = validateModelConfig({ vocabSize: 7, contextLength: 9, nLayers: 2, dModel: 6, nHeads: 2, mlpRatio: 2, norm: 'layernorm', tiedEmbeddings: false });

/** Edits a checkpoint's tensor data (and/or header) and re-checksums the file: only validation can catch what is wrong. */
function withPatchedData(bytes: Uint8Array, patch: (data: Uint8Array, header: { tensors: { name: string; offset: number }[] }) => void): Uint8Array {
  const { headerText, data } = splitCheckpoint(bytes);
  const header = JSON.parse(headerText);
  const d = data.slice();
  patch(d, header);
  return assembleCheckpoint(JSON.stringify(header), d);
}

/** The file with its header JSON rewritten by `edit` and a matching checksum. */
function withHeader(bytes: Uint8Array, edit: (h: Record<string, any>) => void): Uint8Array {
  const { headerText, data } = splitCheckpoint(bytes);
  const header = JSON.parse(headerText);
  edit(header);
  return assembleCheckpoint(JSON.stringify(header), data);
}

describe('checkpoint format', () => {
  it('crc32 matches the standard check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('round-trips parameters, AdamW moments and meta exactly', () => {
    const params = initParams(cfg, 3);
    const m = params.map((x) => x * 0.5);
    const v = params.map((x) => x * x);
    const bytes = encodeCheckpoint({ model: cfg, params, adam: { m, v }, meta: { step: 12, note: 'x' } });
    const back = decodeCheckpoint(bytes, 'a.mlck');
    expect(back.model).toEqual(cfg);
    expect(Array.from(back.params)).toEqual(Array.from(params));
    expect(Array.from(back.adam!.m)).toEqual(Array.from(m));
    expect(Array.from(back.adam!.v)).toEqual(Array.from(v));
    expect(back.meta).toEqual({ step: 12, note: 'x' });
    // Padding between tensors is not stored and comes back as zero.
    expect(layoutParams(cfg).totalFloats).toBe(params.length);
  });

  it('header lists every tensor with name, shape and dtype; the prefix holds the lengths and the whole-file CRC', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: {} });
    const dv = new DataView(bytes.buffer);
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('MAGICLAB');
    expect(dv.getUint32(8, true)).toBe(2);
    expect(CHECKPOINT_VERSION).toBe(2);
    const hlen = dv.getUint32(12, true);
    const dlen = dv.getUint32(16, true);
    expect(hlen % 8).toBe(0);
    expect(24 + hlen + dlen).toBe(bytes.length);
    const zeroed = bytes.slice();
    zeroed.fill(0, 20, 24);
    expect(dv.getUint32(20, true)).toBe(crc32(zeroed));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(24, 24 + hlen)));
    expect(header.tensors.map((t: { name: string }) => t.name)).toEqual(layoutParams(cfg).tensors.map((t) => t.name));
    expect(header.tensors[0]).toMatchObject({ name: 'wte', shape: [7, 6], dtype: 'f32', offset: 0, length: 42 });
    expect(header.checksum).toBeUndefined();
    expect(header.version).toBe(2);
  });

  it('rejects corrupt, truncated, extended and foreign files with a message naming the file', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: { note: 'x' } });
    const hlen = new DataView(bytes.buffer).getUint32(12, true);
    const flipped = bytes.slice();
    flipped[flipped.length - 3] ^= 0xff;
    expect(() => decodeCheckpoint(flipped, 'bad.mlck')).toThrow(/^checkpoint bad\.mlck: checksum mismatch \(stored crc32:[0-9a-f]{8}, file crc32:[0-9a-f]{8}\): the file is corrupt$/);
    // A header byte (inside meta) flipped: the checksum catches it before the JSON is read.
    const inHeader = bytes.slice();
    inHeader[24 + hlen - 12] ^= 0x01;
    expect(() => decodeCheckpoint(inHeader, 'h.mlck')).toThrow(/h\.mlck: checksum mismatch/);
    expect(() => decodeCheckpoint(bytes.subarray(0, bytes.length - 8), 't.mlck')).toThrow(/t\.mlck: file is \d+ bytes, its prefix describes \d+ .*: the file is truncated/);
    expect(() => decodeCheckpoint(bytes.subarray(0, 20), 't.mlck')).toThrow(/t\.mlck: file is 20 bytes, shorter than a version-2 prefix \(24\): the file is truncated/);
    const longer = new Uint8Array(bytes.length + 4);
    longer.set(bytes);
    expect(() => decodeCheckpoint(longer, 'l.mlck')).toThrow(/l\.mlck: .*4 unexpected bytes at the end/);
    expect(() => decodeCheckpoint(new TextEncoder().encode('hello world, not a checkpoint'), 'x.txt')).toThrow(CheckpointError);
    expect(() => decodeCheckpoint(new Uint8Array(3), 'tiny')).toThrow(/tiny: file is 3 bytes/);
  });

  it('refuses a version it does not read with one message', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: {} });
    for (const [v, re] of [
      [3, /^checkpoint v\.mlck: format version 3 is not supported \(this build reads versions 1 and 2; a newer MAGIC Lab wrote it\)$/],
      [0, /^checkpoint v\.mlck: format version 0 is not supported \(this build reads versions 1 and 2\)$/],
    ] as const) {
      const b = bytes.slice();
      new DataView(b.buffer).setUint32(8, v, true);
      expect(() => decodeCheckpoint(b, 'v.mlck')).toThrow(re);
    }
    // The prefix and the header must agree on the version (an edited file with its checksum recomputed).
    expect(() => decodeCheckpoint(withHeader(bytes, (h) => (h.version = 1)), 'w.mlck')).toThrow(/w\.mlck: header\.version 1 does not match the file's format version 2/);
  });

  it('still reads version 1 (data-only checksum), validating its header like version 2', () => {
    const params = initParams(cfg, 4);
    const contents = { model: cfg, params, adam: { m: params.map((x) => x / 3), v: params.map((x) => x * x) }, meta: { kind: 'magic-lab-base', step: 5 } };
    const v1 = encodeCheckpoint(contents, 1);
    expect(new DataView(v1.buffer).getUint32(8, true)).toBe(1);
    const back = decodeCheckpoint(v1, 'old.mlck');
    expect(Array.from(back.params)).toEqual(Array.from(params));
    expect(back.meta).toEqual(contents.meta);
    // Version 2 of the same contents holds the same values; re-encoding it as version 1 gives the same bytes.
    const v2 = encodeCheckpoint(back);
    expect(Array.from(encodeCheckpoint(decodeCheckpoint(v2), 1))).toEqual(Array.from(v1));
    const hlen = new DataView(v1.buffer).getUint32(12, true);
    const flipped = v1.slice();
    flipped[16 + hlen + 5] ^= 0x10;
    expect(() => decodeCheckpoint(flipped, 'old.mlck')).toThrow(/old\.mlck: checksum mismatch \(header crc32:[0-9a-f]{8}, data crc32:[0-9a-f]{8}\): the file is corrupt or truncated/);
    expect(() => decodeCheckpoint(v1.subarray(0, 16 + hlen - 1), 'old.mlck')).toThrow(/old\.mlck: header length \d+ runs past the end of the file: the file is truncated/);
    // Version 1's header is not under a checksum, but it is still validated.
    const text = new TextDecoder().decode(v1.subarray(16, 16 + hlen)).replace('"nHeads":2', '"nHeads":4');
    const edited = v1.slice();
    edited.set(new TextEncoder().encode(text), 16);
    expect(() => decodeCheckpoint(edited, 'old.mlck')).toThrow(/old\.mlck: header\.model\.dModel: must be divisible by nHeads/);
  });

  it('the shipped base checkpoints are version 2 and hold exactly what their version-1 files held', () => {
    // CRC-32 of the version-1 files these were re-encoded from (commit eed48ee), as sweep pools recorded them:
    // the version-1 encoding of the decoded contents reproduces those files byte for byte, so every tensor
    // and every meta value is bit-identical.
    for (const [file, v1crc] of [
      ['public/checkpoints/base.mlck', 'crc32:64700233'],
      ['public/checkpoints/base-tiny.mlck', 'crc32:b369fe8c'],
    ]) {
      const bytes = new Uint8Array(readFileSync(file));
      expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true), file).toBe(2);
      expect(crc32Label(encodeCheckpoint(decodeCheckpoint(bytes, file), 1)), file).toBe(v1crc);
    }
  });

  it('rejects a header whose model config is invalid, naming the field', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: {} });
    const patched = withHeader(bytes, (h) => (h.model.nHeads = 4));
    expect(() => decodeCheckpoint(patched, 'h.mlck')).toThrow(/h\.mlck: header\.model\.dModel: must be divisible by nHeads/);
  });

  it('rejects a tensor table that does not tile the data exactly as the model needs (edited, re-checksummed)', () => {
    const params = initParams(cfg, 1);
    const bytes = encodeCheckpoint({ model: cfg, params, adam: { m: params, v: params }, meta: {} });
    const cases: [string, (h: Record<string, any>) => void, RegExp][] = [
      ['listed twice', (h) => h.tensors.push({ ...h.tensors[0] }), /tensor wte is listed twice/],
      ['unknown', (h) => (h.tensors[1].name = 'wxe'), /header\.tensors\[1\]: tensor "wxe" is not part of this model/],
      ['missing', (h) => h.tensors.splice(2, 1), /tensor \S+ is missing/],
      ['wrong shape', (h) => (h.tensors[0].shape = [6, 7]), /tensor wte: shape \[6,7\] does not match the model's \[7,6\]/],
      ['wrong length', (h) => (h.tensors[0].length = 41), /tensor wte: length 41 does not match its shape \(42 values\)/],
      ['dtype', (h) => (h.tensors[0].dtype = 'f64'), /tensor wte: dtype "f64" is not supported/],
      // f16 is only for all the weights of a weights-only file: this one has AdamW moments.
      ['dtype f16', (h) => (h.tensors[0].dtype = 'f16'), /tensor wte is f16, but f16 is only for the weights of a file without AdamW moments/],
      ['overlap', (h) => ([h.tensors[1].offset, h.tensors[2].offset] = [h.tensors[2].offset, h.tensors[1].offset]), /starts at byte \d+ of the data, expected \d+/],
      ['outside', (h) => (h.tensors[0].offset = 1 << 30), /tensor wte: data range \(offset 1073741824, 168 bytes\) is outside/],
      ['unaligned', (h) => (h.tensors[0].offset = 2), /tensor wte: data range \(offset 2/],
      ['only m', (h) => (h.tensors = h.tensors.filter((t: { name: string }) => !t.name.startsWith('adam.v/'))), /has only one of the AdamW moments/],
      ['unlisted bytes', (h) => (h.tensors = h.tensors.filter((t: { name: string }) => !t.name.startsWith('adam.'))), /data section is \d+ bytes, its tensors take \d+/],
      ['not an array', (h) => (h.tensors = { wte: 1 }), /header\.tensors must be an array/],
      ['meta', (h) => (h.meta = [1]), /header\.meta must be a JSON object/],
      ['format', (h) => (h.format = 'other'), /header\.format is "other"/],
      ['v1 checksum field', (h) => (h.checksum = 'crc32:00000000'), /header\.checksum is a version-1 field/],
      ['unknown field', (h) => (h.extra = 1), /header\.extra is not a field of a version-2 header/],
    ];
    for (const [name, edit, re] of cases) {
      const f = withHeader(bytes, edit);
      expect(() => decodeCheckpoint(f, 'e.mlck'), name).toThrow(CheckpointError);
      expect(() => decodeCheckpoint(f, 'e.mlck'), name).toThrow(re);
    }
    expect(() => decodeCheckpoint(assembleCheckpoint('{"format":"magic-lab-checkpoint",', new Uint8Array(0)), 'j.mlck')).toThrow(/j\.mlck: header is not valid JSON/);
    expect(() => decodeCheckpoint(assembleCheckpoint('[1,2]', new Uint8Array(0)), 'j.mlck')).toThrow(/j\.mlck: header must be a JSON object/);
  });

  it('never writes non-finite weights or moments, and refuses to load them (a diverged run), naming the tensor', () => {
    const params = initParams(cfg, 2);
    const layout = layoutParams(cfg);
    const t = layout.tensors[3];
    const bad = params.slice();
    bad[t.offset + 1] = NaN;
    expect(() => encodeCheckpoint({ model: cfg, params: bad, meta: {} })).toThrow(NonFiniteWeightsError);
    expect(() => encodeCheckpoint({ model: cfg, params: bad, meta: {} })).toThrow(`non-finite weights: ${t.name}[1] = NaN`);
    const v = params.map(() => 1);
    v[layout.tensors[0].offset] = Infinity;
    expect(() => encodeCheckpoint({ model: cfg, params, adam: { m: params, v }, meta: {} })).toThrow(`non-finite weights: adam.v/${layout.tensors[0].name}[0] = Infinity`);

    // A file with a NaN weight and a checksum that matches it (as a diverged older build could write).
    const bytes = encodeCheckpoint({ model: cfg, params, meta: {} });
    const nanFile = withPatchedData(bytes, (data, header) => {
      const e = header.tensors.find((x) => x.name === t.name)!;
      new DataView(data.buffer, data.byteOffset).setFloat32(e.offset + 4 * 2, NaN, true);
    });
    expect(() => decodeCheckpoint(nanFile, 'nan.mlck')).toThrow(new RegExp(`nan\\.mlck: tensor ${t.name} holds a non-finite value \\(NaN at element 2\\): the run that wrote it diverged`));
  });

  it('refuses to encode params of the wrong size', () => {
    expect(() => encodeCheckpoint({ model: cfg, params: new Float32Array(5), meta: {} })).toThrow(/params: expected/);
  });
});

describe('f16 weights (a weights-only base at half the size)', () => {
  const params = initParams(cfg, 5);
  const rounded = params.map((x) => halfBitsToFloat(floatToHalfBits(x)));
  const f16 = encodeCheckpoint({ model: cfg, params, meta: { kind: 'magic-lab-base' }, weightsDtype: 'f16' });
  const f32 = encodeCheckpoint({ model: cfg, params, meta: { kind: 'magic-lab-base' } });

  it('stores every weight as the nearest half, in half the data bytes, and decodes those values exactly', () => {
    const n = layoutParams(cfg).count;
    expect(splitCheckpoint(f32).data.length).toBe(4 * n);
    expect(splitCheckpoint(f16).data.length).toBe(2 * n);
    const header = JSON.parse(splitCheckpoint(f16).headerText);
    expect(new Set(header.tensors.map((t: { dtype: string }) => t.dtype))).toEqual(new Set(['f16']));
    const back = decodeCheckpoint(f16, 'half.mlck');
    expect(back.weightsDtype).toBe('f16');
    expect(Array.from(back.params)).toEqual(Array.from(rounded));
    // Rounding moved the weights, but by at most half a half-ulp (relative 2^-11 for normals).
    expect(back.params.some((x, i) => x !== params[i])).toBe(true);
    back.params.forEach((x, i) => expect(Math.abs(x - params[i])).toBeLessThanOrEqual(Math.abs(params[i]) * 2 ** -11 + 2 ** -25));
    expect(decodeCheckpoint(f32).weightsDtype).toBeUndefined();
  });

  it('a decode → encode round trip (data filter --write) keeps the file byte for byte; version 1 widens it to f32', () => {
    const back = decodeCheckpoint(f16);
    expect(Array.from(encodeCheckpoint({ ...back }))).toEqual(Array.from(f16));
    const v1 = decodeCheckpoint(encodeCheckpoint(back, 1));
    expect(v1.weightsDtype).toBeUndefined();
    expect(Array.from(v1.params)).toEqual(Array.from(rounded));
  });

  it('refuses f16 with AdamW moments, and a weight that would round to Infinity, naming it', () => {
    expect(() => encodeCheckpoint({ model: cfg, params, adam: { m: params, v: params }, meta: {}, weightsDtype: 'f16' })).toThrow(/weights-only/);
    const big = params.slice();
    big[3] = 70000;
    expect(() => encodeCheckpoint({ model: cfg, params: big, meta: {}, weightsDtype: 'f16' })).toThrow(/\[3\] = 70000 rounds beyond the largest half float/);
  });

  it('refuses an edited file that mixes f16 and f32 weights or stores moments as f16 (re-checksummed)', () => {
    // One weight tensor relabelled f32: its bytes no longer tile the data.
    const mixed = withHeader(f16, (h) => {
      h.tensors[1].dtype = 'f32';
    });
    expect(() => decodeCheckpoint(mixed, 'mixed.mlck')).toThrow(/mixed\.mlck: tensor \S+ is f32 while other weights are f16/);
    // A file with moments whose weights claim f16.
    const withAdam = encodeCheckpoint({ model: cfg, params, adam: { m: params, v: params }, meta: {} });
    const bad = withHeader(withAdam, (h) => {
      for (const t of h.tensors) if (!t.name.startsWith('adam.')) t.dtype = 'f16';
    });
    expect(() => decodeCheckpoint(bad, 'bad.mlck')).toThrow(/bad\.mlck: .*f16/);
    expect(() => decodeCheckpoint(withHeader(f16, (h) => (h.tensors[0].dtype = 'bf16')), 'b.mlck')).toThrow(/dtype "bf16" is not supported/);
  });
});
