import { describe, expect, it } from 'vitest';
import {
  entropyCoefForStep,
  entropyStateFromJSON,
  initialEntropyState,
  loggedEntropyCoef,
  sampledEntropy,
  updateEntropyState,
  type EntropyControlConfig,
} from '../../src/rl/entropy';

const CFG: EntropyControlConfig = { mode: 'adaptive', target: 0.2, delta: 0.01, cMin: 0, cMax: 0.025, c0: 0, constantCoef: 0.3, gate: 'current' };

/** Runs the trainer's order: α from (c_k, e_k), then the update after the actor step. */
function run(cfg: EntropyControlConfig, entropies: number[]) {
  let s = initialEntropyState(cfg);
  const alphas: number[] = [];
  const cs: number[] = [];
  for (const e of entropies) {
    cs.push(loggedEntropyCoef(cfg, s));
    alphas.push(entropyCoefForStep(cfg, s, e));
    s = updateEntropyState(cfg, s, e);
  }
  return { alphas, cs, state: s };
}

const E = [0.1, 0.1, 0.1, 0.1, 0.3, 0.3, 0.3, 0.1];

describe('adaptive entropy control', () => {
  it('c rises by Δ below target, falls above, clamps to [c_min, c_max]; α = c_k·1{e_k < target}', () => {
    const { alphas, cs } = run(CFG, E);
    const exp = [0, 0.01, 0.02, 0.025, 0.025, 0.015, 0.005, 0];
    cs.forEach((c, i) => expect(c).toBeCloseTo(exp[i], 12));
    const expAlpha = [0, 0.01, 0.02, 0.025, 0, 0, 0, 0];
    alphas.forEach((a, i) => expect(a).toBeCloseTo(expAlpha[i], 12));
  });

  it("'lagged' gate reproduces the released code: the on/off flag comes from e_{k−1}", () => {
    const { alphas, cs } = run({ ...CFG, gate: 'lagged' }, E);
    expect(cs).toEqual(run(CFG, E).cs); // c itself is the same
    // step 4: e_4 = 0.3 ≥ target but e_3 = 0.1 < target → released code still applies c_4
    expect(alphas[4]).toBeCloseTo(0.025, 12);
    expect(alphas[5]).toBe(0); // e_4 was above
    // step 0: flag starts at 1 as upstream (α = c_0)
    const c0 = run({ ...CFG, gate: 'lagged', c0: 0.01 }, [0.5]);
    expect(c0.alphas[0]).toBe(0.01);
    expect(run({ ...CFG, c0: 0.01 }, [0.5]).alphas[0]).toBe(0);
  });

  it('c0 outside the clamp range starts clamped', () => {
    expect(initialEntropyState({ ...CFG, c0: 1 }).c).toBe(0.025);
  });

  it("'constant' always uses the fixed coefficient; 'off' always 0", () => {
    const c = run({ ...CFG, mode: 'constant' }, E);
    expect(new Set(c.alphas)).toEqual(new Set([0.3]));
    expect(new Set(c.cs)).toEqual(new Set([0.3]));
    const o = run({ ...CFG, mode: 'off' }, E);
    expect(new Set([...o.alphas, ...o.cs])).toEqual(new Set([0]));
  });

  it('state survives a JSON checkpoint mid-run and continues identically', () => {
    const full = run({ ...CFG, gate: 'lagged' }, E);
    const first = run({ ...CFG, gate: 'lagged' }, E.slice(0, 4));
    let s = entropyStateFromJSON(JSON.parse(JSON.stringify(first.state)));
    const cfg = { ...CFG, gate: 'lagged' as const };
    const rest: number[] = [];
    for (const e of E.slice(4)) {
      rest.push(entropyCoefForStep(cfg, s, e));
      s = updateEntropyState(cfg, s, e);
    }
    expect([...first.alphas, ...rest]).toEqual(full.alphas);
    expect(s).toEqual(full.state);
    expect(s.updates).toBe(8);
    expect(() => entropyStateFromJSON({ c: 'x' })).toThrow(/invalid/);
  });

  it('a NaN entropy estimate is an error, not a silent decay', () => {
    expect(() => updateEntropyState(CFG, initialEntropyState(CFG), NaN)).toThrow(/finite/);
    expect(() => entropyCoefForStep(CFG, initialEntropyState(CFG), NaN)).toThrow(/finite/);
  });

  it('sampledEntropy = −mean of the masked sampled-token log-probs', () => {
    expect(sampledEntropy([-1, -2, -3], [1, 1, 0])).toBe(1.5);
    expect(sampledEntropy([])).toBeNaN();
  });
});
