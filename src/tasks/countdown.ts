/**
 * `countdown`: reach the target with the given numbers, `3,5,7:22` (numbers, then target).
 * Each number may be used at most once; the answer is an expression over + - * and
 * parentheses, e.g. `<think>5*3=15,15+7=22</think>5*3+7`. The generator builds the target
 * from a random expression over all the numbers, so every problem is solvable.
 * Difficulty sets how many numbers there are and how large they get.
 */
import type { Rng } from '../util/rng';
import { chance, checkDifficulty, checkStyle, decimalDigits, expectField, pushStep, validateCommon } from './common';
import { applyOp, bin, evalExpr, leaves, num, parseExpr, renderExpr, type BinOp, type Expr } from './expr';
import { splitResponse } from './tokenizer';
import { TaskFieldError, type Problem, type TaskFamily, type TraceStyle, type VerifyOptions } from './types';

export interface CountdownData {
  numbers: number[];
  target: number;
}

interface Level {
  count: number;
  maxNumber: number;
}

/** Per difficulty: how many numbers, each 1 … maxNumber (capacity.ts counts the problems this allows). */
export const COUNTDOWN_LEVELS: readonly Level[] = [
  { count: 2, maxNumber: 9 },
  { count: 3, maxNumber: 12 },
  { count: 4, maxNumber: 20 },
  { count: 4, maxNumber: 50 },
  { count: 4, maxNumber: 100 },
];
const LEVELS = COUNTDOWN_LEVELS;
const MAX_DIFFICULTY = LEVELS.length;
/** Targets stay at most 3 digits so prompts stay short. */
export const COUNTDOWN_MAX_TARGET = 999;
const MAX_TARGET = COUNTDOWN_MAX_TARGET;
const OPS: readonly BinOp[] = ['+', '-', '*'];
/** Verifier limits: an honest answer over ≤ 6 numbers is far inside these. */
const ANSWER_MAX_LENGTH = 200;
const ANSWER_MAX_DEPTH = 16;

function randomTree(rng: Rng, leafValues: number[], ops: readonly BinOp[]): Expr {
  if (leafValues.length === 1) return num(leafValues[0]);
  const split = rng.int(1, leafValues.length - 1);
  const left = randomTree(rng, leafValues.slice(0, split), ops);
  const right = randomTree(rng, leafValues.slice(split), ops);
  const op = rng.pick(ops);
  // Order subtraction operands so that no intermediate is negative: traces stay in plain digits.
  if (op === '-' && evalExpr(left) < evalExpr(right)) return bin(op, right, left);
  return bin(op, left, right);
}

export function makeCountdownProblem(numbers: number[], target: number, solution: string, difficulty: number): Problem<CountdownData> {
  return {
    family: 'countdown',
    id: countdownKey(numbers, target),
    difficulty,
    prompt: `${numbers.join(',')}:${target}`,
    answer: solution,
    data: { numbers: [...numbers], target },
  };
}

function countdownKey(numbers: readonly number[], target: number): string {
  return `${[...numbers].sort((x, y) => x - y).join(',')}:${target}`;
}

function readData(problem: Problem): CountdownData {
  const data = problem.data as Record<string, unknown>;
  const numbers = data.numbers;
  if (!Array.isArray(numbers) || numbers.length < 2 || numbers.length > 6) {
    throw new TaskFieldError('data.numbers', 'must be an array of 2 to 6 integers');
  }
  numbers.forEach((n, i) => {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 9999) {
      throw new TaskFieldError(`data.numbers[${i}]`, `must be an integer in [1, 9999], got ${JSON.stringify(n)}`);
    }
  });
  const target = data.target;
  if (typeof target !== 'number' || !Number.isInteger(target) || target < 0 || target > 999_999) {
    throw new TaskFieldError('data.target', `must be an integer in [0, 999999], got ${JSON.stringify(target)}`);
  }
  return { numbers: numbers as number[], target };
}

/** 1 if `answer` evaluates to the target using each given number at most once. Throws on malformed input. */
function checkSolution(data: CountdownData, answer: string): 0 | 1 {
  const expr = parseExpr(answer, { maxLength: ANSWER_MAX_LENGTH, maxDepth: ANSWER_MAX_DEPTH });
  const available = new Map<number, number>();
  for (const n of data.numbers) available.set(n, (available.get(n) ?? 0) + 1);
  for (const leaf of leaves(expr)) {
    // `07` is not the number 7 as written in the prompt.
    if (leaf.text !== String(leaf.value)) return 0;
    const left = available.get(leaf.value) ?? 0;
    if (left === 0) return 0;
    available.set(leaf.value, left - 1);
  }
  return evalExpr(expr) === data.target ? 1 : 0;
}

