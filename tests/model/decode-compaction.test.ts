/**
 * Decoding only the running sequences, in both engines (src/model/live-sizes.ts; the CPU engine's
 * src/model/cpu/generate.ts, the WebGPU engine's src/model/generate.ts): the tokens, log-probs and
 * entropies are bit for bit those of decoding every slot to the end, and the decode slots
 * (GenerateResult.liveSlots) show the saving — odd batches, rows ending at different steps, every
 * row ending early, and no row ending before the step budget.
 */
import { describe, expect, it } from 'vitest';
import { layoutParams, validateModelConfig, type ModelConfig } from '../../src/model/config';
import type { GenerateRequest, GenerateResult, PolicyEngine } from '../../src/model/engine';
import { decodeSlots } from '../../src/model/engine-types';
import { initParams } from '../../src/model/init';
import { compactionSwaps, fitLiveSize, liveSizes } from '../../src/model/live-sizes';
import { Rng } from '../../src/util/rng';
import { freshSeed } from '../gpu/harness';
import { ENGINES, policyOn } from './engines';

describe('live sizes and slot swaps', () => {
  it('live sizes: B first, each at least a quarter smaller than the last, down to 1', () => {
    expect(liveSizes(1)).toEqual([1]);
    expect(liveSizes(37)).toEqual([37, 28, 21, 16, 12, 9, 7, 6, 5, 4, 3, 2, 1]);
  });

  it('fits the running sequences into the smallest size below the live one', () => {
    const sizes = liveSizes(37);
    expect(fitLiveSize(sizes, 37, 37)).toBe(37);
    expect(fitLiveSize(sizes, 37, 29)).toBe(37);
    expect(fitLiveSize(sizes, 37, 28)).toBe(28);
    expect(fitLiveSize(sizes, 37, 10)).toBe(12);
    expect(fitLiveSize(sizes, 12, 12)).toBe(12);
    expect(fitLiveSize(sizes, 12, 1)).toBe(1);
  });

  it('swaps bring every running slot to the front and keep each finished one', () => {
    const rng = new Rng(freshSeed());
    for (let trial = 0; trial < 200; trial++) {
      const live = 1 + (rng.nextU32() % 40);
      const status = Array.from({ length: live }, () => rng.nextU32() % 3 === 0);
      const slots = status.map((_, b) => b);
      const swaps = compactionSwaps(live, (b) => status[b]);
      for (const [i, j] of swaps) {
        expect(i).toBeLessThan(j);
        [slots[i], slots[j]] = [slots[j], slots[i]];
      }
      const running = status.filter(Boolean).length;
      // The first `running` slots hold exactly the running sequences; nothing is lost or duplicated.
      expect(slots.slice(0, running).every((s) => status[s])).toBe(true);
      expect([...slots].sort((x, y) => x - y)).toEqual(status.map((_, b) => b));
      expect(swaps.length).toBe(status.slice(0, running).filter((r) => !r).length);
    }
  });
});

// Layernorm, untied head: with lnf.w = 0 every position's final hidden state is lnf.b, so the head row of
// EOS alone decides whether EOS is (almost) always or (almost) never sampled.
const CFG: ModelConfig = validateModelConfig({ vocabSize: 11, contextLength: 40, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2, norm: 'layernorm', tiedEmbeddings: false });
const EOS = 2;

function weights(seed: number, eos?: 'always' | 'never'): Float32Array {
  const rng = new Rng(seed);
  const p = initParams(CFG, seed);
  for (let i = 0; i < p.length; i++) p[i] += 0.3 * rng.normal();
  if (eos) {
    const t = layoutParams(CFG).byName;
    const C = CFG.dModel;
    const lnfw = t.get('lnf.w')!;
    const lnfb = t.get('lnf.b')!;
    const head = t.get('lm_head.w')!;
    p.fill(0, lnfw.offset, lnfw.offset + C);
    for (let c = 0; c < C; c++) {
      const b = c % 2 ? 1 : -1;
      p[lnfb.offset + c] = b;
      // logit(EOS) = lnf.b · head[EOS] = ±10·C against the others' O(1).
      p[head.offset + EOS * C + c] = (eos === 'always' ? 10 : -10) * b;
    }
  }
  return p;
}

type Generate = (pol: PolicyEngine, req: GenerateRequest, compact: boolean, chunk?: number) => Promise<GenerateResult>;
/** Both engines' generate take { compact }; the WebGPU engine's also { chunk }, its steps between status peeks (the CPU engine checks every step). */
const generateWith: Generate = (pol, req, compact, chunk) =>
  (pol as unknown as { generate(r: GenerateRequest, o: { compact: boolean; chunk?: number }): Promise<GenerateResult> }).generate(req, { compact, chunk });
