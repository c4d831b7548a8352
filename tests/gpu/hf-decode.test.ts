/** The KV-cache decode step of a Llama / Qwen2 model on WebGPU (src/model/hf/gpu-decode.ts) against the full float64 forward, position by position. */
import { describe, expect, it } from 'vitest';
import { memoryFolder } from '../../src/model/hf/files';
import { hfGpuGenerate, recordHfDecoder } from '../../src/model/hf/gpu-decode';
import { uploadHfWeights } from '../../src/model/hf/gpu-forward';
import { hfHiddenStates, hfTokenLogprobs } from '../../src/model/hf/reference-forward';
import { sampleToken, uniformAt } from '../../src/model/reference/sampling';
import { tinyHfFolder } from '../../src/model/hf/tiny';
import { loadHfWeights } from '../../src/model/hf/weights';
import { NO_TARGET } from '../../src/model/reference/ops/vocab';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu } from './harness';

const NATS = 5e-5;

describe('Llama / Qwen2 KV-cache decoding on WebGPU vs the float64 forward', () => {
  for (const arch of ['llama', 'qwen2'] as const) {
    it(`${arch}: each step's log-prob and entropy equal the full forward's at that position (2 sequences × 14)`, async () => {
      const rt = await gpu();
      const w = await loadHfWeights(memoryFolder(arch, tinyHfFolder(arch)));
      const seed = freshSeed();
      const rng = new Rng(seed);
      const [B, T] = [2, 14];
      const seqs = Array.from({ length: B }, () => Array.from({ length: T }, () => rng.int(0, w.config.vocabSize - 1)));
      const want = seqs.map((s) => hfTokenLogprobs(w, s, 64));
      const dec = await recordHfDecoder(rt, uploadHfWeights(rt, w), B, T, 64);
      let worst = 0;
      for (let pos = 0; pos < T; pos++) {
        dec.prepare(pos, seqs.map((s) => s[pos]), seqs.map((s) => (pos + 1 < T ? s[pos + 1] : NO_TARGET)));
        rt.run(dec.dispatches);
        const logp = await rt.readF32(dec.logp, 0, B), entropy = await rt.readF32(dec.entropy, 0, B);
        for (let b = 0; b < B; b++) {
          if (pos + 1 === T) {
            expect(logp[b], 'nothing to score after the last token').toBeNaN();
            continue;
          }
          worst = Math.max(worst, Math.abs(logp[b] - want[b].logprobs[pos]), Math.abs(entropy[b] - want[b].entropies[pos]));
        }
      }
      expect(worst, `seed ${seed}`).toBeLessThan(NATS);
    });
  }

  for (const arch of ['llama', 'qwen2'] as const) {
    it(`${arch}: generation samples the tokens the float64 model and sampler pick (3 prompts of 4, 12 steps, τ 0.8)`, async () => {
      const rt = await gpu();
      const w = await loadHfWeights(memoryFolder(arch, tinyHfFolder(arch)));
      const c = w.config;
      const seed = freshSeed();
      const rng = new Rng(seed);
      const [B, P, steps, tau] = [3, 4, 12, 0.8];
      const prompts = Array.from({ length: B }, () => Array.from({ length: P }, () => rng.int(0, c.vocabSize - 1)));
      const got = await hfGpuGenerate(rt, uploadHfWeights(rt, w, 96 * c.hiddenSize * 4), prompts, steps, { temperature: tau, seed, chunk: 40 });
      const head = w.lmHead ?? w.embed;
      let compared = 0;
      for (let b = 0; b < B; b++) {
        const prefix = [...prompts[b]];
        for (let k = 0; k < steps; k++) {
          const pos = P - 1 + k;
          const hidden = hfHiddenStates(w, prefix).subarray(pos * c.hiddenSize, (pos + 1) * c.hiddenSize);
          const z = Array.from({ length: c.vocabSize }, (_, v) => hidden.reduce((acc, x, i) => acc + x * head[v * c.hiddenSize + i], 0));
          const u = uniformAt(seed, b, pos);
          const want = sampleToken(z, tau, 1, u);
          // Past a draw within f32 round-off of a CDF boundary the sequences may part: stop comparing this one.
          const lse = Math.log(z.reduce((acc, x) => acc + Math.exp(x / tau), 0));
          let before = 0;
          for (let v = 0; v < want.token; v++) before += Math.exp(z[v] / tau - lse);
          if (Math.abs(before - u) < 1e-5 || Math.abs(before + Math.exp(z[want.token] / tau - lse) - u) < 1e-5) break;
          expect(got.tokens[b][k], `sequence ${b} step ${k}, seed ${seed}`).toBe(want.token);
          expect(Math.abs(got.logprobs[b][k] - want.logp), `sequence ${b} step ${k}, seed ${seed}`).toBeLessThan(5e-5);
          prefix.push(want.token);
          compared++;
        }
      }
      // A draw near a boundary early in a sequence ends its comparison (once seen in a full run: 24 of 36); most draws are compared.
      expect(compared, `seed ${seed}`).toBeGreaterThanOrEqual((B * steps) / 2);
      expect(new Set(got.tokens.flat()).size, 'a tiny random model at τ 0.8 draws varied tokens').toBeGreaterThan(8);
    });
  }

  it('refuses a position past the caches, a wrong batch and out-of-vocabulary tokens', async () => {
    const rt = await gpu();
    const w = await loadHfWeights(memoryFolder('llama', tinyHfFolder('llama')));
    const dec = await recordHfDecoder(rt, uploadHfWeights(rt, w), 2, 4);
    expect(() => dec.prepare(4, [1, 2])).toThrow(/position 4 is outside \[0, 4\)/);
    expect(() => dec.prepare(0, [1])).toThrow(/2 tokens per step/);
    expect(() => dec.prepare(0, [1, 320])).toThrow(/token 320 is outside the vocabulary/);
    expect(() => dec.prepare(0)).toThrow(/scoring decoder needs the tokens/);
    await expect(recordHfDecoder(rt, uploadHfWeights(rt, w), 1, 10_000)).rejects.toThrow(/max_position_embeddings/);
  });
});
