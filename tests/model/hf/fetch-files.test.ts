/**
 * A model folder read over HTTP (how the page will read a Hub repo's /resolve/ URLs or a served
 * folder): the tiny checkpoints load through Range requests to the same weights as from memory,
 * every safetensors read is a Range of the bytes the loader asked for (never a whole file), and a
 * server that ignores Range, a missing file or no Content-Length is one message naming the URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchModelFolder } from '../../../src/model/hf/fetch-files';
import { memoryFolder, ModelFolderError } from '../../../src/model/hf/files';
import { hfTokenLogprobs } from '../../../src/model/hf/reference-forward';
import { tinyHfFolder } from '../../../src/model/hf/tiny';
import { loadHfTokenizer } from '../../../src/model/hf/tokenizer';
import { loadHfWeights } from '../../../src/model/hf/weights';

const folders: Record<string, Map<string, Uint8Array | string>> = { llama: tinyHfFolder('llama', 1), qwen2: tinyHfFolder('qwen2', 1) };
const log: { method: string; path: string; range: string | null }[] = [];
let ignoreRange = false, noLength = false;
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const [, folder, file] = (req.url ?? '').split('/');
    const body = folders[folder]?.get(file);
    log.push({ method: req.method!, path: `${folder}/${file}`, range: req.headers.range ?? null });
    if (body === undefined) return res.writeHead(404).end();
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
    if (req.method === 'HEAD') return res.writeHead(200, noLength ? {} : { 'content-length': bytes.length }).end();
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m || ignoreRange) return res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
    const part = bytes.subarray(Number(m[1]), Number(m[2]) + 1);
    res.writeHead(206, { 'content-length': part.length, 'content-range': `bytes ${m[1]}-${m[2]}/${bytes.length}` }).end(part);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a model folder over HTTP', () => {
  for (const arch of ['llama', 'qwen2'] as const)
    it(`${arch}: the same weights, log-probs and tokenizer as from memory, through Range reads only`, async () => {
      log.length = 0;
      const remote = await loadHfWeights(fetchModelFolder(`${base}/${arch}/`));
      const local = await loadHfWeights(memoryFolder('m', folders[arch]));
      expect(remote).toEqual(local);
      expect(hfTokenLogprobs(remote, [1, 50, 299]).logprobs).toEqual(hfTokenLogprobs(local, [1, 50, 299]).logprobs);
      const gets = log.filter((l) => l.method === 'GET' && l.path.endsWith('.safetensors'));
      expect(gets.length).toBeGreaterThan(3);
      expect(gets.every((l) => l.range !== null && /^bytes=\d+-\d+$/.test(l.range))).toBe(true);
      // The bytes fetched from the weight files are exactly their sizes: nothing read twice, nothing whole on top.
      const fetched = gets.reduce((a, l) => { const [x, y] = l.range!.slice(6).split('-').map(Number); return a + y - x + 1; }, 0);
      const total = [...folders[arch]].filter(([f]) => f.endsWith('.safetensors')).reduce((a, [, b]) => a + (b as Uint8Array).length, 0);
      expect(fetched).toBe(total);
      const tok = await loadHfTokenizer(fetchModelFolder(`${base}/${arch}`));
      expect(tok.encode('The answer is 42.')).toEqual((await loadHfTokenizer(memoryFolder('m', folders[arch]))).encode('The answer is 42.'));
    });

  it('refuses a server that ignores Range, a missing file, no Content-Length, an unreachable host, a bad file name', async () => {
    const refused = async (p: Promise<unknown>, msg: RegExp) => {
      const err = await p.then(() => null, (e) => e);
      expect(err).toBeInstanceOf(ModelFolderError);
      expect(err.message).toMatch(msg);
    };
    ignoreRange = true;
    await refused(loadHfWeights(fetchModelFolder(`${base}/llama`)), /\/llama\/model\.safetensors: the server ignores Range requests/);
    ignoreRange = false;
    await refused(loadHfWeights(fetchModelFolder(`${base}/nothing`)), /\/nothing\/config\.json: no such file in the model folder \(HTTP 404\)/);
    noLength = true;
    await refused(loadHfWeights(fetchModelFolder(`${base}/llama`)), /config\.json: the server gives no Content-Length/);
    noLength = false;
    await refused(loadHfWeights(fetchModelFolder('http://127.0.0.1:1')), /http:\/\/127\.0\.0\.1:1\/config\.json: cannot be fetched/);
    await refused(fetchModelFolder(base).open('../secret'), /"\.\.\/secret" is not a file name/);
  });
});