export const countdown: TaskFamily<CountdownData> = {
  name: 'countdown',
  maxDifficulty: MAX_DIFFICULTY,

  generate(rng: Rng, difficulty: number): Problem<CountdownData> {
    const d = checkDifficulty('countdown', difficulty, MAX_DIFFICULTY);
    const { count, maxNumber } = LEVELS[d - 1];
    const numbers = Array.from({ length: count }, () => rng.int(1, maxNumber));
    const order = rng.shuffle([...numbers]);
    for (let attempt = 0; attempt < 50; attempt++) {
      const tree = randomTree(rng, order, OPS);
      const target = evalExpr(tree);
      // A target equal to a given number is solved by copying it: no reasoning to reward.
      if (target >= 1 && target <= MAX_TARGET && !numbers.includes(target)) {
        return makeCountdownProblem(numbers, target, renderExpr(tree), d);
      }
    }
    // Rare fallback: a sum of positive numbers exceeds each of them and stays below the cap.
    const tree = randomTree(rng, order, ['+']);
    return makeCountdownProblem(numbers, evalExpr(tree), renderExpr(tree), d);
  },

  verify(problem: Problem, response: string, opts?: VerifyOptions): 0 | 1 {
    try {
      if (opts?.truncated === true || typeof response !== 'string') return 0;
      const { answer, closed } = splitResponse(response);
      if (!closed) return 0;
      // Whitespace around the answer (R1-style models write "</think>\n\n…\n") is no part of it;
      // inside it only spaces are allowed, so two answers on two lines still fail.
      return checkSolution(readData(problem), answer.trim());
    } catch {
      return 0;
    }
  },

  trace(problem: Problem, rng: Rng, style: TraceStyle): string {
    checkStyle(style);
    const solution = parseExpr(problem.answer);
    const target = evalExpr(solution);
    const steps: string[] = [];
    let slipped = false;
    // Post-order walk: each step combines two computed values. A slip writes a different
    // operator but keeps the intended result, so the final expression (built from the written
    // operators) misses the target. Slips can cancel, so the root step slips again if needed:
    // a trace with any slip always ends on a wrong answer.
    const walk = (e: Expr, isRoot: boolean): { value: number; written: Expr } => {
      if (e.kind === 'num') return { value: e.value, written: e };
      const l = walk(e.left, false);
      const r = walk(e.right, false);
      const value = applyOp(e.op, l.value, r.value);
      let op = e.op;
      if (chance(rng, style.wrongStepRate)) {
        const alternatives = OPS.filter((o) => applyOp(o, l.value, r.value) !== value);
        if (alternatives.length > 0) {
          op = rng.pick(alternatives);
          slipped = true;
        }
      }
      if (isRoot && slipped) {
        const [lw, rw] = [evalExpr(l.written), evalExpr(r.written)];
        if (applyOp(op, lw, rw) === target) {
          const misses = OPS.filter((o) => applyOp(o, lw, rw) !== target);
          if (misses.length > 0) op = rng.pick(misses);
        }
      }
      pushStep(steps, `${l.value}${op}${r.value}=${value}`, rng, style);
      return { value, written: bin(op, l.written, r.written) };
    };
    const { written } = walk(solution, true);
    return `<think>${steps.join(',')}</think>${renderExpr(written)}`;
  },

  canonicalKey(problem: Problem): string {
    const { numbers, target } = readData(problem);
    return countdownKey(numbers, target);
  },

  maxPromptTokens(difficulty: number): number {
    const d = checkDifficulty('countdown', difficulty, MAX_DIFFICULTY);
    const { count, maxNumber } = LEVELS[d - 1];
    return 1 + count * decimalDigits(maxNumber) + (count - 1) + 1 + decimalDigits(MAX_TARGET);
  },

  validate(problem: Problem): void {
    validateCommon(problem, 'countdown', MAX_DIFFICULTY);
    const { numbers, target } = readData(problem);
    const expected = makeCountdownProblem(numbers, target, problem.answer, problem.difficulty);
    expectField('prompt', problem.prompt, expected.prompt);
    expectField('id', problem.id, expected.id);
    let ok: 0 | 1 = 0;
    try {
      ok = checkSolution({ numbers, target }, problem.answer);
    } catch (err) {
      throw new TaskFieldError('answer', `is not a valid expression: ${(err as Error).message}`);
    }
    if (!ok) throw new TaskFieldError('answer', `${JSON.stringify(problem.answer)} does not reach ${target} with the given numbers`);
  },
};
