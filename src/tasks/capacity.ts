/**
 * How many distinct problems a task family can generate at a difficulty: the data side of the
 * resource check (src/rl/resources.ts). buildDataset keeps one problem per canonical key
 * (near-duplicates removed, train decontaminated against test), so a family can fill at most
 * this many train + test slots; a config asking for more would spin through buildDataset's
 * attempt budget (minutes) and fail anyway.
 *
 * Counts are of canonical keys the generators can reach:
 *   addition  unordered operand pairs with the longer operand at `d` digits (closed form);
 *   countdown (multiset of numbers, target) pairs with a target 1…999 not among the numbers that
 *             some +, −, × tree over all the numbers reaches (− takes larger − smaller, as the
 *             generator does);
 *   arith     canonical forms of the expressions with `d` operations over 1…maxOperand whose
 *             every intermediate stays within ±999;
 *   multiply  unordered operand pairs with the level's digits (closed form, multiplyKeyCount);
 *   sort      multisets of `count` numbers from 0…maxNumber (closed form; permutations share a key).
 * The larger spaces are enumerated offline by `npx tsx scripts/count-problems.ts` into
 * DISTINCT_PROBLEMS below; tests/tasks/capacity.test.ts re-enumerates the small ones. A space
 * with at least DISTINCT_CAP keys (more than the validator lets a config ask for) is Infinity.
 * Pure: no DOM, no Node APIs.
 */
import { ARITH_MAX_INTERMEDIATE, ARITH_OPS, arithMaxOperand } from './arith';
import { COUNTDOWN_LEVELS, COUNTDOWN_MAX_TARGET } from './countdown';
import { MULTIPLY_LEVELS, multiplyOperandRange } from './multiply';
import { bin, canonicalExpr, evalExpr, num, parseExpr, renderExpr, type Expr } from './expr';
import { SORT_LEVELS } from './sort';
import type { FamilyName } from './types';

/**
 * Counting stops here: data.trainSize and data.testSize are each at most 1,000,000, so one
 * family never needs more than 2,000,000 distinct problems.
 */
export const DISTINCT_CAP = 2_000_000;

/** Addition at difficulty d: unordered pairs {a, b} ⊂ [0, 10^d) with at least one d-digit operand. */
export function additionKeyCount(d: number): number {
  const pairs = (n: number) => (n * (n + 1)) / 2;
  const count = pairs(10 ** d) - (d === 1 ? 0 : pairs(10 ** (d - 1)));
  return count >= DISTINCT_CAP ? Infinity : count;
}

/** Sort at difficulty d: multisets of `count` values out of maxNumber + 1, C(values + count − 1, count). */
export function sortKeyCount(d: number): number {
  const level = SORT_LEVELS[d - 1];
  if (level === undefined) throw new RangeError(`no problem count for sort at difficulty ${d}`);
  const { count, maxNumber } = level;
  let c = 1;
  // C(n + k − 1, k) built up term by term; every partial product is itself a binomial, so exact.
  for (let i = 1; i <= count; i++) c = (c * (maxNumber + i)) / i;
  return c >= DISTINCT_CAP ? Infinity : c;
}

/** Every value a +, −(larger − smaller), × tree over all of `values` reaches (each used once). */
function countdownValues(values: readonly number[]): Set<number> {
  if (values.length === 1) return new Set(values);
  const out = new Set<number>();
  const n = values.length;
  // Split into two non-empty sub-multisets; mask and its complement give the same pairs, so
  // only masks holding element 0 on the left are needed.
  for (let mask = 1; mask < 1 << n; mask += 2) {
    if (mask === (1 << n) - 1) continue;
    const left: number[] = [];
    const right: number[] = [];
    for (let i = 0; i < n; i++) ((mask >> i) & 1 ? left : right).push(values[i]);
    const lv = countdownValues(left);
    const rv = countdownValues(right);
    for (const a of lv) for (const b of rv) {
      out.add(a + b);
      out.add(Math.abs(a - b));
      out.add(a * b);
    }
  }
  return out;
}

/** Countdown keys at difficulty d (stops counting at `cap`). */
export function countdownKeyCount(d: number, cap = DISTINCT_CAP): number {
  const { count, maxNumber } = COUNTDOWN_LEVELS[d - 1];
  let total = 0;
  const numbers: number[] = [];
  const walk = (from: number): boolean => {
    if (numbers.length === count) {
      for (const t of countdownValues(numbers)) if (t >= 1 && t <= COUNTDOWN_MAX_TARGET && !numbers.includes(t)) total++;
      return total >= cap;
    }
    for (let v = from; v <= maxNumber; v++) {
      numbers.push(v);
      const done = walk(v); // non-decreasing: each multiset once
      numbers.pop();
      if (done) return true;
    }
    return false;
  };
  return walk(1) ? Infinity : total;
}

