import { describe, expect, it } from 'vitest';
import { CheckpointError, crc32, crc32Label, decodeCheckpoint, encodeCheckpoint, NonFiniteWeightsError } from '../../src/model/checkpoint';
import { layoutParams, validateModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';

const cfg = validateModelConfig({ vocabSize: 7, contextLength: 9, nLayers: 2, dModel: 6, nHeads: 2, mlpRatio: 2, norm: 'layernorm', tiedEmbeddings: false });

/** Edits a checkpoint's tensor data and rewrites the header checksum to match (same length: crc32:xxxxxxxx). */
function withPatchedData(bytes: Uint8Array, patch: (data: Uint8Array, header: { tensors: { name: string; offset: number }[] }) => void): Uint8Array {
  const out = bytes.slice();
  const hlen = new DataView(out.buffer).getUint32(12, true);
  const text = new TextDecoder().decode(out.subarray(16, 16 + hlen));
  const header = JSON.parse(text);
  const data = out.subarray(16 + hlen);
  patch(data, header);
  out.set(new TextEncoder().encode(text.replace(header.checksum, crc32Label(data))), 16);
  return out;
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

  it('header lists every tensor with name, shape and dtype', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: {} });
    const hlen = new DataView(bytes.buffer).getUint32(12, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + hlen)));
    expect(header.tensors.map((t: { name: string }) => t.name)).toEqual(layoutParams(cfg).tensors.map((t) => t.name));
    expect(header.tensors[0]).toMatchObject({ name: 'wte', shape: [7, 6], dtype: 'f32', offset: 0, length: 42 });
    expect(header.checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
  });

  it('rejects corrupt, truncated and foreign files with a message naming the file', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: {} });
    const flipped = bytes.slice();
    flipped[flipped.length - 3] ^= 0xff;
    expect(() => decodeCheckpoint(flipped, 'bad.mlck')).toThrow(/bad\.mlck: checksum mismatch/);
    expect(() => decodeCheckpoint(bytes.subarray(0, bytes.length - 8), 't.mlck')).toThrow(/t\.mlck: checksum mismatch/);
    expect(() => decodeCheckpoint(new TextEncoder().encode('hello world, not a checkpoint'), 'x.txt')).toThrow(CheckpointError);
    expect(() => decodeCheckpoint(new Uint8Array(3), 'tiny')).toThrow(/tiny: file is 3 bytes/);
  });

  it('rejects a header whose model config is invalid, naming the field', () => {
    const bytes = encodeCheckpoint({ model: cfg, params: initParams(cfg, 1), meta: {} });
    const hlen = new DataView(bytes.buffer).getUint32(12, true);
    const text = new TextDecoder().decode(bytes.subarray(16, 16 + hlen)).replace('"nHeads":2', '"nHeads":4');
    const patched = bytes.slice();
    patched.set(new TextEncoder().encode(text), 16);
    expect(() => decodeCheckpoint(patched, 'h.mlck')).toThrow(/h\.mlck: header\.model\.dModel: must be divisible by nHeads/);
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
