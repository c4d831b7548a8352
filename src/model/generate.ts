/**
 * Batched generation on the GPU with the KV cache: every sequence advances one position per
 * decode step (prompts are consumed token by token, so prompts of different lengths need no
 * padding logic), sampling happens on the GPU, and the CPU only peeks at the per-sequence
 * status once every `chunk` steps — never per token — to stop early and to stop decoding
 * sequences that have ended: once the running ones fit a smaller size of the plan's ladder
 * (liveSizes), they move to the front slots with their tokens, state, log-probs and KV cache rows
 * (buffer-to-buffer copies, queued before the next steps) and the steps run over those slots only.
 * A row computes the same floats in any slot and the sampler's draw is keyed by its row id
 * (seqs[b·4 + 3]), so the result is bit for bit that of decoding every slot.
 */
import { checkGenerateRequest } from './engine-checks';
import type { GenerateRequest, GenerateResult, SamplerOptions } from './engine-types';
import { compactionSwaps, fitLiveSize } from './live-sizes';
import type { DecodePlan, GpuPolicy } from './policy';

export interface GpuGenerateOptions {
  /** Decode steps between status peeks (default 8). */
  chunk?: number;
  /** false: decode every slot until the last sequence ends (the reference for the compaction test). */
  compact?: boolean;
}

export async function generate(policy: GpuPolicy, req: GenerateRequest, opts: GpuGenerateOptions = {}): Promise<GenerateResult> {
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
  const compact = opts.compact ?? true;
  let live = B;
  let steps = 0;
  const liveSlots: number[] = [];
  let pending: GPUCommandEncoder | null = null;
  while (steps < totalSteps) {
    const n = Math.min(chunk, totalSteps - steps);
    const enc = pending ?? rt.device.createCommandEncoder();
    pending = null;
    for (let i = 0; i < n; i++) rt.encode(enc, plan.step(live));
    rt.device.queue.submit([enc.finish()]);
    steps += n;
    for (let i = 0; i < n; i++) liveSlots.push(live);
    if (steps >= maxPrompt && steps < totalSteps) {
      const st = await rt.readU32(plan.seqs, 0, live * 4);
      const isRunning = (b: number) => st[b * 4 + 2] === 0;
      let running = 0;
      for (let b = 0; b < live; b++) if (isRunning(b)) running++;
      if (running === 0) break;
      const fit = compact ? fitLiveSize(plan.sizes, live, running) : live;
      if (fit < live) {
        // The moves go first in the next chunk's command buffer: the queue runs them after this chunk's steps.
        pending = rt.device.createCommandEncoder();
        encodeSwaps(pending, plan, Tmax, cfg.dModel, compactionSwaps(live, isRunning), steps);
        live = fit;
      }
    }
  }
  const [outTokens, outSeqs, lp, ent] = await Promise.all([
    rt.readU32(plan.tokens, 0, B * Tmax),
    rt.readU32(plan.seqs, 0, B * 4),
    rt.readF32(plan.sampleLogp, 0, B * Tmax),
    rt.readF32(plan.sampleEntropy, 0, B * Tmax),
  ]);
  return generationResult(outTokens, outSeqs, lp, ent, B, Tmax, liveSlots);
}

/**
 * Encodes the slot swaps (compactionSwaps: [finished front slot, running back slot]) as buffer copies
 * through the plan's scratch (a copy's source and destination must be different buffers). State,
 * tokens, log-probs and entropies swap whole; KV cache rows (positions [0, filled)) only travel to the
 * front, since a finished sequence is never decoded again.
 */
function encodeSwaps(enc: GPUCommandEncoder, p: DecodePlan, Tmax: number, C: number, swaps: readonly [number, number][], filled: number): void {
  const S = p.swapScratch;
  const swap = (buf: GPUBuffer, i: number, j: number, bytes: number) => {
    enc.copyBufferToBuffer(buf, i * bytes, S, 0, bytes);
    enc.copyBufferToBuffer(buf, j * bytes, S, bytes, bytes);
    enc.copyBufferToBuffer(S, bytes, buf, i * bytes, bytes);
    enc.copyBufferToBuffer(S, 0, buf, j * bytes, bytes);
  };
  const row = Tmax * C * 4;
  const kv = filled * C * 4;
  for (const [i, j] of swaps) {
    swap(p.seqs, i, j, 16);
    for (const buf of [p.tokens, p.sampleLogp, p.sampleEntropy]) swap(buf, i, j, Tmax * 4);
    if (kv === 0) continue;
    for (const buf of [...p.kCaches, ...p.vCaches]) {
      enc.copyBufferToBuffer(buf, j * row, S, 0, kv);
      enc.copyBufferToBuffer(S, 0, buf, i * row, kv);
    }
  }
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
