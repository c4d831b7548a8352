/**
 * The rung selector's speed figure: seconds per RL step of a config on the open engine, from a
 * quick measurement rather than a constant (engines differ by 100× between a GPU and SwiftShader).
 * A throwaway policy of the config's model (random init) runs a couple of train steps on the
 * benchmarks' batch (src/model/bench-batch.ts) and a short batched decode; the per-token times are
 * scaled to the config's first stage: D_R·G sequences decoded to the response limit, then trained on.
 */
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../model/bench-batch';
import type { Backend } from '../model/engine';
import { decodeSlots } from '../model/engine-types';
import { initParams } from '../model/init';
import { resolveStage, type RunConfig } from '../rl/config';
import { maxPromptTokens } from '../tasks';

/** Rows and tokens per row of the timed train step, and sequences and tokens of the timed decode: small, so a pick answers in seconds. */
export const MEASURE = { trainRows: 2, trainT: 64, decodeSequences: 4, decodeTokens: 16 } as const;

/** The work of one RL step of `cfg`'s first stage: tokens decoded in its rollouts, tokens in its update. */
export function stepWork(cfg: RunConfig): { rolloutTokens: number; trainTokens: number } {
  const s = resolveStage(cfg, 0);
  const sequences = s.batchPrompts * s.groupSize;
  const prompt = maxPromptTokens(cfg.data.families, cfg.data.difficulty);
  return { rolloutTokens: sequences * s.maxResponseLength, trainTokens: sequences * Math.min(cfg.model.contextLength, prompt + s.maxResponseLength) };
}

/** Seconds per step from the measured seconds per train token and per decoded token. */
export function scaleStepSeconds(work: { rolloutTokens: number; trainTokens: number }, perToken: { train: number; decode: number }): number {
  return work.rolloutTokens * perToken.decode + work.trainTokens * perToken.train;
}

/** Times the throwaway policy on `backend` (a first call of each shape builds its plan and is not timed); seconds per step of `cfg`. */
export async function measureStepSeconds(backend: Backend, cfg: RunConfig, now: () => number = () => performance.now()): Promise<number> {
  const m = cfg.model;
  const policy = await backend.createPolicy(m, 'rung-bench');
  try {
    policy.setParams(initParams(m, 1));
    policy.resetAdamState();
    const T = Math.min(MEASURE.trainT, m.contextLength);
    const batch = benchTrainBatch({ ...m, contextLength: T }, MEASURE.trainRows);
    let trainS = 0;
    for (let i = 0; i < 3; i++) {
      const t0 = now();
      await policy.update(batch, BENCH_GRPO_LOSS, { step: i + 1, adamw: BENCH_ADAMW });
      if (i > 0) trainS += (now() - t0) / 1000;
    }
    const n = Math.min(MEASURE.decodeTokens, m.contextLength - 1);
    const req = { prompts: Array.from({ length: MEASURE.decodeSequences }, () => [0]), maxResponseLength: n, temperature: 1, topP: 1, eosId: m.vocabSize - 1, padId: 0 };
    let decodeS = 0;
    let slots = 1;
    for (let i = 0; i < 2; i++) {
      const t0 = now();
      const res = await policy.generate({ ...req, seed: i });
      // A random policy may end sequences early (EOS): the CPU engine stops decoding them, and the batch
      // stops when all have ended, so time per decode slot computed.
      if (i > 0) {
        decodeS += (now() - t0) / 1000;
        slots = Math.max(1, decodeSlots(res));
      }
    }
    const perToken = { train: trainS / 2 / (MEASURE.trainRows * T), decode: decodeS / slots };
    return scaleStepSeconds(stepWork(cfg), perToken);
  } finally {
    policy.destroy();
  }
}
