/**
 * Same seeds, same samples, across changes to decoding: the CPU engine's responses, log-probs and entropies for a
 * fixed model, prompts and seeds, digested bit for bit (tests/model/decode-golden.ts), against digests taken
 * from the code before finished rows left the WebGPU engine's batch and before the decode matmul ran in cache
 * panels (commit 97a36ba). WebAssembly floats are IEEE single precision with no fused multiply-add, so the digest
 * holds on any machine and at any thread count.
 */
import { describe, expect, it } from 'vitest';
import type { CpuPolicy } from '../../src/model/cpu-policy';
import { cpuBackend, policyOn } from '../model/engines';
import { GOLDEN_CFG, generationDigest, goldenParams, goldenRequests } from '../model/decode-golden';

const DIGESTS = [
  '0f5e0241fc6bdc53cfaf03761f1ba522c23b567d26fb5937dd10f480d0bb66f9', // τ 1, top-p 1: 568 response tokens, 43 steps
  '069fe7f99d136f817e5c17b6888051cb146d0eaefceda00b31bb157ab14a15c2', // τ 0.7, top-p 0.9: 919 response tokens, 43 steps
];

describe('decoding keeps the samples it gave before', () => {
  for (const threads of [1, 2, 3]) {
    it(`${threads} thread(s): the pinned digests, running rows only and every slot`, async () => {
      const pol = (await policyOn(await cpuBackend(threads), GOLDEN_CFG, goldenParams())) as CpuPolicy;
      const reqs = goldenRequests();
      for (let i = 0; i < reqs.length; i++) {
        expect(generationDigest(await pol.generate(reqs[i])), `request ${i}`).toBe(DIGESTS[i]);
        expect(generationDigest(await pol.generate(reqs[i], { compact: false })), `request ${i}, every slot`).toBe(DIGESTS[i]);
      }
      pol.destroy();
    });
  }
});
