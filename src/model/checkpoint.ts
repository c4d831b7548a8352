/**
 * Checkpoint file format (`.mlck`), identical in the browser and in Node:
 *
 *   offset 0   8 bytes   ASCII "MAGICLAB"
 *   offset 8   u32 LE    format version (1)
 *   offset 12  u32 LE    header length H in bytes (JSON, UTF-8, space-padded to a multiple of 8)
 *   offset 16  H bytes   header: { format, version, model: ModelConfig, tensors: [{ name, shape, dtype: "f32",
 *                        offset, length }], checksum: "crc32:<8 hex>" of the data section, meta: {...} }
 *   16 + H     data      little-endian f32 tensors; each tensor's `offset` is in bytes from the data start
 *
 * Tensors are the model parameters by name (see layoutParams) and, when the optimizer state is
 * saved, the AdamW moments as "adam.m/<name>" and "adam.v/<name>". `meta` is free-form JSON
 * for the trainer (step, stage, RNG and controller state, run config).
 */
import { ConfigError, layoutParams, validateModelConfig, type ModelConfig } from './config';

export const CHECKPOINT_MAGIC = 'MAGICLAB';
export const CHECKPOINT_VERSION = 1;

export interface CheckpointTensor {
  name: string;
  shape: number[];
  dtype: 'f32';
  offset: number;
  length: number;
}

export interface CheckpointHeader {
  format: 'magic-lab-checkpoint';
  version: number;
  model: ModelConfig;
  tensors: CheckpointTensor[];
  checksum: string;
  meta: Record<string, unknown>;
}

