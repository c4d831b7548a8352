/**
 * A Hugging Face model folder on the local disk, for the loader in src/model/hf: each file is
 * stat'ed before it is opened (a directory, device or pipe is refused by name) and read by
 * positioned reads of the ranges the loader asks for, so a lying header can never make it read
 * past the file or slurp a huge one.
 */
import { closeSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ModelFolderError, type ByteSource, type ModelFiles } from '../model/hf/files';

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

/** The folder `dir` (refused by name when it is not a directory). */
export function nodeModelFolder(dir: string, flag = '--model'): ModelFiles {
  const st = statOrNull(dir);
  if (!st) throw new ModelFolderError(`${flag}: ${dir} does not exist`);
  if (!st.isDirectory()) throw new ModelFolderError(`${flag}: ${dir} is not a directory (a model folder holds config.json, safetensors and tokenizer.json)`);
  return {
    name: dir,
    // Anything of that name counts as present, so a directory or device there is refused by open() with its kind.
    async has(file) {
      return statOrNull(path.join(dir, file)) !== null;
    },
    async open(file) {
      const p = path.join(dir, file);
      const fst = statOrNull(p);
      if (!fst) throw new ModelFolderError(`${p}: no such file in the model folder`);
      if (!fst.isFile()) throw new ModelFolderError(`${p}: ${fst.isDirectory() ? 'a directory' : 'a device, pipe or socket'}, not a regular file`);
      return fileSource(p, fst.size);
    },
  };
}

function fileSource(p: string, size: number): ByteSource {
  return {
    name: p,
    size,
    async read(offset, length) {
      if (offset < 0 || length < 0 || offset + length > size) throw new RangeError(`${p}: read of ${length} bytes at ${offset} past its ${size} bytes`);
      const out = new Uint8Array(length);
      const fd = openSync(p, 'r');
      try {
        let at = 0;
        while (at < length) {
          const n = readSync(fd, out, at, length - at, offset + at);
          if (n === 0) throw new ModelFolderError(`${p}: ended after ${offset + at} bytes, but was ${size} bytes when opened`);
          at += n;
        }
      } finally {
        closeSync(fd);
      }
      return out;
    },
  };
}
