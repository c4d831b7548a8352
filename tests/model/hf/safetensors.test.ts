/**
 * safetensors: the writer's files read back exactly (F32) or to the nearest F16 / BF16 (ties to
 * even); BF16 decoding is exact for every bit pattern; reads stay within what the header says;
 * a header that is absurd or lies (length, offsets, shapes, dtypes, gaps) is one message naming the file.
 */
import { describe, expect, it } from 'vitest';
import { memorySource, ModelFolderError, type ByteSource } from '../../../src/model/hf/files';
import {
  bf16BitsToFloat, decodeFloats, decodeFloatsPortable, encodeSafetensors, floatToBf16Bits, MAX_SAFETENSORS_HEADER_BYTES, readSafetensorsHeader, readTensor,
} from '../../../src/model/hf/safetensors';
import { halfBitsToFloat, floatToHalfBits } from '../../../src/util/half-float';
import { Rng } from '../../../src/util/rng';

const rng = new Rng(20261207);
const randn = (n: number, scale = 1) => Float32Array.from({ length: n }, () => scale * rng.normal());

/** A source that records every read, so tests can see what was read. */
function recording(bytes: Uint8Array, name = 'x.safetensors'): ByteSource & { reads: [number, number][] } {
  const inner = memorySource(name, bytes);
  const reads: [number, number][] = [];
  return { name, size: inner.size, reads, read: (o, l) => (reads.push([o, l]), inner.read(o, l)) };
}

/** A file from a raw header object and a data section of `dataBytes` bytes. */
function rawFile(header: unknown, dataBytes: number, lengthOverride?: bigint): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + dataBytes);
  new DataView(out.buffer).setBigUint64(0, lengthOverride ?? BigInt(h.length), true);
  out.set(h, 8);
  return out;
}

async function refused(bytes: Uint8Array, msg: RegExp) {
  const err = await readSafetensorsHeader(memorySource('bad.safetensors', bytes)).then(() => null, (e) => e);
  expect(err).toBeInstanceOf(ModelFolderError);
  expect(err.message).toMatch(/^bad\.safetensors: /);
  expect(err.message).not.toMatch(/\n/);
  expect(err.message).toMatch(msg);
}

/** bfloat16's value from its fields, written out (not through the f32 bit trick the decoder uses). */
function bf16ByFields(h: number): number {
  const sign = h & 0x8000 ? -1 : 1, e = (h >>> 7) & 0xff, m = h & 0x7f;
  if (e === 0xff) return m ? NaN : sign * Infinity;
  return e === 0 ? sign * m * 2 ** -133 : sign * (1 + m / 128) * 2 ** (e - 127);
}

describe('safetensors round trips', () => {
  it('F32 exactly, F16 and BF16 to the nearest value, odd sizes and scalars, in the order written', async () => {
    const a = randn(7 * 13), b = randn(5, 100), c = randn(1), d = randn(0);
    const file = encodeSafetensors([
      { name: 'a', dtype: 'F32', shape: [7, 13], data: a },
      { name: 'b', dtype: 'F16', shape: [5], data: b },
      { name: 'c', dtype: 'BF16', shape: [], data: c },
      { name: 'd', dtype: 'F32', shape: [0, 3], data: d },
    ], { format: 'pt' });
    expect((new DataView(file.buffer).getUint32(0, true) + 8) % 8).toBe(0); // header padded so the data is 8-aligned
    const st = await readSafetensorsHeader(memorySource('rt.safetensors', file));
    expect([...st.tensors.keys()]).toEqual(['a', 'b', 'c', 'd']);
    expect(st.metadata).toEqual({ format: 'pt' });
    expect(st.tensors.get('a')!.shape).toEqual([7, 13]);
    expect(await readTensor(st, 'a')).toEqual(a);
    expect(Array.from(await readTensor(st, 'b'))).toEqual(Array.from(b, (x) => halfBitsToFloat(floatToHalfBits(x))));
    expect(Array.from(await readTensor(st, 'c'))).toEqual([bf16ByFields(floatToBf16Bits(c[0]))]);
    expect((await readTensor(st, 'd')).length).toBe(0);
  });

  it('BF16 decodes every one of the 65536 bit patterns exactly', () => {
    const bytes = new Uint8Array(2 * 65536);
    const dv = new DataView(bytes.buffer);
    for (let h = 0; h < 65536; h++) dv.setUint16(2 * h, h, true);
    const out = decodeFloats(bytes, 'BF16');
    for (let h = 0; h < 65536; h++) {
      const want = bf16ByFields(h);
      if (Number.isNaN(want)) expect(out[h]).toBeNaN();
      else if (out[h] !== want) throw new Error(`bf16 0x${h.toString(16)}: got ${out[h]}, want ${want}`);
    }
    expect(bf16BitsToFloat(0x3f80)).toBe(1);
    // The fast typed-array path equals the DataView path, for every dtype and for an unaligned start.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    for (const dt of ['BF16', 'F16', 'F32'] as const) {
      const a = decodeFloats(shifted.subarray(1), dt), b = decodeFloatsPortable(bytes, dt);
      expect(a.length).toBe(b.length);
      for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i]) && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) throw new Error(`${dt} ${i}: ${a[i]} vs ${b[i]}`);
    }
  });

  it('BF16 encoding rounds to nearest, ties to even, and saturates only past the largest bfloat16', () => {
    expect(floatToBf16Bits(1)).toBe(0x3f80);
    expect(floatToBf16Bits(1 + 2 ** -8)).toBe(0x3f80); // exactly halfway between 1 and 1 + 2^-7: to the even one (1)
    expect(floatToBf16Bits(1 + 3 * 2 ** -8)).toBe(0x3f82); // halfway between 1+2^-7 (odd) and 1+2^-6: to even
    expect(floatToBf16Bits(1 + 2 ** -8 + 2 ** -20)).toBe(0x3f81); // just above halfway: up
    expect(floatToBf16Bits(-2.5)).toBe(0xc020);
    expect(Number.isNaN(bf16BitsToFloat(floatToBf16Bits(NaN)))).toBe(true);
    expect(bf16BitsToFloat(floatToBf16Bits(Infinity))).toBe(Infinity);
    for (let i = 0; i < 2000; i++) {
      const x = Math.fround(rng.normal() * 2 ** rng.int(-30, 30));
      const h = floatToBf16Bits(x);
      const err = Math.abs(bf16ByFields(h) - x);
      expect(err).toBeLessThanOrEqual(Math.min(Math.abs(bf16ByFields(h + 1) - x), Math.abs(bf16ByFields(h - 1) - x)));
    }
  });

  it('reads only the header and the one tensor asked for', async () => {
    const file = encodeSafetensors([
      { name: 'big', dtype: 'F32', shape: [1000], data: randn(1000) },
      { name: 'small', dtype: 'BF16', shape: [3], data: randn(3) },
    ]);
    const src = recording(file);
    const st = await readSafetensorsHeader(src);
    await readTensor(st, 'small');
    const n = Number(new DataView(file.buffer).getBigUint64(0, true));
    expect(src.reads).toEqual([[0, 8], [8, n], [8 + n + 4000, 6]]);
  });
});

