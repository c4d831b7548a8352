/**
 * The train and held-out sets a training run uses, from the parts of its config that decide them
 * (a RunConfig fits RunDatasetInput as it is; the task layer needs nothing else of it).
 */
import { buildDataset, type Dataset } from './dataset';
import type { DifficultySpec } from './registry';
import type { FamilyName } from './types';

export interface RunDatasetInput {
  /** The run's seed (every random stream of the run derives from it). */
  seed: number;
  data: { families: readonly FamilyName[]; difficulty: DifficultySpec; testDifficulty?: number; trainSize: number; testSize: number };
}

/** The train and held-out sets a run uses (deterministic from the seed and the data section). */
export function buildRunDataset(cfg: RunDatasetInput): Dataset {
  const d = cfg.data;
  return buildDataset({ seed: cfg.seed, families: d.families, difficulty: d.difficulty, ...(d.testDifficulty !== undefined && d.testDifficulty !== null ? { testDifficulty: d.testDifficulty } : {}), trainSize: d.trainSize, testSize: d.testSize });
}
