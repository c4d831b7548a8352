/**
 * A model folder behind HTTP: `{base}/{file}` URLs such as the Hub's
 * `https://huggingface.co/{repo}/resolve/{revision}`, or a folder a local server serves. Sizes come
 * from HEAD's Content-Length; every read is one Range request for exactly the bytes the loader
 * asked for, so the page can read a safetensors header and then each tensor without downloading
 * a file twice or whole. A server that ignores Range (answers 200 with the whole file for a part)
 * is refused rather than silently downloading gigabytes per tensor.
 */
import { checkRead, ModelFolderError, type ByteSource, type ModelFiles } from './files';

/** The part of fetch this needs (the global fetch fits; tests and the page may pass their own). */
export type FetchLike = (url: string, init?: { method?: string; headers?: Record<string, string> }) => Promise<Response>;

/** A file name inside the folder: no separators, no "..", nothing a URL would reinterpret. */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function fetchModelFolder(base: string, fetchFn: FetchLike = (u, i) => fetch(u, i)): ModelFiles {
  const root = base.replace(/\/+$/, '');
  const urlOf = (file: string) => {
    if (!FILE_NAME.test(file)) throw new ModelFolderError(`${root}: ${JSON.stringify(file)} is not a file name in a model folder`);
    return `${root}/${file}`;
  };
  const call = async (url: string, init?: { method?: string; headers?: Record<string, string> }) => {
    try {
      return await fetchFn(url, init);
    } catch (e) {
      throw new ModelFolderError(`${url}: cannot be fetched (${(e as Error).message})`);
    }
  };
  const head = (url: string) => call(url, { method: 'HEAD' });
  return {
    name: root,
    async has(file) {
      return (await head(urlOf(file))).ok;
    },
    async open(file) {
      const url = urlOf(file);
      const res = await head(url);
      if (res.status === 404) throw new ModelFolderError(`${url}: no such file in the model folder (HTTP 404)`);
      if (!res.ok) throw new ModelFolderError(`${url}: HTTP ${res.status}`);
      const size = Number(res.headers.get('content-length'));
      if (!Number.isSafeInteger(size) || size < 0 || res.headers.get('content-length') === null)
        throw new ModelFolderError(`${url}: the server gives no Content-Length, so the file cannot be read in bounded parts`);
      return httpSource(url, size, call);
    },
  };
}

function httpSource(url: string, size: number, call: (url: string, init?: { method?: string; headers?: Record<string, string> }) => Promise<Response>): ByteSource {
  return {
    name: url,
    size,
    async read(offset, length) {
      checkRead(url, offset, length, size);
      if (length === 0) return new Uint8Array(0);
      const res = await call(url, { headers: { Range: `bytes=${offset}-${offset + length - 1}` } });
      const whole = res.status === 200 && offset === 0 && length === size;
      if (res.status !== 206 && !whole) {
        await res.body?.cancel();
        throw new ModelFolderError(res.status === 200
          ? `${url}: the server ignores Range requests (answered the whole file for ${length} bytes at ${offset}); serve it from one that supports them`
          : `${url}: HTTP ${res.status} for bytes ${offset}–${offset + length - 1}`);
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length !== length) throw new ModelFolderError(`${url}: asked for ${length} bytes at ${offset}, got ${bytes.length} (the file changed or the server is wrong)`);
      return bytes;
    },
  };
}
