/**
 * `magic-lab bench [--backend webgpu|wasm]`: matmul GFLOP/s at the model's shapes, a full train
 * step (forward + GRPO loss + backward + clipped AdamW) and batched sampling, with the same JSON
 * keys on either backend. Medians after warm-up;
 * a benchmark, not a test — compare figures measured in one run.
 */

import { replaceFileWhole } from '../run/write-file';
import { validateModelConfig } from '../model/config';
import { benchEngine, DEFAULT_BENCH, median, type BenchResult } from '../model/bench-run';
import type { Backend, BackendChoice } from '../model/engine';
import { getPreset } from '../rl/config';
import { MagicTrainer } from '../rl/trainer';
import { parseFlags, parseKeyValues, UsageError, type FlagSpec } from './args';
import { acquireBackend, BACKEND_FLAG, MATMUL_VARIANT_FLAG, parseBackendChoice, parseMatmulVariant, THREADS_FLAG } from './backend';
import { benchRlParts, shippedBaseFor, type RlPartsResult } from '../run/rl-parts';
import { rlPartsTable } from '../run/rl-parts-report';
import { roofline, type RooflineResult } from './roofline';
import { parseRungFlag, RUNG_FLAG } from './rung';
import { rungBaseConfig, type RungName } from '../rl/config';

/** Timed steps a bench takes at most: a bench times steps, it does not train (100,000 is hours even at the tiny rung). */
const BENCH_MAX_STEPS = { value: 100_000, why: 'a bench times steps, it does not train' };

export const BENCH_FLAGS: Record<string, FlagSpec> = {
  config: { type: 'string', help: 'model/batch size, e.g. vocab=32,ctx=64,dModel=64,layers=2,heads=4,batch=16 (over --rung\'s model when given)' },
  rung: { ...RUNG_FLAG, help: `${RUNG_FLAG.help}: bench that rung's model (batch 16 unless --config says), and --rl-steps its magic preset from its base` },
  json: { type: 'string', help: 'also write the results as JSON to this file' },
  steps: { type: 'int', min: 1, max: BENCH_MAX_STEPS, help: 'timed train steps (default 10)' },
  'rl-parts': { type: 'int', min: 2, max: BENCH_MAX_STEPS, help: "only this: N rounds of an RL step of the magic preset (--rung's, from its base, eval off) and its rollout decode, actor update and the preset's held-out eval run alone on the same engine; per phase in step / alone, the step / Σ parts (target ≤ 1.3×), eval / rollout of equal tokens (target ≤ 2×); round 1 is warm-up" },
  'rl-steps': { type: 'int', min: 2, max: BENCH_MAX_STEPS, help: "also time this many RL steps of the magic preset from the shipped base (the trainer's perf/step_s; median after the first)" },
  roofline: { type: 'bool', help: 'the CPU engine against its ceilings: peak GFLOP/s (1 and N threads), triad GB/s, and each rung\'s train step and sampling as a share of peak (BENCHMARKS.md, Roofline)' },
  svg: { type: 'string', help: 'with --roofline: write the efficiency chart (SVG) to this file, e.g. docs/roofline.svg' },
  compare: { type: 'bool', help: 'run WebGPU and the CPU engine one after the other and print the ratios (cpu / webgpu)' },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
  'matmul-variant': MATMUL_VARIANT_FLAG,
  help: { type: 'bool', help: 'show this help' },
};

const CONFIG_KEYS = ['vocab', 'ctx', 'dModel', 'layers', 'heads', 'mlpRatio', 'batch'] as const;
export { DEFAULT_BENCH, type BenchResult };

/** --compare: both backends measured in one run, and CPU engine / WebGPU ratios (> 1: the CPU engine is faster). */
export interface BenchComparison {
  runs: BenchResult[];
  ratios: { train_step: number; sampling: number; matmul: number; rl_step?: number };
}

