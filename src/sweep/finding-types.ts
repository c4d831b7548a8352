/**
 * What a finding is made of (the registry is findings.ts; evaluation finding-eval.ts): its
 * checks, its premises and the finding itself, as report.json stores them.
 */
import type { RunConfigInput } from '../rl/config';
import type { RungName } from '../rl/config/rungs';

/** Where a finding runs: a partial config over each preset (under any --config) and the precise evaluations' samples per problem. */
export interface FindingRegime {
  config: RunConfigInput;
  /** n: samples per problem of the precise evaluations (pass@k for k up to n; ≥ 16 for pass@16). */
  evalK: number;
  /** Why this regime, in a sentence (printed with the rule). */
  note: string;
  /** The rung it was fixed at (its schedule fits that rung's context): `ablate` runs the finding there only. */
  rung?: RungName;
}

/**
 * `differIn` of a paired or equivalence check: the config fields a and b differ in, and nothing
 * else (a field covers its sub-paths: `loss.entropy` covers `loss.entropy.mode`). `magic-lab
 * ablate` verifies it on the resolved configs before running; a test on the presets as shipped.
 */
export type Check =
  /** a − b over the same seeds; the paper says its sign is `direction`. */
  | { kind: 'paired'; a: string; b: string; metric: string; direction: 1 | -1; says: string; differIn?: string[] }
  /** a − b over the same seeds lies within ±margin (metric units, e.g. 0.03 = 3 accuracy points). */
  | { kind: 'equivalence'; a: string; b: string; metric: string; margin: number; says: string; differIn?: string[] }
  /**
   * metric − targetFraction (default 1) × the preset's entropy target, over its seeds (one-sample
   * t interval): sign `direction`, or for direction 0 within ±marginFraction × target.
   */
  | { kind: 'target'; preset: string; metric: string; direction: 1 | -1 | 0; targetFraction?: number; marginFraction?: number; says: string }
  /**
   * Pearson r between two run metrics over every run of `presets` (Fisher-z interval); the paper
   * says sign `direction`. `within`: each preset's runs centred on their own means first (stats.ts
   * withinCorrelationInterval), so only differences between runs of one preset count, not between
   * presets' levels.
   */
  | { kind: 'correlation'; presets: string[]; x: string; y: string; direction: 1 | -1; says: string; within?: boolean };

/**
 * What a finding's own runs must show before its checks can speak. 'collapse': the share of
 * `preset`'s seeds whose entropy collapses (entropy/collapsed, the criterion of run-metrics.ts) is
 * at least `atLeast` and at most `atMost` (fractions, inclusive). 'measured': every run of
 * `presets` has `metric` (e.g. the entropy at τ = 1.0, which runs evaluated before it was logged
 * lack), so a check never mixes it with another scale or silently drops a preset.
 */
export type Premise =
  | { kind: 'collapse'; preset: string; atLeast?: number; atMost?: number; says: string }
  | { kind: 'measured'; presets: string[]; metric: string; says: string };

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
  /** When one fails in the runs, the verdict is 'not-testable' (with the evidence). */
  premises?: Premise[];
  checks: Check[];
  /** More run metrics its reports tabulate, beside those of its checks and premises (what the rule reads too). */
  shows?: string[];
  /** The decision rule in words (printed by reports): the test, the band, the window, the premise. */
  rule: string;
  /**
   * The config and evaluation the finding runs under (FindingRegime): `ablate` uses it
   * under any --config; a sweep whose --config does not set it evaluates the finding not at all.
   */
  regime?: FindingRegime;
}
