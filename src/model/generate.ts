/**
 * Batched generation on the GPU with the KV cache: every sequence advances one position per
 * decode step (prompts are consumed token by token, so prompts of different lengths need no
 * padding logic), sampling happens on the GPU, and the CPU only peeks at the per-sequence
 * status once every `chunk` steps to stop early — never per token.
 */
import { checkGenerateRequest } from './engine-checks';
import type { GenerateRequest, GenerateResult, SamplerOptions } from './engine-types';
import type { GpuPolicy } from './policy';

export async function generate(policy: GpuPolicy, req: GenerateRequest, opts: { chunk?: number } = {}): Promise<GenerateResult> {
  const { rt, cfg } = policy;
  const B = req.prompts.length;
  const Tmax = cfg.contextLength;
  if (B === 0) return { responses: [], finish: [], logp: [], entropy: [], steps: 0, liveSlots: [] };
  const maxPrompt = checkGenerateRequest(req, cfg);
  const plan = await policy.decodePlan(B);
  const tokens = new Uint32Array(B * Tmax).fill(req.padId);
  const seqs = new Uint32Array(B * 4);
  req.prompts.forEach((p, b) => {
    tokens.set(p, b * Tmax);
    seqs[b * 4] = p.length;
    seqs[b * 4 + 3] = b; // the row id that keys the sampler's draw
  });
  rt.write(plan.tokens, tokens);
  rt.write(plan.seqs, seqs);
  rt.write(plan.state, new Uint32Array(4));
  const sampler: SamplerOptions = {
    temperature: req.temperature,
    topP: req.topP,
    seed: req.seed >>> 0,
    maxResponseLength: req.maxResponseLength,
    eosId: req.eosId,
    padId: req.padId,
  };
  plan.setSampler(sampler);
  // The last position that can hold a response token is maxPrompt - 1 + maxResponseLength.
  const totalSteps = Math.min(maxPrompt - 1 + req.maxResponseLength, Tmax - 1);
  const chunk = Math.max(1, opts.chunk ?? 8);
  let steps = 0;
  while (steps < totalSteps) {
    const n = Math.min(chunk, totalSteps - steps);
    const enc = rt.device.createCommandEncoder();
    for (let i = 0; i < n; i++) rt.encode(enc, plan.step);
    rt.device.queue.submit([enc.finish()]);
    steps += n;
    if (steps >= maxPrompt && steps < totalSteps) {
      const st = await rt.readU32(plan.seqs, 0, B * 4);
      let running = false;
      for (let b = 0; b < B; b++) if (st[b * 4 + 2] === 0) running = true;
      if (!running) break;
    }
  }
  const [outTokens, outSeqs, lp, ent] = await Promise.all([
    rt.readU32(plan.tokens, 0, B * Tmax),
    rt.readU32(plan.seqs, 0, B * 4),
    rt.readF32(plan.sampleLogp, 0, B * Tmax),
    rt.readF32(plan.sampleEntropy, 0, B * Tmax),
  ]);
  return generationResult(outTokens, outSeqs, lp, ent, B, Tmax, new Array<number>(steps).fill(B));
}

/**
 * The per-sequence result of a decode, from its buffers read back (either engine): tokens,
 * seqs (promptLen, responseLen, status, row per slot), per-token logp and entropy, [B × Tmax].
 * Slot b's sequence goes to its row seqs[b·4 + 3], so the result is in the order of the request's
 * prompts whichever slot decoded it (the CPU engine moves running sequences to the front).
 */
export function generationResult(outTokens: Uint32Array, outSeqs: Uint32Array, lp: Float32Array, ent: Float32Array, B: number, Tmax: number, liveSlots: number[]): GenerateResult {
  const res: GenerateResult = { responses: new Array(B), finish: new Array(B), logp: new Array(B), entropy: new Array(B), steps: liveSlots.length, liveSlots };
  for (let b = 0; b < B; b++) {
    const P = outSeqs[b * 4];
    const len = outSeqs[b * 4 + 1];
    const status = outSeqs[b * 4 + 2];
    const row = outSeqs[b * 4 + 3];
    const from = b * Tmax + P;
    res.responses[row] = Array.from(outTokens.subarray(from, from + len));
    res.logp[row] = Array.from(lp.subarray(from, from + len));
    res.entropy[row] = Array.from(ent.subarray(from, from + len));
    // A sequence still running when the step budget ran out was cut by the context: truncated.
    res.finish[row] = status === 1 ? 'eos' : 'truncated';
  }
  return res;
}
