/** A card's contrasts worded from the arms' curves (lib/card-contrast.ts): the numbers are the window means of what is drawn. */
import { describe, expect, it } from 'vitest';
import { armShort, matchingKey, readContrast, referenceArmCurve, runArmCurve, windowValues, type Contrast } from '../../src/ui/lib/card-contrast';

const entropy: Contrast = { chart: 'entropy', metric: 'actor/entropy', name: 'entropy', window: { to: 4 }, unit: 'nats' };

describe('card contrasts', () => {
  it('each arm\'s mean over the window, and which arm is higher by how much, as shown', () => {
    const a = { arm: 'A', steps: [2, 4, 6], values: [0.3, 0.1, 9] };
    const b = { arm: 'B', steps: [2, 4, 6], values: [0.1, NaN, 9] };
    const r = readContrast(entropy, [a, b])!;
    expect(r.means.map((m) => [m.arm, m.text])).toEqual([
      ['A', '0.200'],
      ['B', '0.100'],
    ]);
    expect(r.sentence).toBe('Entropy over steps ≤ 4: A 0.200, B 0.100 nats; A is higher by 0.100.');
    // The other window words; three arms name the highest and lowest.
    expect(readContrast({ ...entropy, window: 'all', unit: undefined, digits: 1 }, [a, b, { arm: 'C', steps: [1], values: [5] }])!.sentence).toBe(
      'Entropy over all steps: A 3.1, B 4.5, C 5.0; C highest, A lowest (by 1.9).',
    );
    expect(readContrast({ ...entropy, window: 'end' }, [a, b])!.sentence).toMatch(/^Entropy over the last 20% of steps: A 9\.000, B 9\.000 nats; the same for both at this precision\.$/);
  });

  it('nothing to say until two arms have points in the window', () => {
    expect(readContrast(entropy, [{ arm: 'A', steps: [1], values: [0.2] }])).toBeNull();
    expect(readContrast(entropy, [{ arm: 'A', steps: [1], values: [0.2] }, { arm: 'B', steps: [9], values: [0.2] }])).toBeNull();
    expect(windowValues({ steps: [1, 2, 3, 4, 5], values: [1, 2, 3, 4, 5] }, 'end')).toEqual([5]);
    expect(windowValues({ steps: [1, 2], values: [1, 2] }, 'start')).toEqual([1]);
  });

  it('reads a run\'s step records, or its evaluations for a held-out metric at any k of the same temperature', () => {
    const run = {
      steps: [{ step: 1, 'actor/entropy': 0.5 }, { step: 2 }, { step: 3, 'actor/entropy': 0.3 }],
      evals: [{ step: 0, 'val/avg@2/t1.0': 0.1, 'val/avg@2/t0.6': 0.9 }, { step: 20, 'val/avg@2/t1.0': 0.3 }],
    } as never;
    expect(runArmCurve('A: x', run, 'actor/entropy')).toEqual({ arm: 'A', steps: [1, 3], values: [0.5, 0.3] });
    expect(runArmCurve('B: y', run, 'val/avg@8/t1.0')).toEqual({ arm: 'B', steps: [0, 20], values: [0.1, 0.3] });
    expect(runArmCurve('B: y', run, 'actor/pg_clipfrac')).toEqual({ arm: 'B', steps: [], values: [] });
    expect(matchingKey('val/avg@8/t0.6', ['val/avg@2/t1.0', 'val/avg@2/t0.6'])).toBe('val/avg@2/t0.6');
    expect(armShort('C: constant α = 0.5')).toBe('C');
  });

  it('reads a reference preset\'s mean curve, null points as gaps', () => {
    const preset = { curves: { 'actor/entropy': { steps: [10, 20], mean: [0.2, null], lower: [], upper: [], seeds: {} } } } as never;
    const c = referenceArmCurve('A: MAGIC', preset, 'actor/entropy');
    expect(c.steps).toEqual([10, 20]);
    expect(c.values[1]).toBeNaN();
    expect(referenceArmCurve('A: MAGIC', undefined, 'actor/entropy')).toEqual({ arm: 'A', steps: [], values: [] });
  });
});
