/**
 * The findings the lab tries to reproduce: the seven of shared/MAGIC-RECIPE.md ("Findings worth
 * reproducing at small scale"), MAGIC vs vanilla GRPO, and rejection sampling vs none. Each
 * names the presets it runs, the paper's claim (quoted), the checks that decide it (metric,
 * arms, direction) and the rule in words, so a report prints exactly what was computed.
 *
 * Verdict of one check (stats.ts): reproduced when the paper's direction holds and the 95%
 * interval excludes 0; contradicted when the opposite holds likewise; inconclusive otherwise.
 * Equivalence checks use a margin instead of 0. A finding with several checks is reproduced when
 * all are, contradicted when any is, inconclusive otherwise.
 */
import {
  combineVerdicts,
  correlationInterval,
  directionalVerdict,
  equivalenceVerdict,
  pairedDifference,
  tInterval,
  type Verdict,
} from './stats';
import { metricDef } from './run-metrics';

export type Check =
  /** a − b over the same seeds; the paper says its sign is `direction`. */
  | { kind: 'paired'; a: string; b: string; metric: string; direction: 1 | -1; says: string }
  /** a − b over the same seeds lies within ±margin (metric units, e.g. 0.03 = 3 accuracy points). */
  | { kind: 'equivalence'; a: string; b: string; metric: string; margin: number; says: string }
  /**
   * metric − the preset's entropy target, over its seeds (one-sample t interval): sign
   * `direction`, or for direction 0 within ±marginFraction × target.
   */
  | { kind: 'target'; preset: string; metric: string; direction: 1 | -1 | 0; marginFraction?: number; says: string }
  /** Pearson r between two run metrics over every run of `presets` (Fisher-z interval); the paper says sign `direction`. */
  | { kind: 'correlation'; presets: string[]; x: string; y: string; direction: 1 | -1; says: string };

export interface Finding {
  id: string;
  title: string;
  /** The paper's claim, quoted from shared/MAGIC-RECIPE.md. */
  claim: string;
  /** Where the quote is from. */
  source: string;
  /** A second quote from another section of the same file that says more. */
  detail?: { section: string; quote: string };
  presets: string[];
  checks: Check[];
  /** The decision rule in words (printed by reports). */
  rule: string;
}

const SOURCE_FINDINGS = 'shared/MAGIC-RECIPE.md, "Findings worth reproducing at small scale"';

