/**
 * Both engines through PolicyEngine (the CPU engine's CpuPolicy and the WebGPU engine's GpuPolicy +
 * PolicyStep: every kernel composed by the recorded programs / dispatch plans) against the float64
 * reference — logits, per-token log-prob and entropy, GRPO and CE loss stats, every parameter's
 * gradient, three clipped AdamW steps, sampling against full-prefix reference forwards — and
 * replay. What only one engine has (thread counts, memory, dispatch plans, host-side token checks,
 * decode logp bit-equal to the training forward's) is tested beside it:
 * tests/cpu/policy.test.ts and the WebGPU describe at the end of this file.
 */
import { describe, expect, it } from 'vitest';
import { layoutParams } from '../../src/model/config';
import { generate } from '../../src/model/generate';
import type { WebGpuPolicyEngine } from '../../src/model/gpu-engine';
import { initParams } from '../../src/model/init';
import { referenceCrossEntropy, referenceForward, referencePolicyLoss, referenceTrainStep } from '../../src/model/reference/model';
import { sampleToken, uniformAt } from '../../src/model/reference/sampling';
import { Rng } from '../../src/util/rng';
import { freshSeed, relErr } from '../gpu/harness';
import { ADAMW, B, CASES, ENGINES, LOSS, policyOn, randomSetup, T, TEMP, updateAndGenerate } from './engines';

