/** A mixture of task families: the default training distribution (mixing sources stabilises RL). */
import type { Rng } from '../util/rng';
import { checkFamilies, difficultyFor, getFamily, type DifficultySpec } from './registry';
import type { FamilyName, Problem } from './types';

export interface MixtureOptions {
  families: readonly FamilyName[];
  difficulty: DifficultySpec;
  count: number;
}

/** `count` problems, cycling through the families in order so each gets an equal share (±1). */
export function generateProblems(rng: Rng, opts: MixtureOptions): Problem[] {
  const families = checkFamilies(opts.families);
  if (!Number.isInteger(opts.count) || opts.count < 0) {
    throw new RangeError(`count must be a non-negative integer, got ${String(opts.count)}`);
  }
  const out: Problem[] = [];
  for (let i = 0; i < opts.count; i++) {
    const name = families[i % families.length];
    out.push(getFamily(name).generate(rng, difficultyFor(opts.difficulty, name)));
  }
  return out;
}
