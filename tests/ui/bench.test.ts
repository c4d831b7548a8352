/** The Benchmark view's pure part (table rows, JSON export and its check), its URL parameter and its controller. */
import { describe, expect, it } from 'vitest';
import { benchControl } from '../../src/ui/controller/bench';
import { getPreset, modelParameterCount } from '../../src/rl/config';
import { BENCH_SCHEMA, benchExport, benchModelOf, benchModelPreview, benchRows, checkBenchExport, describeBenchModel, formatBenchValue, valueAt } from '../../src/ui/lib/bench';
import { formatParams } from '../../src/ui/lib/rungs';
import { benchViewFromUrl, projectorFromUrl, withBenchView } from '../../src/ui/lib/view';
import { createLabStore } from '../../src/ui/store';
import type { BenchResult, EngineSummary, ToWorker } from '../../src/worker/protocol';

const result = (over: Partial<BenchResult> = {}): BenchResult => ({
  backend: 'webgpu',
  adapter: 'WebGPU on SwiftShader (test)',
  threads: 1,
  config: { vocab: 32, ctx: 64, dModel: 64, layers: 2, heads: 4, mlpRatio: 4, batch: 4 },
  params: 103000,
  matmul: {
    gflops: 1.5,
    shapes: 2,
    largest: { shape: '256x256x64', gflops: 2 },
    per_shape: [
      { shape: '256x192x64', flop: 6291456, gflops: 1.2 },
      { shape: '256x256x64', flop: 8388608, gflops: 2 },
    ],
    variants: { blocked4x4: 1.1, tiled64: 1.4 },
    chosen: 'tiled64',
  },
  train_step: { median_ms: 500, tokens_per_s: 512, steps: 3, gflops: 0.4 },
  sampling: { tokens_per_s: 300, sequences: 4, tokens: 200, median_ms: 666, decode_steps: 63, gflops: 0.1 },
  ...over,
});

describe('benchRows', () => {
  it('one row per matmul shape, the all-shapes figure, each WebGPU variant (the chosen marked), train step and sampling; each row names its JSON field', () => {
    const r = result();
    const rows = benchRows(r);
    expect(rows.map((x) => x.path)).toEqual([
      'matmul.per_shape.0.gflops',
      'matmul.per_shape.1.gflops',
      'matmul.gflops',
      'matmul.variants.blocked4x4',
      'matmul.variants.tiled64',
      'train_step.tokens_per_s',
      'train_step.median_ms',
      'train_step.gflops',
      'sampling.tokens_per_s',
      'sampling.gflops',
    ]);
    for (const row of rows) expect(valueAt(r, row.path)).toBe(row.value);
    expect(rows.find((x) => x.path === 'matmul.variants.tiled64')!.note).toMatch(/chosen/);
    expect(rows.find((x) => x.path === 'matmul.variants.blocked4x4')!.note).toBeUndefined();
    // The variant the engine trains with (cached per adapter, or a run's recorded one) can differ from this bench's fastest.
    const used = benchRows(result({ matmul: { ...r.matmul, used: 'blocked4x4' } }));
    expect(used.find((x) => x.path === 'matmul.variants.blocked4x4')!.note).toMatch(/^used/);
    expect(used.find((x) => x.path === 'matmul.variants.tiled64')!.note).toBe('chosen (fastest)');
  });

  it('on the CPU engine: the peak and the efficiency of matmul, train step and sampling against it', () => {
    const r = result({ backend: 'wasm', matmul: { gflops: 10, shapes: 1, largest: { shape: 'a', gflops: 10 } }, peak: { kernel: 'f32x4.mul + f32x4.add', gflops: 40, threads: 2 }, efficiency: { matmul: 0.25, train_step: 0.2, sampling: 0.05 } });
    const rows = benchRows(r);
    expect(rows.filter((x) => x.family === 'matmul variant')).toEqual([]);
    expect(rows.find((x) => x.path === 'peak.gflops')!.label).toContain('2 threads');
    expect(rows.filter((x) => x.unit === 'of peak').map((x) => [x.path, x.value])).toEqual([
      ['efficiency.matmul', 0.25],
      ['efficiency.train_step', 0.2],
      ['efficiency.sampling', 0.05],
    ]);
  });

  it('formats GFLOP/s, tokens/s and shares of peak', () => {
    expect(formatBenchValue({ value: 0.25, unit: 'of peak' })).toBe('25.0%');
    expect(formatBenchValue({ value: 1234.5, unit: 'tokens/s' })).toBe('1235 tokens/s');
    expect(formatBenchValue({ value: 1.234, unit: 'GFLOP/s' })).toBe('1.23 GFLOP/s');
    expect(formatBenchValue({ value: 0.01234, unit: 'GFLOP/s' })).toBe('0.0123 GFLOP/s');
  });
});

