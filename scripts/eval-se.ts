/**
 * Standard errors of one precise evaluation, measured: evaluates a checkpoint exactly as
 * `magic-lab eval` does (same backend choice, batches, seeds and response limit) but keeps the
 * per-problem correct counts, then prints avg@k with three standard errors:
 *   bound     √(p̄(1−p̄)/(n·k))            what `magic-lab sweep` prints (needs only avg@k)
 *   sampling  √(Σ p̂_i(1−p̂_i)·k/(k−1) / k)/n   noise of re-sampling the same n problems (unbiased per-problem variance)
 *   problems  sd_i(p̂_i)/√n               adds the spread of problem difficulty (test set as a sample)
 *
 *   node scripts/webgpu-env.mjs npx tsx scripts/eval-se.ts --checkpoint public/checkpoints/base.mlck \
 *     [--preset magic] [--data-seed S] [--problems 256] [--k 8] [--seed S] [--backend webgpu|wasm|auto]
 *
 * --data-seed sets the config seed (each seed draws its own test set; a sweep run's seed S).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseFlags, type FlagSpec } from '../src/cli/args';
import { acquireBackend, BACKEND_FLAG, parseBackendChoice, THREADS_FLAG } from '../src/cli/backend';
import { decodeCheckpoint } from '../src/model/checkpoint';
import { buildRunDataset, getPreset, longestResponseLength, validateRunConfig } from '../src/rl/config';
import { batchSeed, rollout } from '../src/rl/rollout';
import { avgAtKProblemSE, avgAtKSamplingSE, mean } from '../src/sweep/stats';

const FLAGS: Record<string, FlagSpec> = {
  checkpoint: { type: 'string', help: 'the .mlck to evaluate' },
  preset: { type: 'string', help: 'config of a base checkpoint (default magic)' },
  'data-seed': { type: 'int', min: 0, help: 'config seed: which test set (default: the preset\'s)' },
  problems: { type: 'int', min: 1, help: 'test problems (default 256)' },
  k: { type: 'int', min: 1, help: 'samples per problem (default 8)' },
  seed: { type: 'int', min: 0, help: 'sampling seed (default 0)' },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
};

const flags = parseFlags(process.argv.slice(2), FLAGS, 'eval-se');
const file = String(flags.checkpoint ?? 'public/checkpoints/base.mlck');
if (!existsSync(file)) throw new Error(`${file} does not exist`);
const ck = decodeCheckpoint(new Uint8Array(readFileSync(file)), file);
let cfg = ck.meta.kind === 'magic-lab-run' ? validateRunConfig(ck.meta.config) : validateRunConfig({ model: ck.model }, getPreset(String(flags.preset ?? 'magic')));
if (flags['data-seed'] !== undefined) cfg = validateRunConfig({ seed: flags['data-seed'] as number }, cfg);
const k = (flags.k as number | undefined) ?? 8;
const n = (flags.problems as number | undefined) ?? 256;
const problems = buildRunDataset(cfg).test.slice(0, n);
const backend = await acquireBackend(parseBackendChoice(flags.backend), { threads: flags.threads as number | undefined });
const t0 = performance.now();
try {
  const policy = await backend.createPolicy(ck.model, 'eval');
  policy.setParams(ck.params);
  const seed = batchSeed((flags.seed as number | undefined) ?? 0, 4); // as magic-lab eval
  const temps = [1, 0.6];
  console.log(`${file}: ${n} problems × ${k} samples (config seed ${cfg.seed}) on ${backend.description}`);
  console.log('τ      avg@k    SE bound  SE sampling  SE problems   (points)');
  for (let ti = 0; ti < temps.length; ti++) {
    const indices = problems.flatMap((_, i) => new Array<number>(k).fill(i));
    const rolls = await rollout(policy, problems, indices, { batch: 128, maxResponseLength: longestResponseLength(cfg), temperature: temps[ti], topP: cfg.rollout.topP, seed: batchSeed(seed, ti) });
    const correct = problems.map(() => 0);
    for (const r of rolls) if (r.reward > 0) correct[r.problem]++;
    const p = correct.map((c) => c / k);
    const avg = mean(p);
    const sampling = Math.sqrt(p.reduce((a, x) => a + (x * (1 - x) * k) / (k - 1), 0) / k) / n;
    const pts = (x: number) => (x * 100).toFixed(2).padStart(7);
    console.log(`${temps[ti].toFixed(1)}  ${pts(avg)}%  ${pts(avgAtKSamplingSE(avg, n, k))}  ${pts(sampling)}     ${pts(avgAtKProblemSE(correct, k))}`);
  }
} finally {
  backend.destroy();
}
console.log(`${((performance.now() - t0) / 1000).toFixed(0)} s`);
