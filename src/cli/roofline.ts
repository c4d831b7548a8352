/**
 * `magic-lab bench --roofline` (npm run bench:roofline): the CPU engine against its own ceilings.
 * Measures the peak GFLOP/s of an f32x4 mul + add loop (1 thread and every pool thread) and a triad's
 * bandwidth (src/cpu/roofline.ts), then at each rung of the model ladder (src/rl/config/rungs.ts) the
 * train step's and sampling's achieved GFLOP/s (model matmul FLOPs, src/model/flops.ts) and their
 * fraction of the pool's peak. A measurement, not a test: compare figures from one run.
 *
 * Shapes: each rung's model; a train step of ROOFLINE_TOKENS tokens (rows = tokens / context, so
 * every rung does the same token count), sampling SAMPLE_SEQS sequences from a one-token prompt
 * for up to min(context − 1, SAMPLE_MAX) tokens (the batch runs until every sequence ends).
 */

import { replaceFileWhole } from '../run/write-file';
import { peakGflops, triadGBps } from '../cpu/roofline';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../model/bench-batch';
import type { ModelConfig } from '../model/config';
import { wasmBackend } from '../model/cpu-policy';
import { decodeFlops, trainStepFlops } from '../model/flops';
import { initParams } from '../model/init';
import { RUNG_NAMES, rungBaseConfig, modelParameterCount, type RungName } from '../rl/config/rungs';
import { efficiencySvg } from './roofline-svg';

export const ROOFLINE_TOKENS = 1024;
export const SAMPLE_SEQS = 16;
export const SAMPLE_MAX = 128;
/** Per array of the triad (three arrays): far beyond any L2, and beyond the 480 MiB L3 a VM may report. */
export const TRIAD_MIB = 256;

export interface RooflineRung {
  rung: RungName;
  model: ModelConfig;
  params: number;
  train: { rows: number; T: number; flop: number; median_ms: number; gflops: number; fraction: number };
  sampling: { sequences: number; steps: number; flop: number; median_ms: number; gflops: number; fraction: number };
}

