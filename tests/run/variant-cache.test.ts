/** The Node file cache of chosen matmul variants (src/run/variant-cache.ts). */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultVariantCacheFile, fileVariantCache } from '../../src/run/variant-cache';

const dir = () => mkdtempSync(join(tmpdir(), 'variant-cache-'));

describe('fileVariantCache', () => {
  it('misses on a missing file, then keeps each key (in a folder it makes), written whole', () => {
    const d = dir();
    const file = join(d, 'magic-lab', 'matmul-variants.json');
    const c = fileVariantCache(file);
    expect(c.get('a')).toBeUndefined();
    c.put('a', 'tiled64');
    c.put('b', 'blocked4x4');
    expect(c.get('a')).toBe('tiled64');
    expect(fileVariantCache(file).get('b')).toBe('blocked4x4');
    expect(fileVariantCache(file).get('c')).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ a: 'tiled64', b: 'blocked4x4' });
    expect(readdirSync(join(d, 'magic-lab'))).toEqual(['matmul-variants.json']); // no temp file left
  });

  it('a corrupt file or one of another shape is a miss, and the next put rewrites it', () => {
    const file = join(dir(), 'm.json');
    for (const bad of ['{"a": "tiled', '[1, 2]', 'null', '{"a": 5}']) {
      writeFileSync(file, bad);
      const c = fileVariantCache(file);
      expect(c.get('a'), bad).toBeUndefined();
      c.put('a', 'blocked4x4');
      expect(c.get('a'), bad).toBe('blocked4x4');
    }
  });

  it('lives under $XDG_CACHE_HOME, else ~/.cache', () => {
    expect(defaultVariantCacheFile({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/magic-lab/matmul-variants.json');
    expect(defaultVariantCacheFile({})).toMatch(/\.cache\/magic-lab\/matmul-variants\.json$/);
  });
});
