/** The findings registry: presets exist, claims are quotes, checks are well-formed, and each check kind decides as its rule says. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/rl/config';
import { checkMetrics, checkPresets, evaluateCheck, evaluateFinding, FINDINGS, getFinding, type FindingData } from '../../src/sweep/findings';
import { RUN_METRIC_IDS } from '../../src/sweep/run-metrics';

const RECIPE = ['../shared/MAGIC-RECIPE.md', 'shared/MAGIC-RECIPE.md'].find((f) => existsSync(f));
const norm = (s: string) => s.replace(/\*\*/g, '').replace(/\s+/g, ' ');

describe('findings registry', () => {
  it('has the seven findings of MAGIC-RECIPE.md, magic-vs-grpo and rejection, with unique ids', () => {
    const ids = FINDINGS.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(['collapse-hurts', 'temperature', 'off-policy', 'entropy-coef', 'kl', 'multi-stage', 'clip-high', 'magic-vs-grpo', 'rejection']);
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

  it.skipIf(!RECIPE)('claims quote shared/MAGIC-RECIPE.md word for word', () => {
    const text = norm(readFileSync(RECIPE!, 'utf8'));
    for (const f of FINDINGS) {
      expect(text, f.id).toContain(norm(f.claim));
      if (f.detail) expect(text, `${f.id} detail`).toContain(norm(f.detail.quote));
    }
  });
});

function data(runs: Record<string, Record<number, Record<string, number>>>, target = 0.15): FindingData {
  return {
    runs: new Map(Object.entries(runs).map(([p, bySeed]) => [p, new Map(Object.entries(bySeed).map(([s, v]) => [Number(s), v]))])),
    entropyTarget: new Map(Object.keys(runs).map((p) => [p, target])),
  };
}

const seeds = [1, 2, 3, 4, 5];
const arm = (f: (s: number) => Record<string, number>) => Object.fromEntries(seeds.map((s) => [s, f(s)]));

describe('finding evaluation', () => {
  it('paired: magic-vs-grpo reproduced, contradicted, inconclusive', () => {
    const f = getFinding('magic-vs-grpo')!;
    const grpo = arm((s) => ({ 'gain/avg/t1.0': 0.05 + 0.01 * s }));
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

  it('target: entropy-coef needs small below, large above and adaptive near the target', () => {
    const f = getFinding('entropy-coef')!;
    const e = (x: number) => arm((s) => ({ 'entropy/second_half': x + 0.002 * s }));
    expect(evaluateFinding(f, data({ 'const-entropy-small': e(0.05), 'const-entropy-large': e(0.5), magic: e(0.144) })).verdict).toBe('reproduced');
    const res = evaluateFinding(f, data({ 'const-entropy-small': e(0.05), 'const-entropy-large': e(0.5), magic: e(0.3) }));
    expect(res.checks.map((c) => c.verdict)).toEqual(['reproduced', 'reproduced', 'contradicted']);
    expect(res.verdict).toBe('contradicted');
    expect(res.checks[2].margin).toBeCloseTo(0.03, 12);
  });

  it('equivalence + cost: multi-stage', () => {
    const f = getFinding('multi-stage')!;
    const magic = arm((s) => ({ 'final/avg/t1.0': 0.35 + 0.01 * s, tokens: 1e6 + s }));
    const single = arm((s) => ({ 'final/avg/t1.0': 0.351 + 0.01 * s + (s % 2) * 0.002, tokens: 1.6e6 + 3 * s }));
    expect(evaluateFinding(f, data({ magic, 'single-stage': single })).verdict).toBe('reproduced');
    const far = arm((s) => ({ 'final/avg/t1.0': 0.25 + 0.01 * s + (s % 2) * 0.002, tokens: 1.6e6 + 3 * s }));
    expect(evaluateFinding(f, data({ magic, 'single-stage': far })).checks[0].verdict).toBe('contradicted');
  });

  it('correlation: collapse-hurts over every run of its presets', () => {
    const f = getFinding('collapse-hurts')!;
    const runs: Record<string, Record<number, Record<string, number>>> = {};
    f.presets.forEach((p, i) => {
      runs[p] = arm((s) => {
        const ent = 0.05 + 0.03 * i + 0.004 * s;
        return { 'entropy/mean': ent, 'final/avg/t1.0': 0.2 + ent + (s % 2) * 0.01 };
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
