/**
 * How the Hugging Face model loader reads a model folder, without knowing where it lives: a local
 * directory (src/run/model-folder.ts, Node), files a page picked or fetched (later), or bytes in
 * memory (tests). Every read is bounded: the loader asks for byte ranges it has checked against
 * the file's size, never for "the rest of the file".
 */

/** A model folder, its files or their headers are unusable: the message names the file (and field or tensor). */
export class ModelFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelFolderError';
  }
}

/** One file, read by byte ranges. */
export interface ByteSource {
  /** The name shown in messages (a path or a file name). */
  readonly name: string;
  /** Its size in bytes. */
  readonly size: number;
  /** `length` bytes from `offset`; the caller keeps offset + length ≤ size. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** The files of one model folder, by their name inside it (e.g. "config.json", "model-00001-of-00002.safetensors"). */
export interface ModelFiles {
  /** The folder as shown in messages. */
  readonly name: string;
  /** Whether the folder holds something of this name (open() then says if it is not a usable file). */
  has(file: string): Promise<boolean>;
  /** The file, or a ModelFolderError naming it when it is missing or not a regular file. */
  open(file: string): Promise<ByteSource>;
}

/** A small text file (config.json, tokenizer.json, an index) read whole, refused past `maxBytes`. */
export async function readTextFile(files: ModelFiles, file: string, maxBytes: number): Promise<string> {
  return textOf(await files.open(file), file, maxBytes);
}

async function textOf(src: ByteSource, file: string, maxBytes: number): Promise<string> {
  if (src.size > maxBytes) throw new ModelFolderError(`${src.name}: ${src.size} bytes, more than a ${file} may be (${maxBytes})`);
  const bytes = await src.read(0, src.size);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ModelFolderError(`${src.name}: not UTF-8 text`);
  }
}

/** A small JSON object file, parsed; a parse error or a non-object names the file. */
export async function readJsonObject(files: ModelFiles, file: string, maxBytes: number): Promise<Record<string, unknown>> {
  const src = await files.open(file);
  const text = await textOf(src, file, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ModelFolderError(`${src.name}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ModelFolderError(`${src.name}: expected a JSON object`);
  return value as Record<string, unknown>;
}

/** A file held in memory. */
export function memorySource(name: string, bytes: Uint8Array): ByteSource {
  return {
    name,
    size: bytes.length,
    async read(offset, length) {
      checkRead(name, offset, length, bytes.length);
      return bytes.subarray(offset, offset + length);
    },
  };
}

/** A ByteSource's bounds: a read inside [0, size) or a RangeError naming the source (every source checks the same way). */
export function checkRead(label: string, offset: number, length: number, size: number): void {
  if (offset < 0 || length < 0 || offset + length > size) throw new RangeError(`${label}: read of ${length} bytes at ${offset} past its ${size} bytes`);
}

/** A folder held in memory (file name → bytes, or text encoded as UTF-8). */
export function memoryFolder(name: string, entries: ReadonlyMap<string, Uint8Array | string>): ModelFiles {
  const enc = new TextEncoder();
  return {
    name,
    async has(file) {
      return entries.has(file);
    },
    async open(file) {
      const v = entries.get(file);
      if (v === undefined) throw new ModelFolderError(`${name}/${file}: no such file in the model folder`);
      return memorySource(`${name}/${file}`, typeof v === 'string' ? enc.encode(v) : v);
    },
  };
}