describe('the JSON export', () => {
  it("carries the CLI's keys plus schema, source, mode and the time; it passes its own check after a round trip", () => {
    const e = benchExport(result(), 'quick', new Date('2026-12-05T03:00:00Z'));
    expect(e.schema).toBe(BENCH_SCHEMA);
    expect(e.measured_at).toBe('2026-12-05T03:00:00.000Z');
    for (const k of ['backend', 'adapter', 'threads', 'config', 'params', 'matmul', 'train_step', 'sampling']) expect(e).toHaveProperty(k);
    expect(checkBenchExport(JSON.parse(JSON.stringify(e)))).toEqual(e);
  });

  it('names the model it measured: the rung (and preset) the page is on, or the bench model without one', () => {
    const e = benchExport(result({ model: { name: 'small rung', rung: 'small', preset: 'magic' }, params: 830_000 }), 'quick', new Date(0));
    expect(checkBenchExport(JSON.parse(JSON.stringify(e))).model).toEqual({ name: 'small rung', rung: 'small', preset: 'magic' });
    expect(describeBenchModel(e.model, e.params)).toBe('small rung (magic), 0.83M parameters');
    expect(describeBenchModel(undefined, 103_000)).toBe('the bench model, 103K parameters');
    const tiny = getPreset('magic');
    expect(benchModelOf(tiny, 'magic')).toEqual({ config: tiny.model, name: { name: 'tiny rung', rung: 'tiny', preset: 'magic' } });
    expect(benchModelOf(getPreset('magic', 'small'), 'magic').name.rung).toBe('small');
    // A -tiny test twin, or a hand-made shape, is off the ladder and says so.
    expect(benchModelOf(getPreset('magic-tiny'), 'magic-tiny').name).toEqual({ name: 'off the rung ladder', rung: null, preset: 'magic-tiny' });
    expect(benchModelPreview(tiny, 'magic')).toBe(`tiny rung (magic), ${formatParams(modelParameterCount(tiny.model))} parameters`);
  });

  it('refuses a bad file with one error naming the field', () => {
    const good = JSON.parse(JSON.stringify(benchExport(result(), 'thorough', new Date(0))));
    expect(() => checkBenchExport([])).toThrow(/expected an object/);
    expect(() => checkBenchExport({ ...good, schema: 'other' })).toThrow(/schema must be/);
    expect(() => checkBenchExport({ ...good, mode: 'slow' })).toThrow(/mode must be/);
    expect(() => checkBenchExport({ ...good, model: 'tiny' })).toThrow(/model must be an object/);
    expect(() => checkBenchExport({ ...good, model: { name: '', rung: 'tiny', preset: 'magic' } })).toThrow(/model\.name must be/);
    expect(() => checkBenchExport({ ...good, model: { name: 'tiny rung', rung: 3, preset: 'magic' } })).toThrow(/model\.rung must be/);
    expect(() => checkBenchExport({ ...good, train_step: { ...good.train_step, tokens_per_s: 0 } })).toThrow(/train_step\.tokens_per_s must be a positive number/);
    expect(() => checkBenchExport({ ...good, matmul: { ...good.matmul, variants: { blocked4x4: null, tiled64: 1 } } })).toThrow(/matmul\.variants\.blocked4x4 must be a positive number/);
  });
});

describe('view=bench', () => {
  it('opens the Benchmark view; the tab sets and clears it, leaving view=projector alone', () => {
    expect(benchViewFromUrl('?view=bench')).toBe(true);
    expect(benchViewFromUrl('?view=projector')).toBe(false);
    expect(withBenchView('?preset=magic', true)).toBe('?preset=magic&view=bench');
    expect(withBenchView('?preset=magic&view=bench', false)).toBe('?preset=magic');
    expect(withBenchView('?view=projector', false)).toBe('?view=projector');
    expect(projectorFromUrl(withBenchView('?view=projector', false))).toBe(true);
  });
});

describe('benchControl', () => {
  const engine: EngineSummary = { backend: 'wasm', choice: 'auto', description: 'CPU engine (test)', threads: 1, adapter: null, cpuBound: true };

  it('sends one request at a time, follows its progress, stamps the result, and ignores answers to other requests', () => {
    const store = createLabStore();
    const sent: ToWorker[] = [];
    const c = benchControl(store, (m) => sent.push(m), () => new Date('2026-12-05T00:00:00Z'));
    c.run('quick');
    expect(store.getState().bench).toEqual({ status: 'error', message: 'no engine is open yet' });
    store.getState().setDevice({ status: 'ready', engine });
    c.run('quick');
    c.run('thorough');
    // The request carries the model of the rung the page is on (the draft's), named (issue #23).
    const draft = store.getState().draft;
    expect(sent).toEqual([{ type: 'bench', requestId: 1, thorough: false, model: { config: draft.model, name: { name: 'tiny rung', rung: 'tiny', preset: store.getState().preset } } }]);
    c.onMessage({ type: 'bench-progress', requestId: 1, phase: 'train step', done: 3, total: 5 });
    expect(store.getState().bench).toMatchObject({ status: 'running', phase: 'train step', done: 3, total: 5 });
    c.onMessage({ type: 'bench-result', requestId: 99, error: 'not ours' });
    expect(store.getState().bench.status).toBe('running');
    c.onMessage({ type: 'bench-result', requestId: 1, result: result() });
    const b = store.getState().bench;
    expect(b.status === 'done' && b.result.mode).toBe('quick');
    expect(b.status === 'done' && b.result.measured_at).toBe('2026-12-05T00:00:00.000Z');
  });

  it('a Worker error is shown; an engine restart ends a measurement in progress', () => {
    const store = createLabStore();
    const c = benchControl(store, () => undefined);
    store.getState().setDevice({ status: 'ready', engine });
    c.run('quick');
    c.onMessage({ type: 'bench-result', requestId: 1, error: 'device lost' });
    expect(store.getState().bench).toEqual({ status: 'error', message: 'device lost' });
    c.run('thorough');
    store.getState().setDevice({ status: 'starting' });
    expect(store.getState().bench).toEqual({ status: 'error', message: 'the engine was restarted' });
  });
});
