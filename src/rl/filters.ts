/**
 * Data filters of the MAGIC recipe.
 *
 * Offline (before training): N samples per prompt from the base model at τ = 1; prompts solved
 * 0/N (too hard: no signal) or N/N (too easy: no signal) are dropped.
 * Online (each stage start): prompts the actor solved in EVERY rollout during the previous
 * stage are dropped — they would only produce zero-advantage groups from now on.
 * Prompt ids are indices into the training set.
 */

/** Per-prompt rollout tallies during one stage (plain typed arrays: easy to checkpoint). */
export interface SolveCounts {
  attempts: Uint32Array;
  solves: Uint32Array;
}

export function createSolveCounts(numPrompts: number): SolveCounts {
  return { attempts: new Uint32Array(numPrompts), solves: new Uint32Array(numPrompts) };
}

/**
 * Adds one batch of rollouts: `promptIds[i]` and `correct[i]` per response. Count every
 * rollout, including groups later rejected: solved-by-all groups are exactly what rejection
 * drops and what the online filter must see. Mutates and returns `counts`.
 */
export function recordSolves(counts: SolveCounts, promptIds: ArrayLike<number>, correct: ArrayLike<boolean | number>): SolveCounts {
  if (promptIds.length !== correct.length) throw new RangeError(`promptIds (${promptIds.length}) and correct (${correct.length}) differ in length`);
  for (let i = 0; i < promptIds.length; i++) {
    const id = promptIds[i];
    if (!Number.isInteger(id) || id < 0 || id >= counts.attempts.length) throw new RangeError(`prompt id ${id} out of range [0, ${counts.attempts.length})`);
    counts.attempts[id]++;
    if (correct[i]) counts.solves[id]++;
  }
  return counts;
}

/** Prompt ids solved in every rollout of the stage (never-sampled prompts are kept). */
export function onlineFilterDrops(counts: SolveCounts): number[] {
  const out: number[] = [];
  for (let id = 0; id < counts.attempts.length; id++) {
    if (counts.attempts[id] > 0 && counts.solves[id] === counts.attempts[id]) out.push(id);
  }
  return out;
}

/** The pool minus the dropped ids, order preserved. */
export function removeIds(pool: readonly number[], drop: readonly number[]): number[] {
  const d = new Set(drop);
  return pool.filter((id) => !d.has(id));
}

export interface OfflineFilterReport {
  /** Prompt ids kept (0 < c < N), ascending. */
  keep: number[];
  /** Solved 0/N. */
  droppedUnsolved: number;
  /** Solved N/N. */
  droppedSolved: number;
  total: number;
  /** One line for logs/UI. */
  summary: string;
}

/** Offline filter decision from per-prompt correct counts out of N base-model samples. */
export function offlineFilter(correctCounts: ArrayLike<number>, samples: number): OfflineFilterReport {
  if (!Number.isInteger(samples) || samples < 1) throw new RangeError(`samples must be a positive integer, got ${samples}`);
  const keep: number[] = [];
  let droppedUnsolved = 0;
  let droppedSolved = 0;
  for (let id = 0; id < correctCounts.length; id++) {
    const c = correctCounts[id];
    if (!Number.isInteger(c) || c < 0 || c > samples) throw new RangeError(`correctCounts[${id}] must be an integer in [0, ${samples}], got ${c}`);
    if (c === 0) droppedUnsolved++;
    else if (c === samples) droppedSolved++;
    else keep.push(id);
  }
  const total = correctCounts.length;
  const summary = `offline filter (N=${samples}): kept ${keep.length}/${total} prompts; dropped ${droppedUnsolved} solved 0/${samples}, ${droppedSolved} solved ${samples}/${samples}`;
  return { keep, droppedUnsolved, droppedSolved, total, summary };
}
