/**
 * The float64 backward of the Llama / Qwen2 decoder against central differences of the float64
 * forward, for L = Σ_t c_t · log p(token t+1 | prefix) + Σ_t e_t · H_t with random coefficients: every kind of
 * weight (embedding, norms, q/k/v/o with Qwen2's biases, gate/up/down, head, tied or not) at random
 * entries, on both tiny architectures (GQA with groups of 4 and of 2). And the gradient does not
 * depend on the vocabulary chunk. Then against scripts/hf_reference.py's central differences of its own
 * numpy forward (float64 weights, step 1e-5): an independent forward, so a shared misreading of the
 * architecture in the lab's forward and backward would show.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryFolder } from '../../../src/model/hf/files';
import { hfLogprobGrads, type HfGrads } from '../../../src/model/hf/reference-backward';
import { hfTokenLogprobs } from '../../../src/model/hf/reference-forward';
import { tinyHfConfig, tinyHfFolder, tinyHfWeights } from '../../../src/model/hf/tiny';
import { expectedTensors, loadHfWeights, type HfWeights } from '../../../src/model/hf/weights';
import { Rng } from '../../../src/util/rng';

const rng = new Rng(4404);

/** Every (name, weight, gradient) pair. */
function pairs(w: HfWeights, g: HfGrads): [string, Float32Array, Float64Array][] {
  const out: [string, Float32Array, Float64Array][] = [['embed', w.embed, g.embed], ['norm', w.norm, g.norm]];
  if (w.lmHead) out.push(['lmHead', w.lmHead, g.lmHead!]);
  w.layers.forEach((L, i) => {
    for (const [k, a] of Object.entries(L)) if (a) out.push([`layers.${i}.${k}`, a, (g.layers[i] as Record<string, Float64Array>)[k]]);
  });
  return out;
}

for (const arch of ['llama', 'qwen2'] as const)
  describe(`${arch}: backward vs central differences`, () => {
    const w = tinyHfWeights(tinyHfConfig(arch), 11);
    const tokens = [7, 301, 45, 45, 2, 288, 130];
    const coef = tokens.slice(1).map(() => rng.normal());
    const entCoef = tokens.slice(1).map(() => rng.normal());
    const loss = () => {
      const r = hfTokenLogprobs(w, tokens, 64);
      return r.logprobs.reduce((a, lp, t) => a + coef[t] * lp + entCoef[t] * r.entropies[t], 0);
    };
    const grads = hfLogprobGrads(w, tokens, coef, 64, entCoef);

    it('matches at random entries of every weight (≤ 1e-6 absolute + 1e-4 relative)', () => {
      let checked = 0;
      for (const [name, weight, grad] of pairs(w, grads)) {
        expect(grad.length, name).toBe(weight.length);
        const picks = name === 'embed' ? [tokens[2] * 32 + rng.int(0, 31), rng.int(0, weight.length - 1), rng.int(0, weight.length - 1)] : [0, 1, 2].map(() => rng.int(0, weight.length - 1));
        for (const i of picks) {
          const orig = weight[i];
          const step = 1e-3 * Math.max(1, Math.abs(orig));
          weight[i] = orig + step;
          const xp = weight[i], lp = loss();
          weight[i] = orig - step;
          const xm = weight[i], lm = loss();
          weight[i] = orig;
          const fd = (lp - lm) / (xp - xm);
          if (Math.abs(fd - grad[i]) > 1e-6 + 1e-4 * Math.abs(fd)) throw new Error(`${name}[${i}]: backward ${grad[i]}, central difference ${fd}`);
          checked++;
        }
      }
      expect(checked).toBe(pairs(w, grads).length * 3);
      // The gradients are not trivially zero.
      expect(pairs(w, grads).every(([, , g]) => g.some((x) => Math.abs(x) > 1e-6))).toBe(true);
    });

    it('does not depend on the vocabulary chunk', () => {
      for (const chunk of [1, 13, 320]) {
        const other = hfLogprobGrads(w, tokens, coef, chunk, entCoef);
        pairs(w, other).forEach(([name, , g], k) => {
          const ref = pairs(w, grads)[k][2];
          for (let i = 0; i < g.length; i++) if (Math.abs(g[i] - ref[i]) > 1e-12) throw new Error(`${name}[${i}] chunk ${chunk}`);
        });
      }
    });
  });

describe('backward inputs', () => {
  it('needs one coefficient per predicted token', () => {
    const w = tinyHfWeights(tinyHfConfig('llama'), 1);
    expect(() => hfLogprobGrads(w, [1, 2, 3], [1])).toThrow(/1 coefficients for 2 predicted tokens/);
    expect(() => hfLogprobGrads(w, [1, 2, 3], [1, 1], 64, [1])).toThrow(/1 entropy coefficients for 2 predicted tokens/);
  });

  it('the entropy term alone has its own gradient (zero coefficients on the log-probs)', () => {
    const w = tinyHfWeights(tinyHfConfig('qwen2'), 3);
    const tokens = [1, 2, 3, 4];
    const none = hfLogprobGrads(w, tokens, [0, 0, 0]);
    expect(none.norm.every((x) => x === 0)).toBe(true);
    const ent = hfLogprobGrads(w, tokens, [0, 0, 0], 64, [1, 1, 1]);
    expect(ent.norm.some((x) => Math.abs(x) > 1e-6)).toBe(true);
  });
});

describe('backward vs an independent forward (numpy, scripts/hf_reference.py --grad)', () => {
  for (const arch of ['llama', 'qwen2'] as const)
    it(`${arch}: the gradient at entries of every tensor kind equals numpy's float64 central differences (1e-6 relative)`, async () => {
      const dir = mkdtempSync(join(tmpdir(), `magic-hf-grad-${arch}-`));
      for (const [f, body] of tinyHfFolder(arch, 1)) writeFileSync(join(dir, f), body);
      const w = await loadHfWeights(memoryFolder('m', tinyHfFolder(arch, 1)));
      const tokens = [9, 288, 31, 31, 150, 7];
      const coef = [0.7, -1.2, 0.4, 1.1, -0.3], entCoef = [0.05, -0.2, 0.3, 0.1, 0.02];
      const g = hfLogprobGrads(w, tokens, coef, 100, entCoef);
      const specs = expectedTensors(w.config).map((t, k) => {
        const n = t.shape.reduce((a, b) => a * b, 1);
        const index = t.key === 'embed' ? tokens[2] * 32 + (k % 32) : (k * 7919) % n;
        const grad = t.layer >= 0 ? (g.layers[t.layer] as Record<string, Float64Array>)[t.key] : (g as unknown as Record<string, Float64Array>)[t.key];
        return { spec: `${t.name}:${index}`, mine: grad[index] };
      });
      const out = JSON.parse(execFileSync('python3', ['scripts/hf_reference.py', dir, tokens.join(','), '--grad', coef.join(','), entCoef.join(','), ...specs.map((s) => s.spec)], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: '' } }));
      specs.forEach((s, i) => {
        if (Math.abs(s.mine - out.grads[i]) > 1e-8 + 1e-6 * Math.abs(out.grads[i])) throw new Error(`${s.spec}: backward ${s.mine}, numpy ${out.grads[i]}`);
      });
      expect(specs.length).toBeGreaterThan(10);
    }, 60_000);
});
