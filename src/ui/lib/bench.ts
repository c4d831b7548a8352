/**
 * The Benchmark view's pure part: the rows of its table from a `bench-result` (each row names the
 * field of the JSON it shows, so the table and the download cannot disagree), the download itself
 * (`magic-lab bench --json`'s keys plus the page's: schema, mode, measured_at) and its check.
 * The schema is documented in BENCHMARKS.md ("In the page").
 */
import { modelParameterCount, rungOf, type RunConfig } from '../../rl/config';
import type { BenchModelName, BenchModelSpec, BenchResult } from '../../worker/protocol';
import { formatParams } from './rungs';

export const BENCH_SCHEMA = 'magic-lab-bench/1';
export type BenchMode = 'quick' | 'thorough';

/** The downloaded JSON: the CLI's result keys, and where and how the page measured them. */
export type BenchExport = BenchResult & { schema: typeof BENCH_SCHEMA; source: 'page'; mode: BenchMode; measured_at: string };

export interface BenchRow {
  /** The kernel family or measure. */
  family: string;
  label: string;
  /** Where the value is in the JSON: a dotted path (array indices as numbers). */
  path: string;
  value: number;
  unit: 'GFLOP/s' | 'tokens/s' | 'ms' | 'of peak';
  note?: string;
}

/** What the Benchmark view times: the draft's model (the rung the page is on, or a hand-made shape), named. */
export function benchModelOf(draft: Pick<RunConfig, 'model'>, preset: string): BenchModelSpec {
  const rung = rungOf(draft);
  return { config: draft.model, name: { name: rung ? `${rung} rung` : 'off the rung ladder', rung, preset } };
}

/** "tiny rung (magic), 105K parameters"; a result without a model name timed the bench model. */
export function describeBenchModel(name: BenchModelName | undefined, params: number): string {
  return `${name ? `${name.name} (${name.preset})` : 'the bench model'}, ${formatParams(params)} parameters`;
}

/** The view's line before a measurement: what it will time. */
export const benchModelPreview = (draft: Pick<RunConfig, 'model'>, preset: string) => describeBenchModel(benchModelOf(draft, preset).name, modelParameterCount(draft.model));

export function benchExport(r: BenchResult, mode: BenchMode, measuredAt: Date): BenchExport {
  return { schema: BENCH_SCHEMA, source: 'page', mode, measured_at: measuredAt.toISOString(), ...r };
}

