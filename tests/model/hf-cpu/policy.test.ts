/**
 * The CPU engine's real-model policy: its GRPO-loss gradient against the float64 reference backward
 * (src/model/hf/reference-backward.ts) on both tiny architectures, full and LoRA (through W_eff = W + s·B·A:
 * ∂L/∂B = s·∂L/∂W_eff·Aᵀ, ∂L/∂A = s·Bᵀ·∂L/∂W_eff), the merge, seeded sampling, and an update that moves the loss.
 */
import { describe, expect, it } from 'vitest';
import { tinyHfConfig, tinyHfWeights } from '../../../src/model/hf/tiny';
import { hfLogprobGrads } from '../../../src/model/hf/reference-backward';
import { hfTokenLogprobs } from '../../../src/model/hf/reference-forward';
import { HfCpuPolicy } from '../../../src/model/hf-cpu/policy';
import { LORA_TARGETS, mergedWeights, projShape } from '../../../src/model/hf-cpu/model';
import type { HfUpdateRow } from '../../../src/model/hf-policy';
import { Rng } from '../../../src/util/rng';

const loss = { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0.37, klCoef: 0, klType: 'k3' as const };
const adamw = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: Infinity };

/** Random rows: tokens, a prompt of `p` positions outside the loss, random advantages and weights. */
function rows(rng: Rng, V: number, lengths: number[]): HfUpdateRow[] {
  return lengths.map((T) => {
    const tokens = Array.from({ length: T }, () => rng.int(0, V - 1));
    const p = 2;
    const mask = Float64Array.from({ length: T - 1 }, (_, t) => (t >= p - 1 ? 1 : 0));
    return { tokens, mask, weights: mask.map((m) => m * (0.1 + rng.next())), advantages: mask.map(() => rng.normal()) };
  });
}

/** ‖a − b‖ / ‖b‖. */
function relErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let num = 0, den = 0;
  for (let i = 0; i < b.length; i++) {
    num += (a[i] - b[i]) ** 2;
    den += b[i] ** 2;
  }
  return Math.sqrt(num / den);
}

/** The reference gradient of the same loss: on-policy GRPO is Σ −w·Â·log p − α·w·H per token. */
function referenceGrads(weights: ReturnType<typeof tinyHfWeights>, rs: HfUpdateRow[]) {
  const total = new Map<string, Float64Array>();
  for (const r of rs) {
    const coef = Array.from(r.weights, (w, t) => -w * r.advantages[t]);
    const ent = Array.from(r.weights, (w) => -w * loss.entCoef);
    const g = hfLogprobGrads(weights, r.tokens, coef, 37, ent);
    const add = (name: string, a: Float64Array | null) => {
      if (!a) return;
      const cur = total.get(name) ?? new Float64Array(a.length);
      for (let i = 0; i < a.length; i++) cur[i] += a[i];
      total.set(name, cur);
    };
    add('embed', g.embed);
    add('norm', g.norm);
    add('lmHead', g.lmHead);
    g.layers.forEach((L, li) => Object.entries(L).forEach(([k, a]) => add(`layers.${li}.${k}`, a)));
  }
  return total;
}

describe('HfCpuPolicy gradient equals the float64 reference', () => {
  for (const arch of ['llama', 'qwen2'] as const)
    it(`${arch}, full fine-tuning: every tensor within 1e-4 relative`, async () => {
      const weights = tinyHfWeights(tinyHfConfig(arch), 11);
      const rng = new Rng(5);
      const rs = rows(rng, weights.config.vocabSize, [9, 13, 4]);
      const policy = new HfCpuPolicy(weights, { mode: { kind: 'full' }, vocabChunk: 37 });
      for (const g of policy.gradients().values()) g.fill(NaN); // poisoned: the update must overwrite
      const st = await policy.update(rs, loss, { step: 1, adamw, temperature: 1, update: false });
      expect(st.applied).toBe(false);
      const want = referenceGrads(weights, rs);
      const got = policy.gradients();
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [name, g] of want) expect(relErr(got.get(name)!, g), name).toBeLessThan(1e-4);
      // The loss itself: Σ w·(−Â) − α·Σ w·H at ρ = 1.
      let ref = 0;
      for (const r of rs) {
        const lp = hfTokenLogprobs(weights, r.tokens, 37);
        r.weights.forEach((w, t) => (ref += w * (-r.advantages[t] - loss.entCoef * lp.entropies[t])));
      }
      expect(Math.abs(st.loss - ref)).toBeLessThan(1e-5 * Math.max(1, Math.abs(ref)));
    });

  for (const arch of ['llama', 'qwen2'] as const)
    it(`${arch}, LoRA r = 3: ∂A and ∂B from the reference's ∂W at the merged weights`, async () => {
      const base = tinyHfWeights(tinyHfConfig(arch), 12);
      const policy = new HfCpuPolicy(base, { mode: { kind: 'lora', rank: 3, alpha: 6 }, seed: 4, vocabChunk: 64 });
      const lora = policy.model.lora!;
      const rng = new Rng(8);
      for (const L of lora.layers) for (const p of LORA_TARGETS) for (let i = 0; i < L[p].B.length; i++) L[p].B[i] = 0.3 * rng.normal(); // B ≠ 0 so ∂A is not zero
      const rs = rows(rng, base.config.vocabSize, [7, 11]);
      await policy.update(rs, loss, { step: 1, adamw, temperature: 1, update: false });
      const merged = mergedWeights(base, lora);
      const want = referenceGrads(merged, rs);
      const got = policy.gradients();
      expect(got.size).toBe(2 * LORA_TARGETS.length * base.config.numLayers);
      const r = lora.rank, s = lora.scale;
      lora.layers.forEach((L, li) => {
        for (const p of LORA_TARGETS) {
          const [n, m] = projShape(base.config, p);
          const dW = want.get(`layers.${li}.${p}`)!;
          const dA = new Float64Array(r * n), dB = new Float64Array(m * r);
          for (let o = 0; o < m; o++)
            for (let j = 0; j < r; j++)
              for (let i = 0; i < n; i++) {
                dB[o * r + j] += s * dW[o * n + i] * L[p].A[j * n + i];
                dA[j * n + i] += s * L[p].B[o * r + j] * dW[o * n + i];
              }
          expect(relErr(got.get(`lora.${li}.${p}.A`)!, dA), `${li}.${p}.A`).toBeLessThan(1e-4);
          expect(relErr(got.get(`lora.${li}.${p}.B`)!, dB), `${li}.${p}.B`).toBeLessThan(1e-4);
        }
      });
    });
});
