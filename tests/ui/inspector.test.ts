/**
 * The group inspector's pure parts: history bound, group summaries (kept / rejected and why),
 * forking tokens, colour scales with readable text, and softmax at a temperature against a
 * float64 reference.
 */
import { describe, expect, it } from 'vitest';
import type { SampleRecord } from '../../src/rl/trainer-types';
import { entropyOf, softmaxAtTemperature, temperatureViews, topAlternatives } from '../../src/rl/token-probs';
import { advantageScale, contrastRatio, entropyScale, interpolate, maxAdvantage, parseHex, probabilityScale, ratioScale, relativeLuminance, textColourOn, type Rgb } from '../../src/ui/lib/colour';
import {
  addSamples,
  emptyHistory,
  forkingTokens,
  groupsOf,
  HISTORY_OLDER,
  HISTORY_RECENT,
  HISTORY_STRIDE,
  pushHistory,
  sliderSteps,
  groupChipText,
  summarizeGroup,
  type InspectedStep,
} from '../../src/ui/lib/inspector';
import { createLabStore } from '../../src/ui/store';
import { Rng } from '../../src/util/rng';

function sample(p: Partial<SampleRecord>): SampleRecord {
  return { step: 1, group: 0, family: 'addition', prompt: '1+2', response: '3', reward: 0, advantage: 0, truncated: false, kept: false, tokens: ['3'], logp: [-0.1], entropy: [0.2], ...p };
}
/** A group of G responses with these rewards, advantages as the trainer computes them (std-normalised). */
function group(rewards: number[], o: { kept?: boolean; truncated?: boolean[]; advantages?: number[]; step?: number; promptId?: number; watched?: boolean } = {}): SampleRecord[] {
  const G = rewards.length;
  const mean = rewards.reduce((a, r) => a + r, 0) / G;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / (G - 1));
  const allEqual = rewards.every((r) => r === rewards[0]);
  return rewards.map((r, j) =>
    sample({ step: o.step ?? 1, reward: r, advantage: o.advantages?.[j] ?? (allEqual ? 0 : (r - mean) / (std + 1e-6)), kept: o.kept ?? !allEqual, truncated: o.truncated?.[j] ?? false, promptId: o.promptId, watched: o.watched }),
  );
}
const DROP = { rejection: 'drop', truncation: 'none' } as const;

describe('group summary: kept or rejected, and why', () => {
  it('kept: rewards differ', () => {
    const s = summarizeGroup(group([1, 0, 0, 1]), DROP);
    expect(s).toMatchObject({ G: 4, solved: 2, status: 'kept', signal: true, meanReward: 0.5 });
    expect(s.why).toMatch(/^kept: rewards differ \(2 of 4 solved\)/);
  });
  it('rejected: all solved, none solved (with the truncated counted)', () => {
    expect(summarizeGroup(group([1, 1, 1, 1]), DROP)).toMatchObject({ status: 'rejected', why: expect.stringMatching(/all 4 solved — every advantage is 0/) });
    const none = summarizeGroup(group([0, 0, 0, 0], { truncated: [true, false, true, false] }), DROP);
    expect(none).toMatchObject({ status: 'rejected', truncated: 2 });
    expect(none.why).toMatch(/none of 4 solved \(2 truncated, reward 0\)/);
  });
  it('a chip names the status in words: an 8/8 group is "rejected", not marked wrong (✗)', () => {
    expect(groupChipText(summarizeGroup(group([1, 1, 1, 1, 1, 1, 1, 1]), DROP))).toBe('8/8 solved · rejected');
    expect(groupChipText(summarizeGroup(group([1, 0, 0, 1]), DROP))).toBe('2/4 solved · kept');
    expect(groupChipText(summarizeGroup(group([1, 0, 0, 0], { kept: false }), { rejection: 'refill', truncation: 'none' }))).toBe('1/4 solved · not trained');
  });
  it('rejection off: a zero-advantage group is kept, and says so', () => {
    const s = summarizeGroup(group([0, 0, 0, 0], { kept: true }), { rejection: 'off', truncation: 'none' });
    expect(s.status).toBe('kept');
    expect(s.why).toMatch(/rejection sampling is off/);
  });
  it('refill: a group with signal left out is surplus, not rejected', () => {
    const s = summarizeGroup(group([1, 0, 0, 0], { kept: false }), { rejection: 'refill', truncation: 'none' });
    expect(s.status).toBe('surplus');
    expect(s.why).toMatch(/already held D_R groups/);
  });
  it('Adv-Mask-Before: the responses not truncated decide', () => {
    const s = summarizeGroup(group([1, 1, 0, 0], { truncated: [false, false, true, true], kept: false, advantages: [0, 0, 0, 0] }), { rejection: 'drop', truncation: 'adv-mask-before' });
    expect(s.status).toBe('rejected');
    expect(s.why).toMatch(/the 2 responses not truncated all got reward 1/);
    const lone = summarizeGroup(group([1, 0, 0, 0], { truncated: [false, true, true, true], kept: false, advantages: [0, 0, 0, 0] }), { rejection: 'drop', truncation: 'adv-mask-before' });
    expect(lone.why).toMatch(/1 response not truncated — no baseline/);
  });
});

