/**
 * Summary from fixture metrics.jsonl files (tests/sweep/fixtures: 2 presets × 3 seeds × 6 steps,
 * evals at steps 0, 3, 6, with hand-computable values), its markdown, the charts (SVG, and PNG
 * through headless Chromium) and the compact reference file.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { curveChartSvg, niceTicks, writeCharts } from '../../src/sweep/charts';
import { parseMetricsJsonl } from '../../src/sweep/run-metrics';
import { readReferenceIndex, referenceFromSummary, writeReference } from '../../src/sweep/reference';
import type { RunResult } from '../../src/sweep/runner';
import { computeRunMetrics } from '../../src/sweep/run-metrics';
import { aggregateCurves, buildSummary, summaryJson, toJson, type SummarySpec } from '../../src/sweep/summary';
import { summaryMarkdown } from '../../src/sweep/summary-markdown';

const FIX = join(__dirname, 'fixtures');
const T95_2 = 4.302652729911275; // t_{0.975, 2}

const spec: SummarySpec = {
  presets: ['magic', 'grpo'],
  seeds: [1, 2, 3],
  steps: 6,
  minutes: null,
  config: null,
  backend: 'wasm',
  threads: null,
  evalProblems: 256,
  evalK: 8,
  evalTemperatures: [1, 0.6],
  base: null,
  runs: 'runs',
};

function precise(avg1: number, avg06: number) {
  return { record: { 'val/avg@8/t1.0': avg1, 'val/avg@8/t0.6': avg06, 'val/pass@8/t1.0': 0.6, 'val/response_length/clip_ratio/t1.0': 0.03 }, problems: 256, k: 8, seed: 0 };
}

function fixtureRuns(): RunResult[] {
  const runs: RunResult[] = [];
  for (const preset of ['magic', 'grpo']) {
    for (const seed of [1, 2, 3]) {
      runs.push({
        preset,
        seed,
        dir: `runs/${preset}/seed-${seed}`,
        config: { ...getPreset(preset), seed },
        metricsText: readFileSync(join(FIX, `${preset}-seed-${seed}.metrics.jsonl`), 'utf8'),
        start: precise(0.2 + 0.001 * seed, 0.3),
        // magic gains 0.15 + 0.01·seed, grpo 0.05 + 0.02·seed (paired difference 0.10 − 0.01·seed).
        final: precise(0.2 + 0.001 * seed + (preset === 'magic' ? 0.15 + 0.01 * seed : 0.05 + 0.02 * seed), 0.32),
        device: 'CPU engine (test)',
      });
    }
  }
  return runs;
}

const summary = () => buildSummary({ spec, command: 'magic-lab sweep --presets magic,grpo --seeds 3 --steps 6 --out X', presets: ['magic', 'grpo'], planned: 6, runs: fixtureRuns() });

describe('summary from fixture metrics.jsonl', () => {
  it('parses step and eval records; a record written twice counts once', () => {
    const m = parseMetricsJsonl(readFileSync(join(FIX, 'magic-seed-2.metrics.jsonl'), 'utf8'));
    expect(m.steps.map((r) => r.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(m.evals.map((r) => r.step)).toEqual([0, 3, 6]);
    expect(parseMetricsJsonl(readFileSync(join(FIX, 'magic-seed-1.metrics.jsonl'), 'utf8')).steps[0]['response_length/clip_ratio']).toBeNaN();
  });

  it('per-run metrics: entropy halves, area under the held-out curve, truncation, tokens, time, precise accuracies and their SE', () => {
    const s = summary();
    const r = s.runs.find((x) => x.preset === 'magic' && x.seed === 2)!;
    expect(r.values['entropy/first_half']).toBeCloseTo(0.26 + 0.02, 12); // steps 1–3: 0.30 − 0.02·i + 0.01·s
    expect(r.values['entropy/second_half']).toBeCloseTo(0.2 + 0.02, 12); // steps 4–6
    // Against magic's target: steps 4–6 have entropy 0.24, 0.22, 0.20.
    const tgt = getPreset('magic').loss.entropy.target;
    expect(r.values['entropy/target_rmsd']).toBeCloseTo(Math.sqrt(((0.24 - tgt) ** 2 + (0.22 - tgt) ** 2 + (0.2 - tgt) ** 2) / 3), 12);
    expect(r.values['entropy/below_target']).toBe(0);
    const m2 = parseMetricsJsonl(readFileSync(join(FIX, 'magic-seed-2.metrics.jsonl'), 'utf8'));
    const at = (entropyTarget?: number) => computeRunMetrics({ preset: 'magic', seed: 2, metrics: m2, start: null, final: precise(0.3, 0.3), entropyTarget }).values;
    expect(at(0.21)['entropy/below_target']).toBeCloseTo(1 / 3, 12); // 0.20 of 0.24, 0.22, 0.20
    expect(at(undefined)['entropy/target_rmsd']).toBeNaN();
    expect(r.values['auc/avg/t1.0']).toBeCloseTo(0.3 + 0.0075 * 2, 12); // trapezoid over 0, 3, 6 ÷ 6
    expect(r.values['auc/avg/t0.6']).toBeCloseTo(0.35, 12);
    expect(r.values.tokens).toBe(12000);
    expect(r.values.wall_s).toBe(12);
    expect(r.values.steps).toBe(6);
    expect(r.values['gain/avg/t1.0']).toBeCloseTo(0.17, 12);
    expect(r.se['final/avg/t1.0']).toBeCloseTo(Math.sqrt((0.372 * 0.628) / 2048), 12);
    expect(r.se['gain/avg/t1.0']).toBeCloseTo(Math.hypot(Math.sqrt((0.202 * 0.798) / 2048), Math.sqrt((0.372 * 0.628) / 2048)), 12);
    // seed 1 of magic has no clip ratio at step 1: the mean is over the steps that have one.
    expect(s.runs.find((x) => x.preset === 'magic' && x.seed === 1)!.values['truncation/mean']).toBeCloseTo(0.1, 12);
    expect(r.entropyWindows.map((w) => [w.from, w.to])).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6]]);
  });

  it('per preset: mean and Student-t interval over seeds; bootstrap beside it', () => {
    const m = summary().presets.magic.metrics['gain/avg/t1.0'];
    expect(m.n).toBe(3);
    expect(m.mean).toBeCloseTo(0.17, 12);
    expect(m.sd).toBeCloseTo(0.01, 12);
    expect(m.upper - m.mean).toBeCloseTo((T95_2 * 0.01) / Math.sqrt(3), 10);
    expect(m.bootLower).toBeGreaterThanOrEqual(0.16 - 1e-12);
    expect(m.bootUpper).toBeLessThanOrEqual(0.18 + 1e-12);
    expect(m.values).toEqual({ '1': expect.closeTo(0.16, 12), '2': expect.closeTo(0.17, 12), '3': expect.closeTo(0.18, 12) });
    expect(m.meanRunSE).toBeGreaterThan(0);
  });

  it('paired differences over the same seeds', () => {
    const pr = summary().pairs[0];
    expect([pr.a, pr.b]).toEqual(['magic', 'grpo']);
    const g = pr.metrics['gain/avg/t1.0'];
    expect(g.diffs.map((d) => +d.toFixed(10))).toEqual([0.09, 0.08, 0.07]);
    expect(g.mean).toBeCloseTo(0.08, 12);
    expect(g.lower).toBeCloseTo(0.08 - (T95_2 * 0.01) / Math.sqrt(3), 10);
    const auc = pr.metrics['auc/avg/t1.0'];
    expect(auc.mean).toBeCloseTo(0.065, 12); // (0.3 + 0.0075 s) − (0.245 + 0.0025 s), s = 1..3
  });

  it('curves: mean and pointwise t band over seeds, per-seed values kept', () => {
    const s = summary();
    expect(Object.keys(s.curves)).toEqual(['val/avg@8/t1.0', 'val/avg@8/t0.6', 'actor/entropy', 'actor/entropy_coeff_realized', 'critic/score/mean', 'response_length/mean', 'response_length/clip_ratio']);
    // The page's curves (PAGE_CURVE_KEYS) the runs recorded — here tokens/s only — are kept apart, and summary.json leaves them out.
    expect(Object.keys(s.pageCurves!)).toEqual(['perf/tokens_per_s']);
    expect(s.pageCurves!['perf/tokens_per_s'].magic.mean[0]).toBe(1000);
    expect(JSON.parse(summaryJson(s)).pageCurves).toBeUndefined();
    expect(JSON.parse(summaryJson(s)).curves).toEqual(JSON.parse(toJson(s.curves)));
    const e = s.curves['actor/entropy'].magic;
    expect(e.steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(e.mean[0]).toBeCloseTo(0.3, 6);
    expect(e.upper[0] - e.mean[0]).toBeCloseTo((T95_2 * 0.01) / Math.sqrt(3), 5);
    expect(e.seeds['3']).toEqual([0.31, 0.29, 0.27, 0.25, 0.23, 0.21].map((x) => expect.closeTo(x, 6)));
    expect(s.curves['val/avg@8/t1.0'].grpo.steps).toEqual([0, 3, 6]);
  });

  it('binning: at most maxPoints, each bin the mean of its steps, common range only', () => {
    const steps = Array.from({ length: 200 }, (_, i) => i + 1);
    const b = aggregateCurves(
      [
        { seed: 1, steps, values: steps.map((x) => x) },
        { seed: 2, steps: steps.slice(0, 150), values: steps.slice(0, 150).map((x) => x + 2) },
      ],
      50,
    );
    expect(b.steps.length).toBe(50); // 150 common steps in bins of ceil(150/50) = 3
    expect(b.steps[b.steps.length - 1]).toBe(150);
    expect(b.mean[0]).toBeCloseTo((2 + 4) / 2, 12); // bin (0, 3]: means 2 and 4
  });

  it('finds the findings the sweep covers (magic-vs-grpo) and decides them', () => {
    const f = summary().findings;
    expect(f.map((x) => x.finding)).toEqual(['magic-vs-grpo']);
    expect(f[0].checks[0].verdict).toBe('reproduced'); // paired gain 0.08 ± 0.025
    // …but six-step runs cannot show grpo's collapse, the premise of the claim: not testable here.
    expect(f[0].premises![0].holds).toBe(false);
    expect(f[0].verdict).toBe('not-testable');
  });

  it('JSON has null for NaN; markdown prints SE next to every accuracy', () => {
    const s = summary();
    const json = toJson(s);
    expect(json).not.toMatch(/NaN/);
    expect(JSON.parse(json).presets.magic.metrics['start/avg/t1.0'].mean).toBeCloseTo(0.202, 12);
    const md = summaryMarkdown(s);
    expect(md).toMatch(/\| magic \| 2 \| 6 \| 20\.2 ± 0\.9 \| 37\.2 ± 1\.1 \| \+17\.0 ± 1\.4 \|/);
    expect(md).toMatch(/Largest single-run evaluation SE: 1\.1 points \(within the 1\.5-point requirement\)/);
    expect(md).toMatch(/\| magic − grpo \(n=3\) \| .* \|/);
    expect(md).toMatch(/magic-vs-grpo\*\*: not-testable\n  - premise not shown: no run of grpo has 10 steps of entropy/);
  });

  it('markdown: a stage table with each preset\'s limits, truncation and length, only for the stages the runs had', () => {
    const md = summaryMarkdown(summary());
    const [m, g] = [getPreset('magic'), getPreset('grpo')].map((c) => c.stages.map((st) => st.maxResponseLength));
    expect(md).toContain('## Stages: truncation and response length of the training rollouts');
    expect(md).toContain(`| stage 1: limit (tokens) | ${m[0]} | ${g[0]} |`);
    expect(md).toContain(`| stage 2: limit (tokens) | ${m[1] ?? '–'} | ${g[1] ?? '–'} |`);
    // every fixture step truncates 0.1 (magic) or 0.2 (grpo): zero-width intervals
    expect(md).toContain('| stage 2: truncated (%) | 10.0 [10.0, 10.0] | 20.0 [20.0, 20.0] |');
    expect(md).not.toContain('stage 3:');
  });
});

describe('charts', () => {
  it('nice ticks', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(13, 47, 4)).toEqual([20, 30, 40]);
  });

  it('an SVG per curve with a band per preset; PNG through headless Chromium', async () => {
    const s = summary();
    const svg = curveChartSvg([{ name: 'magic', band: s.curves['actor/entropy'].magic }], { title: 'Entropy <x>', yLabel: 'nats', refLines: [{ y: 0.15, label: 'target 0.15' }] });
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('<polygon');
    expect(svg).toContain('Entropy &lt;x&gt;');
    expect(svg).toContain('target 0.15');
    const dir = mkdtempSync(join(tmpdir(), 'sweep-charts-'));
    const charts = await writeCharts(dir, s, { png: existsSync('/usr/bin/chromium') });
    expect(charts.length).toBe(7);
    for (const c of charts) expect(existsSync(join(dir, c.replace(/\.png$/, '.svg')))).toBe(true);
    if (existsSync('/usr/bin/chromium')) {
      expect(charts.every((c) => c.endsWith('.png'))).toBe(true);
      const png = readFileSync(join(dir, 'charts', 'actor-entropy.png'));
      expect([...png.subarray(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(800); // IHDR width
    }
  });
});

describe('reference files', () => {
  it('compact per preset per metric: grid, mean, band and seeds rounded to 4 decimals; index updated', () => {
    const s = summary();
    const dir = mkdtempSync(join(tmpdir(), 'sweep-ref-'));
    const ref = referenceFromSummary(s, { name: 'magic-vs-grpo', title: 'MAGIC vs GRPO', kind: 'finding', result: s.findings[0] });
    const e = ref.presets.magic.curves['actor/entropy'];
    expect(e.steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(e.mean[0]).toBe(0.3);
    expect(e.seeds['1'][5]).toBe(0.19);
    // A page curve (tokens/s here) carries its mean and band, not every seed's curve.
    const tps = ref.presets.magic.curves['perf/tokens_per_s'];
    expect(tps.mean[0]).toBe(1000);
    expect(tps.lower.length).toBe(tps.steps.length);
    expect(tps.seeds).toEqual({});
    expect(ref.presets.grpo.scalars['gain/avg/t1.0'].mean).toBe(0.09);
    expect(ref.verdict).toBe('not-testable');
    expect(ref.premises).toEqual([{ says: "vanilla GRPO's entropy collapses prematurely", holds: false, evidence: s.findings[0].premises![0].evidence }]);
    expect(ref.checks![0].verdict).toBe('reproduced');
    const w = writeReference(dir, ref);
    expect(statSync(w.file).size).toBeLessThan(20_000);
    writeReference(dir, referenceFromSummary(s, { name: 'sweep-a', title: 'a sweep', kind: 'sweep' }));
    writeReference(dir, ref); // rewriting replaces its entry
    expect(readReferenceIndex(dir).entries.map((x) => [x.name, x.kind, x.verdict])).toEqual([
      ['magic-vs-grpo', 'finding', 'not-testable'],
      ['sweep-a', 'sweep', undefined],
    ]);
  });
});
