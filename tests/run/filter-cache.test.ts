/**
 * The folder cache of offline-filter results: a written result reads back for its key and size
 * only; a file under the same name holding another key, another size, damaged JSON or negative
 * counts is ignored (the run samples again), never trusted.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filterCacheFile, folderFilterCache } from '../../src/run/filter-cache';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'filter-cache-')), 'offline-filters');

describe('folder offline-filter cache', () => {
  it('put then get for the same key and size; nothing for another key or size', () => {
    const dir = fresh();
    const c = folderFilterCache(dir);
    expect(c.get('{"seed":1}', 3)).toBeUndefined(); // the folder does not exist yet
    c.put('{"seed":1}', [0, 4, 2]);
    expect(c.get('{"seed":1}', 3)).toEqual([0, 4, 2]);
    expect(c.get('{"seed":1}', 4)).toBeUndefined();
    expect(c.get('{"seed":2}', 3)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([filterCacheFile(dir, '{"seed":1}').slice(dir.length + 1)]); // no temp file left
  });

  it('a file under the key\'s name that holds another key, bad JSON or bad counts is ignored', () => {
    const dir = fresh();
    const c = folderFilterCache(dir);
    c.put('k', [1, 2]);
    const file = filterCacheFile(dir, 'k');
    for (const text of ['{"key":"other","correct":[1,2]}', '{"key":"k","correct":[1,-2]}', '{"key":"k","correct":[1,0.5]}', '{"key":"k"', '{"key":"k","correct":"12"}']) {
      writeFileSync(file, text);
      expect(c.get('k', 2), text).toBeUndefined();
    }
    c.put('k', [3, 1]); // sampled again: rewritten whole
    expect(c.get('k', 2)).toEqual([3, 1]);
  });
});
