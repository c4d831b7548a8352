/** The KV-cache decode step of a Llama / Qwen2 model on WebGPU (src/model/hf/gpu-decode.ts) against the full float64 forward, position by position. */
import { describe, expect, it } from 'vitest';
import { memoryFolder } from '../../src/model/hf/files';
import { recordHfDecoder } from '../../src/model/hf/gpu-decode';
import { uploadHfWeights } from '../../src/model/hf/gpu-forward';
import { hfTokenLogprobs } from '../../src/model/hf/reference-forward';
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

  it('refuses a position past the caches, a wrong batch and out-of-vocabulary tokens', async () => {
    const rt = await gpu();
    const w = await loadHfWeights(memoryFolder('llama', tinyHfFolder('llama')));
    const dec = await recordHfDecoder(rt, uploadHfWeights(rt, w), 2, 4);
    expect(() => dec.prepare(4, [1, 2])).toThrow(/position 4 is outside \[0, 4\)/);
    expect(() => dec.prepare(0, [1])).toThrow(/2 tokens per step/);
    expect(() => dec.prepare(0, [1, 320])).toThrow(/token 320 is outside the vocabulary/);
    await expect(recordHfDecoder(rt, uploadHfWeights(rt, w), 1, 10_000)).rejects.toThrow(/max_position_embeddings/);
  });
});
