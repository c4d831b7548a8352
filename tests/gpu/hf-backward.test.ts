/** The whole Llama / Qwen2 backward on WebGPU (src/model/hf/gpu-backward.ts) against the float64 reference gradient, on the tiny checkpoints. */
import { describe, expect, it } from 'vitest';
import { memoryFolder } from '../../src/model/hf/files';
import { allocHfGrads, readHfGrads, recordHfBackward } from '../../src/model/hf/gpu-backward';
import { recordHfForward, uploadHfWeights } from '../../src/model/hf/gpu-forward';
import { hfLogprobGrads } from '../../src/model/hf/reference-backward';
import { tinyHfFolder } from '../../src/model/hf/tiny';
import { loadHfWeights } from '../../src/model/hf/weights';
import { Rng } from '../../src/util/rng';
import { freshSeed, gpu, randn, relErr } from './harness';

/** The issue's bar: gradients within 1e-4 relative (each tensor's error over its RMS). */
const TOL = 1e-4;

describe('Llama / Qwen2 backward on WebGPU vs the float64 reference gradient', () => {
  for (const arch of ['llama', 'qwen2'] as const) {
    for (const [chunk, maxRows] of [[64, undefined], [7, 48]] as const) {
      it(`${arch}: every weight's gradient of Σ c·logp + Σ e·H over 2 × 13 tokens, chunk ${chunk}${maxRows ? `, tables in parts of ${maxRows} rows` : ''}`, async () => {
        const rt = await gpu();
        const w = await loadHfWeights(memoryFolder(arch, tinyHfFolder(arch)));
        const c = w.config;
        const seed = freshSeed();
        const rng = new Rng(seed);
        const [B, T] = [2, 13];
        const batch = Array.from({ length: B }, () => Array.from({ length: T }, () => rng.int(0, c.vocabSize - 1)));
        const coef = randn(rng, B * T), entCoef = randn(rng, B * T);
        const gw = uploadHfWeights(rt, w, maxRows ? maxRows * c.hiddenSize * 4 : undefined);
        const grads = allocHfGrads(rt, gw);
        const { acts, dispatches } = await recordHfForward(rt, gw, batch, chunk);
        const bwd = await recordHfBackward(rt, gw, grads, acts, batch.flat(), coef, entCoef, chunk);
        rt.run([...dispatches, ...bwd]);
        const got = await readHfGrads(rt, grads);
        // The reference is per sequence (T − 1 coefficients each); the batch's gradient is the sum.
        const refs = batch.map((s, b) => hfLogprobGrads(w, s, Array.from(coef.subarray(b * T, b * T + T - 1)), chunk, Array.from(entCoef.subarray(b * T, b * T + T - 1))));
        const sum = (pick: (g: (typeof refs)[number]) => Float64Array | null) => {
          const parts = refs.map(pick);
          return parts[0] ? Float64Array.from(parts[0], (_, i) => parts.reduce((s, p) => s + p![i], 0)) : null;
        };
        const compare = (name: string, g: Float32Array | null, want: Float64Array | null) => {
          expect(g === null, `${name} present`).toBe(want === null);
          if (g && want) expect(relErr(g.subarray(0, want.length), want), `${name}, seed ${seed}`).toBeLessThan(TOL);
        };
        compare('embed', got.embed, sum((g) => g.embed));
        compare('lm_head', got.lmHead, sum((g) => g.lmHead));
        compare('norm', got.norm, sum((g) => g.norm));
        let checked = 0;
        got.layers.forEach((L, l) => {
          for (const k of Object.keys(L) as (keyof typeof L)[]) {
            compare(`layers.${l}.${k}`, L[k], sum((g) => g.layers[l][k]));
            if (L[k]) checked++;
          }
        });
        expect(checked).toBe(c.numLayers * (c.qkvBias ? 12 : 9));
      });
    }
  }
});
