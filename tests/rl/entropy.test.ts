import { describe, expect, it } from 'vitest';
import {
  batchEntropy,
  controllerEntropy,
  entropyCoefForStep,
  exactEntropy,
  entropyStateFromJSON,
  initialEntropyState,
  loggedEntropyCoef,
  sampledEntropy,
  updateEntropyState,
  type EntropyControlConfig,
} from '../../src/rl/entropy';

const CFG: EntropyControlConfig = { mode: 'adaptive', target: 0.2, delta: 0.01, cMin: 0, cMax: 0.025, c0: 0, constantCoef: 0.3, gate: 'current', estimator: 'exact' };

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

describe('the entropy the controller sees (e_k)', () => {
  it('exactEntropy = mean of the masked per-token H_t', () => {
    expect(exactEntropy([0.5, 0.25, 1], [1, 1, 0])).toBe(0.375);
    expect(exactEntropy([0.5, 0.25, 1])).toBeCloseTo(0.5833333333333334, 15);
    expect(exactEntropy([])).toBeNaN();
  });

  it('batchEntropy: token means over every response token of the batch (long responses weigh more)', () => {
    const batch = [
      { logp: [-1, -3], entropy: [0.5, 1.5] },
      { logp: [-0.5, -0.5, -0.5, -0.5], entropy: [0.25, 0.25, 0.25, 0.25] },
    ];
    const e = batchEntropy(batch);
    expect(e.exact).toBeCloseTo((0.5 + 1.5 + 4 * 0.25) / 6, 15);
    expect(e.sampled).toBeCloseTo((1 + 3 + 4 * 0.5) / 6, 15);
    // Not the mean of per-response means.
    expect(e.exact).not.toBeCloseTo((1 + 0.25) / 2, 6);
    // Same numbers as the one-array functions over the concatenated tokens.
    expect(e.sampled).toBe(sampledEntropy(batch.flatMap((r) => r.logp)));
    expect(e.exact).toBe(exactEntropy(batch.flatMap((r) => r.entropy)));
    expect(batchEntropy([])).toEqual({ exact: NaN, sampled: NaN });
    expect(batchEntropy([{ logp: [], entropy: [] }])).toEqual({ exact: NaN, sampled: NaN });
    expect(() => batchEntropy([{ logp: [-1], entropy: [] }])).toThrow(/1 log-probs but 0 entropies/);
  });

  it('the sampled estimate is unbiased for the exact one (same τ, no top-p) and noisier', () => {
    // A fixed 4-token distribution: H = −Σ p log p; −log p(sampled) has mean H and positive variance.
    const p = [0.7, 0.2, 0.07, 0.03];
    const H = -p.reduce((a, q) => a + q * Math.log(q), 0);
    let s = 12345;
    const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const n = 200_000;
    const logp: number[] = [];
    for (let i = 0; i < n; i++) {
      let u = rand();
      let k = 0;
      while (k < p.length - 1 && u >= p[k]) u -= p[k++];
      logp.push(Math.log(p[k]));
    }
    const e = batchEntropy([{ logp, entropy: new Array(n).fill(H) }]);
    expect(e.exact).toBeCloseTo(H, 12);
    expect(Math.abs(e.sampled - H)).toBeLessThan(0.01);
  });

  it('controllerEntropy picks the configured estimator, and the controller acts on it', () => {
    const est = { exact: 0.18, sampled: 0.12 };
    expect(controllerEntropy('exact', est)).toBe(0.18);
    expect(controllerEntropy('sampled', est)).toBe(0.12);
    // Target 0.15: the exact estimate is above (α = 0, c falls), the sampled one below (α = c, c rises).
    const cfg = { ...CFG, target: 0.15, c0: 0.02 };
    const s0 = initialEntropyState(cfg);
    expect(entropyCoefForStep(cfg, s0, controllerEntropy('exact', est))).toBe(0);
    expect(entropyCoefForStep(cfg, s0, controllerEntropy('sampled', est))).toBe(0.02);
    expect(updateEntropyState(cfg, s0, controllerEntropy('exact', est)).c).toBeCloseTo(0.01, 15);
    expect(updateEntropyState(cfg, s0, controllerEntropy('sampled', est)).c).toBeCloseTo(0.025, 15);
  });
});