describe.each(ENGINES)('$name policy vs float64 reference', (engine) => {
  for (const { name, cfg } of CASES) {
    it(`forward, GRPO loss and every gradient match (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const pol = await policyOn(await engine.backend(), cfg, s.p32);
      const stats = await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW, update: false });
      const ref = referencePolicyLoss(cfg, s.params, s.tokens, B, T, TEMP, s.inputs, LOSS);
      const msg = `seed ${seed}`;
      expect(relErr(await engine.logits(pol, B, T, TEMP), referenceForward(cfg, s.params, s.tokens, B, T).logits), msg).toBeLessThan(1e-4);
      const grads = await engine.grads(pol);
      const fwd = await pol.forward(s.batch.tokens, s.batch.targets, B, T, TEMP);
      expect(relErr(fwd.logp, ref.logp), msg).toBeLessThan(1e-4);
      expect(relErr(fwd.entropy, ref.entropy), msg).toBeLessThan(1e-4);
      expect(relErr([stats.loss, stats.pgLoss, stats.klSum, stats.entSum], [ref.loss, ref.pgLoss, ref.klSum, ref.entSum]), msg).toBeLessThan(1e-4);
      expect(stats.clipfrac).toBeCloseTo(ref.clipfrac, 6);
      expect(stats.clipfracLower).toBeCloseTo(ref.clipfracLower, 6);
      expect(stats.ppoKl).toBeCloseTo(ref.ppoKl, 5);
      expect(stats.maskCount).toBe(s.inputs.mask.reduce((a, x) => a + x, 0));
      for (const t of pol.layout.tensors) {
        expect(relErr(grads.subarray(t.offset, t.offset + t.size), ref.grads.subarray(t.offset, t.offset + t.size)), `${msg} grad ${t.name}`).toBeLessThan(1e-3);
      }
      let norm = 0;
      for (const x of ref.grads) norm += x * x;
      expect(stats.gradNorm).toBeCloseTo(Math.sqrt(norm), 4);
      // update: false leaves the weights alone.
      expect(Array.from(await pol.getParams())).toEqual(Array.from(s.p32));
      pol.destroy();
    });

    it(`three clipped AdamW steps give the same weights (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const pol = await policyOn(await engine.backend(), cfg, s.p32);
      const params = s.params.slice();
      const m = new Float64Array(params.length);
      const v = new Float64Array(params.length);
      for (let k = 1; k <= 3; k++) {
        await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: k, adamw: ADAMW });
        referenceTrainStep(cfg, params, m, v, s.tokens, B, T, TEMP, s.inputs, LOSS, { ...ADAMW, step: k });
      }
      const got = await pol.getParams();
      const diffs = Array.from(params, (x, i) => Math.abs(got[i] - x) / ADAMW.lr).sort((a, b) => a - b);
      // Each step moves a weight by up to ~lr, so a wrong update shows as a difference of order 1 here.
      // A few elements whose float64 gradient is ~0 see f32 round-off amplified by Adam's 1/√v: allow
      // them 5% of a step, and require 99% of weights to agree within 0.1% of a step.
      expect(diffs[diffs.length - 1], `seed ${seed}`).toBeLessThan(0.05);
      expect(diffs[Math.floor(diffs.length * 0.99)], `seed ${seed}`).toBeLessThan(1e-3);
      expect(params.some((x, i) => Math.abs(x - s.params[i]) > ADAMW.lr * 0.5)).toBe(true);
      const adam = await pol.getAdamState();
      // m sums gradients taken at weights that already differ by the round-off allowed above; where one weight
      // took its 5%-of-a-step outlier the next gradient follows it. Most seeds give 1e-5–6e-5, seed 971523341
      // gives 1.2e-3 (CPU) and 1.1e-3 (WebGPU), so 5e-3: a wrong moment is off by order 1.
      expect(relErr(adam.m, m), `seed ${seed}`).toBeLessThan(5e-3);
      pol.destroy();
    });

    it(`on-policy GRPO (oldLogp := this forward's logp) and SFT cross-entropy (${name})`, async () => {
      const seed = freshSeed();
      const s = randomSetup(cfg, seed);
      const pol = await policyOn(await engine.backend(), cfg, s.p32);
      const onPolicy = { ...s.batch, oldLogp: undefined, refLogp: undefined };
      // β = 0: with no refLogp the WebGPU engine refuses β ≠ 0 (the CPU engine drops the term: tests/cpu/policy.test.ts).
      const st = await pol.update(onPolicy, { kind: 'grpo', opts: { ...LOSS, klCoef: 0 } }, { step: 1, adamw: ADAMW, update: false });
      const grads = await engine.grads(pol);
      const fwd = await pol.forward(s.batch.tokens, s.batch.targets, B, T, TEMP);
      const ref = referencePolicyLoss(cfg, s.params, s.tokens, B, T, TEMP, { ...s.inputs, oldLogp: Float64Array.from(fwd.logp), refLogp: null }, { ...LOSS, klCoef: 0 });
      expect(st.ppoKl).toBe(0);
      expect(st.clipfrac).toBe(0);
      expect(st.klSum).toBe(0);
      expect(relErr([st.loss, st.pgLoss, st.entSum], [ref.loss, ref.pgLoss, ref.entSum]), `seed ${seed}`).toBeLessThan(1e-4);
      expect(relErr(grads, ref.grads), `seed ${seed}`).toBeLessThan(1e-3);

      const ce = await pol.update({ ...s.batch, advantages: undefined, oldLogp: undefined, refLogp: undefined, temperature: 1 }, { kind: 'ce' }, { step: 1, adamw: ADAMW, update: false });
      const refCe = referenceCrossEntropy(cfg, s.params, s.tokens, B, T, s.inputs.weights);
      expect(relErr([ce.loss], [refCe.loss]), `seed ${seed}`).toBeLessThan(1e-4);
      expect(relErr(await engine.grads(pol), refCe.grads), `seed ${seed}`).toBeLessThan(1e-3);
      pol.destroy();
    });
  }

  it('rejects malformed batches, naming the field', async () => {
    const { cfg } = CASES[0];
    const s = randomSetup(cfg, 5);
    const pol = await policyOn(await engine.backend(), cfg, s.p32);
    await expect(pol.update({ ...s.batch, mask: new Float32Array(3) }, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW })).rejects.toThrow(/mask has 3 entries/);
    await expect(pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: 0, adamw: ADAMW })).rejects.toThrow(/step/);
    pol.destroy();
  });
});

