/** Each rung's base checkpoint in the Worker: a clear sentence when it is not built, an on-demand download with progress, cached; and the rung's speed figure. */
import { describe, expect, it } from 'vitest';
import { encodeCheckpoint } from '../../src/model/checkpoint';
import { initParams } from '../../src/model/init';
import type { Backend, PolicyEngine } from '../../src/model/engine';
import { getPreset } from '../../src/rl/config';
import { offlineFilterKey, weightsChecksum } from '../../src/rl/offline-sampling';
import { fetchBase, readWithProgress, type BaseCache } from '../../src/worker/base-checkpoint';
import { measureStepSeconds, scaleStepSeconds, stepWork } from '../../src/worker/rung-bench';

const notFound = async () => new Response('', { status: 404 });

class MemoryCache implements BaseCache {
  readonly files = new Map<string, Uint8Array>();
  async match(url: string) {
    const b = this.files.get(url);
    return b ? new Response(b.slice()) : undefined;
  }
  async put(url: string, res: Response) {
    this.files.set(url, new Uint8Array(await res.arrayBuffer()));
  }
}

describe("a rung's base checkpoint", () => {
  it("a missing base of a rung above tiny is required: one clause naming the HTTP answer, then the command that builds it; tiny's message is unchanged", async () => {
    const small = getPreset('magic', 'small');
    expect(await fetchBase('/checkpoints/base-small.mlck', small, notFound, { rung: 'small' })).toEqual({
      bytes: null,
      why: "the small rung's base checkpoint /checkpoints/base-small.mlck is missing (HTTP 404); build it with `magic-lab sft --rung small`",
      required: true,
    });
    const page = async () => new Response('<html>', { headers: { 'content-type': 'text/html' } });
    expect((await fetchBase('/checkpoints/base-small.mlck', small, page, { rung: 'small' })).why).toMatch(/^the small rung's base checkpoint \S+ is missing \(the server answered with a web page\)/);
    expect(await fetchBase('/checkpoints/base.mlck', getPreset('magic'), notFound, { rung: 'tiny' })).toEqual({ bytes: null, why: 'no base checkpoint at /checkpoints/base.mlck (HTTP 404)' });
  });

  it('an on-demand base is downloaded with progress once, then read from the cache', async () => {
    // The medium rung's delivery, with a small file (the model is only compared with the config's).
    const cfg = getPreset('magic-tiny');
    const file = encodeCheckpoint({ model: cfg.model, params: initParams(cfg.model, 3), meta: {} });
    const url = 'http://site/checkpoints/base-medium.mlck';
    let fetched = 0;
    const serve = async () => {
      fetched++;
      const half = file.length >> 1;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(file.slice(0, half));
          c.enqueue(file.slice(half));
          c.close();
        },
      });
      return new Response(body, { headers: { 'content-length': String(file.length) } });
    };
    const cache = new MemoryCache();
    const progress: [number, number][] = [];
    const opts = { rung: 'medium' as const, onProgress: (l: number, t: number) => progress.push([l, t]), openCache: async () => cache };
    const first = await fetchBase(url, cfg, serve, opts);
    const same = (a: Uint8Array | null | undefined) => !!a && a.length === file.length && a.every((x, i) => x === file[i]);
    expect(first.why).toBeUndefined();
    expect(same(first.bytes)).toBe(true);
    expect(progress).toEqual([[0, file.length], [file.length >> 1, file.length], [file.length, file.length]]);
    expect(same(cache.files.get(url))).toBe(true);
    const second = await fetchBase(url, cfg, serve, opts);
    expect(same(second.bytes)).toBe(true);
    expect(fetched).toBe(1);
    // A bundled rung never opens the cache.
    let opened = 0;
    await fetchBase('/checkpoints/base.mlck', getPreset('magic'), notFound, { rung: 'tiny', openCache: async () => (opened++, cache) });
    expect(opened).toBe(0);
  });

  it('a download that is cut off or is for another model is not cached', async () => {
    const cfg = getPreset('magic', 'medium');
    const cache = new MemoryCache();
    const bad = await fetchBase('/m.mlck', cfg, async () => new Response(new Uint8Array([1, 2, 3])), { rung: 'medium', openCache: async () => cache });
    expect(bad.bytes).toBeNull();
    expect(cache.files.size).toBe(0);
  });

  it('readWithProgress reports a total of 0 without Content-Length', async () => {
    const seen: number[] = [];
    const bytes = await readWithProgress(new Response(new Uint8Array([1, 2, 3, 4])), (_l, t) => seen.push(t));
    expect(Array.from(bytes)).toEqual([1, 2, 3, 4]);
    expect(seen.every((t) => t === 0)).toBe(true);
  });

  it('readWithProgress takes the expected size where the server compresses the file (its Content-Length counts other bytes)', async () => {
    const body = new Uint8Array(10).map((_, i) => i);
    const chunked = (headers: Record<string, string>) =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(body.slice(0, 4));
            c.enqueue(body.slice(4));
            c.close();
          },
        }),
        { headers },
      );
    const seen = async (headers: Record<string, string>, expected?: number) => {
      const out: [number, number][] = [];
      const bytes = await readWithProgress(chunked(headers), (l, t) => out.push([l, t]), expected);
      expect(Array.from(bytes)).toEqual(Array.from(body));
      return out;
    };
    // gzip: Content-Length (or none, chunked) is not what is read; the rung's size stands in.
    expect(await seen({ 'content-encoding': 'gzip', 'content-length': '6' }, 10)).toEqual([[0, 10], [4, 10], [10, 10]]);
    expect(await seen({ 'content-encoding': 'br' }, 10)).toEqual([[0, 10], [4, 10], [10, 10]]);
    // An uncompressed file's own length wins over the expected size.
    expect(await seen({ 'content-length': '10' }, 99)).toEqual([[0, 10], [4, 10], [10, 10]]);
    // An approximate size below what arrives: the total grows with it, the bar never overflows.
    expect(await seen({ 'content-encoding': 'gzip' }, 8)).toEqual([[0, 8], [4, 8], [10, 10]]);
    // Neither known: 0, an indeterminate bar.
    expect(await seen({ 'content-encoding': 'gzip' })).toEqual([[0, 0], [4, 0], [10, 0]]);
  });

  it("two rungs' offline-filter results never share a key (the key names the starting weights and the rung's lengths)", () => {
    const tiny = getPreset('magic');
    const small = getPreset('magic', 'small');
    const wTiny = weightsChecksum(initParams(tiny.model, 1));
    const wSmall = weightsChecksum(initParams(small.model, 1));
    expect(offlineFilterKey(tiny, wTiny)).not.toBe(offlineFilterKey(small, wSmall));
    // Even with the same weights' checksum, the rung's response lengths differ.
    expect(offlineFilterKey(tiny, wTiny)).not.toBe(offlineFilterKey(small, wTiny));
  });
});

