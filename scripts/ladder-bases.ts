/**
 * The model ladder's base table (docs/benchmarks-log.md, "Model ladder"): for a rung's base checkpoint, held-out
 * avg@k and pass@k at τ = 1.0 on each task family at the rung's level and at the family's top level,
 * with the mean and 95th-percentile response length (tokens, EOS included) and the truncated share.
 *
 *   npx tsx scripts/ladder-bases.ts RUNG [problems=64] [k=16] [threads] [mix]
 *
 * `mix` keeps the rung's own families, at its level and their top (the other families' top levels are rows of
 * zeros at every rung; at the medium rung they cost 6 of the whole table's 8.5 minutes here).
 * Responses get the rung's longest stage limit, cut to what the context leaves after the prompt.
 */
import { readFileSync } from 'node:fs';
import { decodeCheckpoint } from '../src/model/checkpoint';
import { layoutParams } from '../src/model/config';
import { wasmBackend } from '../src/model/cpu-policy';
import { getRung, longestResponseLength, rungBaseConfig } from '../src/rl/config';
import { batchSeed, rollout } from '../src/rl/rollout';
import { buildDataset, FAMILIES, maxPromptTokens, type FamilyName } from '../src/tasks';

const [rungName = 'tiny', problemsArg = '64', kArg = '16', threadsArg, only] = process.argv.slice(2);
if (only !== undefined && only !== 'mix') throw new Error(`5th argument: expected "mix" or nothing, got ${JSON.stringify(only)}`);
const rung = getRung(rungName);
const cfg = rungBaseConfig(rung.name);
const file = `public/${rung.baseFile}`;
const ck = decodeCheckpoint(new Uint8Array(readFileSync(file)), file);
const problems = Number(problemsArg);
const k = Number(kArg);
const backend = await wasmBackend(threadsArg ? { threads: Number(threadsArg) } : {});
const policy = await backend.createPolicy(ck.model, 'base');
policy.setParams(ck.params);
console.log(`${file}: ${layoutParams(ck.model).count} parameters; ${problems} test problems × ${k} samples at τ = 1.0\n`);
console.log('| family | level | avg@k | pass@k | mean length | p95 length | truncated |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const families = only === 'mix' ? [...cfg.data.families] : [...new Set<FamilyName>([...cfg.data.families, 'addition', 'countdown', 'arith', 'multiply', 'sort'] as FamilyName[])];
for (const family of families) {
  const top = FAMILIES[family].maxDifficulty;
  const levels = cfg.data.families.includes(family) ? [...new Set([cfg.data.difficulty, top])] : [top];
  for (const level of levels) {
    const left = ck.model.contextLength - maxPromptTokens(family, level);
    if (left < 2) continue;
    const limit = Math.min(longestResponseLength(cfg), left);
    const test = buildDataset({ seed: cfg.seed, families: [family], difficulty: level, trainSize: 0, testSize: problems }).test;
    const rolls = await rollout(policy, test, test.flatMap((_, i) => new Array<number>(k).fill(i)), { batch: 128, maxResponseLength: limit, temperature: 1, topP: 1, seed: batchSeed(0, 4) });
    const solved = new Array<number>(test.length).fill(0);
    for (const r of rolls) solved[r.problem] += r.reward > 0 ? 1 : 0;
    const lengths = rolls.map((r) => r.response.length).sort((a, b) => a - b);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const avg = solved.reduce((a, b) => a + b, 0) / (test.length * k);
    const pass = solved.filter((s) => s > 0).length / test.length;
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    const p95 = lengths[Math.min(lengths.length - 1, Math.floor(0.95 * lengths.length))];
    const truncated = rolls.filter((r) => r.truncated).length / rolls.length;
    console.log(`| ${family}${cfg.data.families.includes(family) ? '' : ' (not in the mix)'} | ${level}${level === top ? ' (top)' : ''} | ${pct(avg)} | ${pct(pass)} | ${mean.toFixed(1)} | ${p95} | ${pct(truncated)} (limit ${limit}) |`);
  }
}
policy.destroy();
backend.destroy();
