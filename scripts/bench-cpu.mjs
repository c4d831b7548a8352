#!/usr/bin/env node
/**
 * Quick benchmark of the CPU engine (a measurement, not a test), on the bench's default model:
 * V32 T64 D64 L2 H4 (mlp 4×), batch 16 × 64 tokens.
 *   - matmul GFLOP/s at every product of a train step (forward, input- and weight-gradient of
 *     each linear layer), total-FLOP weighted, and the largest one;
 *   - train step tokens/s: forward + on-policy GRPO loss + backward + grad norm + clipped AdamW;
 *   - sampling tokens/s: 16 sequences from a one-token prompt up to the full context (tokens
 *     actually generated).
 * Each line gives the median and the best run, and the process's CPU time per step (all threads, from process.cpuUsage): on a
 * machine shared with other jobs, wall time says little, CPU time still shows the engine's cost.
 * Usage: node --import tsx scripts/bench-cpu.mjs [--threads N] [--steps N]
 */
import { parseArgs } from 'node:util';
import { validateModelConfig } from '../src/model/config.ts';
import { wasmBackend } from '../src/model/cpu-policy.ts';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../src/model/bench-batch.ts';
import { initParams } from '../src/model/init.ts';
import { trainMatmulShapes } from '../src/model/policy.ts';

const { values } = parseArgs({ options: { threads: { type: 'string' }, steps: { type: 'string', default: '10' } } });
const threads = values.threads ? Number(values.threads) : undefined;
const steps = Number(values.steps);
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const best = (a) => Math.min(...a);
const cfg = validateModelConfig({ vocabSize: 32, contextLength: 64, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4 });
const B = 16;
const T = 64;
const rows = B * T;

const backend = await wasmBackend({ threads });
console.log(`backend: ${backend.description}`);
try {
  let flop = 0;
  let secs = 0;
  let largest = { flop: 0, name: '', gflops: 0 };
  for (const s of trainMatmulShapes(cfg, rows)) {
    const g = await backend.matmulGflops(s, 7);
    const f = 2 * s.M * s.N * s.K;
    flop += f;
    secs += f / (g * 1e9);
    if (f > largest.flop) largest = { flop: f, name: `${s.M}x${s.N}x${s.K}${s.transA ? ' Aᵀ' : ''}${s.transB ? ' Bᵀ' : ''}`, gflops: g };
  }
  console.log(`matmul: ${(flop / secs / 1e9).toFixed(1)} GFLOP/s over a train step's ${trainMatmulShapes(cfg, rows).length} products; largest ${largest.name}: ${largest.gflops.toFixed(1)} GFLOP/s`);

  const policy = await backend.createPolicy(cfg, 'bench');
  policy.setParams(initParams(cfg, 1));
  policy.resetAdamState();
  const batch = benchTrainBatch(cfg, B);
  const loss = BENCH_GRPO_LOSS;
  const adamw = BENCH_ADAMW;
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const times = [];
  const cpuTimes = [];
  for (let i = 0; i < steps + 2; i++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    await policy.update(batch, loss, { step: i + 1, adamw });
    if (i >= 2) {
      times.push(performance.now() - t0);
      cpuTimes.push(cpuMs() - c0);
    }
  }
  const stepMs = median(times);
  console.log(`train step (fwd + GRPO + bwd + AdamW), ${B}×${T}: ${stepMs.toFixed(2)} ms median → ${Math.round((rows / stepMs) * 1000)} tokens/s; best ${best(times).toFixed(2)} ms → ${Math.round((rows / best(times)) * 1000)} tokens/s (CPU ${median(cpuTimes).toFixed(1)} ms per step)`);

  const sampleTimes = [];
  const sampleCpu = [];
  let generated = 0;
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    const res = await policy.generate({ prompts: Array.from({ length: B }, () => [0]), maxResponseLength: T - 1, temperature: 1, topP: 1, seed: i, eosId: cfg.vocabSize - 1, padId: 0 });
    if (i > 0) {
      sampleTimes.push(performance.now() - t0);
      sampleCpu.push(cpuMs() - c0);
    }
    generated = res.responses.reduce((s, r) => s + r.length, 0);
  }
  const sampleMs = median(sampleTimes);
  console.log(`sampling, ${B} sequences up to ${T - 1} tokens (${generated} generated): ${sampleMs.toFixed(2)} ms → ${Math.round((generated / sampleMs) * 1000)} tokens/s; best ${best(sampleTimes).toFixed(2)} ms → ${Math.round((generated / best(sampleTimes)) * 1000)} tokens/s (CPU ${median(sampleCpu).toFixed(1)} ms)`);
  policy.destroy();
} finally {
  backend.destroy();
}