describe.each(ENGINES)('$name batched decoding with the KV cache vs the float64 reference', (engine) => {
  for (const { name, cfg } of CASES) {
    it(`samples the same tokens as full-prefix reference forwards with the same PRNG draws (${name})`, async () => {
      const seed = freshSeed();
      const rng = new Rng(seed);
      const p32 = initParams(cfg, seed);
      const layout = layoutParams(cfg);
      for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.3 * rng.normal();
      const pol = await policyOn(await engine.backend(), cfg, p32);
      const prompts = [[1, 4, 5], [1], [1, 7, 3, 2, 9], [1, 6], [1, 3, 3, 3, 3, 3, 3]];
      for (const [temperature, topP] of [[0.9, 0.95], [1.2, 1]]) {
        const req = { prompts, maxResponseLength: 4, temperature, topP, seed: rng.nextU32(), eosId: 2, padId: 0 };
        const got = await pol.generate(req);
        const params = Float64Array.from(p32);
        prompts.forEach((prompt, b) => {
          const seq = [...prompt];
          const resp: number[] = [];
          let finish: 'eos' | 'truncated' = 'truncated';
          while (resp.length < req.maxResponseLength && seq.length < cfg.contextLength) {
            const { logits } = referenceForward(cfg, params, seq, 1, seq.length);
            const last = logits.subarray((seq.length - 1) * cfg.vocabSize, seq.length * cfg.vocabSize);
            const r = sampleToken(last, req.temperature, req.topP, uniformAt(req.seed, b, seq.length - 1));
            seq.push(r.token);
            resp.push(r.token);
            expect(got.logp[b][resp.length - 1], `seed ${seed} seq ${b}`).toBeCloseTo(r.logp, 4);
            expect(got.entropy[b][resp.length - 1], `seed ${seed} seq ${b}`).toBeCloseTo(r.entropy, 4);
            if (r.token === req.eosId) {
              finish = 'eos';
              break;
            }
          }
          expect(got.responses[b], `seed ${seed} seq ${b}`).toEqual(resp);
          expect(got.finish[b]).toBe(finish);
        });
      }
      pol.destroy();
    });
  }

  it('rejects prompts it cannot hold, naming the prompt', async () => {
    const { cfg } = CASES[0];
    const pol = await policyOn(await engine.backend(), cfg, initParams(cfg, 1));
    const base = { maxResponseLength: 3, temperature: 1, topP: 1, seed: 1, eosId: 2, padId: 0 };
    await expect(pol.generate({ ...base, prompts: [[1], new Array(cfg.contextLength).fill(1)] })).rejects.toThrow(/prompts\[1\]: length 9/);
    await expect(pol.generate({ ...base, prompts: [[1, 99]] })).rejects.toThrow(/prompts\[0\]: token ids/);
    await expect(pol.generate({ ...base, prompts: [[1]], topP: 0 })).rejects.toThrow(/topP/);
    pol.destroy();
  });
});

describe.each(ENGINES)('$name determinism', (engine) => {
  it('replay: the same update sequence gives bit-identical parameters, moments, stats and samples', async () => {
    const seed = freshSeed();
    const backend = await engine.backend();
    for (const { cfg } of CASES) expect(await updateAndGenerate(backend, cfg, seed), `seed ${seed}`).toEqual(await updateAndGenerate(backend, cfg, seed));
  });
});

describe('WebGPU engine', () => {
  const webgpu = ENGINES.find((e) => e.name === 'webgpu')!;

  it('decoding in chunks of 3 steps between status peeks gives the same result as the default chunk', async () => {
    const { cfg } = CASES[0];
    const seed = freshSeed();
    const pol = (await policyOn(await webgpu.backend(), cfg, initParams(cfg, seed))) as WebGpuPolicyEngine;
    const req = { prompts: [[1, 4, 5], [1], [1, 7, 3, 2, 9], [1, 6]], maxResponseLength: 4, temperature: 0.9, topP: 0.95, seed: seed >>> 0, eosId: 2, padId: 0 };
    const { steps: chunkedSteps, liveSlots: chunkedSlots, ...chunked } = await generate(pol.gpu, req, { chunk: 3 });
    const { steps: wholeSteps, liveSlots: wholeSlots, ...whole } = await pol.generate(req);
    // Finished sequences leave the decoded slots at a status peek (tests/model/decode-compaction.test.ts): never more than the batch.
    for (const n of [...chunkedSlots, ...wholeSlots]) expect(n >= 1 && n <= 4, `${n} slots`).toBe(true);
    expect([chunkedSlots.length, wholeSlots.length]).toEqual([chunkedSteps, wholeSteps]);
    expect(chunked, `seed ${seed}`).toEqual(whole);
    // Decode steps run are a cost, not a result: peeking every 3 steps can stop the batch sooner once every sequence
    // has finished (seed 1175159848: 6 against 8), never later.
    expect(chunkedSteps, `seed ${seed}`).toBeLessThanOrEqual(wholeSteps);
    pol.destroy();
  });

  it('steady state: a training step and a generation allocate no GPU buffers or bind groups once warmed up', async () => {
    const { cfg } = CASES[0];
    const s = randomSetup(cfg, 11);
    const pol = (await policyOn(await webgpu.backend(), cfg, s.p32)) as WebGpuPolicyEngine;
    const { rt } = pol;
    const req = { prompts: [[1, 4], [1, 5, 6]], maxResponseLength: 4, temperature: 1, topP: 1, seed: 3, eosId: 2, padId: 0 };
    const once = async (k: number) => {
      await pol.update({ ...s.batch, oldLogp: undefined }, { kind: 'grpo', opts: LOSS }, { step: k, adamw: ADAMW });
      await pol.generate(req);
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
    pol.destroy();
  });
});