const strip = (r: GenerateResult) => ({ responses: r.responses, finish: r.finish, logp: r.logp, entropy: r.entropy });
/** Slots a sequence must be decoded for: its prompt (less the last token, which predicts the first response token) and its response. */
const useful = (req: GenerateRequest, r: GenerateResult) => req.prompts.reduce((a, pr, b) => a + pr.length - 1 + r.responses[b].length, 0);

describe.each(ENGINES)('$name: decoding only the running sequences', (engine) => {
  it('odd batch, rows ending at different steps: bit for bit the every-slot decode, in fewer slots', async () => {
    const seed = freshSeed();
    const rng = new Rng(seed);
    const pol = await policyOn(await engine.backend(), CFG, weights(seed));
    const prompts = Array.from({ length: 37 }, () => [1, ...Array.from({ length: rng.nextU32() % 6 }, () => 3 + (rng.nextU32() % 8))]);
    for (const [temperature, topP] of [[1, 1], [0.7, 0.9]]) {
      const req = { prompts, maxResponseLength: 30, temperature, topP, seed: rng.nextU32(), eosId: EOS, padId: 0 };
      const every = await generateWith(pol, req, false);
      const running = await generateWith(pol, req, true);
      const msg = `seed ${seed} τ ${temperature}`;
      expect(strip(running), msg).toEqual(strip(every));
      expect(every.liveSlots, msg).toEqual(new Array(every.steps).fill(prompts.length));
      for (let p = 1; p < running.steps; p++) expect(running.liveSlots[p], msg).toBeLessThanOrEqual(running.liveSlots[p - 1]);
      const slots = decodeSlots(running);
      expect(slots, msg).toBeGreaterThanOrEqual(useful(req, every));
      expect(slots, msg).toBeLessThan(decodeSlots(every));
      // Ended rows really are ended: some finished before the budget, others ran on.
      expect(new Set(every.responses.map((r, b) => prompts[b].length + r.length)).size, msg).toBeGreaterThan(1);
      if (engine.name === 'webgpu') {
        // Peeking after every step (moves at every size of the ladder) and every 3 steps: the same result again.
        for (const chunk of [1, 3]) {
          const peeked = await generateWith(pol, req, true, chunk);
          expect(strip(peeked), `${msg} chunk ${chunk}`).toEqual(strip(every));
          // Peeks at other steps take other paths down the ladder: fewer slots than every slot, never fewer than the useful ones.
          expect(decodeSlots(peeked), `${msg} chunk ${chunk}`).toBeLessThan(decodeSlots(every));
          expect(decodeSlots(peeked), `${msg} chunk ${chunk}`).toBeGreaterThanOrEqual(useful(req, every));
        }
      }
    }
    pol.destroy();
  });

  it('every row ending early (at its first response token): the same result, and the batch stops', async () => {
    const seed = freshSeed();
    const pol = await policyOn(await engine.backend(), CFG, weights(seed, 'always'));
    // 9 prompts of 1–9 tokens: the rows end at steps 0–8, one after another.
    const prompts = Array.from({ length: 9 }, (_, b) => [1, ...new Array<number>(b).fill(3 + (b % 7))]);
    const req = { prompts, maxResponseLength: 25, temperature: 1, topP: 1, seed, eosId: EOS, padId: 0 };
    const every = await generateWith(pol, req, false);
    const running = await generateWith(pol, req, true);
    expect(strip(running)).toEqual(strip(every));
    expect(every.responses).toEqual(prompts.map(() => [EOS]));
    expect(every.finish).toEqual(prompts.map(() => 'eos'));
    expect(running.steps).toBeLessThan(9 - 1 + 25);
    expect(decodeSlots(running)).toBeLessThanOrEqual(decodeSlots(every));
    pol.destroy();
  });

  it('no row ending before the budget: the same result, every slot decoded at every step', async () => {
    const seed = freshSeed();
    const rng = new Rng(seed);
    const pol = await policyOn(await engine.backend(), CFG, weights(seed, 'never'));
    const prompts = Array.from({ length: 5 }, () => [1, 3 + (rng.nextU32() % 8), 3 + (rng.nextU32() % 8)]);
    const req = { prompts, maxResponseLength: 20, temperature: 1, topP: 1, seed, eosId: EOS, padId: 0 };
    const every = await generateWith(pol, req, false);
    const running = await generateWith(pol, req, true);
    expect(strip(running)).toEqual(strip(every));
    expect(running.finish).toEqual(prompts.map(() => 'truncated'));
    expect(running.responses.map((r) => r.length)).toEqual(prompts.map(() => 20));
    expect(running.liveSlots).toEqual(new Array(2 + 20).fill(5));
    pol.destroy();
  });
});
