/**
 * The decode the golden test pins (tests/cpu/decode-golden.test.ts): a fixed model, prompts and seeds, and a
 * digest of every response token, log-prob and entropy bit. Its digests were taken from the CPU engine before
 * decoding changed (finished rows leaving the batch in both engines, cache-blocked matmul panels): the same
 * seeds must keep giving the same bits.
 */
import { createHash } from 'node:crypto';
import { validateModelConfig, type ModelConfig } from '../../src/model/config';
import type { GenerateRequest, GenerateResult } from '../../src/model/engine';
import { initParams } from '../../src/model/init';
import { Rng } from '../../src/util/rng';

/** dModel 64 and mlpRatio 4: the fc products (K = 64, N = 256) and fcproj (K = 256) span several matmul panels. */
export const GOLDEN_CFG: ModelConfig = validateModelConfig({ vocabSize: 11, contextLength: 48, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4, norm: 'layernorm', tiedEmbeddings: false });

export function goldenParams(): Float32Array {
  const rng = new Rng(4242);
  const p = initParams(GOLDEN_CFG, 4242);
  for (let i = 0; i < p.length; i++) p[i] += 0.15 * rng.normal();
  return p;
}

/** 37 prompts of 1–8 tokens, and two sampler settings. */
export function goldenRequests(): GenerateRequest[] {
  const rng = new Rng(777);
  const prompts = Array.from({ length: 37 }, () => [1, ...Array.from({ length: rng.nextU32() % 8 }, () => 3 + (rng.nextU32() % 8))]);
  return [
    { prompts, maxResponseLength: 36, temperature: 1, topP: 1, seed: 123456789, eosId: 2, padId: 0 },
    { prompts, maxResponseLength: 36, temperature: 0.7, topP: 0.9, seed: 987654321, eosId: 2, padId: 0 },
  ];
}

export function generationDigest(r: GenerateResult): string {
  const h = createHash('sha256');
  r.responses.forEach((resp, b) => {
    h.update(`${b}:${r.finish[b]}:${resp.join(',')};`);
    h.update(new Uint8Array(Float32Array.from(r.logp[b]).buffer));
    h.update(new Uint8Array(Float32Array.from(r.entropy[b]).buffer));
  });
  return h.digest('hex');
}
