/**
 * The collapse card's synthetic reference runs (e2e/fixtures/collapse/), made with the real writer
 * (src/sweep/reference.ts referenceFromSummary and writeReference) from made-up per-step curves:
 * `magic` held near the 0.1 target, `entropy-off` falling to ~0.03, 5 seeds × 400 steps, at the
 * small rung. Not a measurement: it stands in for public/reference/entropy-control-small.json until
 * `magic-lab ablate entropy-control --rung small --seeds 5 --reference` ships the real one.
 * tests/ui/collapse-card.test.ts checks the committed files against this (UPDATE_COLLAPSE_FIXTURE=1 rewrites them).
 */
import { referenceFromSummary, type ReferenceFile } from '../../src/sweep/reference';
import type { FindingResult } from '../../src/sweep/finding-eval';
import type { Summary } from '../../src/sweep/summary';

export const FIXTURE_DIR = 'e2e/fixtures/collapse';
const STEPS = 400;
const SEEDS = [101, 102, 103, 104, 105];
const TARGET = 0.1;

/** Deterministic noise in [−1, 1) per (seed, step, stream). */
const noise = (seed: number, step: number, k: number) => {
  let h = (seed * 73856093) ^ (step * 19349663) ^ (k * 83492791);
  h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
  return (((h ^ (h >>> 15)) >>> 0) / 4294967296) * 2 - 1;
};

const curves: Record<string, (seed: number, t: number, i: number) => number> = {
  // magic: from ~0.3 down to the target, then held just above it by the controller.
  'magic|actor/entropy': (s, t, i) => TARGET + 0.004 + 0.2 * Math.exp(-t / (50 + i * 5)) + 0.01 * noise(s, t, 1),
  'magic|actor/entropy_coeff_realized': (s, t, i) => Math.max(0, Math.min(0.5, (t - 120 - i * 10) / 400)) * (1 + 0.2 * noise(s, t, 2)),
  'magic|critic/score/mean': (s, t) => 0.3 + 0.25 * (1 - Math.exp(-t / 150)) + 0.03 * noise(s, t, 3),
  // entropy-off: the same start, falling through the target (~step 110) towards 0.03.
  'entropy-off|actor/entropy': (s, t, i) => 0.03 + 0.27 * Math.exp(-t / (80 + i * 4)) + 0.01 * noise(s, t, 4),
  'entropy-off|actor/entropy_coeff_realized': () => 0,
  'entropy-off|critic/score/mean': (s, t) => 0.3 + 0.2 * (1 - Math.exp(-t / 100)) - 0.05 * Math.max(0, (t - 200) / 200) + 0.03 * noise(s, t, 5),
};

/** The fixture as the writer makes it (name entropy-control-small, rung small). */
export function collapseFixture(): ReferenceFile {
  const presets = ['magic', 'entropy-off'];
  const steps = Array.from({ length: STEPS }, (_, i) => i + 1);
  const summaryCurves: Summary['curves'] = {};
  for (const [key, f] of Object.entries(curves)) {
    const [preset, metric] = key.split('|');
    const seeds = Object.fromEntries(SEEDS.map((seed, i) => [String(seed), steps.map((t) => Math.round(f(seed, t, i) * 1e6) / 1e6)]));
    (summaryCurves[metric] ??= {})[preset] = { steps, mean: [], lower: [], upper: [], n: [], seeds };
  }
  const summary = {
    command: 'synthetic fixture (tests/ui/collapse-fixture.ts), not a run',
    sweep: { steps: STEPS, minutes: null, backend: 'wasm', evalProblems: 256, evalK: 8 },
    presets: Object.fromEntries(presets.map((p) => [p, { seeds: SEEDS, entropyTarget: TARGET, metrics: {} }])),
    curves: summaryCurves,
  } as unknown as Summary;
  const result: FindingResult = { finding: 'entropy-control', checks: [], verdict: 'inconclusive', because: 'synthetic fixture' };
  return referenceFromSummary(summary, {
    name: 'entropy-control',
    kind: 'finding',
    title: 'Adaptive entropy control prevents collapse (synthetic fixture)',
    claim: 'Synthetic fixture for the collapse card\'s tests; not a measurement.',
    rule: 'none: a fixture',
    result,
    rung: 'small',
  });
}