export const FINDINGS: readonly Finding[] = [
  {
    id: 'collapse-hurts',
    title: '1. Faster entropy collapse ↔ worse test performance',
    claim: '1. Faster entropy collapse ↔ worse test performance.',
    source: SOURCE_FINDINGS,
    presets: ['magic', 'grpo', 'temp-0.6', 'off-policy-nsgd4', 'const-entropy-small'],
    checks: [
      {
        kind: 'correlation',
        presets: ['magic', 'grpo', 'temp-0.6', 'off-policy-nsgd4', 'const-entropy-small'],
        x: 'entropy/mean',
        y: 'final/avg/t1.0',
        direction: 1,
        says: 'runs whose entropy stays higher (collapses slower) end more accurate',
      },
    ],
    rule:
      'Over every run of magic, grpo, temp-0.6, off-policy-nsgd4 and const-entropy-small (5 presets × N seeds), Pearson r between the whole-run mean of actor/entropy ' +
      '(lower = faster collapse) and the final precise avg@k at τ = 1.0, with a Fisher-z 95% interval. ' +
      'Reproduced: r > 0 and the interval excludes 0; contradicted: r < 0 likewise; inconclusive otherwise. ' +
      'The correlation pools presets, as the paper compares experiments.',
  },
  {
    id: 'temperature',
    title: '2. τ = 0.6 collapses; τ = 1.0 wins later',
    claim: '2. τ = 0.6 collapses; τ = 1.0 wins later.',
    detail: { section: 'Training strategy', quote: 'τ = 0.6 starts near-zero entropy and learning stalls; τ = 1.0 is lower early, higher late.' },
    source: SOURCE_FINDINGS,
    presets: ['magic', 'temp-0.6'],
    checks: [
      { kind: 'paired', a: 'magic', b: 'temp-0.6', metric: 'entropy/second_half', direction: 1, says: 'entropy (at the rollout temperature) ends higher at τ = 1.0' },
      { kind: 'paired', a: 'magic', b: 'temp-0.6', metric: 'final/avg/t1.0', direction: 1, says: 'τ = 1.0 rollouts end more accurate' },
    ],
    rule:
      'Paired over seeds, magic (τ = 1.0) − temp-0.6: (a) mean actor/entropy over the second half of the run > 0, ' +
      '(b) final precise avg@k at τ = 1.0 > 0. Each check: reproduced when its paired 95% t interval lies above 0, ' +
      'contradicted when below 0. Reproduced when both are; contradicted when either is; inconclusive otherwise.',
  },
  {
    id: 'off-policy',
    title: '3. Off-policy (N_SGD > 1) collapses entropy faster than on-policy',
    claim: '3. Off-policy (N_SGD > 1) collapses entropy faster than on-policy.',
    detail: { section: 'Training strategy', quote: 'Off-policy updates (N_SGD = 2–4 via more mini-batches or data reuse) collapse entropy within a few steps and test worse.' },
    source: SOURCE_FINDINGS,
    presets: ['magic', 'off-policy-nsgd4'],
    checks: [{ kind: 'paired', a: 'magic', b: 'off-policy-nsgd4', metric: 'entropy/mean', direction: 1, says: 'on-policy keeps a higher mean entropy over the run' }],
    rule:
      'Paired over seeds, magic (N_SGD = 1) − off-policy-nsgd4 (N_SGD = 4): the whole-run mean of actor/entropy (a faster ' +
      'collapse lowers it) > 0. Reproduced when the paired 95% t interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
  {
    id: 'entropy-coef',
    title: '4. A constant entropy coefficient is fragile; adaptive control holds the target',
    claim: '4. Entropy loss is very sensitive to its coefficient and to the data: small constant → still collapses; large constant → entropy explodes; adaptive control holds it near the target.',
    source: SOURCE_FINDINGS,
    presets: ['const-entropy-small', 'const-entropy-large', 'magic'],
    checks: [
      { kind: 'target', preset: 'const-entropy-small', metric: 'entropy/second_half', direction: -1, says: 'a small constant coefficient ends below the target' },
      { kind: 'target', preset: 'const-entropy-large', metric: 'entropy/second_half', direction: 1, says: 'a large constant coefficient ends above the target' },
      { kind: 'target', preset: 'magic', metric: 'entropy/second_half', direction: 0, marginFraction: 0.2, says: 'adaptive control ends within ±20% of the target' },
    ],
    rule:
      'Per preset, over its seeds, the one-sample 95% t interval of (second-half mean actor/entropy − the entropy target of the ' +
      'preset\'s config): const-entropy-small below 0, const-entropy-large above 0, and for magic inside ±20% of the target ' +
      '(equivalence: contradicted when the interval lies entirely outside that band). Reproduced when all three hold; ' +
      'contradicted when any is contradicted; inconclusive otherwise.',
  },
  {
    id: 'kl',
    title: '5. KL stalls later-stage gains',
    claim: '5. KL stalls later-stage gains.',
    detail: { section: 'Loss', quote: 'KL (token-level k3, β = 1e-3) stalled stage-2 gains.' },
    source: SOURCE_FINDINGS,
    presets: ['magic', 'kl-on'],
    checks: [{ kind: 'paired', a: 'magic', b: 'kl-on', metric: 'final/avg/t1.0', direction: 1, says: 'without the KL term the run ends more accurate' }],
    rule:
      'kl-on differs from magic only by β = 1e-3 in the later stage, so with the same seed the first stage is the same run and ' +
      'the final difference is the difference of later-stage gains. Paired over seeds, magic − kl-on in final precise avg@k at ' +
      'τ = 1.0: reproduced when the 95% t interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
  {
    id: 'multi-stage',
    title: '6. Multi-stage ≈ single long stage in accuracy, at far lower cost',
    claim: '6. Multi-stage ≈ single long stage in accuracy, at far lower cost.',
    source: SOURCE_FINDINGS,
    presets: ['magic', 'single-stage'],
    checks: [
      { kind: 'equivalence', a: 'magic', b: 'single-stage', metric: 'final/avg/t1.0', margin: 0.03, says: 'final accuracy within ±3 points' },
      { kind: 'paired', a: 'single-stage', b: 'magic', metric: 'tokens', direction: 1, says: 'the single long stage costs more tokens' },
    ],
    rule:
      'Paired over seeds: (a) equivalence — the 95% t interval of magic − single-stage in final precise avg@k at τ = 1.0 lies ' +
      'inside ±3 points (two one-sided tests at 2.5%; contradicted when it lies entirely outside ±3); (b) cost — single-stage − ' +
      'magic in tokens processed (generated + trained) has its 95% interval above 0. Reproduced when both hold; contradicted ' +
      'when either is contradicted; inconclusive otherwise.',
  },
  {
    id: 'clip-high',
    title: '7. Clip-high: moderate values slow collapse; too high blows entropy up',
    claim: '7. Clip-high: moderate values slow collapse; too high blows entropy up.',
    detail: { section: 'Loss', quote: 'The paper\'s ablation found ε_high 0.25–0.265 helpful off-policy and 0.28 (DAPO\'s value) harmful: entropy blew up.' },
    source: SOURCE_FINDINGS,
    presets: ['off-policy-nsgd4', 'clip-high-0.25', 'clip-high-0.28'],
    checks: [
      { kind: 'paired', a: 'clip-high-0.25', b: 'off-policy-nsgd4', metric: 'entropy/second_half', direction: 1, says: 'ε_high 0.25 keeps entropy higher than 0.2 (off-policy, N_SGD = 4)' },
      { kind: 'paired', a: 'clip-high-0.28', b: 'clip-high-0.25', metric: 'entropy/second_half', direction: 1, says: 'ε_high 0.28 pushes entropy higher still' },
    ],
    rule:
      'All three presets are off-policy with N_SGD = 4 and differ only in ε_high (0.2, 0.25, 0.28). Paired over seeds, in ' +
      'second-half mean actor/entropy: (a) clip-high-0.25 − off-policy-nsgd4 > 0, (b) clip-high-0.28 − clip-high-0.25 > 0, each ' +
      'by its 95% t interval. Reproduced when both hold; contradicted when either is contradicted; inconclusive otherwise.',
  },
  {
    id: 'magic-vs-grpo',
    title: 'MAGIC vs vanilla GRPO',
    claim: 'Its central lesson: premature entropy collapse hurts; keep the policy exploring.',
    source: 'shared/MAGIC-RECIPE.md, introduction',
    presets: ['magic', 'grpo'],
    checks: [{ kind: 'paired', a: 'magic', b: 'grpo', metric: 'gain/avg/t1.0', direction: 1, says: 'MAGIC gains more held-out accuracy than vanilla GRPO' }],
    rule:
      'Paired over seeds (same base, data, test set and eval seed), magic − grpo in the gain of precise avg@k at τ = 1.0 ' +
      '(final − start): reproduced when the 95% t interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
  {
    id: 'rejection',
    title: 'Rejection sampling vs none',
    claim: 'Rejection sampling: drop groups whose rewards are all equal (zero advantage) — they give no policy gradient but still weigh on entropy/KL terms. Skywork drops without refilling',
    source: 'shared/MAGIC-RECIPE.md, "Data"',
    presets: ['magic', 'no-rejection'],
    checks: [{ kind: 'paired', a: 'magic', b: 'no-rejection', metric: 'final/avg/t1.0', direction: 1, says: 'dropping zero-advantage groups ends more accurate' }],
    rule:
      'Paired over seeds, magic (drops zero-advantage groups) − no-rejection (keeps them in the token mean) in final precise ' +
      'avg@k at τ = 1.0: reproduced when the 95% t interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
];

export function findingIds(): string[] {
  return FINDINGS.map((f) => f.id);
}

export function getFinding(id: string): Finding | undefined {
  return FINDINGS.find((f) => f.id === id);
}

/** Every metric id a check refers to (for validation). */
export function checkMetrics(c: Check): string[] {
  return c.kind === 'correlation' ? [c.x, c.y] : [c.metric];
}

/** Every preset a check needs. */
export function checkPresets(c: Check): string[] {
  switch (c.kind) {
    case 'paired':
    case 'equivalence':
      return [c.a, c.b];
    case 'target':
      return [c.preset];
    case 'correlation':
      return c.presets;
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation of a finding on measured runs

/** Per preset: seed → run metric values; and the preset's entropy target (from its config). */
export interface FindingData {
  runs: ReadonlyMap<string, ReadonlyMap<number, Record<string, number>>>;
  entropyTarget: ReadonlyMap<string, number>;
}

export interface CheckResult {
  check: Check;
  /** Words: what was computed. */
  describe: string;
  /** Seeds (or runs, for correlations) that entered. */
  n: number;
  /** Point estimate: mean difference, mean offset from the target, or r. */
  estimate: number;
  lower: number;
  upper: number;
  /** For target checks: the target it was measured against. */
  target?: number;
  /** For equivalence checks: the margin in metric units. */
  margin?: number;
  verdict: Verdict;
}

export interface FindingResult {
  finding: string;
  checks: CheckResult[];
  verdict: Verdict;
}

function metricOf(data: FindingData, preset: string, metric: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [seed, values] of data.runs.get(preset) ?? []) out.set(seed, values[metric] ?? NaN);
  return out;
}

export function evaluateCheck(c: Check, data: FindingData): CheckResult {
  switch (c.kind) {
    case 'paired': {
      const d = pairedDifference(metricOf(data, c.a, c.metric), metricOf(data, c.b, c.metric));
      return {
        check: c,
        describe: `${c.a} − ${c.b} in ${metricDef(c.metric).label}, paired over ${d.n} seeds (Student-t 95%); paper: ${c.direction > 0 ? '> 0' : '< 0'}`,
        n: d.n,
        estimate: d.mean,
        lower: d.lower,
        upper: d.upper,
        verdict: directionalVerdict(c.direction, d),
      };
    }
    case 'equivalence': {
      const d = pairedDifference(metricOf(data, c.a, c.metric), metricOf(data, c.b, c.metric));
      return {
        check: c,
        describe: `${c.a} − ${c.b} in ${metricDef(c.metric).label}, paired over ${d.n} seeds (Student-t 95%); paper: within ±${c.margin}`,
        n: d.n,
        estimate: d.mean,
        lower: d.lower,
        upper: d.upper,
        margin: c.margin,
        verdict: equivalenceVerdict(d, c.margin),
      };
    }
    case 'target': {
      const target = data.entropyTarget.get(c.preset) ?? NaN;
      const iv = tInterval([...metricOf(data, c.preset, c.metric).values()].map((x) => x - target));
      const margin = c.direction === 0 ? (c.marginFraction ?? 0.2) * target : undefined;
      return {
        check: c,
        describe: `${c.preset}: ${metricDef(c.metric).label} − target ${Number.isFinite(target) ? target : '?'}, over ${iv.n} seeds (Student-t 95%); paper: ${c.direction > 0 ? '> 0' : c.direction < 0 ? '< 0' : `within ±${margin === undefined ? '?' : +margin.toFixed(4)}`}`,
        n: iv.n,
        estimate: iv.mean,
        lower: iv.lower,
        upper: iv.upper,
        target,
        margin,
        verdict: c.direction === 0 ? (Number.isFinite(margin!) ? equivalenceVerdict(iv, margin!) : 'inconclusive') : directionalVerdict(c.direction, iv),
      };
    }
    case 'correlation': {
      const xs: number[] = [];
      const ys: number[] = [];
      for (const p of c.presets) {
        for (const [, values] of data.runs.get(p) ?? []) {
          xs.push(values[c.x] ?? NaN);
          ys.push(values[c.y] ?? NaN);
        }
      }
      const r = correlationInterval(xs, ys);
      return {
        check: c,
        describe: `Pearson r(${metricDef(c.x).label}, ${metricDef(c.y).label}) over ${r.n} runs of ${c.presets.join(', ')} (Fisher-z 95%); paper: ${c.direction > 0 ? 'r > 0' : 'r < 0'}`,
        n: r.n,
        estimate: r.r,
        lower: r.lower,
        upper: r.upper,
        verdict: directionalVerdict(c.direction, r),
      };
    }
  }
}

export function evaluateFinding(f: Finding, data: FindingData): FindingResult {
  const checks = f.checks.map((c) => evaluateCheck(c, data));
  return { finding: f.id, checks, verdict: combineVerdicts(checks.map((c) => c.verdict)) };
}
