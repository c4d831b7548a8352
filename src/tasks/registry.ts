/** Task families by name, plus the prompt-length budget a trainer sizes its context with. */
import { addition } from './addition';
import { arith } from './arith';
import { countdown } from './countdown';
import { multiply } from './multiply';
import { sort } from './sort';
import { FAMILY_NAMES, type FamilyName, type TaskFamily } from './types';

export const FAMILIES: Readonly<Record<FamilyName, TaskFamily>> = Object.freeze({
  addition: addition as TaskFamily,
  countdown: countdown as TaskFamily,
  arith: arith as TaskFamily,
  multiply: multiply as TaskFamily,
  sort: sort as TaskFamily,
});

export function isFamilyName(name: unknown): name is FamilyName {
  return typeof name === 'string' && (FAMILY_NAMES as readonly string[]).includes(name);
}

export function getFamily(name: string): TaskFamily {
  if (!isFamilyName(name)) {
    throw new Error(`unknown task family ${JSON.stringify(name)}; expected one of ${FAMILY_NAMES.join(', ')}`);
  }
  return FAMILIES[name];
}

/** One difficulty for every family, or one per family. */
export type DifficultySpec = number | Partial<Record<FamilyName, number>>;

export function difficultyFor(spec: DifficultySpec, family: FamilyName): number {
  if (typeof spec === 'number') return spec;
  const d = spec[family];
  if (d === undefined) throw new Error(`no difficulty given for task family "${family}"`);
  return d;
}

/** Checks a family list: non-empty, known names, no repeats (repeats would silently reweight the mixture). */
export function checkFamilies(families: readonly string[]): FamilyName[] {
  if (!Array.isArray(families) || families.length === 0) throw new Error('families must be a non-empty array');
  const seen = new Set<string>();
  for (const name of families) {
    getFamily(name);
    if (seen.has(name)) throw new Error(`task family "${name}" is listed twice`);
    seen.add(name);
  }
  return families as FamilyName[];
}

/** Largest prompt (BOS included) any of the families can produce at the given difficulty. */
export function maxPromptTokens(families: FamilyName | readonly FamilyName[], difficulty: DifficultySpec): number {
  const names = typeof families === 'string' ? [families] : checkFamilies(families);
  return Math.max(...names.map((n) => getFamily(n).maxPromptTokens(difficultyFor(difficulty, n))));
}

/** Response tokens (EOS included) left in a context of `contextLength` after the longest prompt. */
export function maxResponseTokens(contextLength: number, families: FamilyName | readonly FamilyName[], difficulty: DifficultySpec): number {
  const left = contextLength - maxPromptTokens(families, difficulty);
  if (left < 1) throw new Error(`context length ${contextLength} leaves no room for a response`);
  return left;
}