describe('safetensors headers that are absurd or lie: one line naming the file', () => {
  const ok = { w: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] } };
  it('a file shorter than the length field', () => refused(new Uint8Array(5), /5 bytes, shorter than the 8-byte header length/));
  it('an absurd header length is refused before anything else is read', async () => {
    const bytes = rawFile(ok, 16, 0xffffffffffffn);
    const src = recording(bytes, 'bad.safetensors');
    const err = await readSafetensorsHeader(src).then(() => null, (e) => e);
    expect(err.message).toMatch(/header length 281474976710655 is absurd/);
    expect(src.reads).toEqual([[0, 8]]);
    await refused(rawFile(ok, 16, BigInt(MAX_SAFETENSORS_HEADER_BYTES + 1)), /is absurd/);
  });
  it('a header length past the end of the file', () => refused(rawFile(ok, 0, 5000n), /header length 5000 runs past the end of the file/));
  it('a header that is not JSON, or not an object', async () => {
    const b = rawFile(ok, 16);
    b[9] = 0x7b; b[10] = 0x7b;
    await refused(b, /not valid UTF-8 JSON/);
    await refused(rawFile([1, 2], 0), /not a JSON object/);
  });
  it('an unknown dtype, a bad shape, bad offsets', async () => {
    await refused(rawFile({ w: { dtype: 'F33', shape: [1], data_offsets: [0, 4] } }, 4), /tensor "w": dtype "F33" is not a safetensors dtype/);
    await refused(rawFile({ w: { dtype: 'F32', shape: [-1], data_offsets: [0, 4] } }, 4), /shape must be a list of non-negative integers/);
    await refused(rawFile({ w: { dtype: 'F32', shape: [1], data_offsets: [4, 0] } }, 4), /data_offsets must be \[begin, end\]/);
    await refused(rawFile({ w: { dtype: 'F32', shape: [1], data_offsets: [0] } }, 4), /data_offsets must be/);
  });
  it('offsets that disagree with dtype × shape (a lying shape or dtype)', async () => {
    await refused(rawFile({ w: { dtype: 'F32', shape: [3, 2], data_offsets: [0, 16] } }, 16), /hold 16 bytes but F32 \[3,2\] needs 24/);
    await refused(rawFile({ w: { dtype: 'BF16', shape: [2, 2], data_offsets: [0, 16] } }, 16), /needs 8/);
  });
  it('offsets past the data, a gap, an overlap, trailing bytes', async () => {
    await refused(rawFile({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, 8), /lies past the data section \(8 bytes/);
    await refused(rawFile({ a: { dtype: 'F32', shape: [1], data_offsets: [0, 4] }, b: { dtype: 'F32', shape: [1], data_offsets: [8, 12] } }, 12), /begin at 8 where 4 was expected/);
    await refused(rawFile({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, 8), /begin at 4 where 8 was expected|begin at 0 where 4/);
    await refused(rawFile(ok, 20), /cover 16 bytes of data but the file holds 20/);
  });
  it('bad __metadata__', () => refused(rawFile({ __metadata__: { a: 1 } }, 0), /__metadata__ must be an object of strings/));
  it('a tensor of a dtype that is not loaded, and non-finite weights, name the tensor', async () => {
    const st = await readSafetensorsHeader(memorySource('i.safetensors', rawFile({ ids: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, 8)));
    await expect(readTensor(st, 'ids')).rejects.toThrow(/i\.safetensors: tensor "ids" is I64; only F32, F16 and BF16/);
    const nan = encodeSafetensors([{ name: 'w', dtype: 'F32', shape: [3], data: [1, NaN, 2] }]);
    await expect(readTensor(await readSafetensorsHeader(memorySource('n.safetensors', nan)), 'w')).rejects.toThrow(/n\.safetensors: tensor "w" holds a non-finite value at index 1/);
  });
});
