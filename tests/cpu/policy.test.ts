/**
 * What only the CPU engine has (the engine suite both engines pass is tests/model/policy.test.ts):
 * token ids checked on the host, the KL term off without refLogp, a sampled token's logp bit-equal
 * to the training forward's, determinism across thread counts and the single-threaded build,
 * a memory that stops growing, and the backend's own description and benchmark.
 */
import { describe, expect, it } from 'vitest';
import { validateModelConfig } from '../../src/model/config';
import { initParams } from '../../src/model/init';
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
