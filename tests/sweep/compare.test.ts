/** Two sweeps paired by seed: B − A per metric with its t interval, what differs, and the CLI's errors. */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { getPreset } from '../../src/rl/config';
import { compareSweeps, comparisonMarkdown } from '../../src/sweep/compare';
import type { RunResult } from '../../src/sweep/runner';
import { tQuantile } from '../../src/sweep/stats';
import { buildSummary, toJson, type Summary, type SummarySpec } from '../../src/sweep/summary';

const FIX = join(__dirname, 'fixtures');
const spec = (backend: string): SummarySpec => ({
  presets: ['magic'],
  seeds: [1, 2, 3],
  steps: 6,
  minutes: null,
  config: null,
  backend,
  threads: null,
  evalProblems: 256,
  evalK: 8,
  evalTemperatures: [1, 0.6],
  base: null,
  runs: 'runs',
});

/** magic × seeds 1–3 from the fixtures; `shift(seed)` is added to the final τ = 1.0 accuracy. */
function sweepOf(backend: string, shift: (seed: number) => number, device: string): Summary {
  const runs: RunResult[] = [1, 2, 3].map((seed) => ({
    preset: 'magic',
    seed,
    dir: `runs/magic/seed-${seed}`,
    config: { ...getPreset('magic'), seed },
    metricsText: readFileSync(join(FIX, `magic-seed-${seed}.metrics.jsonl`), 'utf8'),
    start: { record: { 'val/avg@8/t1.0': 0.2, 'val/avg@8/t0.6': 0.3 }, problems: 256, k: 8, seed },
    final: { record: { 'val/avg@8/t1.0': 0.3 + 0.01 * seed + shift(seed), 'val/avg@8/t0.6': 0.35 }, problems: 256, k: 8, seed },
    device,
  }));
  return buildSummary({ spec: spec(backend), command: 'x', presets: ['magic'], planned: 3, runs });
}

describe('compare two sweeps', () => {
  it('pairs by seed: B − A with its Student-t interval; within noise when it covers 0', () => {
    const a = sweepOf('webgpu', () => 0, 'SwiftShader');
    // B gains 0.02, 0.03, 0.04 more: mean 0.03, sd 0.01 → 0.03 ± t(0.975, 2)·0.01/√3.
    const b = sweepOf('wasm', (s) => 0.01 + 0.01 * s, 'CPU engine');
    const c = compareSweeps(a, b, 'A', 'B');
    expect(c.differences).toEqual(['backend: webgpu → wasm', 'device: SwiftShader → CPU engine']);
    const gain = c.presets.magic.find((r) => r.id === 'gain/avg/t1.0')!;
    expect(gain.seeds).toEqual([1, 2, 3]);
    expect(gain.diff).toBeCloseTo(0.03, 12);
    const half = (tQuantile(0.975, 2) * 0.01) / Math.sqrt(3);
    expect(gain.lower).toBeCloseTo(0.03 - half, 10);
    expect(gain.upper).toBeCloseTo(0.03 + half, 10);
    expect(gain.withinNoise).toBe(false);
    const start = c.presets.magic.find((r) => r.id === 'start/avg/t1.0')!;
    expect(start.diff).toBe(0);
    expect(start.withinNoise).toBe(true);
    // Shifts that straddle 0 are within noise.
    const c2 = compareSweeps(a, sweepOf('wasm', (s) => [0.01, -0.012, 0.004][s - 1], 'CPU engine'), 'A', 'B');
    expect(c2.presets.magic.find((r) => r.id === 'gain/avg/t1.0')!.withinNoise).toBe(true);
    const md = comparisonMarkdown(c);
    expect(md).toContain('What differs: backend: webgpu → wasm');
    expect(md).toMatch(/\| gain avg@k τ = 1\.0 \| 12\.0% \| 15\.0% \| \+3\.0% \[\+0\.5%, \+5\.5%\] \| differs \|/);
  });

  it('refuses sweeps with nothing in common; the CLI names the flag and exits 2', async () => {
    const a = sweepOf('webgpu', () => 0, 'x');
    const b = { ...sweepOf('wasm', () => 0, 'y'), presets: {}, runs: [] } as Summary;
    expect(() => compareSweeps(a, b, 'A', 'B')).toThrow(/share no finished preset × seed/);
    const root = mkdtempSync(join(tmpdir(), 'compare-'));
    for (const [name, s] of [['a', a], ['b', b]] as const) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'summary.json'), toJson(s));
    }
    mkdirSync(join(root, 'junk'));
    writeFileSync(join(root, 'junk', 'summary.json'), '{"x": 1}');
    const cases: [string[], RegExp][] = [
      [['compare', '--a', join(root, 'a')], /--a DIR and --b DIR are required/],
      [['compare', '--a', join(root, 'a'), '--b', join(root, 'nope')], /--b: .*nope.summary\.json does not exist/],
      [['compare', '--a', join(root, 'junk'), '--b', join(root, 'a')], /--a: .* is not a sweep summary/],
      [['compare', '--a', join(root, 'a'), '--b', join(root, 'b')], /compare: the sweeps share no finished preset/],
    ];
    for (const [argv, re] of cases) {
      const errs: string[] = [];
      expect(await main(argv, () => {}, (e) => errs.push(e)), argv.join(' ')).toBe(2);
      expect(errs).toHaveLength(1);
      expect(errs[0]).toMatch(re);
    }
    const out = join(root, 'cmp.md');
    expect(await main(['compare', '--a', join(root, 'a'), '--b', join(root, 'a'), '--out', out], () => {})).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('The sweeps have the same settings.');
  });
});
