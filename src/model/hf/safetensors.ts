/**
 * The safetensors format (Hugging Face's): an 8-byte little-endian header length N, N bytes of
 * JSON — per tensor `{"dtype", "shape", "data_offsets": [begin, end]}` with offsets relative to
 * the end of the header, plus an optional `"__metadata__"` object of strings — then the raw
 * little-endian data. As the reference implementation requires, the tensors' byte ranges tile the
 * data section exactly: no gaps, no overlaps, nothing after the last one.
 *
 * Reading is bounded: the 8 length bytes are read first and checked against the file's size and a
 * cap before the header is read; every tensor's range is checked against its dtype and shape
 * before any data is read, and only the named tensor's bytes are read. F32, F16 and BF16 widen to
 * Float32Array exactly (BF16 is the top half of an f32; every f16 is an f32). Other dtypes are
 * recognised in the header but refused when a tensor of theirs is loaded.
 *
 * Writing produces the same layout (header padded with spaces to a multiple of 8, as the
 * reference writer does), rounding to F16 or BF16 to nearest, ties to even.
 */
import { ModelFolderError, type ByteSource } from './files';
import { floatToHalfBits, halfBitsToFloat } from '../../util/half-float';
import { jsonDepth, MAX_JSON_DEPTH } from '../../util/json-depth';

/** The reference implementation's cap on the header (100 MB): a longer one is refused before it is read. */
export const MAX_SAFETENSORS_HEADER_BYTES = 100_000_000;

/** Bytes per element of every dtype the format defines. */
const DTYPE_BYTES: Record<string, number> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1,
  I16: 2, U16: 2, F16: 2, BF16: 2,
  I32: 4, U32: 4, F32: 4,
  I64: 8, U64: 8, F64: 8,
};

/** The dtypes this loader widens to f32. */
export type FloatDtype = 'F32' | 'F16' | 'BF16';
const LOADABLE: readonly string[] = ['F32', 'F16', 'BF16'];

export interface TensorEntry {
  name: string;
  dtype: string;
  shape: number[];
  /** Byte range within the data section. */
  begin: number;
  end: number;
}

export interface SafetensorsFile {
  source: ByteSource;
  /** File offset of the data section (8 + N). */
  dataStart: number;
  tensors: Map<string, TensorEntry>;
  metadata: Record<string, string>;
}

const fail = (src: ByteSource, what: string): never => {
  throw new ModelFolderError(`${src.name}: ${what}`);
};

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Reads and checks a safetensors header: every tensor's dtype, shape and byte range, against the file's size. */
export async function readSafetensorsHeader(src: ByteSource): Promise<SafetensorsFile> {
  if (src.size < 8) fail(src, `${src.size} bytes, shorter than the 8-byte header length of a safetensors file`);
  const lenBytes = await src.read(0, 8);
  const big = new DataView(lenBytes.buffer, lenBytes.byteOffset, 8).getBigUint64(0, true);
  if (big > BigInt(MAX_SAFETENSORS_HEADER_BYTES)) fail(src, `header length ${big} is absurd (the format allows at most ${MAX_SAFETENSORS_HEADER_BYTES} bytes); not a safetensors file or a corrupt one`);
  const n = Number(big);
  if (n < 2) fail(src, `header length ${n} is too short for a JSON object`);
  if (8 + n > src.size) fail(src, `header length ${n} runs past the end of the file (${src.size} bytes)`);
  const headerBytes = await src.read(8, n);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (e) {
    fail(src, `header is not valid UTF-8 JSON (${(e as Error).message})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) fail(src, 'header is not a JSON object');
  if (jsonDepth(header) > MAX_JSON_DEPTH) fail(src, `header nests deeper than ${MAX_JSON_DEPTH} levels`);
  const dataStart = 8 + n;
  const dataBytes = src.size - dataStart;
  const tensors = new Map<string, TensorEntry>();
  let metadata: Record<string, string> = {};
  for (const [name, raw] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || Object.values(raw).some((v) => typeof v !== 'string'))
        fail(src, '__metadata__ must be an object of strings');
      metadata = raw as Record<string, string>;
      continue;
    }
    const at = `tensor ${JSON.stringify(name)}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(src, `${at} is not an object`);
    const e = raw as Record<string, unknown>;
    const { dtype, shape, data_offsets: offsets } = e;
    if (typeof dtype !== 'string' || !(dtype in DTYPE_BYTES)) fail(src, `${at}: dtype ${JSON.stringify(dtype)} is not a safetensors dtype`);
    if (!Array.isArray(shape) || !shape.every(isCount)) fail(src, `${at}: shape must be a list of non-negative integers, got ${JSON.stringify(shape)}`);
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount) || offsets[0] > offsets[1])
      fail(src, `${at}: data_offsets must be [begin, end] with 0 ≤ begin ≤ end, got ${JSON.stringify(offsets)}`);
    const [begin, end] = offsets as number[];
    const numel = (shape as number[]).reduce((a, b) => a * b, 1);
    const want = numel * DTYPE_BYTES[dtype as string];
    if (!Number.isSafeInteger(want) || end - begin !== want)
      fail(src, `${at}: data_offsets [${begin}, ${end}] hold ${end - begin} bytes but ${dtype} ${JSON.stringify(shape)} needs ${want}`);
    if (end > dataBytes) fail(src, `${at}: data_offsets end ${end} lies past the data section (${dataBytes} bytes; the file is ${src.size} bytes)`);
    tensors.set(name, { name, dtype: dtype as string, shape: shape as number[], begin, end });
  }
  // The ranges must tile the data section, as the reference reader demands: a gap or overlap is a lying header.
  const sorted = [...tensors.values()].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  for (const t of sorted) {
    if (t.begin !== at) fail(src, `tensor ${JSON.stringify(t.name)}: data_offsets begin at ${t.begin} where ${at} was expected (ranges overlap or leave a gap)`);
    at = t.end;
  }
  if (at !== dataBytes) fail(src, `the tensors cover ${at} bytes of data but the file holds ${dataBytes} after its header`);
  return { source: src, dataStart, tensors, metadata };
}