export async function bench(argv: string[], log: (s: string) => void = console.log): Promise<BenchResult | BenchComparison | RooflineResult | RlPartsResult> {
  const flags = parseFlags(argv, BENCH_FLAGS, 'bench');
  if (flags.svg !== undefined && !flags.roofline) throw new UsageError('--svg: only with --roofline');
  if (flags.roofline) {
    for (const k of ['compare', 'config', 'rl-steps', 'rl-parts', 'rung'] as const) if (flags[k] !== undefined) throw new UsageError(`--roofline measures the rungs on the CPU engine: it cannot be combined with --${k}`);
    if (flags.backend !== undefined && flags.backend !== 'wasm') throw new UsageError('--roofline: the roofline is the CPU engine\'s (--backend wasm)');
    return roofline({ threads: flags.threads as number | undefined, steps: flags.steps as number | undefined, json: flags.json as string | undefined, svg: flags.svg as string | undefined }, log);
  }
  if (flags['rl-parts'] !== undefined) {
    for (const k of ['compare', 'config', 'rl-steps', 'steps', 'matmul-variant'] as const) if (flags[k] !== undefined) throw new UsageError(`--rl-parts times the RL step and its parts only: it cannot be combined with --${k}`);
    return benchParts(flags, log);
  }
  if (flags.compare && flags.backend !== undefined) throw new UsageError('--compare runs both backends: it cannot be combined with --backend');
  const choice = parseBackendChoice(flags.backend);
  parseMatmulVariant(flags['matmul-variant']); // a bad value fails before any engine opens
  if (!flags.compare) {
    const r = await benchBackend(flags, choice, log);
    if (flags.json) replaceFileWhole(String(flags.json), JSON.stringify(r, null, 2) + '\n');
    return r;
  }
  const runs = [await benchBackend(flags, 'webgpu', log), await benchBackend(flags, 'wasm', log)];
  const [g, w] = runs;
  const ratios: BenchComparison['ratios'] = {
    train_step: w.train_step.tokens_per_s / g.train_step.tokens_per_s,
    sampling: w.sampling.tokens_per_s / g.sampling.tokens_per_s,
    matmul: w.matmul.gflops / g.matmul.gflops,
  };
  if (g.rl_step && w.rl_step) ratios.rl_step = g.rl_step.median_s / w.rl_step.median_s;
  log('');
  log('| CPU engine / WebGPU, measured in this run | ratio |');
  log('| --- | --- |');
  for (const [k, v] of Object.entries(ratios)) log(`| ${k === 'rl_step' ? 'RL step (magic preset), speed' : k} | ${v.toFixed(2)}× |`);
  const out: BenchComparison = { runs, ratios };
  if (flags.json) replaceFileWhole(String(flags.json), JSON.stringify(out, null, 2) + '\n');
  return out;
}

/** --rl-parts: the RL step against its parts run alone (src/run/rl-parts.ts), one engine, one process. */
async function benchParts(flags: Record<string, unknown>, log: (s: string) => void): Promise<RlPartsResult> {
  const rung = parseRungFlag(flags.rung);
  const backend = await acquireBackend(parseBackendChoice(flags.backend), { threads: flags.threads as number | undefined });
  try {
    log(`backend: ${backend.description}`);
    log(`RL step of the magic preset${rung ? ` at the ${rung} rung` : ''} from its base, and its parts alone: ${flags['rl-parts']} rounds (round 1 warm-up)`);
    const r = await benchRlParts(backend, { rounds: flags['rl-parts'] as number, rung, log });
    log('');
    for (const l of rlPartsTable(r.report)) log(l);
    log(`replay exact: gen ${r.replay_exact.gen}, update_actor ${r.replay_exact.update_actor}`);
    if (flags.json) replaceFileWhole(String(flags.json), JSON.stringify(r, null, 2) + '\n');
    return r;
  } finally {
    backend.destroy();
  }
}

async function benchRlSteps(backend: Backend, n: number, log: (s: string) => void, rung?: RungName): Promise<NonNullable<BenchResult['rl_step']>> {
  const config = getPreset('magic', rung);
  const checkpoint = shippedBaseFor(config);
  const trainer = await MagicTrainer.create(backend, { ...config, eval: { ...config.eval, everySteps: 0 } }, { checkpoint });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await trainer.trainStep();
    times.push(r.record['perf/step_s']);
    log(`  rl step ${i + 1}/${n}: ${r.record['perf/step_s'].toFixed(2)} s`);
  }
  trainer.destroy();
  return { preset: 'magic', steps: n, median_s: median(times.slice(1)), first_s: times[0] };
}

