/**
 * Checkpoint file format (`.mlck`), identical in the browser and in Node. Version 2, written by
 * this build:
 *
 *   offset 0       8 bytes   ASCII "MAGICLAB"
 *   offset 8       u32 LE    format version (2)
 *   offset 12      u32 LE    header length H in bytes (JSON, UTF-8, space-padded to a multiple of 8)
 *   offset 16      u32 LE    data length D in bytes
 *   offset 20      u32 LE    CRC-32 (IEEE) of the whole file, computed with these four bytes as zero
 *   offset 24      H bytes   header: { format: "magic-lab-checkpoint", version: 2, model: ModelConfig,
 *                            tensors: [{ name, shape, dtype: "f32" | "f16", offset, length }], meta: {...} }
 *   24 + H         D bytes   little-endian tensors; each tensor's `offset` is in bytes from the data start
 *   24 + H + D               end of file (nothing may follow)
 *
 * The one checksum covers everything: the prefix, the header (model config, tensor table, meta —
 * run config and run state included) and the data, so any corruption or truncation is refused
 * before the header is even parsed. A file whose checksum matches is then validated field by field
 * (a tensor table that lists every tensor of the model exactly once, contiguously, with its shape;
 * finite values; the run state in src/rl/run-checkpoint.ts), because a file edited on purpose
 * and re-checksummed must still be refused with a message rather than load garbled.
 *
 * Version 1 (written before the whole-file checksum) is still read, so the run checkpoints users
 * hold — a browser's saved runs, sweep pools, `--resume` directories — keep working: its layout is
 * the same without the data length and CRC words (header at offset 16) and its header carries
 * `checksum: "crc32:<8 hex>"` of the data section only, which is checked; its header is validated
 * exactly as version 2's, but an edit to it that keeps the JSON valid is not detected by a
 * checksum. Every file this build writes is version 2 (`encodeCheckpoint(c, 1)` reproduces a
 * version-1 file byte for byte, for identities recorded from version-1 files and for tests). Any
 * other version is refused with one message.
 *
 * Tensors are the model parameters by name (see layoutParams) and, when the optimizer state is
 * saved, the AdamW moments as "adam.m/<name>" and "adam.v/<name>". `meta` is JSON for the trainer
 * (run config, step, stage, controller state, filters, data cursor) or for a base checkpoint.
 *
 * Tensors are f32, except that a weights-only file may store its parameters as IEEE half floats
 * (dtype "f16", all of them): a shipped base at half the size (the medium rung's is downloaded on
 * demand). They decode to the same Float32Array, exactly; only the writer rounds. A build from
 * before f16 refuses such a file with its "dtype is not supported" message.
 */
import { ConfigError, layoutParams, validateModelConfig, type ModelConfig } from './config';
import { jsonDepth, MAX_JSON_DEPTH } from '../util/json-depth';
import { floatToHalfBits, halfBitsToFloat, HALF_MAX } from '../util/half-float';

export const CHECKPOINT_MAGIC = 'MAGICLAB';
/** The version this build writes. */
export const CHECKPOINT_VERSION = 2;
/** The versions this build reads (see the format comment above for how version 1 is checked). */
export const CHECKPOINT_READABLE_VERSIONS: readonly number[] = [1, 2];

/** Bytes before the header: magic, version, header length (version 1); plus data length and CRC (version 2). */
const PREFIX_BYTES: Record<number, number> = { 1: 16, 2: 24 };
/** Offset of version 2's whole-file CRC word. */
const CRC_OFFSET = 20;

export interface CheckpointTensor {
  name: string;
  shape: number[];
  dtype: WeightsDtype;
  offset: number;
  length: number;
}

export interface CheckpointHeader {
  format: 'magic-lab-checkpoint';
  version: number;
  model: ModelConfig;
  tensors: CheckpointTensor[];
  /** Version 1 only: "crc32:<8 hex>" of the data section (version 2's CRC is in the prefix and covers the whole file). */
  checksum?: string;
  meta: Record<string, unknown>;
}

/** How a checkpoint stores its parameters: f32, or IEEE half floats (weights-only files). */
export type WeightsDtype = 'f32' | 'f16';
const DTYPE_BYTES: Record<WeightsDtype, number> = { f32: 4, f16: 2 };