describe('forking tokens', () => {
  it('marks the group’s highest-entropy tenth, at least one, above the floor', () => {
    const ent = [
      [0.1, 1.5, 0.3, 0.2, 0.05],
      [0.9, 0.1, 0.1, 2.0, 0.1],
    ];
    // 10 tokens → 1 fork: the 2.0 nats one.
    expect(forkingTokens(ent)).toEqual([[], [3]]);
    expect(forkingTokens(ent, 0.3)).toEqual([[1], [0, 3]]);
  });
  it('skips near-certain positions and breaks ties by response, then position', () => {
    expect(forkingTokens([[0.01, 0.02]])).toEqual([[]]);
    expect(forkingTokens([[0.5, 0.5], [0.5]], 0.5)).toEqual([[0, 1], []]);
  });
});

describe('history bound', () => {
  const entry = (step: number, watched = false): InspectedStep => ({ step, groups: [{ key: watched ? 7 : step, group: 0, prompt: 'p', family: 'f', watched, samples: [] }] });
  it('keeps the last 32 steps, then every 10th and every watched step, at most 32 of them', () => {
    let h: InspectedStep[] = [];
    for (let s = 1; s <= 1000; s++) h = pushHistory(h, entry(s, s % 17 === 0));
    expect(h.length).toBeLessThanOrEqual(HISTORY_RECENT + HISTORY_OLDER);
    expect(h.length).toBe(HISTORY_RECENT + HISTORY_OLDER);
    const steps = h.map((e) => e.step);
    expect(steps.slice(-HISTORY_RECENT)).toEqual(Array.from({ length: HISTORY_RECENT }, (_, i) => 1000 - HISTORY_RECENT + 1 + i));
    const older = h.slice(0, -HISTORY_RECENT);
    expect(older.every((e) => e.step % HISTORY_STRIDE === 0 || e.groups[0].watched)).toBe(true);
    // Ascending, the newest older ones kept.
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(older[older.length - 1].step).toBe(960);
  });
  it('replaces a step sent again (a resumed run), in order', () => {
    let h = [entry(1), entry(2), entry(3)];
    h = pushHistory(h, { ...entry(2), groups: [] });
    expect(h.map((e) => e.step)).toEqual([1, 2, 3]);
    expect(h[1].groups).toEqual([]);
  });
  it('groups a batch by step and group; another run starts afresh; the slider can follow a prompt', () => {
    const batch = [...group([1, 0], { step: 4, promptId: 11 }), ...group([0, 0], { step: 4, promptId: 5 }).map((s) => ({ ...s, group: 1 })), ...group([1, 1], { step: 5, promptId: 11 })];
    let h = addSamples(emptyHistory(), 'run-a', batch);
    expect(h.steps.map((e) => [e.step, e.groups.map((g) => g.key)])).toEqual([
      [4, [11, 5]],
      [5, [11]],
    ]);
    expect(sliderSteps(h, null)).toEqual([4, 5]);
    expect(sliderSteps(h, 5)).toEqual([4]);
    h = addSamples(h, 'run-b', group([1, 0], { step: 1 }));
    expect(h.runId).toBe('run-b');
    expect(h.steps.map((e) => e.step)).toEqual([1]);
    // Records without a prompt id (older files) fall back to their group index.
    expect(groupsOf([sample({ group: 3 })])[0].key).toBe(-4);
  });
  it('the store: the newest step’s samples for the viewer, every step into the history', () => {
    const store = createLabStore('magic-tiny');
    store.getState().setSamples('r', 5, [...group([1, 0], { step: 4 }), ...group([0, 1], { step: 5 })]);
    expect(store.getState().samples.every((s) => s.step === 5)).toBe(true);
    expect(store.getState().inspector.steps.map((e) => e.step)).toEqual([4, 5]);
    store.getState().setSamples('other', 0, []);
    expect(store.getState().inspector).toEqual({ runId: 'other', steps: [] });
  });
});