async function benchBackend(flags: Record<string, unknown>, choice: BackendChoice, log: (s: string) => void): Promise<BenchResult> {
  const kv = flags.config ? parseKeyValues(String(flags.config), CONFIG_KEYS, '--config') : {};
  const rung = parseRungFlag(flags.rung);
  const c = { ...(rung ? rungBenchConfig(rung) : DEFAULT_BENCH), ...kv };
  if (c.batch < 1) throw new UsageError('--config: batch must be at least 1');
  const steps = (flags.steps as number | undefined) ?? 10;
  let cfg;
  try {
    cfg = validateModelConfig({ vocabSize: c.vocab, contextLength: c.ctx, nLayers: c.layers, dModel: c.dModel, nHeads: c.heads, mlpRatio: c.mlpRatio });
  } catch (e) {
    throw new UsageError(`--config: ${(e as Error).message}`);
  }
  const matmulVariant = parseMatmulVariant(flags['matmul-variant']);
  const backend = await acquireBackend(choice, { threads: flags.threads as number | undefined, matmulVariant });
  try {
    if (matmulVariant !== 'auto' && backend.name !== 'webgpu' && !flags.compare) throw new UsageError(`--matmul-variant ${matmulVariant}: only the WebGPU engine has matmul variants (this bench is on ${backend.description})`);
    log(`backend: ${backend.description}`);
    const result = await benchEngine(backend, { config: c, model: cfg, steps });
    const B = c.batch;
    const T = c.ctx;
    const { matmul } = result;
    const { median_ms: stepMs } = result.train_step;
    const { median_ms: sampleMs, tokens: generated } = result.sampling;
    // The CLI's JSON keeps the keys it always had: the page's extras (per-shape figures, model GFLOP/s) stay in the page's export.
    delete matmul.per_shape;
    delete result.train_step.gflops;
    delete result.sampling.decode_steps;
    delete result.sampling.gflops;
    const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3));
    log(`model: ${Object.entries(c).map(([k, v]) => `${k}=${v}`).join(',')} (${result.params} parameters)`);
    log('');
    log('| measure | value |');
    log('| --- | --- |');
    log(`| matmul, all ${matmul.shapes} train-step shapes | ${f(matmul.gflops)} GFLOP/s |`);
    log(`| matmul, largest shape ${matmul.largest.shape} | ${f(matmul.largest.gflops)} GFLOP/s |`);
    if (matmul.variants) for (const [v, g] of Object.entries(matmul.variants)) log(`| WebGPU matmul variant ${v}, all shapes | ${f(g)} GFLOP/s${v === matmul.chosen ? ' (fastest)' : ''}${v === matmul.used ? ' (used)' : ''} |`);
    log(`| train_step (fwd + GRPO loss + bwd + AdamW), ${B}×${T} tokens | ${f(stepMs)} ms median, ${f(result.train_step.tokens_per_s)} tokens/s |`);
    log(`| sampling, ${B} sequences, up to ${T - 1} tokens each (${generated} generated) | ${f(result.sampling.tokens_per_s)} tokens/s (${f(sampleMs)} ms) |`);
    const rl = flags['rl-steps'] as number | undefined;
    if (rl) {
      result.rl_step = await benchRlSteps(backend, rl, log, rung);
      log(`| RL step, magic preset${rung ? ` at the ${rung} rung` : ''} from the shipped base (median of steps 2–${rl}) | ${f(result.rl_step.median_s)} s (first ${f(result.rl_step.first_s)} s) |`);
    }
    return result;
  } finally {
    backend.destroy();
  }
}

/** The bench's model at a ladder rung: the rung's policy shape, the bench's default batch. */
export function rungBenchConfig(rung: RungName): typeof DEFAULT_BENCH {
  const m = rungBaseConfig(rung).model;
  return { vocab: m.vocabSize, ctx: m.contextLength, dModel: m.dModel, layers: m.nLayers, heads: m.nHeads, mlpRatio: m.mlpRatio, batch: DEFAULT_BENCH.batch };
}
