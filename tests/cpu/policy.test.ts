/**
 * What only the CPU engine has (the engine suite both engines pass is tests/model/policy.test.ts):
 * token ids checked on the host, the KL term off without refLogp, a sampled token's logp bit-equal
 * to the training forward's, determinism across thread counts and the single-threaded build,
 * a memory that stops growing, and the backend's own description and benchmark.
 */
import { describe, expect, it } from 'vitest';
import { validateModelConfig } from '../../src/model/config';
import { CpuPolicy } from '../../src/model/cpu-policy';
import { liveSizes } from '../../src/model/cpu/generate';
import { decodeSlots } from '../../src/model/engine-types';
import { initParams } from '../../src/model/init';
import { Rng } from '../../src/util/rng';
import { ADAMW, CASES, cpuBackend, LOSS, policyOn, randomSetup, updateAndGenerate } from '../model/engines';
import { freshSeed } from './harness';

it('rejects token ids outside the vocabulary, naming the position', async () => {
  const { cfg } = CASES[0];
  const s = randomSetup(cfg, 5);
  const pol = await policyOn(await cpuBackend(), cfg, s.p32);
  const bad = s.batch.tokens.slice();
  bad[4] = 99;
  await expect(pol.update({ ...s.batch, tokens: bad }, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW })).rejects.toThrow(/tokens\[4\] = 99/);
  pol.destroy();
});

it('a sampled token’s logp is bit-identical to the training forward’s logp of the same sequence', async () => {
  const { cfg } = CASES[0];
  const seed = freshSeed();
  const pol = await policyOn(await cpuBackend(), cfg, initParams(cfg, seed));
  const req = { prompts: [[1, 4], [1, 5, 6], [1]], maxResponseLength: 5, temperature: 0.9, topP: 1, seed, eosId: 2, padId: 0 };
  const got = await pol.generate(req);
  for (let b = 0; b < 3; b++) {
    const seq = [...req.prompts[b], ...got.responses[b]];
    const n = seq.length;
    const tokens = Uint32Array.from(seq);
    const targets = Uint32Array.from(seq.slice(1).concat([0]));
    const f = await pol.forward(tokens, targets, 1, n, req.temperature);
    const P = req.prompts[b].length;
    expect(Array.from(f.logp.subarray(P - 1, n - 1)), `seed ${seed} seq ${b}`).toEqual(got.logp[b]);
  }
  pol.destroy();
});

it('without refLogp the KL term is off whatever β (the WebGPU engine refuses β ≠ 0 there)', async () => {
  const { cfg } = CASES[0];
  const s = randomSetup(cfg, 7);
  const pol = await policyOn(await cpuBackend(), cfg, s.p32);
  const onPolicy = { ...s.batch, oldLogp: undefined, refLogp: undefined };
  const withBeta = await pol.update(onPolicy, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW, update: false });
  expect(withBeta.klSum).toBe(0);
  expect(withBeta).toEqual(await pol.update(onPolicy, { kind: 'grpo', opts: { ...LOSS, klCoef: 0 } }, { step: 1, adamw: ADAMW, update: false }));
  pol.destroy();
});