export interface CheckpointContents {
  model: ModelConfig;
  /** Flat parameters in layoutParams(model) order. */
  params: Float32Array;
  /** AdamW first/second moments (flat, same layout) when saved. */
  adam?: { m: Float32Array; v: Float32Array };
  meta: Record<string, unknown>;
  /**
   * How the parameters are (to be) stored; f32 when absent. 'f16' only without `adam`: the writer
   * rounds each weight to the nearest half, and decoding gives those values back exactly, so a
   * decode → encode round trip (e.g. `data filter --write`) keeps the file's weights bit for bit.
   */
  weightsDtype?: WeightsDtype;
}

/** Raised for an unreadable checkpoint; names the file and what is wrong. */
export class CheckpointError extends Error {
  constructor(source: string, detail: string) {
    super(`checkpoint ${source}: ${detail}`);
    this.name = 'CheckpointError';
  }
}

/** Raised instead of writing a checkpoint whose weights or moments are not all finite (a diverged run). */
export class NonFiniteWeightsError extends Error {
  constructor(readonly tensor: string, readonly index: number, readonly value: number) {
    super(`non-finite weights: ${tensor}[${index}] = ${value}`);
    this.name = 'NonFiniteWeightsError';
  }
}

/** The first non-finite element of `flat` as [tensor name, index within it, value], or null. */
function firstNonFinite(flat: Float32Array, layout: ReturnType<typeof layoutParams>, prefix: string): [string, number, number] | null {
  for (let i = 0; i < flat.length; i++) {
    if (!Number.isFinite(flat[i])) {
      const t = layout.tensors.find((x) => i >= x.offset && i < x.offset + x.size)!;
      return [prefix + t.name, i - t.offset, flat[i]];
    }
  }
  return null;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** Feeds bytes into a running CRC-32 register (start with 0xffffffff, finish with `^ 0xffffffff`). */
export function crc32Update(c: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return c;
}

/** CRC-32 (IEEE), as zip and PNG use. */
export function crc32(bytes: Uint8Array): number {
  return (crc32Update(0xffffffff, bytes) ^ 0xffffffff) >>> 0;
}

/** "crc32:<8 hex>": how a checkpoint header (and the offline-filter cache key) names a CRC of some bytes. */
export function crc32Label(bytes: Uint8Array): string {
  return hexLabel(crc32(bytes));
}

const hexLabel = (crc: number) => `crc32:${(crc >>> 0).toString(16).padStart(8, '0')}`;

/** Version 2's checksum: CRC-32 of the whole file with its CRC word (bytes 20..23) read as zero. */
function fileCrc(bytes: Uint8Array): number {
  let c = crc32Update(0xffffffff, bytes.subarray(0, CRC_OFFSET));
  c = crc32Update(c, new Uint8Array(4));
  c = crc32Update(c, bytes.subarray(CRC_OFFSET + 4));
  return (c ^ 0xffffffff) >>> 0;
}

/** The header JSON, space-padded to a multiple of 8 bytes. */
function headerBytes(header: object | string): Uint8Array {
  const enc = new TextEncoder();
  let json = typeof header === 'string' ? header : JSON.stringify(header);
  const n = enc.encode(json).length;
  json += ' '.repeat(Math.ceil(n / 8) * 8 - n);
  return enc.encode(json);
}

/** Lays out a file of `version` around header bytes and data (version 2: with its whole-file CRC). */
function assemble(version: number, hb: Uint8Array, data: Uint8Array): Uint8Array {
  const prefix = PREFIX_BYTES[version];
  const out = new Uint8Array(prefix + hb.length + data.length);
  out.set(new TextEncoder().encode(CHECKPOINT_MAGIC), 0);
  const dv = new DataView(out.buffer);
  dv.setUint32(8, version, true);
  dv.setUint32(12, hb.length, true);
  if (version >= 2) dv.setUint32(16, data.length, true);
  out.set(hb, prefix);
  out.set(data, prefix + hb.length);
  if (version >= 2) dv.setUint32(CRC_OFFSET, fileCrc(out), true);
  return out;
}

/**
 * Writes a checkpoint. `version` is CHECKPOINT_VERSION for every file this build writes; 1
 * reproduces the previous format byte for byte (for identities that were recorded as the CRC of a
 * version-1 file, and for tests of the version-1 reader).
 */
export function encodeCheckpoint(c: CheckpointContents, version: 1 | 2 = CHECKPOINT_VERSION as 2): Uint8Array {
  if (version !== 1 && version !== 2) throw new RangeError(`checkpoint version ${String(version)} cannot be written`);
  const model = validateModelConfig(c.model);
  const layout = layoutParams(model);
  if (c.params.length !== layout.totalFloats) throw new Error(`params: expected ${layout.totalFloats} floats for this model, got ${c.params.length}`);
  // Version 1 knows only f32 (it is written for identities and tests: f16 weights widen exactly).
  const weightsDtype: WeightsDtype = version === 1 ? 'f32' : (c.weightsDtype ?? 'f32');
  if (weightsDtype !== 'f32' && weightsDtype !== 'f16') throw new RangeError(`weightsDtype ${JSON.stringify(weightsDtype)}: expected "f32" or "f16"`);
  if (weightsDtype === 'f16' && c.adam) throw new RangeError('f16 weights are for weights-only checkpoints: drop the AdamW moments first');
  const groups: { prefix: string; flat: Float32Array; dtype: WeightsDtype }[] = [{ prefix: '', flat: c.params, dtype: weightsDtype }];
  if (c.adam) {
    for (const [k, flat] of [['m', c.adam.m], ['v', c.adam.v]] as const) {
      if (flat.length !== layout.totalFloats) throw new Error(`adam.${k}: expected ${layout.totalFloats} floats, got ${flat.length}`);
      groups.push({ prefix: `adam.${k}/`, flat, dtype: 'f32' });
    }
  }
  const tensors: CheckpointTensor[] = [];
  let offset = 0;
  for (const g of groups) {
    for (const t of layout.tensors) {
      tensors.push({ name: g.prefix + t.name, shape: t.shape, dtype: g.dtype, offset, length: t.size });
      offset += t.size * DTYPE_BYTES[g.dtype];
    }
  }
  // A diverged run must never leave a checkpoint that loads and evaluates as if nothing happened.
  for (const g of groups) {
    const bad = firstNonFinite(g.flat, layout, g.prefix);
    if (bad) throw new NonFiniteWeightsError(...bad);
  }
  const data = new Uint8Array(offset);
  const dv = new DataView(data.buffer);
  let i = 0;
  for (const g of groups) {
    for (const t of layout.tensors) {
      const at = tensors[i].offset;
      if (g.dtype === 'f16') {
        for (let k = 0; k < t.size; k++) {
          const h = floatToHalfBits(g.flat[t.offset + k]);
          // Rounding must not turn a finite weight into Infinity: refuse rather than write a file that cannot load.
          if ((h & 0x7c00) === 0x7c00) throw new RangeError(`${t.name}[${k}] = ${g.flat[t.offset + k]} rounds beyond the largest half float (${HALF_MAX}): store these weights as f32`);
          dv.setUint16(at + 2 * k, h, true);
        }
      } else for (let k = 0; k < t.size; k++) dv.setFloat32(at + 4 * k, g.flat[t.offset + k], true);
      i++;
    }
  }
  // Key order is part of the format: version 1 must come out exactly as the previous build wrote it.
  const header: CheckpointHeader =
    version === 1
      ? { format: 'magic-lab-checkpoint', version, model, tensors, checksum: crc32Label(data), meta: c.meta ?? {} }
      : { format: 'magic-lab-checkpoint', version, model, tensors, meta: c.meta ?? {} };
  return assemble(version, headerBytes(header), data);
}

/** A checkpoint file's parts, its layout and checksum checked but its header not yet parsed. */
export interface CheckpointParts {
  version: number;
  /** The header JSON text (with its padding). */
  headerText: string;
  data: Uint8Array;
}

/**
 * Checks a file's prefix, lengths and checksum (version 2: the whole file; version 1: the data,
 * against the header's `checksum`, which needs the header parsed, so decodeCheckpoint does it) and
 * returns its parts. Every problem is a CheckpointError naming `source`.
 */
export function splitCheckpoint(bytes: Uint8Array, source = 'checkpoint'): CheckpointParts {
  if (bytes.length < 16) throw new CheckpointError(source, `file is ${bytes.length} bytes, too short to be a checkpoint`);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== CHECKPOINT_MAGIC) throw new CheckpointError(source, `not a MAGIC Lab checkpoint (magic ${JSON.stringify(magic)})`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (!CHECKPOINT_READABLE_VERSIONS.includes(version)) {
    throw new CheckpointError(source, `format version ${version} is not supported (this build reads versions ${CHECKPOINT_READABLE_VERSIONS.join(' and ')}${version > CHECKPOINT_VERSION && version < 1000 ? '; a newer MAGIC Lab wrote it' : ''})`);
  }
  const prefix = PREFIX_BYTES[version];
  if (bytes.length < prefix) throw new CheckpointError(source, `file is ${bytes.length} bytes, shorter than a version-${version} prefix (${prefix}): the file is truncated`);
  const hlen = dv.getUint32(12, true);
  let dlen: number;
  if (version >= 2) {
    dlen = dv.getUint32(16, true);
    const expected = prefix + hlen + dlen;
    if (bytes.length < expected) throw new CheckpointError(source, `file is ${bytes.length} bytes, its prefix describes ${expected} (header ${hlen}, data ${dlen}): the file is truncated`);
    if (bytes.length > expected) throw new CheckpointError(source, `file is ${bytes.length} bytes, its prefix describes ${expected} (header ${hlen}, data ${dlen}): ${bytes.length - expected} unexpected bytes at the end, or a corrupt prefix`);
    const stored = dv.getUint32(CRC_OFFSET, true);
    const actual = fileCrc(bytes);
    if (stored !== actual) throw new CheckpointError(source, `checksum mismatch (stored ${hexLabel(stored)}, file ${hexLabel(actual)}): the file is corrupt`);
  } else {
    if (prefix + hlen > bytes.length) throw new CheckpointError(source, `header length ${hlen} runs past the end of the file: the file is truncated`);
    dlen = bytes.length - prefix - hlen;
  }
  let headerText: string;
  try {
    headerText = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(prefix, prefix + hlen));
  } catch {
    throw new CheckpointError(source, 'header is not valid UTF-8');
  }
  return { version, headerText, data: bytes.subarray(prefix + hlen, prefix + hlen + dlen) };
}

