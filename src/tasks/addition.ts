/**
 * `addition`: multi-digit addition, `47+85=`. The worked response adds column by column from
 * the units, showing the carry: `<think>7+5=12,4+8+1=13</think>132`.
 * Difficulty = digits of the longer operand (the other has 1..difficulty digits).
 */
import type { Rng } from '../util/rng';
import {
  chance,
  checkDifficulty,
  checkStyle,
  expectField,
  pushStep,
  readInt,
  slipDelta,
  validateCommon,
  verifyIntegerAnswer,
} from './common';
import { canonicalExpr, parseExpr } from './expr';
import { TaskFieldError, type Problem, type TaskFamily, type TraceStyle, type VerifyOptions } from './types';

export interface AdditionData {
  a: number;
  b: number;
}

const MAX_DIFFICULTY = 8;

function randomWithDigits(rng: Rng, digits: number): number {
  return digits === 1 ? rng.int(0, 9) : rng.int(10 ** (digits - 1), 10 ** digits - 1);
}

export function makeAdditionProblem(a: number, b: number, difficulty: number): Problem<AdditionData> {
  const prompt = `${a}+${b}=`;
  return {
    family: 'addition',
    id: canonicalExpr(parseExpr(`${a}+${b}`)),
    difficulty,
    prompt,
    answer: String(a + b),
    data: { a, b },
  };
}

function readData(problem: Problem): AdditionData {
  const data = problem.data as Record<string, unknown>;
  const limit = 10 ** MAX_DIFFICULTY - 1;
  return { a: readInt(data, 'a', 'data', 0, limit), b: readInt(data, 'b', 'data', 0, limit) };
}

export const addition: TaskFamily<AdditionData> = {
  name: 'addition',
  maxDifficulty: MAX_DIFFICULTY,

  generate(rng: Rng, difficulty: number): Problem<AdditionData> {
    const d = checkDifficulty('addition', difficulty, MAX_DIFFICULTY);
    const long = randomWithDigits(rng, d);
    const short = randomWithDigits(rng, rng.int(1, d));
    return rng.next() < 0.5 ? makeAdditionProblem(long, short, d) : makeAdditionProblem(short, long, d);
  },

  verify(problem: Problem, response: string, opts?: VerifyOptions): 0 | 1 {
    return verifyIntegerAnswer(typeof problem?.answer === 'string' ? problem.answer : '', response, opts);
  },

  trace(problem: Problem, rng: Rng, style: TraceStyle): string {
    checkStyle(style);
    const { a, b } = readData(problem);
    const da = [...String(a)].reverse().map(Number);
    const db = [...String(b)].reverse().map(Number);
    const steps: string[] = [];
    const out: number[] = [];
    let carry = 0;
    for (let i = 0; i < Math.max(da.length, db.length); i++) {
      const x = da[i] ?? 0;
      const y = db[i] ?? 0;
      let s = x + y + carry;
      if (chance(rng, style.wrongStepRate)) {
        // Keep the slipped column sum in 0..19 so it still reads as a digit plus a carry.
        let wrong = s + slipDelta(rng);
        if (wrong < 0 || wrong > 19) wrong = s + (s >= 10 ? -1 : 1);
        s = wrong;
      }
      pushStep(steps, carry ? `${x}+${y}+${carry}=${s}` : `${x}+${y}=${s}`, rng, style);
      out.push(s % 10);
      carry = s >= 10 ? 1 : 0;
    }
    // Column slips change the sum by Σ δ_i·10^i with |δ_i| < 10, which is never 0: a slip always shows.
    const digits = (carry ? '1' : '') + out.reverse().join('');
    const answer = digits.replace(/^0+(?=\d)/, '');
    return `<think>${steps.join(',')}</think>${answer}`;
  },

  canonicalKey(problem: Problem): string {
    return canonicalExpr(parseExpr(problem.prompt.replace(/=$/, '')));
  },

  maxPromptTokens(difficulty: number): number {
    const d = checkDifficulty('addition', difficulty, MAX_DIFFICULTY);
    return 1 + d + 1 + d + 1; // BOS a + b =
  },

  validate(problem: Problem): void {
    validateCommon(problem, 'addition', MAX_DIFFICULTY);
    const { a, b } = readData(problem);
    const expected = makeAdditionProblem(a, b, problem.difficulty);
    const digits = Math.max(String(a).length, String(b).length);
    if (digits > problem.difficulty) {
      throw new TaskFieldError('difficulty', `is ${problem.difficulty} but an operand has ${digits} digits`);
    }
    expectField('prompt', problem.prompt, expected.prompt);
    expectField('answer', problem.answer, expected.answer);
    expectField('id', problem.id, expected.id);
  },
};
