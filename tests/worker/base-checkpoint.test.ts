import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../src/rl/config';
import { fetchBase } from '../../src/worker/base-checkpoint';

const config = { model: {} } as RunConfig;
const url = '/checkpoints/base.mlck';

describe('fetchBase (the shipped base checkpoint, when it fits)', () => {
  it('a missing file, or the app page served in its place, is no base checkpoint', async () => {
    expect(await fetchBase(url, config, async () => new Response('', { status: 404 }))).toEqual({ bytes: null, why: `no base checkpoint at ${url}` });
    expect(await fetchBase(url, config, async () => new Response('<html>', { headers: { 'content-type': 'text/html' } }))).toEqual({ bytes: null, why: `no base checkpoint at ${url}` });
  });

  it('an unreadable or unreachable file says why', async () => {
    const bad = await fetchBase(url, config, async () => new Response(new Uint8Array([1, 2, 3])));
    expect(bad.bytes).toBeNull();
    expect(bad.why).toMatch(/^base checkpoint \/checkpoints\/base\.mlck unavailable \(/);
    expect(await fetchBase(url, config, () => Promise.reject(new Error('offline')))).toEqual({ bytes: null, why: `base checkpoint ${url} unavailable (offline)` });
  });
});