/**
 * The most bytes a checkpoint of this version and header can be: prefix, header, and every float
 * of its model (layoutParams, padding included) three times — parameters and both AdamW moments.
 * Read before the rest of the file (src/run/read-file.ts), so a file far larger than its model
 * needs is refused without reading it. Null when the header is not JSON naming a valid model:
 * decodeCheckpoint then says what is wrong.
 */
export function checkpointSizeBound(version: number, headerBytes: Uint8Array): { bytes: number; model: string } | null {
  const prefix = PREFIX_BYTES[version];
  if (prefix === undefined) return null;
  try {
    const header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes)) as unknown;
    if (!isPlainObject(header) || jsonDepth(header, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return null;
    const model = validateModelConfig(header.model);
    return { bytes: prefix + headerBytes.length + 3 * 4 * layoutParams(model).totalFloats, model: `${model.nLayers} layer${model.nLayers === 1 ? '' : 's'} × d ${model.dModel}, vocabulary ${model.vocabSize}, context ${model.contextLength}` };
  } catch {
    return null;
  }
}

/** Bytes before the header in a checkpoint of this version (undefined for a version this build does not read). */
export const checkpointPrefixBytes = (version: number): number | undefined => PREFIX_BYTES[version];

/**
 * A version-2 file around a header JSON text (padded here) and data, with a matching checksum and
 * no validation: for tests and tools that edit a file on purpose (the decoder must then catch
 * what is wrong by validation alone).
 */
