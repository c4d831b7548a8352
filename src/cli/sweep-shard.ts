/**
 * `magic-lab sweep … --shard i/n` and `magic-lab sweep merge DIR… --out DIR`: one sweep spread over
 * many machines by any scheduler's job array (deploy/), then gathered into the summary a single
 * machine writes (src/sweep/shard.ts, shard-merge.ts; docs/sweeps.md).
 */
import { mergeShards } from '../sweep/shard-merge';
import { checkShardDir, parseShard } from '../sweep/shard';
import type { RunResult, SweepOptions } from '../sweep/plan';
import type { Summary } from '../sweep/summary';
import { parseFlags, UsageError, type FlagSpec, type Flags } from './args';

export const SHARD_FLAG: FlagSpec = { type: 'string', help: 'i/n: run slice i of n of the presets × seeds grid (one machine each, its own --out); `sweep merge` joins them' };

export const MERGE_FLAGS: Record<string, FlagSpec> = {
  out: { type: 'string', help: 'the merged sweep directory (required): runs/, sweep.json, summary.json, summary.md, charts/' },
  png: { type: 'bool', help: 'also render each chart as PNG with headless Chromium (default: SVG only)' },
  help: { type: 'bool', help: 'show this help' },
};

/** --shard on a sweep: the slice into the options, and OUT/shard.json checked or written (every sweep checks it). */
export function applyShard(flags: Flags, argv: readonly string[], o: SweepOptions, reference: boolean): void {
  if (flags.shard !== undefined) {
    if (reference) throw new UsageError('--reference: a shard holds part of the sweep; write the reference from the merged sweep');
    o.shard = parseShard(String(flags.shard));
  }
  checkShardDir(o.out, o.shard ?? null, argv);
}

type WriteSummary = (o: SweepOptions, results: RunResult[], planned: number, final: { charts: boolean; png: boolean; log: (s: string) => void }) => Promise<{ summary: Summary }>;

/** `sweep merge DIR… --out DIR [--png]`: the positional DIRs are the shards' OUTs. */
export async function sweepMerge(argv: readonly string[], log: (s: string) => void, writeSummary: WriteSummary): Promise<Summary> {
  const dirs: string[] = [];
  const flagArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) dirs.push(argv[i]);
    else {
      flagArgs.push(argv[i]);
      if (argv[i] === '--out' && i + 1 < argv.length) flagArgs.push(argv[++i]);
    }
  }
  const flags = parseFlags(flagArgs, MERGE_FLAGS, 'sweep merge');
  if (flags.out === undefined) throw new UsageError('sweep merge: --out DIR is required');
  if (dirs.length === 0) throw new UsageError('sweep merge: name the shard directories (sweep merge DIR… --out DIR)');
  const { options, results, planned } = mergeShards(dirs, String(flags.out), log);
  const { summary } = await writeSummary(options, results, planned.length, { charts: true, png: Boolean(flags.png), log });
  log(`sweep merge: summary in ${options.out}/summary.md`);
  return summary;
}
