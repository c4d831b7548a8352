/**
 * The findings the lab tries to reproduce: the seven of shared/MAGIC-RECIPE.md ("Findings worth
 * reproducing at small scale"), adaptive entropy control vs its no-control twin, MAGIC vs vanilla
 * GRPO (recipes), and rejection sampling vs none. Each
 * names the presets it runs, the paper's claim (quoted), the checks that decide it (metric,
 * arms, direction) and the rule in words, so a report prints exactly what was computed.
 *
 * Verdict of one check (stats.ts): reproduced when the paper's direction holds and the 95%
 * interval excludes 0; contradicted when the opposite holds likewise; inconclusive otherwise.
 * Equivalence checks use a margin instead of 0. A finding with several checks is reproduced when
 * all are, contradicted when all are (the same agreement), inconclusive otherwise; each check's
 * direction and interval are printed. A finding with premises (what its runs must show first, e.g.
 * that the no-control twin's entropy collapses, or that every run measured its entropy at τ = 1.0)
 * reads 'not-testable' when one fails, whatever its checks say. Evaluation: finding-eval.ts.
 */
import { COVERAGE_FINDING } from './coverage';
import type { Check, Finding } from './finding-types';
import { ENTROPY_MEAN_STEPS, HELD_OUT_ENTROPY } from './run-metrics';

export type { Check, Finding, Premise } from './finding-types';
export { checkLabel, evaluateCheck, evaluateFinding, evaluatePremise, premiseNeed, type CheckResult, type FindingData, type FindingResult, type PremiseResult } from './finding-eval';

/** The fields vanilla GRPO changes from magic (presets.ts; the -tiny base has the offline filter off already). */
const GRPO_FIELDS = ['data.offlineFilter.enabled', 'data.onlineFilter', 'loss.aggregation', 'loss.entropy.mode', 'loss.kl.beta', 'rejection.mode'];

const SOURCE_FINDINGS = 'shared/MAGIC-RECIPE.md, "Findings worth reproducing at small scale"';

