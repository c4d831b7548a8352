/**
 * The options and results both engines share, stated once for the layers above (rl, cli, the Worker): the
 * GRPO loss, AdamW and the sampler. The loss, AdamW and sampler shapes
 * are the kernels' own (src/util/engine-options.ts, the room both engines can import).
 */

export type { AdamWOptions, GrpoLossOptions, KlType, SamplerOptions } from '../util/engine-options';

/** One batched generation (PolicyEngine.generate). */
export interface GenerateRequest {
  /** Token ids of each prompt (BOS included), 1 ≤ length < contextLength. */
  prompts: number[][];
  maxResponseLength: number;
  temperature: number;
  topP: number;
  /** u32 seed of the counter-based sampler: same seed, same adapter → same tokens. */
  seed: number;
  eosId: number;
  padId: number;
}

export type FinishReason = 'eos' | 'truncated';

export interface GenerateResult {
  /** Response tokens (EOS included when the response ended with it). */
  responses: number[][];
  finish: FinishReason[];
  /** Log-prob and entropy of each response token's distribution at the sampling temperature. */
  logp: number[][];
  entropy: number[][];
  /** Decode steps run (the batch stops when every sequence has finished). */
  steps: number;
  /**
   * Slots decoded at each decode step (length `steps`): the sequences still running, and any finished
   * ones still in a decoded slot. Both engines stop decoding sequences that have finished (the running
   * ones move to the front slots once they fit a smaller size of liveSizes(B): the CPU engine checks
   * after every step, the WebGPU engine at its status peeks, every 8 steps), so later steps decode fewer.
   */
  liveSlots: number[];
}

/** Decode slots a generation computed: Σ over its steps of the slots decoded. */
export function decodeSlots(res: Pick<GenerateResult, 'liveSlots'>): number {
  return res.liveSlots.reduce((a, n) => a + n, 0);
}
