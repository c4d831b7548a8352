/**
 * The CPU engine's real-model policy beyond the gradient: KV-cache sampling scores each token as the float64
 * reference forward does, the same seed gives the same tokens; a LoRA forward equals the merged model's; a
 * trained model (full, or LoRA merged) exports as a folder the reader loads back to the same weights.
 */
import { describe, expect, it } from 'vitest';
import { tinyHfConfig, tinyHfWeights } from '../../../src/model/hf/tiny';
import { hfTokenLogprobs } from '../../../src/model/hf/reference-forward';
import { encodeHfFolder, expectedTensors, loadHfWeights, type HfWeights } from '../../../src/model/hf/weights';
import { memoryFolder } from '../../../src/model/hf/files';
import { HfCpuPolicy } from '../../../src/model/hf-cpu/policy';
import { HfCpuModel, LORA_TARGETS, mergedWeights } from '../../../src/model/hf-cpu/model';
import { Rng } from '../../../src/util/rng';

const req = { prompts: [[5, 17, 3], [250, 1], [9]], maxResponseLength: 12, temperature: 1, topP: 1, seed: 77, eosId: 0, padId: 0 };
const loss = { epsLow: 0.2, epsHigh: 0.2, dualClip: null, entCoef: 0.01, klCoef: 0, klType: 'k3' as const };
const adamw = { lr: 3e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1 };

function tensor(w: HfWeights, t: { layer: number; key: string }): Float32Array {
  return t.layer >= 0 ? (w.layers[t.layer] as unknown as Record<string, Float32Array>)[t.key] : (w as unknown as Record<string, Float32Array>)[t.key];
}

describe('HfCpuPolicy sampling', () => {
  for (const arch of ['llama', 'qwen2'] as const)
    it(`${arch}: each sampled token's log-prob and entropy equal the reference forward's; the seed fixes the tokens`, async () => {
      const w = tinyHfWeights(tinyHfConfig(arch), 3);
      const policy = new HfCpuPolicy(w, { mode: { kind: 'full' } });
      const a = await policy.generate(req), b = await policy.generate(req), c = await policy.generate({ ...req, seed: 78 });
      expect(a.responses).toEqual(b.responses);
      expect(a.responses).not.toEqual(c.responses);
      a.responses.forEach((resp, i) => {
        expect(resp.length).toBeGreaterThan(0);
        expect(a.finish[i]).toBe(resp[resp.length - 1] === 0 ? 'eos' : 'truncated');
        const seq = [...req.prompts[i], ...resp];
        const want = hfTokenLogprobs(w, seq);
        resp.forEach((_, j) => {
          const t = req.prompts[i].length - 1 + j;
          expect(Math.abs(a.logp[i][j] - want.logprobs[t])).toBeLessThan(1e-5);
          expect(Math.abs(a.entropy[i][j] - want.entropies[t])).toBeLessThan(1e-5);
        });
      });
    });
});

describe('LoRA merge and export', () => {
  it('the merged model scores every token as the LoRA model does', () => {
    const base = tinyHfWeights(tinyHfConfig('qwen2'), 4);
    const policy = new HfCpuPolicy(base, { mode: { kind: 'lora', rank: 4, alpha: 8 }, seed: 2 });
    const lora = policy.model.lora!, rng = new Rng(9);
    for (const L of lora.layers) for (const p of LORA_TARGETS) for (let i = 0; i < L[p].B.length; i++) L[p].B[i] = 0.2 * rng.normal();
    const tokens = [3, 99, 250, 7, 7, 18, 301, 42];
    const adapted = policy.model.forwardTrain(tokens, 1, 4096).stats;
    const merged = new HfCpuModel(mergedWeights(base, lora), null).forwardTrain(tokens, 1, 4096).stats;
    const plain = new HfCpuModel(base, null).forwardTrain(tokens, 1, 4096).stats;
    for (let t = 0; t < tokens.length - 1; t++) {
      expect(Math.abs(adapted.logp[t] - merged.logp[t])).toBeLessThan(2e-5);
      expect(Math.abs(adapted.entropy[t] - merged.entropy[t])).toBeLessThan(2e-5);
    }
    // The adapters matter: the base alone scores differently.
    expect(Math.max(...Array.from({ length: tokens.length - 1 }, (_, t) => Math.abs(plain.logp[t] - adapted.logp[t])))).toBeGreaterThan(1e-3);
  });

  for (const mode of [{ kind: 'full' } as const, { kind: 'lora', rank: 4, alpha: 4 } as const])
    it(`${mode.kind}: an update moves the model, the export loads back to the same weights, the base is untouched`, async () => {
      const base = tinyHfWeights(tinyHfConfig('llama'), 5);
      const before = structuredClone(base);
      const policy = new HfCpuPolicy(base, { mode, seed: 3 });
      const tokens = [1, 2, 3, 4, 5, 6];
      const mask = Float64Array.from([0, 1, 1, 1, 1]);
      const row = { tokens, mask, weights: mask.map((m) => m / 4), advantages: mask.map(() => 1) };
      const lp0 = policy.model.forwardTrain(tokens, 1, 4096).stats.logp;
      for (let step = 1; step <= 3; step++) expect((await policy.update([row], loss, { step, adamw, temperature: 1 })).applied).toBe(true);
      const lp1 = policy.model.forwardTrain(tokens, 1, 4096).stats.logp;
      // A positive advantage raises the response tokens' log-probs.
      for (let t = 1; t < 5; t++) expect(lp1[t]).toBeGreaterThan(lp0[t]);
      for (const t of expectedTensors(base.config)) expect(tensor(base, t), t.name).toEqual(tensor(before, t));
      const out = policy.exportWeights();
      const files = encodeHfFolder(out, { dtype: 'F32', shards: 2 });
      const back = await loadHfWeights(memoryFolder('exported', files));
      expect(back.config).toEqual(base.config);
      for (const t of expectedTensors(base.config)) expect(tensor(back, t), t.name).toEqual(tensor(out, t));
      const changed = expectedTensors(base.config).filter((t) => tensor(out, t).some((x, i) => x !== tensor(base, t)[i]));
      expect(changed.length).toBeGreaterThan(0);
      if (mode.kind === 'lora') expect(changed.every((t) => LORA_TARGETS.some((p) => t.key === p))).toBe(true);
    });
});