/** The value at a dotted path of the export (undefined where there is none). */
export function valueAt(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** The table's rows, in the order shown. */
export function benchRows(r: BenchResult): BenchRow[] {
  const rows: BenchRow[] = [];
  const m = r.matmul;
  (m.per_shape ?? []).forEach((s, i) => rows.push({ family: 'matmul', label: `matmul ${s.shape}`, path: `matmul.per_shape.${i}.gflops`, value: s.gflops, unit: 'GFLOP/s' }));
  rows.push({ family: 'matmul', label: `matmul, all ${m.shapes} train-step shapes`, path: 'matmul.gflops', value: m.gflops, unit: 'GFLOP/s', note: 'total FLOP / total time' });
  for (const [v, g] of Object.entries(m.variants ?? {})) {
    const note = [v === m.chosen ? 'chosen (fastest)' : '', v === m.used ? 'used by this engine (its run’s variant)' : ''].filter((x) => x).join('; ');
    rows.push({ family: 'matmul variant', label: `WebGPU matmul ${v}, all shapes`, path: `matmul.variants.${v}`, value: g, unit: 'GFLOP/s', note: note || undefined });
  }
  const { config: c } = r;
  rows.push({ family: 'train step', label: `train step, ${c.batch}×${c.ctx} tokens`, path: 'train_step.tokens_per_s', value: r.train_step.tokens_per_s, unit: 'tokens/s', note: 'forward + GRPO loss + backward + AdamW' });
  rows.push({ family: 'train step', label: 'train step, median', path: 'train_step.median_ms', value: r.train_step.median_ms, unit: 'ms' });
  if (r.train_step.gflops !== undefined) rows.push({ family: 'train step', label: 'train step, model matmul FLOPs', path: 'train_step.gflops', value: r.train_step.gflops, unit: 'GFLOP/s' });
  rows.push({ family: 'sampling', label: `sampling, ${r.sampling.sequences} sequences (${r.sampling.tokens} tokens)`, path: 'sampling.tokens_per_s', value: r.sampling.tokens_per_s, unit: 'tokens/s' });
  if (r.sampling.gflops !== undefined) rows.push({ family: 'sampling', label: 'sampling, model matmul FLOPs', path: 'sampling.gflops', value: r.sampling.gflops, unit: 'GFLOP/s' });
  if (r.peak) rows.push({ family: 'peak', label: `CPU peak, ${r.peak.kernel}, ${r.peak.threads} thread${r.peak.threads === 1 ? '' : 's'}`, path: 'peak.gflops', value: r.peak.gflops, unit: 'GFLOP/s' });
  if (r.efficiency) {
    for (const k of ['matmul', 'train_step', 'sampling'] as const) rows.push({ family: 'efficiency', label: `${k.replace('_', ' ')} of peak`, path: `efficiency.${k}`, value: r.efficiency[k], unit: 'of peak' });
  }
  return rows;
}

/** How a row's value is written in the table. */
export function formatBenchValue(row: Pick<BenchRow, 'value' | 'unit'>): string {
  const x = row.value;
  if (row.unit === 'of peak') return `${(x * 100).toFixed(1)}%`;
  const n = x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toPrecision(3);
  return `${n} ${row.unit}`;
}

/** Checks a parsed download against the schema; throws one error naming the first bad field. */
export function checkBenchExport(obj: unknown): BenchExport {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('bench JSON: expected an object');
  const o = obj as Record<string, unknown>;
  if (o.schema !== BENCH_SCHEMA) throw new Error(`bench JSON: schema must be "${BENCH_SCHEMA}", got ${JSON.stringify(o.schema)}`);
  if (o.backend !== 'webgpu' && o.backend !== 'wasm') throw new Error(`bench JSON: backend must be "webgpu" or "wasm", got ${JSON.stringify(o.backend)}`);
  if (o.mode !== 'quick' && o.mode !== 'thorough') throw new Error(`bench JSON: mode must be "quick" or "thorough", got ${JSON.stringify(o.mode)}`);
  if (typeof o.measured_at !== 'string' || Number.isNaN(Date.parse(o.measured_at))) throw new Error('bench JSON: measured_at must be an ISO date');
  if (typeof o.adapter !== 'string') throw new Error('bench JSON: adapter must be a string');
  if (o.model !== undefined) {
    const m = o.model as Record<string, unknown> | null;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new Error('bench JSON: model must be an object {name, rung, preset}');
    if (typeof m.name !== 'string' || !m.name) throw new Error(`bench JSON: model.name must be a non-empty string, got ${JSON.stringify(m.name)}`);
    if (m.rung !== null && typeof m.rung !== 'string') throw new Error(`bench JSON: model.rung must be a string or null, got ${JSON.stringify(m.rung)}`);
    if (typeof m.preset !== 'string') throw new Error(`bench JSON: model.preset must be a string, got ${JSON.stringify(m.preset)}`);
  }
  for (const p of ['threads', 'params', 'matmul.gflops', 'matmul.shapes', 'train_step.median_ms', 'train_step.tokens_per_s', 'sampling.tokens_per_s', 'sampling.median_ms']) {
    const v = valueAt(o, p);
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`bench JSON: ${p} must be a positive number, got ${JSON.stringify(v)}`);
  }
  for (const row of benchRows(o as unknown as BenchResult)) {
    if (!Number.isFinite(row.value) || row.value <= 0) throw new Error(`bench JSON: ${row.path} must be a positive number, got ${JSON.stringify(row.value)}`);
  }
  return o as unknown as BenchExport;
}

/** The Benchmark view's state: nothing yet, a measurement under way (its part now), its result, or why it failed. */
export type BenchState =
  | { status: 'idle' }
  | { status: 'running'; requestId: number; mode: BenchMode; phase: string; done: number; total: number }
  | { status: 'done'; result: BenchExport }
  | { status: 'error'; message: string };