export function assembleCheckpoint(headerText: string, data: Uint8Array): Uint8Array {
  return assemble(2, headerBytes(headerText.trimEnd()), data);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and fully validates a checkpoint; `source` names the file in errors (every error is a CheckpointError). */
export function decodeCheckpoint(bytes: Uint8Array, source = 'checkpoint'): CheckpointContents {
  const { version, headerText, data } = splitCheckpoint(bytes, source);
  const fail = (detail: string) => new CheckpointError(source, detail);
  let parsed: unknown;
  try {
    parsed = JSON.parse(headerText);
  } catch (e) {
    throw fail(`header is not valid JSON (${(e as Error).message})`);
  }
  // Checked before any recursive walk (validators, JSON.stringify) could overflow the stack.
  if (jsonDepth(parsed, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw fail(`header JSON nests deeper than ${MAX_JSON_DEPTH} levels: not a header this lab wrote`);
  if (!isPlainObject(parsed)) throw fail('header must be a JSON object');
  const header = parsed as Partial<CheckpointHeader> & Record<string, unknown>;
  if (header.format !== 'magic-lab-checkpoint') throw fail(`header.format is ${JSON.stringify(header.format)}, expected "magic-lab-checkpoint"`);
  if (header.version !== version) throw fail(`header.version ${JSON.stringify(header.version)} does not match the file's format version ${version}`);
  const known = version === 1 ? ['format', 'version', 'model', 'tensors', 'checksum', 'meta'] : ['format', 'version', 'model', 'tensors', 'meta'];
  const unknown = Object.keys(header).find((k) => !known.includes(k));
  if (unknown !== undefined && unknown !== 'checksum') throw fail(`header.${unknown} is not a field of a version-${version} header`);
  if (version === 1) {
    // Version 1's only checksum: the data section.
    if (typeof header.checksum !== 'string') throw fail(`header.checksum must be "crc32:<8 hex>" of the data, got ${JSON.stringify(header.checksum)}`);
    const crc = crc32Label(data);
    if (header.checksum !== crc) throw fail(`checksum mismatch (header ${header.checksum}, data ${crc}): the file is corrupt or truncated`);
  } else if ('checksum' in header) {
    throw fail('header.checksum is a version-1 field; a version-2 file has its checksum in the prefix');
  }
  let model: ModelConfig;
  try {
    model = validateModelConfig(header.model);
  } catch (e) {
    if (e instanceof ConfigError) throw fail(`header.model.${e.message}`);
    throw fail(`header.model is not a model config (${(e as Error).message})`);
  }
  if (header.meta !== undefined && !isPlainObject(header.meta)) throw fail(`header.meta must be a JSON object, got ${JSON.stringify(header.meta)?.slice(0, 40)}`);
  const layout = layoutParams(model);
  const byName = readTensorTable(header.tensors, layout, data.length, fail);
  const ddv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const readGroup = (prefix: string): Float32Array | undefined => {
    if (!byName.has(prefix + layout.tensors[0].name)) return undefined;
    const flat = new Float32Array(layout.totalFloats);
    for (const t of layout.tensors) {
      const e = byName.get(prefix + t.name)!;
      if (e.dtype === 'f16') for (let k = 0; k < t.size; k++) flat[t.offset + k] = halfBitsToFloat(ddv.getUint16(e.offset + 2 * k, true));
      else for (let k = 0; k < t.size; k++) flat[t.offset + k] = ddv.getFloat32(e.offset + 4 * k, true);
    }
    return flat;
  };
  const params = readGroup('')!;
  const m = readGroup('adam.m/');
  const v = readGroup('adam.v/');
  for (const [prefix, flat] of [['', params], ['adam.m/', m], ['adam.v/', v]] as const) {
    const bad = flat && firstNonFinite(flat, layout, prefix);
    if (bad) throw fail(`tensor ${bad[0]} holds a non-finite value (${bad[2]} at element ${bad[1]}): the run that wrote it diverged; load an earlier checkpoint`);
  }
  const contents: CheckpointContents = { model, params, adam: m && v ? { m, v } : undefined, meta: (header.meta as Record<string, unknown> | undefined) ?? {} };
  if (byName.get(layout.tensors[0].name)!.dtype === 'f16') contents.weightsDtype = 'f16';
  return contents;
}

/**
 * The tensor table, checked against the model: every entry a known tensor (parameters, or AdamW
 * moments "adam.m/…" / "adam.v/…") listed once with its shape, dtype and length, and the entries
 * tiling the data section exactly (no overlaps, gaps or unlisted bytes). Dtype: f32, or f16 for
 * every parameter of a file without AdamW moments (the moments are always f32).
 */
function readTensorTable(tensors: unknown, layout: ReturnType<typeof layoutParams>, dataBytes: number, fail: (d: string) => CheckpointError): Map<string, CheckpointTensor> {
  if (!Array.isArray(tensors)) throw fail(`header.tensors must be an array, got ${JSON.stringify(tensors)?.slice(0, 40)}`);
  const known = new Map<string, (typeof layout.tensors)[number]>();
  for (const prefix of ['', 'adam.m/', 'adam.v/']) for (const t of layout.tensors) known.set(prefix + t.name, t);
  const byName = new Map<string, CheckpointTensor>();
  tensors.forEach((e: unknown, i) => {
    if (!isPlainObject(e) || typeof e.name !== 'string') throw fail(`header.tensors[${i}] must be an object with a name`);
    const t = known.get(e.name);
    if (!t) throw fail(`header.tensors[${i}]: tensor ${JSON.stringify(e.name)} is not part of this model`);
    if (byName.has(e.name)) throw fail(`tensor ${e.name} is listed twice`);
    if (e.dtype !== 'f32' && e.dtype !== 'f16') throw fail(`tensor ${e.name}: dtype ${JSON.stringify(e.dtype)} is not supported (only "f32", and "f16" for the weights of a weights-only file)`);
    if (!Array.isArray(e.shape) || e.shape.length !== t.shape.length || e.shape.some((d, k) => d !== t.shape[k])) {
      throw fail(`tensor ${e.name}: shape ${JSON.stringify(e.shape)} does not match the model's [${t.shape}]`);
    }
    if (e.length !== t.size) throw fail(`tensor ${e.name}: length ${JSON.stringify(e.length)} does not match its shape (${t.size} values)`);
    const bytes = DTYPE_BYTES[e.dtype as WeightsDtype];
    if (typeof e.offset !== 'number' || !Number.isInteger(e.offset) || e.offset < 0 || e.offset % bytes !== 0 || e.offset + bytes * t.size > dataBytes) {
      throw fail(`tensor ${e.name}: data range (offset ${JSON.stringify(e.offset)}, ${bytes * t.size} bytes) is outside the ${dataBytes}-byte data section`);
    }
    byName.set(e.name, e as unknown as CheckpointTensor);
  });
  // Whole groups: every parameter, and each AdamW moment entirely or not at all, both or neither.
  const has = (prefix: string) => layout.tensors.some((t) => byName.has(prefix + t.name));
  for (const prefix of ['', 'adam.m/', 'adam.v/']) {
    if (prefix && !has(prefix)) continue;
    const missing = layout.tensors.find((t) => !byName.has(prefix + t.name));
    if (missing) throw fail(`tensor ${prefix + missing.name} is missing`);
  }
  if (has('adam.m/') !== has('adam.v/')) throw fail('has only one of the AdamW moments (adam.m / adam.v)');
  // f16 is all of the weights of a weights-only file, or none.
  const f16 = [...byName.values()].filter((e) => e.dtype === 'f16');
  if (f16.length && has('adam.m/')) throw fail(`tensor ${f16[0].name} is f16, but f16 is only for the weights of a file without AdamW moments`);
  if (f16.length && f16.length !== layout.tensors.length) throw fail(`tensor ${layout.tensors.find((t) => byName.get(t.name)!.dtype !== 'f16')!.name} is f32 while other weights are f16: a file stores all its weights one way`);
  const sorted = [...byName.values()].sort((a, b) => a.offset - b.offset);
  let end = 0;
  for (const e of sorted) {
    if (e.offset !== end) throw fail(`tensor ${e.name}: starts at byte ${e.offset} of the data, expected ${end} (tensors must tile the data without overlaps or gaps)`);
    end += DTYPE_BYTES[e.dtype] * e.length;
  }
  if (end !== dataBytes) throw fail(`data section is ${dataBytes} bytes, its tensors take ${end}`);
  return byName;
}
