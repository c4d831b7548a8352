/**
 * A sweep over many machines, without a scheduler of our own: `sweep … --shard i/n` runs a fixed
 * slice of the presets × seeds grid in its own OUT (any scheduler's array index picks i), and
 * `sweep merge DIR… --out DIR` gathers the shards' runs into one sweep directory laid out as a
 * single-machine sweep's, so the summary written from it is the one that sweep writes.
 *
 * The slice: the grid in the sweep's own order (presets, then seeds), run k (from 0) to shard
 * (k mod n) + 1. It depends on the grid alone, so every shard and the merge agree without talking.
 * OUT/shard.json records which shard a directory holds and the command line without --shard.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SweepError } from './errors';
import type { Shard } from './plan';
import { readJson, writeJson } from './pool-files';

export type { Shard } from './plan';

export const SHARD_FILE = 'shard.json';
export const SHARD_SCHEMA = 'magic-lab-sweep-shard/1';

/** What OUT/shard.json holds. */
export interface ShardFile {
  schema: string;
  index: number;
  count: number;
  /** The sweep's arguments without --shard: every shard of one sweep has the same. */
  argv: string[];
}

/** "2/4" → { index: 2, count: 4 }. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new SweepError(`--shard: expected i/n (e.g. 1/4), got ${JSON.stringify(text)}`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new SweepError(`--shard: i must be 1 … n, got ${index}/${count}`);
  return { index, count };
}

/** The runs of `planned` that shard `shard` runs (all of them without a shard). */
export function shardRuns<T>(planned: readonly T[], shard: Shard | null | undefined): T[] {
  return shard ? planned.filter((_, k) => k % shard.count === shard.index - 1) : [...planned];
}

/** argv without its --shard flag (`--shard i/n` or `--shard=i/n`). */
export function withoutShard(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--shard') i++;
    else if (!argv[i].startsWith('--shard=')) out.push(argv[i]);
  }
  return out;
}

/** argv with its --out value replaced by `out`. */
export function withOut(argv: readonly string[], out: string): string[] {
  return argv.map((a, i) => (argv[i - 1] === '--out' ? out : a.startsWith('--out=') ? `--out=${out}` : a));
}

/**
 * Before a sweep writes anything: OUT/shard.json must say the same shard (or be absent, then it is
 * written), and a directory that holds a shard is not continued as a whole sweep, nor the reverse.
 */
export function checkShardDir(out: string, shard: Shard | null, argv: readonly string[]): void {
  const file = join(out, SHARD_FILE);
  const old = existsSync(file) ? readJson<ShardFile>(file) : null;
  if (!shard) {
    if (old) throw new SweepError(`--out: ${out} holds shard ${old.index}/${old.count} of a sweep; add --shard ${old.index}/${old.count} or choose another --out`);
    return;
  }
  if (old && (old.index !== shard.index || old.count !== shard.count)) {
    throw new SweepError(`--shard: ${out} holds shard ${old.index}/${old.count}, not ${shard.index}/${shard.count}; give each shard its own --out`);
  }
  if (!old && existsSync(join(out, 'sweep.json'))) throw new SweepError(`--out: ${out} holds a whole sweep; give shard ${shard.index}/${shard.count} its own --out`);
  mkdirSync(out, { recursive: true });
  writeJson(file, { schema: SHARD_SCHEMA, index: shard.index, count: shard.count, argv: withoutShard(argv) } satisfies ShardFile);
}
