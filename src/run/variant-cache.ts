/**
 * The WebGPU matmul variant chosen per adapter (src/model/matmul-choice.ts), kept across sessions in
 * one small JSON file: $XDG_CACHE_HOME/magic-lab/matmul-variants.json, else ~/.cache/magic-lab/….
 * { "<adapter> | matmul.wgsl fnv1a:<hash>": "<variant>" }. A file that is missing, unreadable or not
 * that shape is a miss (the variants are timed again and the file rewritten); writes go through a
 * temp file and a rename, so a reader sees the old file or the new one, never half of one.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { VariantCache } from '../model/matmul-choice';
import { replaceFile } from './replace-file';

export function defaultVariantCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'magic-lab', 'matmul-variants.json');
}

function readEntries(file: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

export function fileVariantCache(file: string = defaultVariantCacheFile()): VariantCache {
  return {
    get(key) {
      const entries = readEntries(file);
      return Object.prototype.hasOwnProperty.call(entries, key) ? entries[key] : undefined;
    },
    put(key, variant) {
      replaceFile(file, `${JSON.stringify({ ...readEntries(file), [key]: variant }, null, 2)}\n`);
    },
  };
}