/** One tensor's values widened to f32 (F32, F16, BF16), read from its own byte range only; refuses non-finite values. */
export async function readTensor(file: SafetensorsFile, name: string): Promise<Float32Array> {
  const t = file.tensors.get(name);
  if (!t) return fail(file.source, `no tensor ${JSON.stringify(name)}`);
  if (!LOADABLE.includes(t.dtype)) fail(file.source, `tensor ${JSON.stringify(name)} is ${t.dtype}; only F32, F16 and BF16 weights can be loaded`);
  const bytes = await file.source.read(file.dataStart + t.begin, t.end - t.begin);
  const out = decodeFloats(bytes, t.dtype as FloatDtype);
  for (let i = 0; i < out.length; i++) if (!Number.isFinite(out[i])) fail(file.source, `tensor ${JSON.stringify(name)} holds a non-finite value at index ${i}`);
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Every f16 bit pattern's value, built on first use (256 KiB): decoding a half is then one lookup. */
let halfTable: Float32Array | null = null;

/** Little-endian F32/F16/BF16 bytes → Float32Array, exactly. */
export function decodeFloats(bytes: Uint8Array, dtype: FloatDtype): Float32Array {
  const width = dtype === 'F32' ? 4 : 2;
  const n = bytes.length / width;
  // Typed-array views need platform = little-endian order and an aligned start; copy into alignment when not aligned.
  if (!LITTLE_ENDIAN) return decodeFloatsPortable(bytes, dtype);
  const aligned = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
  if (dtype === 'F32') return new Float32Array(aligned.buffer.slice(aligned.byteOffset, aligned.byteOffset + aligned.byteLength));
  const halves = new Uint16Array(aligned.buffer, aligned.byteOffset, n);
  const out = new Float32Array(n);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) bits[i] = halves[i] << 16;
    return out;
  }
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfBitsToFloat(h);
  }
  for (let i = 0; i < n; i++) out[i] = halfTable[halves[i]];
  return out;
}

/** The same through a DataView, for a big-endian platform. */
export function decodeFloatsPortable(bytes: Uint8Array, dtype: FloatDtype): Float32Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / (dtype === 'F32' ? 4 : 2));
  for (let i = 0; i < out.length; i++)
    out[i] = dtype === 'F32' ? dv.getFloat32(4 * i, true) : dtype === 'F16' ? halfBitsToFloat(dv.getUint16(2 * i, true)) : bf16BitsToFloat(dv.getUint16(2 * i, true));
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bfloat16 nearest to `x` (ties to even), as 16 bits; NaN stays a quiet NaN. */
export function floatToBf16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0];
  if ((b & 0x7f800000) === 0x7f800000 && b & 0x7fffff) return ((b >>> 16) | 0x40) & 0xffff;
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The value of 16 bfloat16 bits. */
export function bf16BitsToFloat(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0];
}

export interface TensorToWrite {
  name: string;
  dtype: FloatDtype;
  shape: number[];
  data: ArrayLike<number>;
}

/** A safetensors file of these tensors, in this order, with optional string metadata. */
export function encodeSafetensors(tensors: readonly TensorToWrite[], metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let at = 0;
  for (const t of tensors) {
    const numel = t.shape.reduce((a, b) => a * b, 1);
    if (numel !== t.data.length) throw new Error(`encodeSafetensors: ${t.name} has ${t.data.length} values for shape ${JSON.stringify(t.shape)}`);
    if (t.name === '__metadata__' || t.name in header) throw new Error(`encodeSafetensors: duplicate or reserved name ${t.name}`);
    const bytes = numel * DTYPE_BYTES[t.dtype];
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  const json = JSON.stringify(header);
  const enc = new TextEncoder();
  let headerBytes = enc.encode(json);
  const pad = (8 - (headerBytes.length % 8)) % 8;
  if (pad) headerBytes = enc.encode(json + ' '.repeat(pad));
  const out = new Uint8Array(8 + headerBytes.length + at);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let p = 8 + headerBytes.length;
  for (const t of tensors) {
    for (let i = 0; i < t.data.length; i++) {
      const v = t.data[i];
      if (t.dtype === 'F32') dv.setFloat32(p, v, true), (p += 4);
      else dv.setUint16(p, t.dtype === 'F16' ? floatToHalfBits(v) : floatToBf16Bits(v), true), (p += 2);
    }
  }
  return out;
}