export const FINDINGS: readonly Finding[] = [
  {
    id: 'collapse-hurts',
    title: '1. Faster entropy collapse ↔ worse test performance',
    claim: '1. Faster entropy collapse ↔ worse test performance.',
    source: SOURCE_FINDINGS,
    presets: ['magic', 'grpo', 'temp-0.6', 'off-policy-nsgd4', 'const-entropy-small'],
    premises: [
      {
        kind: 'measured',
        presets: ['magic', 'grpo', 'temp-0.6', 'off-policy-nsgd4', 'const-entropy-small'],
        metric: HELD_OUT_ENTROPY,
        says: 'every run measured its entropy at one temperature, τ = 1.0 (val/entropy/t1.0 in its in-run held-out evaluations)',
      },
    ],
    checks: [
      {
        kind: 'correlation',
        within: true,
        presets: ['magic', 'grpo', 'temp-0.6', 'off-policy-nsgd4', 'const-entropy-small'],
        x: HELD_OUT_ENTROPY,
        y: 'final/avg/t1.0',
        direction: 1,
        says: 'within a preset, runs whose entropy at τ = 1.0 stays higher (collapses slower) end more accurate',
      },
    ],
    shows: ['entropy/mean'],
    rule:
      'Premise: every run of magic, grpo, temp-0.6, off-policy-nsgd4 and const-entropy-small measured its entropy at τ = 1.0 — the mean of ' +
      'val/entropy/t1.0, the token-mean entropy of the policy at τ = 1.0 on its own samples of the held-out problems, over its in-run ' +
      'evaluations after step 0 (lower = faster collapse) — whatever its rollout temperature (temp-0.6\'s actor/entropy is at τ = 0.6, another ' +
      'scale); otherwise the finding is not testable here and the report says which runs lack it. Check: Pearson r between that entropy ' +
      'and the final precise avg@k at τ = 1.0 within presets — each preset\'s runs centred on their own means, so differences between ' +
      'presets (which differ in more than collapse speed) do not count — over every run (5 presets × N seeds), with a Fisher-z 95% ' +
      'interval on n − 5 − 2 degrees of freedom (a partial correlation given the preset). With the premise shown: reproduced when r > 0 ' +
      'and the interval excludes 0; contradicted when r < 0 likewise; inconclusive otherwise.',
  },
  {
    id: 'temperature',
    title: '2. τ = 0.6 collapses; τ = 1.0 wins later',
    claim: '2. τ = 0.6 collapses; τ = 1.0 wins later.',
    detail: { section: 'Training strategy', quote: 'τ = 0.6 starts near-zero entropy and learning stalls; τ = 1.0 is lower early, higher late.' },
    source: SOURCE_FINDINGS,
    presets: ['magic', 'temp-0.6'],
    checks: [
      { kind: 'paired', a: 'magic', b: 'temp-0.6', metric: 'entropy/second_half', direction: 1, says: 'entropy (at the rollout temperature) ends higher at τ = 1.0', differIn: ['rollout.temperature'] },
      { kind: 'paired', a: 'magic', b: 'temp-0.6', metric: 'final/avg/t1.0', direction: 1, says: 'τ = 1.0 rollouts end more accurate', differIn: ['rollout.temperature'] },
    ],
    rule:
      'magic and temp-0.6 differ only in rollout.temperature (checked before running). Paired over seeds, magic (τ = 1.0) − temp-0.6: (a) mean actor/entropy over the second half of the run > 0, ' +
      '(b) final precise avg@k at τ = 1.0 > 0. Each check: reproduced when its paired 95% t interval lies above 0, ' +
      'contradicted when below 0. Reproduced when both are; contradicted when both are; inconclusive otherwise. (a) compares each ' +
      'preset\'s entropy at its own rollout temperature, the distribution it learns from: the claim is about that entropy.',
  },
  {
    id: 'off-policy',
    title: '3. Off-policy (N_SGD > 1) collapses entropy faster than on-policy',
    claim: '3. Off-policy (N_SGD > 1) collapses entropy faster than on-policy.',
    detail: { section: 'Training strategy', quote: 'Off-policy updates (N_SGD = 2–4 via more mini-batches or data reuse) collapse entropy within a few steps and test worse.' },
    source: SOURCE_FINDINGS,
    presets: ['magic', 'off-policy-nsgd4'],
    checks: [{ kind: 'paired', a: 'magic', b: 'off-policy-nsgd4', metric: 'entropy/mean', direction: 1, says: 'on-policy keeps a higher mean entropy over the run', differIn: ['update.miniBatches'] }],
    rule:
      'magic and off-policy-nsgd4 differ only in update.miniBatches (checked before running). Paired over seeds, magic (N_SGD = 1) − off-policy-nsgd4 (N_SGD = 4): the whole-run mean of actor/entropy (a faster ' +
      'collapse lowers it) > 0. Reproduced when the paired 95% t interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
  {
    id: 'entropy-coef',
    title: '4. A constant entropy coefficient is fragile; adaptive control holds the target',
    claim: '4. Entropy loss is very sensitive to its coefficient and to the data: small constant → still collapses; large constant → entropy explodes; adaptive control holds it near the target.',
    source: SOURCE_FINDINGS,
    presets: ['const-entropy-small', 'const-entropy-large', 'magic'],
    premises: [{ kind: 'collapse', preset: 'const-entropy-small', atLeast: 0.6, says: 'a small constant coefficient still lets entropy collapse, in most seeds' }],
    checks: [
      { kind: 'target', preset: 'const-entropy-large', metric: 'entropy/second_half', direction: 1, says: 'a large constant coefficient ends above the target' },
      { kind: 'target', preset: 'magic', metric: 'entropy/min10_after_ramp', direction: 1, targetFraction: 0.9, says: "adaptive control holds the 10-step mean at or above 0.9 × the target once its ramp is over" },
    ],
    shows: ['entropy/ramp_end', 'entropy/min10'],
    rule:
      'Premise: const-entropy-small collapses — its 10-step mean actor/entropy falls below the entropy target of the preset\'s config and stays ' +
      'below for at least 50 consecutive steps (docs/sweeps.md) — in at least 60% of its seeds (3 of 5); otherwise the finding is not testable ' +
      'here and the report gives the evidence. Checks, per preset over its seeds, by the one-sample 95% Student-t interval: (a) ' +
      'const-entropy-large: mean actor/entropy over the second half of the run (steps > S/2) − the target, above 0; (b) magic: the lowest ' +
      '10-step mean after the controller\'s ramp window − 0.9 × the target, above 0. The ramp window is read from magic\'s own config: c starts ' +
      'at c₀ and climbs by Δ a step while entropy is below the target, so it needs ⌈(c_max − c₀)/Δ⌉ steps (with the small rung\'s c₀ = 0, Δ = 0.02 and c_max = 0.5: 25 steps) ' +
      'from the first step whose entropy fell below the target (the step before the logged actor/entropy_coeff first rises) to reach c_max; ' +
      'only 10-step means whose ' + ENTROPY_MEAN_STEPS + ' steps all lie after that window count (entropy/ramp_end, entropy/min10_after_ramp). ' +
      '(b) is one-sided: the controller only stops entropy from falling below the target, so sitting above it is by design and no upper band ' +
      'applies; only the lower bound decides (a one-sided test at 2.5%), and it is contradicted when the whole interval lies below 0. With ' +
      'the premise shown: reproduced when both checks are; contradicted when both are; inconclusive otherwise.',
  },
  {
    id: 'kl',
    title: '5. KL stalls later-stage gains',
    claim: '5. KL stalls later-stage gains.',
    detail: { section: 'Loss', quote: 'KL (token-level k3, β = 1e-3) stalled stage-2 gains.' },
    source: SOURCE_FINDINGS,
    presets: ['magic', 'kl-on'],
    checks: [{ kind: 'paired', a: 'magic', b: 'kl-on', metric: 'final/avg/t1.0', direction: 1, says: 'without the KL term the run ends more accurate', differIn: ['stages[1].klBeta'] }],
    rule:
      'kl-on differs from magic only by β = 1e-3 in the later stage (stages[1].klBeta, checked before running), so with the same seed the first stage is the same run and ' +
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
      { kind: 'equivalence', a: 'magic', b: 'single-stage', metric: 'final/avg/t1.0', margin: 0.03, says: 'final accuracy within ±3 points', differIn: ['stages'] },
      { kind: 'paired', a: 'single-stage', b: 'magic', metric: 'tokens', direction: 1, says: 'the single long stage costs more tokens', differIn: ['stages'] },
    ],
    rule:
      'magic and single-stage differ only in stages (checked before running). Paired over seeds: (a) equivalence — the 95% t interval of magic − single-stage in final precise avg@k at τ = 1.0 lies ' +
      'inside ±3 points (two one-sided tests at 2.5%; contradicted when it lies entirely outside ±3); (b) cost — single-stage − ' +
      'magic in tokens processed (generated + trained) has its 95% interval above 0. Reproduced when both hold; contradicted ' +
      'when both are contradicted; inconclusive otherwise.',
  },
  {
    id: 'clip-high',
    title: '7. Clip-high: moderate values slow collapse; too high blows entropy up',
    claim: '7. Clip-high: moderate values slow collapse; too high blows entropy up.',
    detail: { section: 'Loss', quote: 'The paper\'s ablation found ε_high 0.25–0.265 helpful off-policy and 0.28 (DAPO\'s value) harmful: entropy blew up.' },
    source: SOURCE_FINDINGS,
    presets: ['off-policy-nsgd4', 'clip-high-0.25', 'clip-high-0.28'],
    checks: [
      { kind: 'paired', a: 'clip-high-0.25', b: 'off-policy-nsgd4', metric: 'entropy/second_half', direction: 1, says: 'ε_high 0.25 keeps entropy higher than 0.2 (off-policy, N_SGD = 4)', differIn: ['loss.epsHigh'] },
      { kind: 'paired', a: 'clip-high-0.28', b: 'clip-high-0.25', metric: 'entropy/second_half', direction: 1, says: 'ε_high 0.28 pushes entropy higher still', differIn: ['loss.epsHigh'] },
    ],
    rule:
      'All three presets are off-policy with N_SGD = 4 and differ only in ε_high (0.2, 0.25, 0.28; loss.epsHigh, checked before running). Paired over seeds, in ' +
      'second-half mean actor/entropy: (a) clip-high-0.25 − off-policy-nsgd4 > 0, (b) clip-high-0.28 − clip-high-0.25 > 0, each ' +
      'by its 95% t interval. Reproduced when both hold; contradicted when both are contradicted; inconclusive otherwise.',
  },
  {
    id: 'entropy-control',
    title: 'Adaptive entropy control prevents collapse, and collapse costs accuracy',
    claim: 'Its central lesson: premature entropy collapse hurts; keep the policy exploring.',
    source: 'shared/MAGIC-RECIPE.md, introduction',
    detail: { section: 'Findings worth reproducing at small scale', quote: 'small constant → still collapses; large constant → entropy explodes; adaptive control holds it near the target.' },
    presets: ['magic', 'entropy-off'],
    premises: [
      { kind: 'collapse', preset: 'entropy-off', atLeast: 0.8, says: 'without the controller entropy collapses' },
      { kind: 'collapse', preset: 'magic', atMost: 0, says: 'with the controller it never does' },
    ],
    checks: [
      { kind: 'paired', a: 'magic', b: 'entropy-off', metric: 'final/avg/t1.0', direction: 1, says: 'the controlled run ends more accurate', differIn: ['loss.entropy'] },
      { kind: 'paired', a: 'magic', b: 'entropy-off', metric: 'final/pass/t1.0', direction: 1, says: 'the controlled run ends with a higher pass@k', differIn: ['loss.entropy'] },
    ],
    rule:
      'entropy-off is magic with the entropy term off and nothing else (loss.entropy, checked before running), so the difference is the ' +
      'controller\'s. Premise: entropy-off collapses — its 10-step mean actor/entropy falls below the entropy target and stays below for at ' +
      'least 50 consecutive steps (docs/sweeps.md) — in at least 80% of its seeds (4 of 5), while magic collapses in none; otherwise the ' +
      'finding is not testable here and the report gives the evidence. Checks, paired over seeds (same base, data, test set and eval seed), ' +
      'magic − entropy-off at the final checkpoint: (a) precise avg@k at τ = 1.0 above 0, (b) precise pass@k at τ = 1.0 above 0, each by its ' +
      '95% Student-t interval (contradicted when it lies below 0). With the premise shown: reproduced when both checks are; contradicted when ' +
      'both are (the same agreement); inconclusive otherwise.',
  },
  {
    id: 'magic-vs-grpo',
    title: 'MAGIC vs vanilla GRPO (a comparison of recipes)',
    claim: 'Its central lesson: premature entropy collapse hurts; keep the policy exploring.',
    source: 'shared/MAGIC-RECIPE.md, introduction',
    presets: ['magic', 'grpo'],
    premises: [{ kind: 'collapse', preset: 'grpo', atLeast: 0.6, says: "vanilla GRPO's entropy collapses prematurely" }],
    checks: [
      {
        kind: 'paired',
        a: 'magic',
        b: 'grpo',
        metric: 'gain/avg/t1.0',
        direction: 1,
        says: 'the MAGIC recipe gains more held-out accuracy than the vanilla GRPO recipe (recipes: six fields differ)',
        differIn: GRPO_FIELDS,
      },
    ],
    rule:
      'This compares two recipes, not the entropy controller: grpo differs from magic in six fields (data.offlineFilter.enabled, ' +
      'data.onlineFilter, loss.aggregation, loss.entropy.mode, loss.kl.beta, rejection.mode; checked before running), so a difference cannot ' +
      'be laid on any one of them (entropy-control isolates the controller). Premise: grpo collapses — its 10-step mean actor/entropy falls ' +
      'below the entropy target and stays below for at least 50 consecutive steps (docs/sweeps.md) — in at least 60% of its seeds (3 of 5); ' +
      'otherwise "premature collapse hurts" is not testable here and the report gives the evidence. Check: paired over seeds (same base, ' +
      'data, test set and eval seed), magic − grpo in the gain of precise avg@k at τ = 1.0 (final − start): reproduced when the 95% t ' +
      'interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
  {
    id: 'rejection',
    title: 'Rejection sampling vs none',
    claim: 'Rejection sampling: drop groups whose rewards are all equal (zero advantage) — they give no policy gradient but still weigh on entropy/KL terms. Skywork drops without refilling',
    source: 'shared/MAGIC-RECIPE.md, "Data"',
    presets: ['magic', 'no-rejection'],
    checks: [{ kind: 'paired', a: 'magic', b: 'no-rejection', metric: 'final/avg/t1.0', direction: 1, says: 'dropping zero-advantage groups ends more accurate', differIn: ['rejection.mode'] }],
    rule:
      'magic and no-rejection differ only in rejection.mode (checked before running). Paired over seeds, magic (drops zero-advantage groups) − no-rejection (keeps them in the token mean) in final precise ' +
      'avg@k at τ = 1.0: reproduced when the 95% t interval lies above 0; contradicted when below 0; inconclusive otherwise.',
  },
  // Its own module (src/sweep/coverage.ts): the rule, the regime and its symmetric combination.
  COVERAGE_FINDING,
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