export interface CheckpointContents {
  model: ModelConfig;
  /** Flat parameters in layoutParams(model) order. */
  params: Float32Array;
  /** AdamW first/second moments (flat, same layout) when saved. */
  adam?: { m: Float32Array; v: Float32Array };
  meta: Record<string, unknown>;
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

/** CRC-32 (IEEE), as zip and PNG use. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** "crc32:<8 hex>": how a checkpoint header (and the offline-filter cache key) names a CRC of some bytes. */
export function crc32Label(bytes: Uint8Array): string {
  return `crc32:${crc32(bytes).toString(16).padStart(8, '0')}`;
}

export function encodeCheckpoint(c: CheckpointContents): Uint8Array {
  const model = validateModelConfig(c.model);
  const layout = layoutParams(model);
  if (c.params.length !== layout.totalFloats) throw new Error(`params: expected ${layout.totalFloats} floats for this model, got ${c.params.length}`);
  const groups: { prefix: string; flat: Float32Array }[] = [{ prefix: '', flat: c.params }];
  if (c.adam) {
    for (const [k, flat] of [['m', c.adam.m], ['v', c.adam.v]] as const) {
      if (flat.length !== layout.totalFloats) throw new Error(`adam.${k}: expected ${layout.totalFloats} floats, got ${flat.length}`);
      groups.push({ prefix: `adam.${k}/`, flat });
    }
  }
  const tensors: CheckpointTensor[] = [];
  let offset = 0;
  for (const g of groups) {
    for (const t of layout.tensors) {
      tensors.push({ name: g.prefix + t.name, shape: t.shape, dtype: 'f32', offset, length: t.size });
      offset += t.size * 4;
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
      for (let k = 0; k < t.size; k++) dv.setFloat32(tensors[i].offset + 4 * k, g.flat[t.offset + k], true);
      i++;
    }
  }
  const header: CheckpointHeader = {
    format: 'magic-lab-checkpoint',
    version: CHECKPOINT_VERSION,
    model,
    tensors,
    checksum: crc32Label(data),
    meta: c.meta ?? {},
  };
  let json = JSON.stringify(header);
  const enc = new TextEncoder();
  let hb = enc.encode(json);
  const padded = Math.ceil(hb.length / 8) * 8;
  json += ' '.repeat(padded - hb.length);
  hb = enc.encode(json);
  const out = new Uint8Array(16 + hb.length + data.length);
  out.set(enc.encode(CHECKPOINT_MAGIC), 0);
  const odv = new DataView(out.buffer);
  odv.setUint32(8, CHECKPOINT_VERSION, true);
  odv.setUint32(12, hb.length, true);
  out.set(hb, 16);
  out.set(data, 16 + hb.length);
  return out;
}

/** Reads and fully validates a checkpoint; `source` names the file in errors. */
export function decodeCheckpoint(bytes: Uint8Array, source = 'checkpoint'): CheckpointContents {
  if (bytes.length < 16) throw new CheckpointError(source, `file is ${bytes.length} bytes, too short to be a checkpoint`);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== CHECKPOINT_MAGIC) throw new CheckpointError(source, `not a MAGIC Lab checkpoint (magic ${JSON.stringify(magic)})`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(8, true);
  if (version !== CHECKPOINT_VERSION) throw new CheckpointError(source, `format version ${version} is not supported (expected ${CHECKPOINT_VERSION})`);
  const hlen = dv.getUint32(12, true);
  if (16 + hlen > bytes.length) throw new CheckpointError(source, `header length ${hlen} runs past the end of the file`);
  let header: CheckpointHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + hlen)));
  } catch (e) {
    throw new CheckpointError(source, `header is not valid JSON (${(e as Error).message})`);
  }
  if (header.format !== 'magic-lab-checkpoint') throw new CheckpointError(source, `header.format is ${JSON.stringify(header.format)}`);
  let model: ModelConfig;
  try {
    model = validateModelConfig(header.model);
  } catch (e) {
    if (e instanceof ConfigError) throw new CheckpointError(source, `header.model.${e.message}`);
    throw e;
  }
  const data = bytes.subarray(16 + hlen);
  const crc = crc32Label(data);
  if (header.checksum !== crc) throw new CheckpointError(source, `checksum mismatch (header ${header.checksum}, data ${crc}): the file is corrupt or truncated`);
  if (!Array.isArray(header.tensors)) throw new CheckpointError(source, 'header.tensors must be an array');
  const layout = layoutParams(model);
  const byName = new Map(header.tensors.map((t) => [t.name, t]));
  const ddv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const readGroup = (prefix: string, required: boolean): Float32Array | undefined => {
    const flat = new Float32Array(layout.totalFloats);
    let found = 0;
    for (const t of layout.tensors) {
      const e = byName.get(prefix + t.name);
      if (!e) continue;
      found++;
      if (e.dtype !== 'f32') throw new CheckpointError(source, `tensor ${e.name}: dtype ${e.dtype} is not supported`);
      if (!Array.isArray(e.shape) || e.shape.join('x') !== t.shape.join('x')) {
        throw new CheckpointError(source, `tensor ${e.name}: shape ${JSON.stringify(e.shape)} does not match the model's [${t.shape}]`);
      }
      if (e.length !== t.size || !Number.isInteger(e.offset) || e.offset < 0 || e.offset + 4 * e.length > data.length) {
        throw new CheckpointError(source, `tensor ${e.name}: data range is outside the file`);
      }
      for (let k = 0; k < t.size; k++) flat[t.offset + k] = ddv.getFloat32(e.offset + 4 * k, true);
    }
    if (found === 0 && !required) return undefined;
    if (found !== layout.tensors.length) {
      const missing = layout.tensors.find((t) => !byName.has(prefix + t.name))!;
      throw new CheckpointError(source, `tensor ${prefix + missing.name} is missing`);
    }
    return flat;
  };
  const params = readGroup('', true)!;
  const m = readGroup('adam.m/', false);
  const v = readGroup('adam.v/', false);
  if (Boolean(m) !== Boolean(v)) throw new CheckpointError(source, 'has only one of the AdamW moments (adam.m / adam.v)');
  for (const [prefix, flat] of [['', params], ['adam.m/', m], ['adam.v/', v]] as const) {
    const bad = flat && firstNonFinite(flat, layout, prefix);
    if (bad) throw new CheckpointError(source, `tensor ${bad[0]} holds a non-finite value (${bad[2]} at element ${bad[1]}): the run that wrote it diverged; load an earlier checkpoint`);
  }
  return { model, params, adam: m && v ? { m, v } : undefined, meta: header.meta ?? {} };
}