/** Arith keys at difficulty d (stops counting at `cap`). */
export function arithKeyCount(d: number, cap = DISTINCT_CAP): number {
  const maxNumber = arithMaxOperand(d);
  const keys = new Set<string>();
  // Trees with `ops` operations whose every intermediate is within bounds, as the generator keeps them.
  const trees = function* (ops: number): Generator<Expr> {
    if (ops === 0) {
      for (let v = 1; v <= maxNumber; v++) yield num(v);
      return;
    }
    for (let leftOps = 0; leftOps < ops; leftOps++) {
      for (const l of trees(leftOps)) for (const r of trees(ops - 1 - leftOps)) for (const op of ARITH_OPS) {
        const e = bin(op, l, r);
        if (Math.abs(evalExpr(e)) <= ARITH_MAX_INTERMEDIATE) yield e;
      }
    }
  };
  for (const e of trees(d)) {
    // The key of the problem as buildDataset sees it: the rendered prompt, parsed back.
    keys.add(canonicalExpr(parseExpr(renderExpr(e))));
    if (keys.size >= cap) return Infinity;
  }
  return keys.size;
}

/**
 * Multiply at difficulty d: an operand of each of the level's digit counts, in either order, so
 * the keys are unordered pairs (when both have the same digits, a pair and its swap are one key).
 */
export function multiplyKeyCount(d: number): number {
  const { long, short } = MULTIPLY_LEVELS[d - 1];
  const size = (digits: number) => multiplyOperandRange(digits).hi - multiplyOperandRange(digits).lo + 1;
  const count = long === short ? (size(long) * (size(long) + 1)) / 2 : size(long) * size(short);
  return count >= DISTINCT_CAP ? Infinity : count;
}

/**
 * Enumerated by scripts/count-problems.ts (index = difficulty − 1; Infinity = at least
 * DISTINCT_CAP; arith 4–6 took minutes each to reach the cap). buildDataset draws exactly this many
 * for the small spaces and fails at one more (tests/tasks/capacity.test.ts). Addition and sort are
 * computed by their closed forms instead.
 */
export const DISTINCT_PROBLEMS: Readonly<Record<Exclude<FamilyName, 'addition' | 'sort'>, readonly number[]>> = {
  countdown: [112, 4351, 731070, Infinity, Infinity],
  arith: [171, 3489, 641407, Infinity, Infinity, Infinity],
  multiply: MULTIPLY_LEVELS.map((_, i) => multiplyKeyCount(i + 1)), // closed form, not enumerated
};

/** Distinct problems (canonical keys) `family` can generate at `difficulty`; Infinity when at least DISTINCT_CAP. */
export function distinctProblemCount(family: FamilyName, difficulty: number): number {
  if (family === 'addition') return additionKeyCount(difficulty);
  if (family === 'sort') return sortKeyCount(difficulty);
  const n = DISTINCT_PROBLEMS[family][difficulty - 1];
  if (n === undefined) throw new RangeError(`no problem count for ${family} at difficulty ${difficulty}`);
  return n;
}

/**
 * Up to this many distinct problems, buildDataset draws every last one within seconds (measured:
 * all 4,995 addition problems at difficulty 2 in 4 s).
 */
export const SMALL_SPACE = 20_000;

/**
 * Distinct problems a config may ask of one family: all of a small space, half of a larger one.
 * Random draws find the last unseen problems of a large space slowly — countdown at difficulty 3
 * (731,070 problems): half in 20 s, 90% in 150 s, all of them in minutes more — so past half a
 * run would sit in buildDataset for minutes before its first step.
 */
export function usableProblemCount(family: FamilyName, difficulty: number): number {
  const n = distinctProblemCount(family, difficulty);
  return n <= SMALL_SPACE ? n : Math.floor(n / 2);
}

/**
 * Keys two families share at a difficulty (buildDataset keeps one problem per key across
 * families): at difficulty 1 an addition `a+b` and an arith `a+b` (both operands 1…9) are the
 * same key; at any other difficulty arith has two or more operations and addition one.
 */
export function sharedProblemCount(a: FamilyName, b: FamilyName, difficulty: number): number {
  const pair = [a, b].sort().join('+');
  if (pair === 'addition+arith' && difficulty === 1) return 45;
  return 0;
}
