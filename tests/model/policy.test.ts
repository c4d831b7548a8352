/**
 * End-to-end: the whole policy on the GPU (every kernel composed by GpuPolicy + buildPolicyStep)
 * against the float64 reference — logits, per-token log-prob and entropy, GRPO loss stats,
 * every parameter's gradient, and several clipped AdamW steps.
 */
import { describe, expect, it } from 'vitest';
import { layoutParams, validateModelConfig, type ModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { GpuPolicy } from '../../src/model/policy';
import { buildPolicyStep } from '../../src/model/step';
import { generate } from '../../src/model/generate';
import { sampleToken, uniformAt } from '../../src/model/reference/sampling';
import { nextTokenTargets, referenceForward, referencePolicyLoss, referenceTrainStep, type PolicyLossInputs } from '../../src/model/reference/model';
import { logSoftmaxEntropyForward, type GrpoLossOptions } from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, relErr } from '../gpu/harness';

const CASES: { name: string; cfg: ModelConfig }[] = [
  { name: 'rmsnorm, tied', cfg: validateModelConfig({ vocabSize: 11, contextLength: 9, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true }) },
  { name: 'layernorm, untied', cfg: validateModelConfig({ vocabSize: 13, contextLength: 8, nLayers: 2, dModel: 8, nHeads: 2, mlpRatio: 3, norm: 'layernorm', tiedEmbeddings: false }) },
];
const B = 3;
const T = 7;
const TEMP = 0.8;
const LOSS: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.05, klCoef: 0.1, klType: 'k3' };
// eps 1e-6, not 1e-8: Adam divides by |g|, so f32 round-off (~1e-9) on a gradient that is exactly
// zero in float64 (the attention key bias is softmax-invariant) would otherwise become a full step.
const ADAMW = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 1 };

function randomSetup(cfg: ModelConfig, seed: number) {
  const rng = new Rng(seed);
  const layout = layoutParams(cfg);
  const p32 = initParams(cfg, seed);
  // Larger-than-init weights so every path (attention shape, norms, clipping) matters.
  for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.2 * rng.normal();
  const tokens = Int32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = nextTokenTargets(tokens, B, T);
  const params = Float64Array.from(p32);
  const { logits } = referenceForward(cfg, params, tokens, B, T);
  const { logp } = logSoftmaxEntropyForward(logits, targets, B * T, cfg.vocabSize, TEMP);
  const mask = new Float64Array(B * T);
  const advantages = new Float64Array(B * T);
  for (let b = 0; b < B; b++) {
    const a = rng.normal();
    for (let t = 2; t < T - 1; t++) {
      mask[b * T + t] = 1;
      advantages[b * T + t] = a;
    }
  }
  const count = mask.reduce((s, x) => s + x, 0);
  const inputs: PolicyLossInputs = {
    oldLogp: logp.map((x) => x + 0.3 * rng.normal()),
    refLogp: logp.map((x) => x + 0.3 * rng.normal()),
    advantages,
    weights: mask.map((m) => m / count),
    mask,
  };
  return { p32, params, tokens, targets, inputs };
}

async function gpuStep(cfg: ModelConfig, name: string, s: ReturnType<typeof randomSetup>) {
  const rt = await gpu();
  const policy = new GpuPolicy(rt, cfg, name);
  policy.setParams(s.p32);
  policy.resetAdamState();
  const step = await buildPolicyStep(policy, B, T, TEMP, { kind: 'grpo', opts: LOSS, useRef: true });
  rt.write(step.plan.tokens, Uint32Array.from(s.tokens));
  rt.write(step.plan.targets, Uint32Array.from(s.targets));
  rt.write(step.oldLogp, Float32Array.from(s.inputs.oldLogp));
  rt.write(step.refLogp, Float32Array.from(s.inputs.refLogp!));
  rt.write(step.advantages, Float32Array.from(s.inputs.advantages));
  rt.write(step.weights, Float32Array.from(s.inputs.weights));
  rt.write(step.mask, Float32Array.from(s.inputs.mask));
  return { rt, policy, step };
}

describe('GPU policy vs float64 reference', () => {
  for (const { name, cfg } of CASES) {
    it(`forward, GRPO loss and every gradient match (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const { rt, policy, step } = await gpuStep(cfg, `pol${cfg.norm}`, s);
      step.run({ step: 1, adamw: ADAMW, onPolicy: false, update: false });
      const ref = referencePolicyLoss(cfg, s.params, s.tokens, B, T, TEMP, s.inputs, LOSS);
      const refLogits = referenceForward(cfg, s.params, s.tokens, B, T).logits;
      const msg = `seed ${seed}`;
      expect(relErr(await rt.readF32(step.plan.logits, 0, B * T * cfg.vocabSize), refLogits), msg).toBeLessThan(1e-4);
      expect(relErr(await rt.readF32(step.plan.logp, 0, B * T), ref.logp), msg).toBeLessThan(1e-4);
      expect(relErr(await rt.readF32(step.plan.entropy, 0, B * T), ref.entropy), msg).toBeLessThan(1e-4);
      const stats = await step.readStats();
      expect(relErr([stats.loss, stats.pgLoss, stats.klSum, stats.entSum], [ref.loss, ref.pgLoss, ref.klSum, ref.entSum]), msg).toBeLessThan(1e-4);
      expect(stats.clipfrac).toBeCloseTo(ref.clipfrac, 6);
      expect(stats.clipfracLower).toBeCloseTo(ref.clipfracLower, 6);
      const grads = await rt.readF32(policy.grads, 0, policy.layout.totalFloats);
      for (const t of policy.layout.tensors) {
        const g = grads.subarray(t.offset, t.offset + t.size);
        const r = ref.grads.subarray(t.offset, t.offset + t.size);
        expect(relErr(g, r), `${msg} grad ${t.name}`).toBeLessThan(1e-3);
      }
      let norm = 0;
      for (const x of ref.grads) norm += x * x;
      expect(stats.gradNorm).toBeCloseTo(Math.sqrt(norm), 4);
    });

    it(`three clipped AdamW steps give the same weights (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const { policy, step } = await gpuStep(cfg, `adam${cfg.norm}`, s);
      const params = s.params.slice();
      const m = new Float64Array(params.length);
      const v = new Float64Array(params.length);
      for (let k = 1; k <= 3; k++) {
        step.run({ step: k, adamw: ADAMW, onPolicy: false });
        referenceTrainStep(cfg, params, m, v, s.tokens, B, T, TEMP, s.inputs, LOSS, { ...ADAMW, step: k });
      }
      const got = await policy.getParams();
      const diffs = Array.from(params, (x, i) => Math.abs(got[i] - x) / ADAMW.lr).sort((a, b) => a - b);
      // Each step moves a weight by up to ~lr, so a wrong update shows as a difference of order 1 here.
      // A few elements whose float64 gradient is ~0 see f32 round-off amplified by Adam's 1/√v: allow
      // them 5% of a step, and require 99% of weights to agree within 0.1% of a step.
      expect(diffs[diffs.length - 1], `seed ${seed}`).toBeLessThan(0.05);
      expect(diffs[Math.floor(diffs.length * 0.99)], `seed ${seed}`).toBeLessThan(1e-3);
      const moved = params.some((x, i) => Math.abs(x - s.params[i]) > ADAMW.lr * 0.5);
      expect(moved).toBe(true);
    });
  }
});

