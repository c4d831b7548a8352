/** The findings registry: presets exist, claims are quotes, checks are well-formed, and each check kind decides as its rule says. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configDiffPaths, diffOutside, fieldCovers, getPreset, presetNames } from '../../src/rl/config';
import { checkMetrics, checkPresets, evaluateCheck, evaluateFinding, FINDINGS, getFinding, type FindingData } from '../../src/sweep/findings';
import { COLLAPSE_STEPS, HELD_OUT_ENTROPY, RUN_METRIC_IDS } from '../../src/sweep/run-metrics';

const RECIPE = ['../shared/MAGIC-RECIPE.md', 'shared/MAGIC-RECIPE.md'].find((f) => existsSync(f));
const norm = (s: string) => s.replace(/\*\*/g, '').replace(/\s+/g, ' ');

describe('findings registry', () => {
  it('has the seven findings of MAGIC-RECIPE.md, entropy-control, magic-vs-grpo, rejection and coverage, with unique ids', () => {
    const ids = FINDINGS.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(['collapse-hurts', 'temperature', 'off-policy', 'entropy-coef', 'kl', 'multi-stage', 'clip-high', 'entropy-control', 'magic-vs-grpo', 'rejection', 'coverage']);
    FINDINGS.slice(0, 7).forEach((f, i) => expect(f.claim.startsWith(`${i + 1}. `)).toBe(true));
  });

  it('every preset a finding runs exists (fails until the ablation presets are added to src/rl/config.ts)', () => {
    const known = new Set(presetNames());
    const missing = [...new Set(FINDINGS.flatMap((f) => f.presets))].filter((p) => !known.has(p));
    expect(missing, `missing presets: ${missing.join(', ')}`).toEqual([]);
  });

  it('checks use the finding\'s presets and known metrics; every finding states its rule', () => {
    for (const f of FINDINGS) {
      expect(f.checks.length, f.id).toBeGreaterThan(0);
      expect(f.rule.length, f.id).toBeGreaterThan(40);
      for (const c of f.checks) {
        for (const p of checkPresets(c)) expect(f.presets, `${f.id}: ${p}`).toContain(p);
        for (const m of checkMetrics(c)) expect(RUN_METRIC_IDS, `${f.id}: ${m}`).toContain(m);
        for (const p of checkPresets(c)) expect(f.rule, `${f.id} rule names ${p}`).toContain(p);
      }
    }
  });

  it('premises name the finding\'s presets, and the rule states them and what happens when they fail', () => {
    for (const f of FINDINGS.filter((x) => x.premises?.length)) {
      for (const p of f.premises!) {
        for (const preset of p.kind === 'collapse' ? [p.preset] : p.presets) {
          expect(f.presets, `${f.id}: ${preset}`).toContain(preset);
          expect(f.rule, `${f.id} rule names ${preset}`).toContain(preset);
        }
        if (p.kind === 'collapse') expect(f.rule, f.id).toContain(String(COLLAPSE_STEPS));
        else expect(RUN_METRIC_IDS, `${f.id}: ${p.metric}`).toContain(p.metric);
      }
      expect(f.rule, f.id).toMatch(/Premise/);
      expect(f.rule, f.id).toMatch(/not testable here/);
    }
    expect(FINDINGS.filter((f) => f.premises?.length).map((f) => f.id)).toEqual(['collapse-hurts', 'entropy-coef', 'entropy-control', 'magic-vs-grpo', 'coverage']);
  });

  // "These presets differ only in field X" is declared on every paired comparison and holds for the shipped presets.
  const pairedChecks = FINDINGS.flatMap((f) => f.checks.filter((c) => c.kind === 'paired' || c.kind === 'equivalence').map((c) => [f.id, c] as const));
  it.each(pairedChecks.map(([id, c], i) => [`${id} #${i}`, c] as const))('%s declares differIn, and its presets differ only there (full and -tiny)', (_, c) => {
    if (c.kind !== 'paired' && c.kind !== 'equivalence') throw new Error('unreachable');
    expect(c.differIn, c.says).toBeDefined();
    for (const t of ['', '-tiny']) expect(diffOutside(getPreset(c.a + t), getPreset(c.b + t), c.differIn!), `${c.a}${t} vs ${c.b}${t}`).toEqual([]);
    // Not vacuous: every declared field does differ in the full-size presets.
    const diff = configDiffPaths(getPreset(c.a), getPreset(c.b));
    for (const field of c.differIn!) expect(diff.some((p) => fieldCovers(field, p)), `${c.says}: ${field}`).toBe(true);
  });

  it('magic-vs-grpo declares the six fields of the recipes and says it compares recipes, not the controller', () => {
    const f = getFinding('magic-vs-grpo')!;
    const c = f.checks[0];
    expect(c.kind === 'paired' && c.differIn!.length).toBe(6);
    expect(f.rule).toMatch(/compares two recipes, not the entropy controller/);
    expect(f.title).toMatch(/recipes/);
    expect(c.says).toMatch(/recipe/);
  });

  it.skipIf(!RECIPE)('claims quote shared/MAGIC-RECIPE.md word for word', () => {
    const text = norm(readFileSync(RECIPE!, 'utf8'));
    for (const f of FINDINGS) {
      expect(text, f.id).toContain(norm(f.claim));
      if (f.detail) expect(text, `${f.id} detail`).toContain(norm(f.detail.quote));
    }
  });
});

