import { describe, expect, it } from 'vitest';
import { klPenalty, ppoTokenLoss } from '../../src/rl/loss';

const fd = (f: (x: number) => number, x: number, h = 1e-6) => (f(x + h) - f(x - h)) / (2 * h);

describe('ppoTokenLoss', () => {
  it('on-policy (ρ = 1): loss −A, gradient −A, nothing clipped', () => {
    const r = ppoTokenLoss(-1.3, -1.3, 0.7, 0.2, 0.2);
    expect(r.ratio).toBe(1);
    expect(r.loss).toBeCloseTo(-0.7, 15);
    expect(r.dLogp).toBeCloseTo(-0.7, 15);
    expect(r.clipped).toBe(false);
  });
  it('clips ρ above 1+ε_high for A > 0 and below 1−ε_low for A < 0', () => {
    const up = ppoTokenLoss(Math.log(1.5), 0, 1, 0.2, 0.2);
    expect(up.loss).toBeCloseTo(-1.2, 12);
    expect([up.clipped, up.dLogp]).toEqual([true, 0]);
    const down = ppoTokenLoss(Math.log(0.5), 0, -1, 0.2, 0.2);
    expect(down.loss).toBeCloseTo(0.8, 12);
    expect(down.clipped).toBe(true);
    // ε_high only: ρ = 1.25 is inside [0.8, 1.28]
    expect(ppoTokenLoss(Math.log(1.25), 0, 1, 0.2, 0.28).clipped).toBe(false);
  });
  it('A < 0 with large ρ is unclipped unless the dual clip bounds it', () => {
    const noDual = ppoTokenLoss(Math.log(4), 0, -1, 0.2, 0.2);
    expect(noDual.loss).toBeCloseTo(4, 12);
    expect(noDual.dLogp).toBeCloseTo(4, 12);
    const dual = ppoTokenLoss(Math.log(4), 0, -1, 0.2, 0.2, 3);
    expect(dual.loss).toBe(3);
    expect([dual.clippedLower, dual.dLogp]).toEqual([true, 0]);
  });
  it('gradient matches finite differences on the unclipped branch', () => {
    const f = (lp: number) => ppoTokenLoss(lp, -0.5, -0.8, 0.2, 0.2).loss;
    expect(ppoTokenLoss(-0.45, -0.5, -0.8, 0.2, 0.2).dLogp).toBeCloseTo(fd(f, -0.45), 6);
  });
});

describe('klPenalty', () => {
  it('k1 = logp − ref', () => {
    expect(klPenalty(-1, -1.5, 'k1')).toEqual({ value: 0.5, dLogp: 1 });
  });
  it('k3 = e^{ref−logp} − (ref−logp) − 1, zero at equality, gradient by finite differences', () => {
    expect(klPenalty(-2, -2, 'k3').value).toBe(0);
    const r = klPenalty(0, Math.log(0.5), 'k3');
    expect(r.value).toBeCloseTo(0.5 + Math.log(2) - 1, 12);
    expect(r.dLogp).toBeCloseTo(fd((x) => klPenalty(x, Math.log(0.5), 'k3').value, 0), 6);
  });
  it('low_var_kl clamps at 10 (gradient 0), k3 does not', () => {
    expect(klPenalty(-20, 0, 'low_var_kl')).toEqual({ value: 10, dLogp: 0 });
    expect(klPenalty(-20, 0, 'k3').value).toBeGreaterThan(1e8);
    expect(klPenalty(0, Math.log(0.5), 'low_var_kl')).toEqual(klPenalty(0, Math.log(0.5), 'k3'));
  });
});
