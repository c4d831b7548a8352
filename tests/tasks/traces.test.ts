import { describe, it, expect } from 'vitest';
import { Rng } from '../../src/util/rng';
import {
  CONCISE_STYLE,
  encodePrompt,
  encodeResponse,
  FAMILIES,
  FAMILY_NAMES,
  maxPromptTokens,
  maxResponseTokens,
} from '../../src/tasks/index';
import { DEFAULT_MODEL_CONFIG } from '../../src/model/config';

/** The default model's context: prompt + response must fit in it. */
const DEFAULT_CONTEXT = DEFAULT_MODEL_CONFIG.contextLength;

const seqLen = (prompt: string, response: string) => encodePrompt(prompt).length + encodeResponse(response).length;

describe.each(FAMILY_NAMES)('%s traces', (name) => {
  const family = FAMILIES[name];

  it('concise style {0,0} is correct for every difficulty', () => {
    const rng = new Rng(101);
    for (let d = 1; d <= family.maxDifficulty; d++) {
      for (let i = 0; i < 300; i++) {
        const p = family.generate(rng, d);
        const t = family.trace(p, rng, CONCISE_STYLE);
        expect(family.verify(p, t), `${p.prompt} ${t}`).toBe(1);
        expect(() => encodeResponse(t)).not.toThrow();
      }
    }
  });

  it('wrongStepRate 1 ends on a wrong answer', () => {
    const rng = new Rng(202);
    let accepted = 0;
    for (let i = 0; i < 600; i++) {
      const p = family.generate(rng, 1 + (i % 3));
      const t = family.trace(p, rng, { wrongStepRate: 1, verboseRate: 0 });
      expect(() => encodeResponse(t)).not.toThrow();
      accepted += family.verify(p, t);
    }
    expect(accepted).toBe(0);
  });

  it('an intermediate wrongStepRate gives a mix of right and wrong traces', () => {
    const rng = new Rng(303);
    let accepted = 0;
    const n = 600;
    for (let i = 0; i < n; i++) {
      const p = family.generate(rng, 2);
      accepted += family.verify(p, family.trace(p, rng, { wrongStepRate: 0.3, verboseRate: 0 }));
    }
    // Accepted ≈ (1 − 0.3)^(slippable steps): multiply at difficulty 2 has 5 (0.7^5 ≈ 0.17).
    const [lo, hi] = name === 'multiply' ? [0.08, 0.3] : [0.3, 0.8];
    expect(accepted / n).toBeGreaterThan(lo);
    expect(accepted / n).toBeLessThan(hi);
  });

  it('verbose traces stay correct but get longer, overrunning a short length limit', () => {
    const rng = new Rng(404);
    const problems = Array.from({ length: 300 }, () => family.generate(rng, 2));
    const concise = problems.map((p) => encodeResponse(family.trace(p, rng, CONCISE_STYLE)).length);
    const verbose = problems.map((p) => family.trace(p, rng, { wrongStepRate: 0, verboseRate: 1 }));
    // A limit every concise response meets: the longest of them.
    const limit = Math.max(...concise);
    let overLimit = 0;
    let overContext = 0;
    verbose.forEach((v, i) => {
      expect(family.verify(problems[i], v)).toBe(1);
      expect(encodeResponse(v).length).toBeGreaterThan(concise[i]);
      if (encodeResponse(v).length > limit) overLimit++;
      if (seqLen(problems[i].prompt, v) > DEFAULT_CONTEXT) overContext++;
    });
    expect(overLimit).toBeGreaterThan(problems.length / 2);
    // Countdown's longer steps push some verbose traces past the whole 64-token context.
    if (name === 'countdown') expect(overContext).toBeGreaterThan(0);
  });

  it('the same rng state reproduces the same trace', () => {
    const p = family.generate(new Rng(7), 3);
    const style = { wrongStepRate: 0.5, verboseRate: 0.5 };
    expect(family.trace(p, new Rng(8), style)).toBe(family.trace(p, new Rng(8), style));
  });

  it('rejects invalid styles', () => {
    const p = family.generate(new Rng(7), 1);
    expect(() => family.trace(p, new Rng(1), { wrongStepRate: 1.5, verboseRate: 0 })).toThrow(/wrongStepRate/);
    expect(() => family.trace(p, new Rng(1), { wrongStepRate: 0, verboseRate: NaN })).toThrow(/verboseRate/);
  });
});

describe('token budget', () => {
  it.each(FAMILY_NAMES)('%s: prompt + concise response fit 64 tokens (BOS and EOS included) at difficulty ≤ 2', (name) => {
    const family = FAMILIES[name];
    const rng = new Rng(505);
    for (const d of [1, 2]) {
      let longest = 0;
      for (let i = 0; i < 3000; i++) {
        const p = family.generate(rng, d);
        const len = seqLen(p.prompt, family.trace(p, rng, CONCISE_STYLE));
        longest = Math.max(longest, len);
        expect(len, p.prompt).toBeLessThanOrEqual(DEFAULT_CONTEXT);
        expect(encodeResponse(family.trace(p, new Rng(0), CONCISE_STYLE)).length).toBeLessThanOrEqual(
          maxResponseTokens(DEFAULT_CONTEXT, name, d),
        );
      }
      expect(longest).toBeGreaterThan(5);
    }
  });

  it.each(FAMILY_NAMES)('%s: maxPromptTokens bounds every prompt and is attained', (name) => {
    const family = FAMILIES[name];
    const rng = new Rng(606);
    for (let d = 1; d <= family.maxDifficulty; d++) {
      const bound = maxPromptTokens(name, d);
      let longest = 0;
      for (let i = 0; i < 1000; i++) longest = Math.max(longest, encodePrompt(family.generate(rng, d).prompt).length);
      expect(longest).toBeLessThanOrEqual(bound);
      expect(longest).toBeGreaterThanOrEqual(bound - 3); // the bound is not wildly loose
    }
  });

  it('maxPromptTokens of a mixture is the largest member', () => {
    expect(maxPromptTokens('addition', 2)).toBe(7);
    expect(maxPromptTokens('arith', 2)).toBe(9);
    expect(maxPromptTokens('countdown', 2)).toBe(13);
    expect(maxPromptTokens(['addition', 'arith'], 2)).toBe(9);
    expect(maxPromptTokens(['addition', 'countdown'], { addition: 5, countdown: 1 })).toBe(13);
    expect(maxResponseTokens(64, ['addition', 'countdown', 'arith'], 2)).toBe(51);
    expect(() => maxPromptTokens(['addition'], { arith: 2 })).toThrow(/no difficulty given for task family "addition"/);
    expect(() => maxResponseTokens(10, 'countdown', 2)).toThrow(/no room/);
  });
});
