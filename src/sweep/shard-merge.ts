/** `sweep merge DIR… --out DIR`: the shards of one sweep (src/sweep/shard.ts) gathered into one sweep directory. */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { SweepError } from './errors';
import { planSweep, runsRoot, type PlannedRun, type RunResult, type SweepOptions } from './plan';
import { checkSweepIdentity, firstDifferentField, readJson } from './pool-files';
import { sweepOptionsOf } from './replication-check';
import { loadRun } from './runner';
import { SHARD_FILE, SHARD_SCHEMA, shardRuns, withOut, type ShardFile } from './shard';

interface ShardDir {
  dir: string;
  shard: ShardFile;
  options: SweepOptions;
}

function readShardDir(dir: string): ShardDir {
  const file = join(dir, SHARD_FILE);
  if (!existsSync(file)) throw new SweepError(`merge: ${dir} holds no ${SHARD_FILE} (not the OUT of a \`sweep … --shard i/n\`)`);
  if (!existsSync(join(dir, 'sweep.json'))) throw new SweepError(`merge: ${dir} holds no sweep.json (its shard never started)`);
  const shard = readJson<ShardFile>(file);
  if (shard.schema !== SHARD_SCHEMA || !Number.isInteger(shard.index) || !Number.isInteger(shard.count) || !Array.isArray(shard.argv)) {
    throw new SweepError(`merge: ${file} is not a shard file (${SHARD_SCHEMA})`);
  }
  return { dir, shard, options: sweepOptionsOf(dir, '') };
}

/** Copies a directory over `dest` (replacing what a previous merge put there). */
function copyDir(src: string, dest: string): void {
  rmSync(dest, { recursive: true, force: true });
  cpSync(src, dest, { recursive: true });
}

/**
 * Gathers finished shards into `out`: checks they are the n shards of one sweep, copies each one's
 * runs and start evaluations into OUT/runs, writes OUT/sweep.json, and returns the sweep's options
 * (its command: the shards' without --shard, with --out OUT) and every run in the sweep's order.
 */
export function mergeShards(dirs: readonly string[], out: string, log: (s: string) => void = () => {}): { options: SweepOptions; results: RunResult[]; planned: PlannedRun[] } {
  if (dirs.length === 0) throw new SweepError('merge: name the shard directories (sweep merge DIR… --out DIR)');
  const shards = dirs.map(readShardDir);
  const first = shards[0];
  const n = first.shard.count;
  const seen = new Map<number, string>();
  for (const s of shards) {
    if (resolve(s.dir) === resolve(out)) throw new SweepError(`merge: --out ${out} is one of the shards; merge into a new directory`);
    if (s.shard.count !== n) throw new SweepError(`merge: ${s.dir} is shard ${s.shard.index}/${s.shard.count}, ${first.dir} one of ${n}`);
    if (seen.has(s.shard.index)) throw new SweepError(`merge: ${s.dir} and ${seen.get(s.shard.index)} are both shard ${s.shard.index}/${n}`);
    seen.set(s.shard.index, s.dir);
    const diff = firstDifferentField(specOf(first.options), specOf(s.options));
    if (diff !== null) throw new SweepError(`merge: ${s.dir} is a shard of another sweep than ${first.dir} (${diff} differs)`);
    // Each shard has its own --out; the rest of the command is the sweep's.
    if (JSON.stringify(withOut(s.shard.argv, '')) !== JSON.stringify(withOut(first.shard.argv, ''))) throw new SweepError(`merge: ${s.dir} was started with other arguments than ${first.dir}`);
  }
  const missing = Array.from({ length: n }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length) throw new SweepError(`merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${n}`).join(', ')} missing`);
  if (existsSync(join(out, SHARD_FILE))) throw new SweepError(`merge: --out ${out} holds a shard; merge into a new directory`);

  const command = `magic-lab sweep ${withOut(first.shard.argv, out).join(' ')}`;
  const options: SweepOptions = { ...first.options, out, runs: join(out, 'runs'), command };
  mkdirSync(out, { recursive: true });
  checkSweepIdentity(options);
  const planned = planSweep(options);
  const startEvals = join(runsRoot(options), 'start-evals');
  for (const s of [...shards].sort((a, b) => a.shard.index - b.shard.index)) {
    const pool = runsRoot(s.options);
    for (const run of shardRuns(planned, s.shard)) {
      const src = join(pool, relative(runsRoot(options), run.dir));
      if (!existsSync(join(src, 'train-done.json'))) throw new SweepError(`merge: shard ${s.shard.index}/${n}: ${run.preset} seed ${run.seed} is not finished (${src}); re-run that shard's command`);
      copyDir(src, run.dir);
    }
    // Start evaluations are cached by what they depend on: two shards with one key computed the same file.
    const evals = join(pool, 'start-evals');
    if (!existsSync(evals)) continue;
    mkdirSync(startEvals, { recursive: true });
    for (const f of readdirSync(evals).sort()) {
      const dest = join(startEvals, f);
      if (!existsSync(dest)) cpSync(join(evals, f), dest);
      else if (!sameStartEval(readFileSync(dest, 'utf8'), readFileSync(join(evals, f), 'utf8'))) log(`merge: warning: shard ${s.shard.index}/${n}'s start evaluation ${f} differs from an earlier shard's (another engine?); the earlier one is kept`);
    }
  }
  const results = planned.map((run) => {
    const r = loadRun(run, options);
    if (!r) throw new SweepError(`merge: ${run.preset} seed ${run.seed}: its files are incomplete in ${run.dir} (a shard stopped before its evaluations?)`);
    return r;
  });
  log(`merge: ${results.length} runs from ${n} shards in ${out}`);
  return { options, results, planned };
}

/**
 * Whether two shards' start evaluations (RUNS/start-evals/<key>.json) hold the same result: their
 * JSON equal but for `argv`, the eval command, which names the shard's own runs folder (shards
 * run from different directories write different paths for the same evaluation). A file that is
 * not JSON is compared as written.
 */
export function sameStartEval(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const strip = (t: string) => {
      const { argv: _a, ...rest } = JSON.parse(t) as Record<string, unknown>;
      return JSON.stringify(rest);
    };
    return strip(a) === strip(b);
  } catch {
    return false;
  }
}

/** A sweep's identity without where its files lie (shards differ only in that). */
function specOf(o: SweepOptions): Omit<SweepOptions, 'out' | 'runs' | 'command'> {
  const { out: _o, runs: _r, command: _c, ...spec } = o;
  return spec;
}
