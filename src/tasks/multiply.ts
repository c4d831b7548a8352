/**
 * `multiply`: long multiplication, `347*86=`. The worked response is the schoolbook method, one
 * small computation per step. The longer operand (the first on a tie) is multiplied by each
 * digit of the other from the units up, digit by digit with the carry; the first row's partial
 * product is written out, and every later row ends in the running sum, its partial product
 * shifted by the row's place:
 *
 *   347*86=  <think>7*6=42,4*6+4=28,3*6+2=20,2082,7*8=56,4*8+5=37,3*8+3=27,2082+27760=29842</think>29842
 *
 * Each number written is local: a digit product plus the previous step's carry, a partial read
 * off the units digits of its row (as addition's answer is), or one sum of the two numbers just
 * before it. Difficulty sets the operands' digits (MULTIPLY_LEVELS), lengthening the chain from
 * 2 steps to 20.
 */
import type { Rng } from '../util/rng';
import {
  chance,
  checkDifficulty,
  checkStyle,
  decimalDigits,
  expectField,
  pushStep,
  readInt,
  slipDelta,
  validateCommon,
  verifyIntegerAnswer,
} from './common';
import { canonicalExpr, parseExpr } from './expr';
import { TaskFieldError, type Problem, type TaskFamily, type TraceStyle, type VerifyOptions } from './types';

export interface MultiplyData {
  a: number;
  b: number;
}

interface Level {
  /** Digits of the longer operand. */
  long: number;
  /** Digits of the shorter operand: the number of rows. */
  short: number;
}

/** Per difficulty: the operands' digits (capacity.ts counts the problems this allows). */
export const MULTIPLY_LEVELS: readonly Level[] = [
  { long: 2, short: 1 },
  { long: 2, short: 2 },
  { long: 3, short: 2 },
  { long: 3, short: 3 },
  { long: 4, short: 3 },
  { long: 4, short: 4 },
];
const LEVELS = MULTIPLY_LEVELS;
const MAX_DIFFICULTY = LEVELS.length;
const MAX_OPERAND = 10 ** LEVELS[MAX_DIFFICULTY - 1].long - 1;

/** Operands with `digits` digits are drawn from [lo, hi]; one digit is 2…9 (×0 and ×1 teach nothing). */
export function multiplyOperandRange(digits: number): { lo: number; hi: number } {
  return digits === 1 ? { lo: 2, hi: 9 } : { lo: 10 ** (digits - 1), hi: 10 ** digits - 1 };
}

function randomWithDigits(rng: Rng, digits: number): number {
  const { lo, hi } = multiplyOperandRange(digits);
  return rng.int(lo, hi);
}

function multiplyKey(a: number, b: number): string {
  return canonicalExpr(parseExpr(`${a}*${b}`));
}

export function makeMultiplyProblem(a: number, b: number, difficulty: number): Problem<MultiplyData> {
  return {
    family: 'multiply',
    id: multiplyKey(a, b),
    difficulty,
    prompt: `${a}*${b}=`,
    answer: String(a * b),
    data: { a, b },
  };
}

function readData(problem: Problem): MultiplyData {
  const data = problem.data as Record<string, unknown>;
  return { a: readInt(data, 'a', 'data', 0, MAX_OPERAND), b: readInt(data, 'b', 'data', 0, MAX_OPERAND) };
}

/** `value` moved by a slip: different, and still non-negative so it reads as plain digits. */
function slip(rng: Rng, value: number): number {
  const delta = slipDelta(rng);
  return value + delta >= 0 ? value + delta : value - delta;
}

export const multiply: TaskFamily<MultiplyData> = {
  name: 'multiply',
  maxDifficulty: MAX_DIFFICULTY,

  generate(rng: Rng, difficulty: number): Problem<MultiplyData> {
    const d = checkDifficulty('multiply', difficulty, MAX_DIFFICULTY);
    const { long, short } = LEVELS[d - 1];
    const x = randomWithDigits(rng, long);
    const y = randomWithDigits(rng, short);
    return rng.next() < 0.5 ? makeMultiplyProblem(x, y, d) : makeMultiplyProblem(y, x, d);
  },

  verify(problem: Problem, response: string, opts?: VerifyOptions): 0 | 1 {
    return verifyIntegerAnswer(typeof problem?.answer === 'string' ? problem.answer : '', response, opts);
  },

  trace(problem: Problem, rng: Rng, style: TraceStyle): string {
    checkStyle(style);
    const { a, b } = readData(problem);
    const [top, bottom] = decimalDigits(a) >= decimalDigits(b) ? [a, b] : [b, a];
    const xs = [...String(top)].reverse().map(Number);
    const ys = [...String(bottom)].reverse().map(Number);
    const steps: string[] = [];
    let slipped = false;
    let total = 0;
    for (let row = 0; row < ys.length; row++) {
      const y = ys[row];
      // A slipped digit step (kept ≥ 0) changes this row's partial by Σ δ_i·10^i, |δ_i| ≤ 3:
      // never 0, so within a row a slip always shows. The carry passed on is the written one.
      let carry = 0;
      let partial = 0;
      for (let i = 0; i < xs.length; i++) {
        let s = xs[i] * y + carry;
        if (chance(rng, style.wrongStepRate)) {
          s = slip(rng, s);
          slipped = true;
        }
        pushStep(steps, carry ? `${xs[i]}*${y}+${carry}=${s}` : `${xs[i]}*${y}=${s}`, rng, style);
        partial += (s % 10) * 10 ** i;
        carry = Math.floor(s / 10);
      }
      partial += carry * 10 ** xs.length;
      if (row === 0) {
        total = partial;
        pushStep(steps, String(partial), rng, style);
        continue;
      }
      const shifted = partial * 10 ** row;
      let sum = total + shifted;
      if (chance(rng, style.wrongStepRate)) {
        sum = slip(rng, sum);
        slipped = true;
      }
      // Slips in different rows (or a slipped sum) can cancel; the last sum then slips again,
      // so a trace with any slip always ends on a wrong product.
      if (row === ys.length - 1 && slipped && sum === a * b) sum = slip(rng, sum);
      pushStep(steps, `${total}+${shifted}=${sum}`, rng, style);
      total = sum;
    }
    return `<think>${steps.join(',')}</think>${total}`;
  },

  canonicalKey(problem: Problem): string {
    const { a, b } = readData(problem);
    return multiplyKey(a, b);
  },

  maxPromptTokens(difficulty: number): number {
    const d = checkDifficulty('multiply', difficulty, MAX_DIFFICULTY);
    const { long, short } = LEVELS[d - 1];
    return 1 + long + 1 + short + 1; // BOS a * b =
  },

  validate(problem: Problem): void {
    validateCommon(problem, 'multiply', MAX_DIFFICULTY);
    const { a, b } = readData(problem);
    const { long, short } = LEVELS[problem.difficulty - 1];
    const [dl, ds] = [decimalDigits(a), decimalDigits(b)].sort((x, y) => y - x);
    if (dl > long || ds > short) {
      throw new TaskFieldError('difficulty', `is ${problem.difficulty} (at most ${long}- and ${short}-digit operands) but the operands have ${dl} and ${ds} digits`);
    }
    const expected = makeMultiplyProblem(a, b, problem.difficulty);
    expectField('prompt', problem.prompt, expected.prompt);
    expectField('answer', problem.answer, expected.answer);
    expectField('id', problem.id, expected.id);
  },
};