describe('decoding only the running sequences', () => {
  it('live sizes: B first, each at least a quarter smaller than the last, down to 1', () => {
    expect(liveSizes(1)).toEqual([1]);
    expect(liveSizes(2)).toEqual([2, 1]);
    expect(liveSizes(37)).toEqual([37, 28, 21, 16, 12, 9, 7, 6, 5, 4, 3, 2, 1]);
    const big = liveSizes(1024);
    expect(big.length).toBe(25);
    for (let i = 1; i < big.length; i++) expect(big[i]).toBeLessThanOrEqual(Math.ceil((big[i - 1] * 3) / 4));
  });

  it('gives, bit for bit, what decoding every slot gives, at 1, 2 and 3 threads, with fewer slots', async () => {
    const seed = freshSeed();
    const rng = new Rng(seed);
    // A context long enough that responses end over many steps (EOS is 1 of 11 tokens), and 37 prompts of 1–6 tokens.
    const cfg = validateModelConfig({ vocabSize: 11, contextLength: 40, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true });
    const p32 = initParams(cfg, seed);
    for (let i = 0; i < p32.length; i++) p32[i] += 0.3 * rng.normal();
    const prompts = Array.from({ length: 37 }, () => [1, ...Array.from({ length: rng.nextU32() % 6 }, () => 3 + (rng.nextU32() % 8))]);
    for (const threads of [1, 2, 3]) {
      const pol = (await policyOn(await cpuBackend(threads), cfg, p32)) as CpuPolicy;
      for (const [temperature, topP] of [[1, 1], [0.7, 0.9]]) {
        const req = { prompts, maxResponseLength: 30, temperature, topP, seed: rng.nextU32(), eosId: 2, padId: 0 };
        const every = await pol.generate(req, { compact: false });
        const running = await pol.generate(req);
        const msg = `seed ${seed} threads ${threads} τ ${temperature}`;
        expect({ ...running, liveSlots: [] }, msg).toEqual({ ...every, liveSlots: [] });
        expect(every.liveSlots, msg).toEqual(new Array(every.steps).fill(prompts.length));
        // Each step decodes no more slots than the one before, and at least the sequences still running.
        for (let p = 1; p < running.steps; p++) expect(running.liveSlots[p], msg).toBeLessThanOrEqual(running.liveSlots[p - 1]);
        const [slots, everySlots] = [decodeSlots(running), decodeSlots(every)];
        // Sequence b runs for P_b + L_b − 1 steps (prompt, then its response); the live slots stay within
        // 4/3 of the running ones, plus one step's lag. Prompts of 1–6 tokens end at different steps even
        // when every response runs to the limit, so some slots are saved (the first smaller size needs 9 of
        // the 37 ended before the last step: ~31 prompts are shorter than the longest).
        const useful = prompts.reduce((a, pr, b) => a + pr.length + every.responses[b].length - 1, 0);
        expect(slots, msg).toBeGreaterThanOrEqual(useful);
        expect(slots, msg).toBeLessThanOrEqual((4 / 3) * (useful + every.steps) + every.steps);
        expect(slots, msg).toBeLessThan(everySlots);
      }
      pol.destroy();
    }
  });
});

describe('determinism', () => {
  it('1, 2 and 3 threads and the single-threaded build give bit-identical results', async () => {
    const seed = freshSeed();
    // A wider model so every split (matmul rows, heads, column groups, norm chunks) has work on each thread.
    const wide = validateModelConfig({ vocabSize: 37, contextLength: 16, nLayers: 2, dModel: 24, nHeads: 3, mlpRatio: 4, norm: 'layernorm', tiedEmbeddings: false });
    for (const cfg of [CASES[0].cfg, wide]) {
      const one = await updateAndGenerate(await cpuBackend(1), cfg, seed);
      expect(await updateAndGenerate(await cpuBackend(2), cfg, seed), `seed ${seed}`).toEqual(one);
      expect(await updateAndGenerate(await cpuBackend(3), cfg, seed), `seed ${seed}`).toEqual(one);
      expect(await updateAndGenerate(await cpuBackend(1, 'single'), cfg, seed), `seed ${seed}`).toEqual(one);
    }
  });

  it('steady state: memory stops growing once a shape has been seen', async () => {
    const { cfg } = CASES[0];
    const s = randomSetup(cfg, 3);
    const be = await cpuBackend(2);
    const pol = await policyOn(be, cfg, s.p32);
    const once = async (k: number) => {
      await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: k, adamw: ADAMW });
      await pol.generate({ prompts: [[1, 4], [1, 5, 6]], maxResponseLength: 4, temperature: 1, topP: 1, seed: 3, eosId: 2, padId: 0 });
    };
    await once(1);
    const bytes = be.rt.memory.buffer.byteLength;
    await once(2);
    await once(3);
    expect(be.rt.memory.buffer.byteLength).toBe(bytes);
    pol.destroy();
  });
});

describe('backend', () => {
  it('describes itself and measures matmul GFLOP/s', async () => {
    const be = await cpuBackend(2);
    expect(be.description).toBe('CPU engine (WebAssembly SIMD, 2 threads)');
    expect(be.threads).toBe(2);
    const g = await be.matmulGflops!({ M: 64, N: 48, K: 32, transA: false, transB: true }, 3);
    expect(g).toBeGreaterThan(0);
    expect((await cpuBackend(1, 'single')).description).toBe('CPU engine (WebAssembly SIMD, 1 thread)');
  });
});
