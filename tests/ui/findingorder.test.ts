import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fitDomain } from '../../src/ui/lib/findingview';
import { groupByRung, paperNumber, paperOrder } from '../../src/ui/lib/reference';

describe("findings in the paper's order", () => {
  it('numbered findings 1–7 first, then the other findings, then sweeps (file order among equals)', () => {
    const e = (title: string, kind: 'finding' | 'sweep' = 'finding') => ({ kind, title, name: title });
    const got = paperOrder([e('tiny', 'sweep'), e('7. Clip-high'), e('Rejection sampling vs none'), e('1. Faster collapse'), e('10. Later'), e('MAGIC vs GRPO'), e('2. τ = 0.6')]);
    expect(got.map((x) => x.title)).toEqual(['1. Faster collapse', '2. τ = 0.6', '7. Clip-high', '10. Later', 'Rejection sampling vs none', 'MAGIC vs GRPO', 'tiny']);
    expect(paperNumber({ kind: 'sweep', title: '3. a sweep' })).toBeNull();
  });

  it('orders the shipped index 1, 2, …, 7 (a finding run at several rungs: its rungs side by side), then the others', () => {
    const idx = JSON.parse(readFileSync('public/reference/index.json', 'utf8')) as { entries: { kind: 'finding' | 'sweep'; title: string; name: string }[] };
    const ordered = paperOrder(idx.entries);
    const nums = ordered.map(paperNumber).filter((n): n is number => n !== null);
    expect([...new Set(nums)]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(nums).toEqual([...nums].sort((a, b) => a - b));
    expect(ordered.slice(0, nums.length).every((x) => paperNumber(x) !== null)).toBe(true);
    expect(ordered).toHaveLength(idx.entries.length);
  });
});

describe('findings chart domain', () => {
  it('spans the data (runs, reference means, bands, the target), not 0–1', () => {
    const rows = [
      { step: 0, 'r0|actor/entropy': 0.16, 'ref0|actor/entropy|mean': 0.15, 'ref0|actor/entropy|band': [0.14, 0.17] },
      { step: 1, 'r0|actor/entropy': null, 'ref0|actor/entropy|mean': 0.13, 'ref0|actor/entropy|band': [0.12, 0.14] },
    ];
    const [lo, hi] = fitDomain(rows)!;
    expect(lo).toBeGreaterThan(0.09);
    expect(lo).toBeLessThanOrEqual(0.12);
    expect(hi).toBeGreaterThanOrEqual(0.17);
    expect(hi).toBeLessThan(0.2);
    // The target (0.1) below the data is kept in view.
    expect(fitDomain(rows, [0.1])![0]).toBeLessThanOrEqual(0.1);
  });
  it('never goes below 0 for non-negative data; no data: null', () => {
    expect(fitDomain([{ step: 0, a: 0.01 }, { step: 1, a: 0.5 }])![0]).toBe(0);
    expect(fitDomain([{ step: 0, a: null }])).toBeNull();
    expect(fitDomain([{ step: 0, a: 0.2 }])).toEqual([0.18, 0.22]);
  });
});

describe('the reference list grouped by rung', () => {
  it('one group per rung, tiny first, each in the paper\'s order; a file without a rung is tiny', () => {
    const e = (title: string, rung?: string) => ({ kind: 'finding' as const, title, ...(rung ? { rung } : {}) });
    const groups = groupByRung([e('3. Off-policy', 'small'), e('1. Collapse hurts'), e('3. Off-policy'), e('1. Collapse hurts', 'small'), e('2. Temperature', 'medium')]);
    expect(groups.map((g) => g.rung)).toEqual(['tiny', 'small', 'medium']);
    expect(groups.map((g) => g.entries.map((x) => x.title))).toEqual([['1. Collapse hurts', '3. Off-policy'], ['1. Collapse hurts', '3. Off-policy'], ['2. Temperature']]);
    expect(groupByRung([])).toEqual([]);
  });
});
