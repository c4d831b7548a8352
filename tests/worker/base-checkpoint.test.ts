import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/rl/config';
import { fetchBase, shownUrl, startFailure } from '../../src/worker/base-checkpoint';
import { pageUrl } from '../../src/worker/client';

const config = { model: {} } as RunConfig;
const url = '/checkpoints/base.mlck';

describe('fetchBase (the shipped base checkpoint, when it fits)', () => {
  it('a missing file, or the app page served in its place, is no base checkpoint', async () => {
    expect(await fetchBase(url, config, async () => new Response('', { status: 404 }))).toEqual({ bytes: null, why: `no base checkpoint at ${url} (HTTP 404)` });
    expect(await fetchBase(url, config, async () => new Response('<html>', { headers: { 'content-type': 'text/html' } }))).toEqual({ bytes: null, why: `no base checkpoint at ${url} (the server answered with a web page)` });
  });

  it('an unreadable or unreachable file says why', async () => {
    const bad = await fetchBase(url, config, async () => new Response(new Uint8Array([1, 2, 3])));
    expect(bad.bytes).toBeNull();
    expect(bad.why).toMatch(/^base checkpoint \/checkpoints\/base\.mlck unavailable \(/);
    expect(await fetchBase(url, config, () => Promise.reject(new Error('offline')))).toEqual({ bytes: null, why: `base checkpoint ${url} unavailable (offline)` });
  });

  it('a start that fails after a missing base checkpoint names the checkpoint first (not only the offline filter)', () => {
    const filter = 'data.offlineFilter: no training prompt is solved sometimes but not always by the starting policy';
    expect(startFailure(filter, `no base checkpoint at ${url} (HTTP 404)`)).toBe(`no base checkpoint at ${url} (HTTP 404), so the run started from random init and failed: ${filter}`);
    expect(startFailure(filter, undefined)).toBe(filter);
  });

  it("the page sends the checkpoint's URL resolved against its own base, not the Worker's script", () => {
    // A build with base './' served under /lab/: the Worker's script lives in /lab/assets/.
    expect(pageUrl('./checkpoints/base.mlck', 'http://host/lab/?preset=magic-tiny')).toBe('http://host/lab/checkpoints/base.mlck');
    expect(pageUrl('/checkpoints/base.mlck', 'http://host/lab/')).toBe('http://host/checkpoints/base.mlck');
  });

  it('messages name a same-origin checkpoint by its path, as before the URL became absolute', () => {
    expect(shownUrl('http://host:4173/lab/checkpoints/base.mlck', 'http://host:4173')).toBe('/lab/checkpoints/base.mlck');
    expect(shownUrl('https://cdn.example/base.mlck', 'http://host:4173')).toBe('https://cdn.example/base.mlck');
    expect(shownUrl('/checkpoints/base.mlck', 'http://host:4173')).toBe('/checkpoints/base.mlck');
  });
});
