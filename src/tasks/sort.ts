/**
 * `sort`: sort a list of non-negative integers ascending, `(53,9,71,4)=` (the brackets and the
 * comma set it apart from addition `a+b=`, arith `expr=` and countdown `3,5,7:22`).
 * The worked response is a selection sort: each step writes the minimum of the remaining list,
 * a colon, and the list without that one occurrence, steps separated by spaces; the answer is
 * the minima in order followed by the last remaining number:
 *   `<think>4:53,9,71 9:53,71 53:71</think>4,9,53,71`
 * Each step is local: one minimum over the previous step's list, then a copy that skips it.
 * Duplicates are allowed (a step removes one occurrence). Difficulty sets how many numbers
 * there are and how large they get (SORT_LEVELS; docs/tasks.md has the lengths).
 */
import type { Rng } from '../util/rng';
import { chance, checkDifficulty, checkStyle, decimalDigits, expectField, pushStep, validateCommon } from './common';
import { splitResponse } from './tokenizer';
import { TaskFieldError, type Problem, type TaskFamily, type TraceStyle, type VerifyOptions } from './types';

export interface SortData {
  /** The list as shown in the prompt, unsorted. */
  numbers: number[];
}

interface Level {
  count: number;
  maxNumber: number;
}

/** Per difficulty: how many numbers, each 0 … maxNumber (capacity.ts counts the multisets this allows). */
export const SORT_LEVELS: readonly Level[] = [
  { count: 3, maxNumber: 9 },
  { count: 4, maxNumber: 9 },
  { count: 5, maxNumber: 99 },
  { count: 6, maxNumber: 99 },
  { count: 7, maxNumber: 99 },
  { count: 8, maxNumber: 99 },
];
const LEVELS = SORT_LEVELS;
const MAX_DIFFICULTY = LEVELS.length;
const MAX_COUNT = Math.max(...LEVELS.map((l) => l.count));
const MAX_NUMBER = Math.max(...LEVELS.map((l) => l.maxNumber));

const ascending = (x: number, y: number) => x - y;

/** The multiset as a sorted bracketed list: permutations of one list share it (same answer). */
function sortKey(numbers: readonly number[]): string {
  return `(${[...numbers].sort(ascending).join(',')})`;
}

export function makeSortProblem(numbers: number[], difficulty: number): Problem<SortData> {
  return {
    family: 'sort',
    id: sortKey(numbers),
    difficulty,
    prompt: `(${numbers.join(',')})=`,
    answer: [...numbers].sort(ascending).join(','),
    data: { numbers: [...numbers] },
  };
}

function readData(problem: Problem): SortData {
  const numbers = (problem.data as Record<string, unknown>).numbers;
  if (!Array.isArray(numbers) || numbers.length < 2 || numbers.length > MAX_COUNT) {
    throw new TaskFieldError('data.numbers', `must be an array of 2 to ${MAX_COUNT} integers`);
  }
  numbers.forEach((n, i) => {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_NUMBER) {
      throw new TaskFieldError(`data.numbers[${i}]`, `must be an integer in [0, ${MAX_NUMBER}], got ${JSON.stringify(n)}`);
    }
  });
  return { numbers: numbers as number[] };
}

/** Removes the first occurrence of `value` (present by construction). */
function without(list: readonly number[], value: number): number[] {
  const i = list.indexOf(value);
  return [...list.slice(0, i), ...list.slice(i + 1)];
}

export const sort: TaskFamily<SortData> = {
  name: 'sort',
  maxDifficulty: MAX_DIFFICULTY,

  generate(rng: Rng, difficulty: number): Problem<SortData> {
    const d = checkDifficulty('sort', difficulty, MAX_DIFFICULTY);
    const { count, maxNumber } = LEVELS[d - 1];
    return makeSortProblem(
      Array.from({ length: count }, () => rng.int(0, maxNumber)),
      d,
    );
  },

  verify(problem: Problem, response: string, opts?: VerifyOptions): 0 | 1 {
    try {
      if (opts?.truncated === true || typeof response !== 'string') return 0;
      const expected = problem?.answer;
      if (typeof expected !== 'string' || expected === '') return 0;
      const { answer, closed } = splitResponse(response);
      if (!closed) return 0;
      // Exact list after trimming: no spaces inside, no leading zeros, no trailing comma.
      return answer.trim() === expected ? 1 : 0;
    } catch {
      return 0;
    }
  },

  trace(problem: Problem, rng: Rng, style: TraceStyle): string {
    checkStyle(style);
    let rest = [...readData(problem).numbers];
    const picked: number[] = [];
    const steps: string[] = [];
    // A slip either picks a number larger than the minimum (the minimum stays behind and is
    // written after it: the answer is out of order) or, when every remaining number is equal,
    // drops one copy (the answer is a number short). Neither kind can undo the other (no slip
    // adds a number or reorders back), so a trace with any slip always ends on a wrong answer.
    while (rest.length >= 2) {
      const min = Math.min(...rest);
      let pick = min;
      let next: number[];
      if (chance(rng, style.wrongStepRate)) {
        const larger = rest.filter((n) => n > min);
        if (larger.length > 0) {
          pick = rng.pick(larger);
          next = without(rest, pick);
        } else {
          next = without(rest, min).slice(1);
        }
      } else {
        next = without(rest, min);
      }
      pushStep(steps, `${pick}:${next.join(',')}`, rng, style);
      picked.push(pick);
      rest = next;
    }
    return `<think>${steps.join(' ')}</think>${[...picked, ...rest].join(',')}`;
  },

  canonicalKey(problem: Problem): string {
    return sortKey(readData(problem).numbers);
  },

  maxPromptTokens(difficulty: number): number {
    const d = checkDifficulty('sort', difficulty, MAX_DIFFICULTY);
    const { count, maxNumber } = LEVELS[d - 1];
    return 1 + 1 + count * decimalDigits(maxNumber) + (count - 1) + 2; // BOS ( numbers, commas ) =
  },

  validate(problem: Problem): void {
    validateCommon(problem, 'sort', MAX_DIFFICULTY);
    const { numbers } = readData(problem);
    const { count, maxNumber } = LEVELS[problem.difficulty - 1];
    if (numbers.length !== count) {
      throw new TaskFieldError('difficulty', `is ${problem.difficulty} (${count} numbers) but the list has ${numbers.length}`);
    }
    const largest = Math.max(...numbers);
    if (largest > maxNumber) {
      throw new TaskFieldError('difficulty', `is ${problem.difficulty} (numbers up to ${maxNumber}) but the list holds ${largest}`);
    }
    const expected = makeSortProblem(numbers, problem.difficulty);
    expectField('prompt', problem.prompt, expected.prompt);
    expectField('answer', problem.answer, expected.answer);
    expectField('id', problem.id, expected.id);
  },
};
