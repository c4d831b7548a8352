/**
 * One policy-gradient update on the GPU, composed from the policy's plans and the loss kernels:
 *
 *   zero grads → forward (logp, entropy) → [logp → oldLogp when on-policy] → GRPO loss
 *   (dlogp, dent, batch stats) → backward (grads) → grad norm → clipped AdamW
 *
 * (a micro-batch of a gradient accumulation skips the zeroing, or the norm and AdamW, or both)
 * all in one command buffer; the only readback is the small stats/grad-norm block at the end.
 * AdamW itself rejects a non-finite step on the GPU (loss or grad norm ±Inf / NaN: nothing
 * written), and `applied` in the stats read back says whether it did (same values, same rule).
 */
import type { Dispatch } from '../gpu/runtime';
import { crossEntropyLoss, grpoLoss, grpoLossScratchFloats } from '../gpu/kernels/loss';
import type { AdamWOptions, GrpoLossOptions } from './engine-types';
import { stepIsFinite } from './reference/ops';
import type { GpuPolicy, OptimizerPlan, TrainPlan } from './policy';

/** Layout of the stats block read back after a step (first 8 words are the loss kernel's stats). */
export const STATS = {
  loss: 0,
  pgLoss: 1,
  klSum: 2,
  entSum: 3,
  clipCount: 4,
  clipLowerCount: 5,
  ppoKlSum: 6,
  maskCount: 7,
  gradNorm: 8,
} as const;
export const STATS_FLOATS = 12;

export interface StepStats {
  loss: number;
  pgLoss: number;
  klSum: number;
  entSum: number;
  clipfrac: number;
  clipfracLower: number;
  ppoKl: number;
  maskCount: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /**
   * Whether AdamW applied this step. false when the update was not asked for (update: false) or
   * was rejected because the loss or the gradient norm is not finite (stepIsFinite): weights and
   * AdamW moments are then exactly as before the call.
   */
  applied: boolean;
}

/**
 * The stats block of an update as StepStats; `update`: whether AdamW was asked to run; `finish`:
 * whether the call took the grad norm (false for a non-final micro-batch: gradNorm NaN).
 */
export function decodeStats(s: Float32Array, update: boolean, finish = true): StepStats {
  const n = Math.max(1, s[STATS.maskCount]);
  const gradNorm = finish ? s[STATS.gradNorm] : NaN;
  return {
    loss: s[STATS.loss],
    pgLoss: s[STATS.pgLoss],
    klSum: s[STATS.klSum],
    entSum: s[STATS.entSum],
    clipfrac: s[STATS.clipCount] / n,
    clipfracLower: s[STATS.clipLowerCount] / n,
    ppoKl: s[STATS.ppoKlSum] / n,
    maskCount: s[STATS.maskCount],
    gradNorm,
    applied: finish && update && stepIsFinite(s[STATS.loss], gradNorm),
  };
}

export type LossKind = { kind: 'grpo'; opts: GrpoLossOptions; useRef: boolean } | { kind: 'ce' };

/** GPU buffers and dispatches of one update for a fixed batch shape. */
export interface PolicyStep {
  plan: TrainPlan;
  optimizer: OptimizerPlan;
  /** Per-token f32 [B·T] loss inputs, written by the trainer before `run`. */
  oldLogp: GPUBuffer;
  refLogp: GPUBuffer;
  advantages: GPUBuffer;
  weights: GPUBuffer;
  mask: GPUBuffer;
  /** f32 [STATS_FLOATS]: loss stats then the grad norm. */
  stats: GPUBuffer;
  lossDispatches: Dispatch[];
  setLossOptions(opts: GrpoLossOptions): void;
  /**
   * Encodes and submits one update. `onPolicy`: copy this forward's logp into oldLogp first
   * (ρ = 1 exactly at the step, as with one gradient step per rollout batch). `update`: false
   * computes gradients and stats only (no optimizer step, grads left in policy.grads). `zero`
   * (default true): clear the gradients first (false: add to them, a later micro-batch);
   * `finish` (default true): take the grad norm and, with `update`, the AdamW step.
   */
  run(o: { step: number; adamw: AdamWOptions; onPolicy: boolean; update?: boolean; zero?: boolean; finish?: boolean }): void;
  /** Reads the stats block of the last run (`applied`: whether its AdamW wrote the step). */
  readStats(): Promise<StepStats>;
}

export async function buildPolicyStep(policy: GpuPolicy, B: number, T: number, temperature: number, loss: LossKind): Promise<PolicyStep> {
  const { rt } = policy;
  const plan = await policy.trainPlan(B, T, temperature);
  const optimizer = await policy.optimizer();
  const N = B * T;
  const key = `${policy.name}.step${B}x${T}`;
  const buf = (label: string, floats: number) => rt.buffer(`${key}.${label}`, floats * 4);
  const oldLogp = buf('oldlogp', N);
  const refLogp = buf('reflogp', N);
  const advantages = buf('adv', N);
  const weights = buf('weights', N);
  const mask = buf('mask', N);
  const stats = buf('stats', STATS_FLOATS);
  const scratch = buf('lossscratch', grpoLossScratchFloats(N));
  let lossDispatches: Dispatch[];
  let setLossOptions: (o: GrpoLossOptions) => void = () => {
    throw new Error('setLossOptions: this step uses the cross-entropy loss');
  };
  if (loss.kind === 'grpo') {
    const g = await grpoLoss(rt, {
      logp: plan.logp,
      oldLogp,
      refLogp: loss.useRef ? refLogp : undefined,
      advantages,
      weights,
      mask,
      entropy: plan.entropy,
      dlogp: plan.dlogp,
      dent: plan.dent,
      stats,
      scratch,
      N,
      opts: loss.opts,
    });
    lossDispatches = g.dispatches;
    setLossOptions = (o) => g.setOptions(rt, o);
  } else {
    lossDispatches = await crossEntropyLoss(rt, { logp: plan.logp, weights, mask, dlogp: plan.dlogp, dent: plan.dent, stats, scratch, N });
  }
  let lastUpdate = true;
  let lastFinish = true;
  return {
    plan,
    optimizer,
    oldLogp,
    refLogp,
    advantages,
    weights,
    mask,
    stats,
    lossDispatches,
    setLossOptions,
    run({ step, adamw, onPolicy, update = true, zero = true, finish = true }) {
      update &&= finish;
      if (update) optimizer.update(step, adamw);
      lastUpdate = update;
      lastFinish = finish;
      const enc = rt.device.createCommandEncoder();
      if (zero) policy.zeroGrads(enc);
      rt.encode(enc, plan.forward);
      if (onPolicy) enc.copyBufferToBuffer(plan.logp, 0, oldLogp, 0, N * 4);
      rt.encode(enc, [...lossDispatches, ...plan.backward]);
      if (finish) {
        // AdamW's gate reads the loss from the optimizer's own word (its bind group is shared by every step shape).
        if (update) enc.copyBufferToBuffer(stats, STATS.loss * 4, optimizer.loss, 0, 4);
        rt.encode(enc, update ? [...optimizer.normDispatches, ...optimizer.adamDispatches] : optimizer.normDispatches);
        enc.copyBufferToBuffer(optimizer.norm, 0, stats, STATS.gradNorm * 4, 4);
      }
      rt.device.queue.submit([enc.finish()]);
    },
    async readStats() {
      return decodeStats(await rt.readF32(stats, 0, STATS_FLOATS), lastUpdate, lastFinish);
    },
  };
}