describe('colour scales and readable text', () => {
  it('WCAG luminance and contrast', () => {
    expect(relativeLuminance([255, 255, 255])).toBeCloseTo(1, 12);
    expect(relativeLuminance([0, 0, 0])).toBe(0);
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 12);
    expect(contrastRatio(parseHex('#777777'), [255, 255, 255])).toBeCloseTo(4.48, 2);
    expect(textColourOn([255, 255, 255])).toBe('#000000');
    expect(textColourOn([0, 0, 0])).toBe('#ffffff');
    expect(textColourOn(parseHex('#3f007d'))).toBe('#ffffff');
  });
  it('text on every colour of every scale reads at WCAG AA (4.5:1) or better', () => {
    const scales = [entropyScale(24), probabilityScale(24), ratioScale(0.3, { epsLow: 0.2, epsHigh: 0.28 }), advantageScale(8, true)];
    for (const sc of scales) {
      for (let i = 0; i <= 200; i++) {
        const bg = interpolate(sc.bar, i / 200);
        const fg: Rgb = textColourOn(bg) === '#000000' ? [0, 0, 0] : [255, 255, 255];
        expect(contrastRatio(bg, fg), `${sc.title} at ${i / 200}`).toBeGreaterThanOrEqual(4.5);
      }
    }
    // And on any colour at all: black or white always reaches 4.58:1.
    const rng = new Rng(3);
    for (let i = 0; i < 2000; i++) {
      const bg: Rgb = [rng.int(0, 255), rng.int(0, 255), rng.int(0, 255)];
      const fg: Rgb = textColourOn(bg) === '#000000' ? [0, 0, 0] : [255, 255, 255];
      expect(contrastRatio(bg, fg)).toBeGreaterThanOrEqual(4.58);
    }
  });
  it('entropy is normalised by ln of the vocabulary actually used (24), not ln 32', () => {
    const sc = entropyScale(24);
    expect(sc.colour(Math.log(24))).toEqual(sc.bar[sc.bar.length - 1]);
    expect(sc.colour(Math.log(24) / 2)).toEqual(interpolate(sc.bar, 0.5));
    expect(sc.colour(Math.log(32))).toEqual(sc.bar[sc.bar.length - 1]); // clamped
    expect(sc.colour(0)).toEqual(sc.bar[0]);
    expect(sc.ticks[sc.ticks.length - 1].label).toBe('3.18 = ln 24');
    expect(sc.unit).toBe('nats');
  });
  it('probability: p = 1 white, p ≤ 1/V darkest, log-spaced ticks', () => {
    const sc = probabilityScale(24);
    expect(sc.colour(0)).toEqual(sc.bar[0]);
    expect(sc.colour(Math.log(1 / 24))).toEqual(sc.bar[sc.bar.length - 1]);
    expect(sc.colour(Math.log(1e-6))).toEqual(sc.bar[sc.bar.length - 1]);
    expect(sc.colour(-Infinity)).toEqual(sc.bar[sc.bar.length - 1]);
    expect(sc.ticks.map((t) => t.label)).toEqual(['1', '0.5', '0.2', '0.1', '≤ 1/24']);
    expect(sc.ticks[1].at).toBeCloseTo(Math.log(2) / Math.log(24), 12);
  });
  it('ratio: symmetric on a log scale around 1, clip bounds marked when inside', () => {
    const sc = ratioScale(0.3, { epsLow: 0.2, epsHigh: 0.2 });
    expect(sc.colour(1)).toEqual(interpolate(sc.bar, 0.5));
    const up = sc.colour(Math.exp(0.25))!;
    const down = sc.colour(Math.exp(-0.25))!;
    expect(up[2]).toBeGreaterThan(up[0]); // blue: likelier
    expect(down[0]).toBeGreaterThan(down[2]); // red: less likely
    expect(sc.ticks.map((t) => t.label)).toEqual(['0.607', '1−ε_low 0.8', '1', '1+ε_high 1.2', '1.649']);
    expect(ratioScale(0.001, { epsLow: 0.2, epsHigh: 0.2 }).ticks.map((t) => t.label)).toEqual(['0.951', '1', '1.051']);
    expect(sc.colour(NaN)).toBeNull();
  });
  it('advantage: ± the largest |Â| a group of G binary rewards can give', () => {
    // One success among 8: Â = (1 − 1/8) / std, std = √(1/8) → 7/√8.
    const rewards = [1, 0, 0, 0, 0, 0, 0, 0];
    const top = group(rewards)[0].advantage;
    expect(maxAdvantage(8, true)).toBeCloseTo(top, 4); // the trainer's std has + 1e-6
    expect(maxAdvantage(8, false)).toBe(1);
    const sc = advantageScale(8, true);
    expect(sc.colour(maxAdvantage(8, true))).toEqual(sc.bar[sc.bar.length - 1]);
    expect(sc.colour(-top)![0]).toBeCloseTo(sc.bar[0][0], 1);
    expect(sc.colour(0)).toEqual(interpolate(sc.bar, 0.5));
  });
});