/** A run's collapse metrics: collapsed (below the target for COLLAPSE_STEPS + 20 steps) or not (lowest 10-step mean `min10`, above 0.1). */
function collapse(collapsed: boolean, min10 = 0.12): Record<string, number> {
  return collapsed
    ? { 'entropy/collapsed': 1, 'entropy/min10': 0.05, 'entropy/below_target_longest': COLLAPSE_STEPS + 20 }
    : { 'entropy/collapsed': 0, 'entropy/min10': min10, 'entropy/below_target_longest': min10 < 0.1 ? 10 : 0 };
}

function data(runs: Record<string, Record<number, Record<string, number>>>, target = 0.15): FindingData {
  return {
    runs: new Map(Object.entries(runs).map(([p, bySeed]) => [p, new Map(Object.entries(bySeed).map(([s, v]) => [Number(s), v]))])),
    entropyTarget: new Map(Object.keys(runs).map((p) => [p, target])),
  };
}

const seeds = [1, 2, 3, 4, 5];
const arm = (f: (s: number) => Record<string, number>) => Object.fromEntries(seeds.map((s) => [s, f(s)]));

describe('finding evaluation', () => {
  it('paired: magic-vs-grpo reproduced, contradicted, inconclusive when grpo collapses', () => {
    const f = getFinding('magic-vs-grpo')!;
    const grpo = arm((s) => ({ 'gain/avg/t1.0': 0.05 + 0.01 * s, ...collapse(true) }));
    const better = arm((s) => ({ 'gain/avg/t1.0': 0.15 + 0.01 * s + (s % 2) * 0.005 }));
    const worse = arm((s) => ({ 'gain/avg/t1.0': 0.01 * s + (s % 2) * 0.005 }));
    const noisy = arm((s) => ({ 'gain/avg/t1.0': 0.05 + 0.01 * s + (s % 2 ? 0.1 : -0.1) }));
    expect(evaluateFinding(f, data({ magic: better, grpo })).verdict).toBe('reproduced');
    expect(evaluateFinding(f, data({ magic: worse, grpo })).verdict).toBe('contradicted');
    expect(evaluateFinding(f, data({ magic: noisy, grpo })).verdict).toBe('inconclusive');
    const r = evaluateFinding(f, data({ magic: better, grpo })).checks[0];
    expect(r.n).toBe(5);
    expect(r.estimate).toBeCloseTo(0.1 + (3 * 0.005) / 5, 12); // odd seeds 1, 3, 5 add 0.005
  });

  it('magic-vs-grpo: when grpo does not collapse the verdict is not testable, with the evidence, never contradicted', () => {
    const f = getFinding('magic-vs-grpo')!;
    const grpo = arm((s) => ({ 'gain/avg/t1.0': 0.05 + 0.01 * s, ...collapse(false, 0.2 + 0.002 * s) }));
    const worse = arm((s) => ({ 'gain/avg/t1.0': 0.01 * s + (s % 2) * 0.005 }));
    const res = evaluateFinding(f, data({ magic: worse, grpo }, 0.1));
    expect(res.checks[0].verdict).toBe('contradicted'); // reported, not judged
    expect(res.verdict).toBe('not-testable');
    expect(res.premises![0].holds).toBe(false);
    expect(res.premises![0].evidence).toBe('grpo collapsed in 0 of 5 seeds (the premise needs ≥ 60% of its seeds): its lowest 10-step mean 0.202–0.210 never fell below the target 0.1');
  });

  it('entropy-coef: premise small collapses; large above the target; magic one-sided at ≥ 0.9 × target, no upper band', () => {
    const f = getFinding('entropy-coef')!;
    const small = arm(() => collapse(true));
    const large = arm((s) => ({ 'entropy/second_half': 0.5 + 0.002 * s }));
    const magicAt = (min10: number) => arm((s) => ({ 'entropy/min10_after_ramp': min10 + 0.002 * s, 'entropy/second_half': 1 }));
    // Far above the target is no longer "contradicted": the controller only acts one way.
    expect(evaluateFinding(f, data({ 'const-entropy-small': small, 'const-entropy-large': large, magic: magicAt(0.3) })).verdict).toBe('reproduced');
    expect(evaluateFinding(f, data({ 'const-entropy-small': small, 'const-entropy-large': large, magic: magicAt(0.14) })).verdict).toBe('reproduced');
    const low = evaluateFinding(f, data({ 'const-entropy-small': small, 'const-entropy-large': large, magic: magicAt(0.1) }));
    expect(low.checks[1].describe).toMatch(/lowest 10-step mean after the ramp − 0.9 × target 0.15 \(= 0.135\)/);
    expect(low.checks.map((c) => c.verdict)).toEqual(['reproduced', 'contradicted']);
    // One check against the paper, the other with it: not the agreement a contradiction needs.
    expect(low.verdict).toBe('inconclusive');
    // The small constant holds up: nothing to test.
    const held = evaluateFinding(f, data({ 'const-entropy-small': arm(() => collapse(false, 0.16)), 'const-entropy-large': large, magic: magicAt(0.1) }));
    expect(held.verdict).toBe('not-testable');
    expect(held.premises![0].evidence).toMatch(/^const-entropy-small collapsed in 0 of 5 seeds/);
  });

  it('entropy-control: the twin collapses in ≥ 80% of seeds and magic in none, else not testable', () => {
    const f = getFinding('entropy-control')!;
    expect(f.presets).toEqual(['magic', 'entropy-off']);
    const acc = (x: number) => (s: number) => ({ 'final/avg/t1.0': x + 0.01 * s + (s % 2) * 0.003, 'final/pass/t1.0': x + 0.3 + 0.01 * s + (s % 3) * 0.002 });
    const magic = arm((s) => ({ ...acc(0.45)(s), ...collapse(false) }));
    const twin = (collapsedSeeds: number) => arm((s) => ({ ...acc(0.35)(s), ...collapse(s <= collapsedSeeds) }));
    const ok = evaluateFinding(f, data({ magic, 'entropy-off': twin(4) }, 0.1));
    expect(ok.premises!.map((p) => p.holds)).toEqual([true, true]);
    expect(ok.checks.map((c) => c.verdict)).toEqual(['reproduced', 'reproduced']);
    expect(ok.verdict).toBe('reproduced');
    const three = evaluateFinding(f, data({ magic, 'entropy-off': twin(3) }, 0.1));
    expect(three.verdict).toBe('not-testable');
    expect(three.premises![0].evidence).toMatch(new RegExp(`^entropy-off collapsed in 3 of 5 seeds \\(the premise needs ≥ 80% of its seeds\\): its 10-step mean fell below the target 0.1 in 3 of 5 seeds, for at most ${COLLAPSE_STEPS + 20} consecutive steps`));
    // magic collapsing once breaks the premise too, and a worse magic is then never "contradicted".
    const worse = arm((s) => ({ ...acc(0.2)(s), ...collapse(s === 1) }));
    const res = evaluateFinding(f, data({ magic: worse, 'entropy-off': twin(5) }, 0.1));
    expect(res.checks.map((c) => c.verdict)).toEqual(['contradicted', 'contradicted']);
    expect(res.verdict).toBe('not-testable');
    expect(res.premises![1].evidence).toMatch(/^magic collapsed in 1 of 5 seeds \(the premise needs none of its seeds\)/);
    // No runs at all: the premise is not shown.
    expect(evaluateFinding(f, data({ magic })).premises![0].evidence).toMatch(/^no run of entropy-off has 10 steps of entropy/);
  });

  it('equivalence + cost: multi-stage', () => {
    const f = getFinding('multi-stage')!;
    const magic = arm((s) => ({ 'final/avg/t1.0': 0.35 + 0.01 * s, tokens: 1e6 + s }));
    const single = arm((s) => ({ 'final/avg/t1.0': 0.351 + 0.01 * s + (s % 2) * 0.002, tokens: 1.6e6 + 3 * s }));
    expect(evaluateFinding(f, data({ magic, 'single-stage': single })).verdict).toBe('reproduced');
    const far = arm((s) => ({ 'final/avg/t1.0': 0.25 + 0.01 * s + (s % 2) * 0.002, tokens: 1.6e6 + 3 * s }));
    expect(evaluateFinding(f, data({ magic, 'single-stage': far })).checks[0].verdict).toBe('contradicted');
  });

  it('correlation: collapse-hurts over every run of its presets, within each preset', () => {
    const f = getFinding('collapse-hurts')!;
    const runs: Record<string, Record<number, Record<string, number>>> = {};
    f.presets.forEach((p, i) => {
      runs[p] = arm((s) => {
        const ent = 0.05 + 0.03 * i + 0.004 * s;
        return { [HELD_OUT_ENTROPY]: ent, 'final/avg/t1.0': 0.2 + ent + (s % 2) * 0.001 };
      });
    });
    const r = evaluateCheck(f.checks[0], data(runs));
    expect(r.n).toBe(25);
    expect(r.estimate).toBeGreaterThan(0.9);
    expect(r.verdict).toBe('reproduced');
  });

  it('missing runs make a check inconclusive, never reproduced', () => {
    const f = getFinding('kl')!;
    expect(evaluateFinding(f, data({ magic: arm(() => ({ 'final/avg/t1.0': 0.4 })) })).verdict).toBe('inconclusive');
  });
});