describe('GPU batched decoding with the KV cache vs the float64 reference', () => {
  it('samples the same tokens as full-prefix reference forwards with the same PRNG draws', async () => {
    const { cfg } = CASES[0];
    const seed = freshSeed();
    const rng = new Rng(seed);
    const p32 = initParams(cfg, seed);
    const layout = layoutParams(cfg);
    for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.3 * rng.normal();
    const rt = await gpu();
    const policy = new GpuPolicy(rt, cfg, 'decode');
    policy.setParams(p32);
    const prompts = [[1, 4, 5], [1], [1, 7, 3, 2, 9], [1, 6]];
    const req = { prompts, maxResponseLength: 4, temperature: 0.9, topP: 0.95, seed: seed >>> 0, eosId: 2, padId: 0 };
    const got = await generate(policy, req, { chunk: 3 });

    const params = Float64Array.from(p32);
    prompts.forEach((prompt, b) => {
      const seq = [...prompt];
      const resp: number[] = [];
      let finish: 'eos' | 'truncated' = 'truncated';
      while (resp.length < req.maxResponseLength && seq.length < cfg.contextLength) {
        const { logits } = referenceForward(cfg, params, seq, 1, seq.length);
        const last = logits.subarray((seq.length - 1) * cfg.vocabSize, seq.length * cfg.vocabSize);
        const s = sampleToken(last, req.temperature, req.topP, uniformAt(req.seed, b, seq.length - 1));
        seq.push(s.token);
        resp.push(s.token);
        expect(got.logp[b][resp.length - 1], `seed ${seed} seq ${b}`).toBeCloseTo(s.logp, 4);
        if (s.token === req.eosId) {
          finish = 'eos';
          break;
        }
      }
      expect(got.responses[b], `seed ${seed} seq ${b}`).toEqual(resp);
      expect(got.finish[b]).toBe(finish);
    });
  });

  it('rejects prompts it cannot hold, naming the prompt', async () => {
    const { cfg } = CASES[0];
    const policy = new GpuPolicy(await gpu(), cfg, 'decode');
    const base = { maxResponseLength: 3, temperature: 1, topP: 1, seed: 1, eosId: 2, padId: 0 };
    await expect(generate(policy, { ...base, prompts: [[1], new Array(cfg.contextLength).fill(1)] })).rejects.toThrow(/prompts\[1\]: length 9/);
    await expect(generate(policy, { ...base, prompts: [[1, 99]] })).rejects.toThrow(/prompts\[0\]: token ids/);
  });
});

describe('steady state', () => {
  it('a training step and a generation allocate no GPU buffers or bind groups once warmed up', async () => {
    const { cfg } = CASES[0];
    const s = randomSetup(cfg, 11);
    const { rt, policy, step } = await gpuStep(cfg, 'steady', s);
    const req = { prompts: [[1, 4], [1, 5, 6]], maxResponseLength: 4, temperature: 1, topP: 1, seed: 3, eosId: 2, padId: 0 };
    const once = async (k: number) => {
      step.run({ step: k, adamw: ADAMW, onPolicy: true });
      await step.readStats();
      await generate(policy, req);
    };
    await once(1);
    const counts = { buffers: 0, bindGroups: 0, pipelines: 0 };
    const dev = rt.device as unknown as Record<string, (...a: unknown[]) => unknown>;
    const orig = { b: dev.createBuffer, g: dev.createBindGroup, p: dev.createComputePipelineAsync };
    dev.createBuffer = (...a) => (counts.buffers++, orig.b.apply(rt.device, a));
    dev.createBindGroup = (...a) => (counts.bindGroups++, orig.g.apply(rt.device, a));
    dev.createComputePipelineAsync = (...a) => (counts.pipelines++, orig.p.apply(rt.device, a));
    try {
      await once(2);
      await once(3);
    } finally {
      Object.assign(dev, { createBuffer: orig.b, createBindGroup: orig.g, createComputePipelineAsync: orig.p });
    }
    expect(counts).toEqual({ buffers: 0, bindGroups: 0, pipelines: 0 });
  });
});
