// Times a held-out eval of P problems × k samples (one temperature) against a rollout decode of the same engine,
// per generated token, with the decode-slot accounting of both: where does an eval's decode go?
//   node scripts/bench-eval-decode.mjs [--rung small] [--problems 32] [--k 64] [--threads 2] [--rollouts 3] [--backend wasm|webgpu] [--json F]
// (the CLI's `magic-lab eval --k 64 --problems 256` is this eval at full size; this one says where its time goes.
// WebGPU in Node: node scripts/webgpu-env.mjs node scripts/bench-eval-decode.mjs --backend webgpu …)
import { register } from 'tsx/esm/api';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

register();
const { values: a } = parseArgs({ options: { rung: { type: 'string', default: 'small' }, problems: { type: 'string', default: '32' }, k: { type: 'string', default: '64' }, threads: { type: 'string', default: '2' }, rollouts: { type: 'string', default: '3' }, json: { type: 'string' }, backend: { type: 'string', default: 'wasm' } } });
const { getPreset, buildRunDataset, longestResponseLength, resolveStage } = await import('../src/rl/config/index.ts');
const { rolloutBatchSize } = await import('../src/rl/offline-sampling.ts');
const { evaluatePolicy, rollout, batchSeed } = await import('../src/rl/rollout.ts');
const { acquireBackend } = await import('../src/cli/backend.ts');
const { decodeCheckpoint } = await import('../src/model/checkpoint.ts');
const { recordingPolicy } = await import('../src/run/rl-parts.ts');
const { defaultBaseFor } = await import('../src/run/rung-base.ts');
const { loadavg } = await import('node:os');

const cfg = getPreset('magic', a.rung);
const ck = decodeCheckpoint(new Uint8Array(readFileSync(defaultBaseFor(cfg))), 'base');
const ds = buildRunDataset(cfg);
const backend = await acquireBackend(a.backend, { threads: Number(a.threads) });
const inner = await backend.createPolicy(ck.model, 'bench');
inner.setParams(ck.params);
const rec = recordingPolicy(inner);
const batch = rolloutBatchSize(cfg);
const sum = (calls) => calls.generate.reduce((s, c) => ({ tokens: s.tokens + c.tokens, slots: s.slots + c.slots }), { tokens: 0, slots: 0 });
const load0 = loadavg()[0];

// The rollout decode of stage 1 (as a step's: batchPrompts problems × G samples), first a warm-up.
const stage = resolveStage(cfg, 0);
const rollIdx = Array.from({ length: stage.batchPrompts }, (_, i) => i).flatMap((i) => new Array(stage.groupSize).fill(i));
const roll = async (seed) => rollout(rec.policy, ds.train, rollIdx, { batch, maxResponseLength: stage.maxResponseLength, temperature: stage.temperature, topP: cfg.rollout.topP, seed });
await roll(999);
rec.take();
let rollMs = 0;
for (let r = 0; r < Number(a.rollouts); r++) {
  const t0 = performance.now();
  await roll(r);
  rollMs += performance.now() - t0;
}
const rolls = sum(rec.take());

const P = Number(a.problems);
const k = Number(a.k);
const t0 = performance.now();
await evaluatePolicy(rec.policy, ds.test.slice(0, P), { k, temperatures: [1], maxResponseLength: longestResponseLength(cfg), topP: cfg.rollout.topP, batch, seed: batchSeed(0, 4) });
const evalMs = performance.now() - t0;
const evals = sum(rec.take());
backend.destroy();
const out = {
  rung: a.rung, backend: a.backend, threads: Number(a.threads), batch, load1_start: load0, load1_end: loadavg()[0],
  eval: { problems: P, k, max_response: longestResponseLength(cfg), seconds: evalMs / 1e3, tokens: evals.tokens, slots: evals.slots, tokens_per_slot: evals.tokens / evals.slots, us_per_token: (evalMs * 1e3) / evals.tokens },
  rollout: { calls: Number(a.rollouts), sequences: rollIdx.length, max_response: stage.maxResponseLength, seconds: rollMs / 1e3, tokens: rolls.tokens, slots: rolls.slots, tokens_per_slot: rolls.tokens / rolls.slots, us_per_token: (rollMs * 1e3) / rolls.tokens },
};
out.eval_vs_rollout_per_token = out.eval.us_per_token / out.rollout.us_per_token;
console.log(JSON.stringify(out, null, 1));
if (a.json) writeFileSync(a.json, JSON.stringify(out, null, 1) + '\n');
