/**
 * The offline filter's samples (src/rl/filters.ts applies the rule): drawing them from the starting
 * policy, and the key under which a base checkpoint caches their counts, naming everything that
 * decides them (starting weights, data, lengths, the rollout batch). The key is pure, so
 * export-verl can match a stored result without a policy.
 */
import { crc32Label } from '../model/checkpoint';
import type { PolicyEngine } from '../model/engine';
import type { Problem } from '../tasks';
import { longestResponseLength, resolveStage, type RunConfig } from './config';
import { rollout } from './rollout';

/** Sequences per generation call: the largest rollout batch of any stage, so one decode plan serves all. */
export function rolloutBatchSize(cfg: RunConfig): number {
  let b = 1;
  cfg.stages.forEach((_, i) => {
    const s = resolveStage(cfg, i);
    b = Math.max(b, s.batchPrompts * s.groupSize);
  });
  return b;
}

/** "crc32:<8 hex>" of a parameter vector's float32 bytes: the weights part of offlineFilterKey. */
export function weightsChecksum(params: Float32Array): string {
  return crc32Label(new Uint8Array(params.buffer, params.byteOffset, params.byteLength));
}

/**
 * Identifies an offline-filter result: the starting weights ("crc32:<8 hex>" of their float32
 * bytes) plus everything that decides its samples. Pure, so a result stored in a base checkpoint
 * can be matched without a policy (export-verl does).
 */
export function offlineFilterKey(cfg: RunConfig, startWeightsChecksum: string): string {
  const d = cfg.data;
  return JSON.stringify({
    // The weights themselves, so a result cached before the weights changed (another sft, an edited file) is never reused.
    weights: startWeightsChecksum,
    seed: cfg.seed,
    families: d.families,
    difficulty: d.difficulty,
    // The training set's decontamination depends on the test set's level; absent when it is training's (keys as before).
    ...(d.testDifficulty !== undefined ? { testDifficulty: d.testDifficulty } : {}),
    trainSize: d.trainSize,
    testSize: d.testSize,
    samples: d.offlineFilter.samples,
    maxResponseLength: longestResponseLength(cfg),
    batch: rolloutBatchSize(cfg),
  });
}

/**
 * Where offline-filter results outlive a run (a sweep's pool: runs of several presets at one seed
 * share the filter's samples). `get` answers only for exactly this key and set size.
 */
export interface OfflineFilterCache {
  /** Where it lives, for the progress line. */
  readonly name: string;
  get(key: string, trainSize: number): number[] | undefined;
  put(key: string, correct: readonly number[]): void;
}

/**
 * The per-prompt correct counts a base checkpoint stores under meta.offlineFilter = { key, correct }
 * (`magic-lab data filter --write`), when they were computed for exactly this key and set size.
 */
export function storedOfflineCorrect(meta: Record<string, unknown>, key: string, trainSize: number): number[] | undefined {
  const stored = meta.offlineFilter as { key?: unknown; correct?: unknown } | undefined;
  if (!stored || stored.key !== key || !Array.isArray(stored.correct) || stored.correct.length !== trainSize) return undefined;
  return stored.correct as number[];
}

/**
 * Correct-sample counts per training prompt: data.offlineFilter.samples responses to each from
 * `policy` at τ = 1 and top-p 1, drawn from the stream `seed`.
 */
export async function sampleOfflineCorrect(policy: PolicyEngine, train: readonly Problem[], cfg: RunConfig, seed: number, onSetup?: (m: string) => void): Promise<number[]> {
  const N = cfg.data.offlineFilter.samples;
  const indices = train.flatMap((_, i) => new Array<number>(N).fill(i));
  const rolls = await rollout(policy, train, indices, {
    batch: rolloutBatchSize(cfg),
    maxResponseLength: longestResponseLength(cfg),
    temperature: 1,
    topP: 1,
    seed,
    onBatch: onSetup && ((done, total) => onSetup(`offline filter: ${done} of ${total} responses sampled…`)),
  });
  const correct = new Array<number>(train.length).fill(0);
  for (const r of rolls) correct[r.problem] += r.reward;
  return correct;
}
