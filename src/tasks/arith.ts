/**
 * `arith`: multi-step integer arithmetic with precedence and parentheses, `3+4*2-5=`.
 * The think block rewrites the expression one operation at a time:
 * `<think>3+8-5,11-5,6</think>6`. Answers may be negative. Difficulty = number of operations.
 */
import type { Rng } from '../util/rng';
import {
  chance,
  checkDifficulty,
  checkStyle,
  decimalDigits,
  expectField,
  pushStep,
  slipDelta,
  validateCommon,
  verifyIntegerAnswer,
} from './common';
import { applyOp, bin, canonicalExpr, countOps, evalExpr, num, parseExpr, reduceLeftmost, renderExpr, type BinOp, type Expr } from './expr';
import { TaskFieldError, type Problem, type TaskFamily, type TraceStyle, type VerifyOptions } from './types';

export interface ArithData {
  /** The expression as shown in the prompt (without `=`). */
  expression: string;
}

const MAX_DIFFICULTY = 6;
/** Every intermediate stays within 3 digits so reductions stay short. */
export const ARITH_MAX_INTERMEDIATE = 999;
const MAX_INTERMEDIATE = ARITH_MAX_INTERMEDIATE;
export const ARITH_OPS: readonly BinOp[] = ['+', '-', '*'];
const OPS = ARITH_OPS;

/** Operands are 1 … this at a difficulty (capacity.ts counts the problems this allows). */
export function arithMaxOperand(difficulty: number): number {
  return difficulty <= 2 ? 9 : difficulty <= 4 ? 15 : 20;
}

function randomTree(rng: Rng, ops: number, maxNumber: number): Expr {
  if (ops === 0) return num(rng.int(1, maxNumber));
  const leftOps = rng.int(0, ops - 1);
  const op = rng.pick(OPS);
  return bin(op, randomTree(rng, leftOps, maxNumber), randomTree(rng, ops - 1 - leftOps, maxNumber));
}

function withinBounds(e: Expr): boolean {
  if (e.kind === 'num') return true;
  return withinBounds(e.left) && withinBounds(e.right) && Math.abs(evalExpr(e)) <= MAX_INTERMEDIATE;
}

export function makeArithProblem(expression: string, difficulty: number): Problem<ArithData> {
  const tree = parseExpr(expression);
  return {
    family: 'arith',
    id: canonicalExpr(tree),
    difficulty,
    prompt: `${expression}=`,
    answer: String(evalExpr(tree)),
    data: { expression },
  };
}

export const arith: TaskFamily<ArithData> = {
  name: 'arith',
  maxDifficulty: MAX_DIFFICULTY,

  generate(rng: Rng, difficulty: number): Problem<ArithData> {
    const d = checkDifficulty('arith', difficulty, MAX_DIFFICULTY);
    const maxNumber = arithMaxOperand(d);
    for (let attempt = 0; attempt < 100; attempt++) {
      const tree = randomTree(rng, d, maxNumber);
      if (withinBounds(tree)) return makeArithProblem(renderExpr(tree), d);
    }
    // Rare fallback: a left-to-right sum cannot exceed the bound (7 terms of at most 20).
    let tree = num(rng.int(1, maxNumber));
    for (let i = 0; i < d; i++) tree = bin('+', tree, num(rng.int(1, maxNumber)));
    return makeArithProblem(renderExpr(tree), d);
  },

  verify(problem: Problem, response: string, opts?: VerifyOptions): 0 | 1 {
    return verifyIntegerAnswer(typeof problem?.answer === 'string' ? problem.answer : '', response, opts);
  },

  trace(problem: Problem, rng: Rng, style: TraceStyle): string {
    checkStyle(style);
    let tree: Expr = parseExpr(problem.prompt.replace(/=$/, ''));
    const correct = evalExpr(tree);
    const steps: string[] = [];
    let slipped = false;
    while (tree.kind === 'bin') {
      const last = tree.left.kind === 'num' && tree.right.kind === 'num';
      // A slip offsets one reduction's result and later steps reduce the wrong value. Slips can
      // cancel or be absorbed (a product with 0), so the last step slips again if needed:
      // a trace with any slip always ends on a wrong answer.
      const compute = (op: BinOp, a: number, b: number): number => {
        let v = applyOp(op, a, b);
        if (chance(rng, style.wrongStepRate)) {
          v += slipDelta(rng);
          slipped = true;
        }
        if (last && slipped && v === correct) v += slipDelta(rng);
        return v;
      };
      tree = reduceLeftmost(tree, compute) ?? tree;
      pushStep(steps, renderExpr(tree), rng, style);
    }
    return `<think>${steps.join(',')}</think>${renderExpr(tree)}`;
  },

  canonicalKey(problem: Problem): string {
    return canonicalExpr(parseExpr(problem.prompt.replace(/=$/, '')));
  },

  maxPromptTokens(difficulty: number): number {
    const d = checkDifficulty('arith', difficulty, MAX_DIFFICULTY);
    // BOS, d+1 operands, d operators, at most one bracket pair per non-root operation, `=`.
    return 1 + (d + 1) * decimalDigits(arithMaxOperand(d)) + d + 2 * (d - 1) + 1;
  },

  validate(problem: Problem): void {
    validateCommon(problem, 'arith', MAX_DIFFICULTY);
    const expression = (problem.data as Record<string, unknown>).expression;
    if (typeof expression !== 'string') throw new TaskFieldError('data.expression', 'must be a string');
    let expected: Problem<ArithData>;
    try {
      expected = makeArithProblem(expression, problem.difficulty);
    } catch (err) {
      throw new TaskFieldError('data.expression', `is not a valid expression: ${(err as Error).message}`);
    }
    const ops = countOps(parseExpr(expression));
    if (ops !== problem.difficulty) {
      throw new TaskFieldError('difficulty', `is ${problem.difficulty} but the expression has ${ops} operations`);
    }
    expectField('prompt', problem.prompt, expected.prompt);
    expectField('answer', problem.answer, expected.answer);
    expectField('id', problem.id, expected.id);
  },
};
