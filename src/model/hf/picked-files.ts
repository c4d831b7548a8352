/**
 * A model folder the user picked in the page (an `<input type="file" webkitdirectory>` or a drop):
 * `File`s read by `slice`, so a 1 GB safetensors file is never read whole — only its header and,
 * one at a time, its tensors. Files in sub-folders are matched by their base name.
 */
import { checkRead, ModelFolderError, type ByteSource, type ModelFiles } from './files';

/** What this needs of a File (the DOM's and Node's File both fit). */
export interface PickedFile {
  readonly name: string;
  readonly size: number;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

export function pickedModelFolder(name: string, picked: readonly PickedFile[]): ModelFiles {
  const byName = new Map<string, PickedFile>();
  for (const f of picked) {
    const base = f.name.slice(f.name.lastIndexOf('/') + 1);
    if (byName.has(base)) throw new ModelFolderError(`${name}: two files named ${base} were picked; pick one model folder`);
    byName.set(base, f);
  }
  return {
    name,
    async has(file) {
      return byName.has(file);
    },
    async open(file) {
      const f = byName.get(file);
      if (!f) throw new ModelFolderError(`${name}/${file}: not among the picked files`);
      return fileSource(`${name}/${file}`, f);
    },
  };
}

function fileSource(label: string, f: PickedFile): ByteSource {
  return {
    name: label,
    size: f.size,
    async read(offset, length) {
      checkRead(label, offset, length, f.size);
      const bytes = new Uint8Array(await f.slice(offset, offset + length).arrayBuffer());
      if (bytes.length !== length) throw new ModelFolderError(`${label}: asked for ${length} bytes at ${offset}, got ${bytes.length} (the file changed after it was picked)`);
      return bytes;
    },
  };
}
