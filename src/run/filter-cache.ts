/**
 * Offline-filter results kept in a folder (`magic-lab train --filter-cache DIR`; a sweep uses
 * RUNS/offline-filters): one JSON file per key, {key, correct}. A sweep's presets that share a
 * seed, data and base share the filter's samples, so each seed samples once, not once per preset.
 * A file whose key or size does not match is ignored (sampled again and rewritten), never trusted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../model/checkpoint';
import type { OfflineFilterCache } from '../rl/offline-sampling';
import { replaceFile } from './replace-file';

/** The file a key is kept in: its CRC-32 names it, the key inside decides. */
export function filterCacheFile(dir: string, key: string): string {
  return join(dir, `${crc32(new TextEncoder().encode(key)).toString(16).padStart(8, '0')}.json`);
}

export function folderFilterCache(dir: string): OfflineFilterCache {
  return {
    name: dir,
    get(key, trainSize) {
      let stored: { key?: unknown; correct?: unknown };
      try {
        stored = JSON.parse(readFileSync(filterCacheFile(dir, key), 'utf8'));
      } catch {
        return undefined; // absent or unreadable: sample
      }
      const ok = stored.key === key && Array.isArray(stored.correct) && stored.correct.length === trainSize && stored.correct.every((c) => Number.isInteger(c) && c >= 0);
      return ok ? (stored.correct as number[]) : undefined;
    },
    put(key, correct) {
      replaceFile(filterCacheFile(dir, key), `${JSON.stringify({ key, correct })}\n`); // whole, also with two sweeps writing one key
    },
  };
}