describe('softmax at a temperature', () => {
  /** float64 reference straight from the logits: exp(z/τ) / Σ exp(z/τ), summed in long double-free but stable form. */
  function reference(z: number[], tau: number): number[] {
    const m = Math.max(...z);
    const e = z.map((x) => Math.exp((x - m) / tau));
    const s = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / s);
  }
  /** What the Worker has: log-softmax at τ = 1, rounded to float32 as the engine returns it. */
  const logSoftmax32 = (z: number[]) => {
    const m = Math.max(...z);
    const lse = m + Math.log(z.reduce((a, x) => a + Math.exp(x - m), 0));
    return z.map((x) => Math.fround(x - lse));
  };
  it('matches the float64 reference from the logits at every τ (from τ = 1 log-probs in float32)', () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 50; trial++) {
      const z = Array.from({ length: 24 }, () => 3 * rng.normal());
      const l = logSoftmax32(z);
      for (const tau of [0.1, 0.6, 1, 1.5, 3]) {
        const got = softmaxAtTemperature(l, tau);
        const want = reference(z, tau);
        expect(got.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
        for (let i = 0; i < z.length; i++) expect(Math.abs(got[i] - want[i])).toBeLessThan(2e-6 / tau + 1e-12);
      }
    }
  });
  it('τ sharpens or flattens: entropy rises with τ, τ → 0 greedy, τ → ∞ uniform; −∞ stays 0', () => {
    const l = [Math.log(0.7), Math.log(0.2), Math.log(0.1), -Infinity];
    const hs = [0.05, 0.6, 1, 2, 50].map((t) => entropyOf(softmaxAtTemperature(l, t)));
    for (let i = 1; i < hs.length; i++) expect(hs[i]).toBeGreaterThan(hs[i - 1]);
    expect(softmaxAtTemperature(l, 0.01)[0]).toBeCloseTo(1, 10);
    expect(softmaxAtTemperature(l, 1e6)[2]).toBeCloseTo(1 / 3, 5);
    expect(softmaxAtTemperature(l, 1)[3]).toBe(0);
    expect(Array.from(softmaxAtTemperature(l, 1)).slice(0, 3).map((p) => +p.toFixed(12))).toEqual([0.7, 0.2, 0.1]);
    expect(() => softmaxAtTemperature(l, 0)).toThrow(/temperature/);
    expect(() => softmaxAtTemperature([NaN, 0], 1)).toThrow(/NaN/);
  });
  it('top alternatives, most probable first, ties by id; views per τ carry the sampled token', () => {
    expect(topAlternatives([0.1, 0.4, 0.1, 0.4], 3)).toEqual([
      { id: 1, p: 0.4 },
      { id: 3, p: 0.4 },
      { id: 0, p: 0.1 },
    ]);
    const views = temperatureViews([Math.log(0.5), Math.log(0.3), Math.log(0.2)], [0.6, 1], 2, 2);
    expect(views.map((v) => v.temperature)).toEqual([0.6, 1]);
    expect(views[1].sampledP).toBeCloseTo(0.2, 12);
    expect(views[0].sampledP).toBeLessThan(0.2);
    expect(views[0].top[0].p).toBeGreaterThan(0.5);
  });
});