describe("a rung's speed figure", () => {
  it("scales per-token times to the first stage's rollouts and update", () => {
    const cfg = getPreset('magic', 'small');
    const w = stepWork(cfg);
    expect(w.rolloutTokens).toBe(16 * 8 * cfg.stages[0].maxResponseLength);
    expect(w.trainTokens).toBeGreaterThan(w.rolloutTokens);
    expect(scaleStepSeconds({ rolloutTokens: 10, trainTokens: 100 }, { decode: 0.5, train: 0.01 })).toBe(6);
  });

  it('times a throwaway policy of the rung\'s model and frees it', async () => {
    const cfg = getPreset('magic', 'small');
    let t = 0;
    let destroyed = false;
    let shape: unknown = null;
    const policy = {
      setParams() {},
      resetAdamState() {},
      async update() {
        t += 100; // ms per update of 2 × 64 tokens
        return {} as never;
      },
      async generate() {
        t += 64; // ms per decode of 4 sequences × 16 steps
        return { responses: [], finish: [], logp: [], entropy: [], steps: 16, liveSlots: new Array(16).fill(4) };
      },
      destroy() {
        destroyed = true;
      },
    } as unknown as PolicyEngine;
    const backend = { createPolicy: async (m: unknown) => ((shape = m), policy) } as unknown as Backend;
    const s = await measureStepSeconds(backend, cfg, () => t);
    expect(shape).toEqual(cfg.model);
    expect(destroyed).toBe(true);
    const w = stepWork(cfg);
    expect(s).toBeCloseTo(w.trainTokens * (0.1 / 128) + w.rolloutTokens * (0.064 / 64), 6);
  });
});
