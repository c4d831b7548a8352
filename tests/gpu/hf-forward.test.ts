/** The whole Llama / Qwen2 forward on WebGPU (src/model/hf/gpu-forward.ts) against the float64 reference, on the tiny checkpoints. */
import { describe, expect, it } from 'vitest';
import { memoryFolder } from '../../src/model/hf/files';
import { hfGpuTokenLogprobs, uploadHfWeights } from '../../src/model/hf/gpu-forward';
import { hfTokenLogprobs } from '../../src/model/hf/reference-forward';
import { tinyHfFolder } from '../../src/model/hf/tiny';
import { loadHfWeights, type HfWeights } from '../../src/model/hf/weights';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu } from './harness';

/** The bar is 2e-3 nats; f32 kernels on these models land near 1e-6. */
const NATS = 2e-3;
const TIGHT = 5e-5;

const load = (arch: 'llama' | 'qwen2') => loadHfWeights(memoryFolder(arch, tinyHfFolder(arch)));

function maxAbs(a: readonly number[], b: readonly number[]): number {
  expect(a.length).toBe(b.length);
  return Math.max(...a.map((x, i) => (Number.isFinite(x) ? Math.abs(x - b[i]) : Infinity)));
}

async function check(w: HfWeights, batch: number[][], chunk: number, maxTableBytes?: number) {
  const rt = await gpu();
  const gw = uploadHfWeights(rt, w, maxTableBytes);
  if (maxTableBytes) expect(gw.embed.parts.length).toBeGreaterThan(2);
  const got = await hfGpuTokenLogprobs(rt, gw, batch, chunk);
  let worst = 0;
  batch.forEach((s, b) => {
    const want = hfTokenLogprobs(w, s, chunk);
    worst = Math.max(worst, maxAbs(got[b].logprobs, want.logprobs), maxAbs(got[b].entropies, want.entropies));
  });
  return worst;
}

describe('Llama / Qwen2 forward on WebGPU vs the float64 reference', () => {
  for (const arch of ['llama', 'qwen2'] as const) {
    it(`${arch}: log-probs and entropies of a batch of 3 × 37 tokens`, async () => {
      const w = await load(arch);
      const seed = freshSeed();
      const rng = new Rng(seed);
      const batch = Array.from({ length: 3 }, () => Array.from({ length: 37 }, () => rng.int(0, w.config.vocabSize - 1)));
      const err = await check(w, batch, 64);
      if (process.env.HF_GPU_VERBOSE) console.log(`${arch}: max |GPU - float64| ${err.toExponential(2)} nats`);
      expect(err, `seed ${seed}`).toBeLessThan(NATS);
      expect(err, `seed ${seed}`).toBeLessThan(TIGHT);
      // The head's only logits buffer holds one chunk: 111 tokens × 64 rows, not × 320.
      const rt = await gpu();
      expect(rt.buffer('vocab.logits.hf', 0).size).toBe(3 * 37 * 64 * 4);
    });

    it(`${arch}: an odd chunk and the embedding/head split into parts of 48 rows give the same`, async () => {
      const w = await load(arch);
      const seed = freshSeed();
      const rng = new Rng(seed);
      const batch = [Array.from({ length: 11 }, () => rng.int(0, w.config.vocabSize - 1))];
      const err = await check(w, batch, 7, 48 * w.config.hiddenSize * 4);
      expect(err, `seed ${seed}`).toBeLessThan(TIGHT);
    });
  }

  it('refuses a ragged batch and tokens outside the vocabulary, naming them', async () => {
    const rt = await gpu();
    const w = await load('llama');
    const gw = uploadHfWeights(rt, w);
    await expect(hfGpuTokenLogprobs(rt, gw, [[1, 2, 3], [1, 2]])).rejects.toThrow(/one length/);
    await expect(hfGpuTokenLogprobs(rt, gw, [[1, 320]])).rejects.toThrow(/token 320 is outside the vocabulary/);
  });
});