export interface RooflineResult {
  engine: string;
  threads: number;
  /** How the peak loop computes: the engine's own instructions (it uses no relaxed-SIMD FMA). */
  peak_kernel: 'f32x4.mul + f32x4.add';
  peak_gflops: { one_thread: number; all_threads: number };
  bandwidth_gbps: number;
  /** FLOP per byte where the two ceilings meet (all-thread peak / bandwidth). */
  ridge_flop_per_byte: number;
  rungs: RooflineRung[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export async function roofline(o: { threads?: number; steps?: number; json?: string; svg?: string; rungs?: readonly RungName[] }, log: (s: string) => void = console.log): Promise<RooflineResult> {
  const steps = o.steps ?? 3;
  const backend = await wasmBackend({ threads: o.threads });
  try {
    const rt = backend.rt;
    log(`engine: ${backend.description}`);
    const one = peakGflops(rt, 1);
    const all = rt.threads > 1 ? peakGflops(rt, rt.threads) : one;
    const bw = triadGBps(rt, TRIAD_MIB);
    const result: RooflineResult = {
      engine: backend.description,
      threads: rt.threads,
      peak_kernel: 'f32x4.mul + f32x4.add',
      peak_gflops: { one_thread: one, all_threads: all },
      bandwidth_gbps: bw,
      ridge_flop_per_byte: all / bw,
      rungs: [],
    };
    for (const rung of o.rungs ?? RUNG_NAMES) {
      const cfg = rungBaseConfig(rung).model;
      const T = cfg.contextLength;
      const rows = Math.max(1, Math.floor(ROOFLINE_TOKENS / T));
      const policy = await backend.createPolicy(cfg, `roofline-${rung}`);
      try {
        policy.setParams(initParams(cfg, 1));
        policy.resetAdamState();
        const batch = benchTrainBatch(cfg, rows);
        const times: number[] = [];
        for (let i = 0; i < steps + 1; i++) {
          const t0 = performance.now();
          await policy.update(batch, BENCH_GRPO_LOSS, { step: i + 1, adamw: BENCH_ADAMW });
          if (i >= 1) times.push(performance.now() - t0);
        }
        const trainMs = median(times);
        const trainFlop = trainStepFlops(cfg, rows, T).total;
        const sampleTimes: number[] = [];
        let decodeSteps = 0;
        let liveSlots: number[] = [];
        for (let i = 0; i < 3; i++) {
          const t0 = performance.now();
          const res = await policy.generate({ prompts: Array.from({ length: SAMPLE_SEQS }, () => [0]), maxResponseLength: Math.min(T - 1, SAMPLE_MAX), temperature: 1, topP: 1, seed: 0, eosId: cfg.vocabSize - 1, padId: 0 });
          if (i > 0) sampleTimes.push(performance.now() - t0);
          decodeSteps = res.steps;
          liveSlots = res.liveSlots;
        }
        const sampleMs = median(sampleTimes);
        const sampleFlop = decodeFlops(cfg, liveSlots).total;
        const trainG = trainFlop / trainMs / 1e6;
        const sampleG = sampleFlop / sampleMs / 1e6;
        result.rungs.push({
          rung,
          model: cfg,
          params: modelParameterCount(cfg),
          train: { rows, T, flop: trainFlop, median_ms: trainMs, gflops: trainG, fraction: trainG / all },
          sampling: { sequences: SAMPLE_SEQS, steps: decodeSteps, flop: sampleFlop, median_ms: sampleMs, gflops: sampleG, fraction: sampleG / all },
        });
        log(`  ${rung}: train ${trainG.toFixed(2)} GFLOP/s, sampling ${sampleG.toFixed(2)} GFLOP/s`);
      } finally {
        policy.destroy();
      }
    }
    printRoofline(result, log);
    if (o.json) replaceFileWhole(o.json, JSON.stringify(result, null, 2) + '\n');
    if (o.svg) replaceFileWhole(o.svg, rooflineSvg(result));
    return result;
  } finally {
    backend.destroy();
  }
}

const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3));
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function printRoofline(r: RooflineResult, log: (s: string) => void): void {
  log('');
  log(`| ceiling | value |`);
  log('| --- | --- |');
  log(`| peak, ${r.peak_kernel}, 1 thread | ${f(r.peak_gflops.one_thread)} GFLOP/s |`);
  log(`| peak, ${r.peak_kernel}, ${r.threads} threads | ${f(r.peak_gflops.all_threads)} GFLOP/s |`);
  log(`| bandwidth, triad over 3 × ${TRIAD_MIB} MiB, ${r.threads} threads | ${f(r.bandwidth_gbps)} GB/s (ridge ${f(r.ridge_flop_per_byte)} FLOP/byte) |`);
  log('');
  log(`| rung | parameters | train step (rows × T) | train GFLOP/s | of peak | sampling (seqs × steps) | sampling GFLOP/s | of peak |`);
  log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const x of r.rungs) {
    log(`| ${x.rung} | ${x.params} | ${x.train.rows} × ${x.train.T}, ${f(x.train.median_ms)} ms | ${f(x.train.gflops)} | ${pct(x.train.fraction)} | ${x.sampling.sequences} × ${x.sampling.steps}, ${f(x.sampling.median_ms)} ms | ${f(x.sampling.gflops)} | ${pct(x.sampling.fraction)} |`);
  }
}

export function rooflineSvg(r: RooflineResult): string {
  const points = r.rungs.map((x) => ({ label: x.rung, params: x.params, values: { 'train step': x.train.fraction, sampling: x.sampling.fraction } }));
  return efficiencySvg(points, 'CPU engine: achieved GFLOP/s as a share of peak', `peak ${f(r.peak_gflops.all_threads)} GFLOP/s (${r.peak_kernel}, ${r.threads} threads), triad ${f(r.bandwidth_gbps)} GB/s`);
}
