/** Helpers shared by the task families. */
import type { Rng } from '../util/rng';
import { splitResponse } from './tokenizer';
import { TaskFieldError, type FamilyName, type Problem, type TraceStyle, type VerifyOptions } from './types';

/**
 * Normalises an integer answer: trims surrounding whitespace, drops a `+` sign and leading
 * zeros, maps `-0` to `0`. Returns null for anything else (inner spaces included: `12 13` is
 * two answers, not 1213).
 */
export function normalizeInteger(text: string): string | null {
  const m = /^([+-]?)(\d+)$/.exec(text.trim());
  if (!m) return null;
  const digits = m[2].replace(/^0+(?=\d)/, '');
  return m[1] === '-' && digits !== '0' ? `-${digits}` : digits;
}

/** Verifier for families whose answer is one integer. Never throws. */
export function verifyIntegerAnswer(expected: string, response: unknown, opts?: VerifyOptions): 0 | 1 {
  try {
    if (opts?.truncated === true || typeof response !== 'string') return 0;
    const { answer, closed } = splitResponse(response);
    if (!closed) return 0;
    const got = normalizeInteger(answer);
    return got !== null && got === normalizeInteger(expected) ? 1 : 0;
  } catch {
    return 0;
  }
}

/** Bernoulli(p); always draws once so a trace consumes the same stream whatever the rates. */
export function chance(rng: Rng, p: number): boolean {
  return rng.next() < p;
}

/** A small non-zero offset for an arithmetic slip. */
export function slipDelta(rng: Rng): number {
  return rng.int(1, 3) * (rng.next() < 0.5 ? -1 : 1);
}

/** Appends a step, plus 1–2 redundant copies with probability verboseRate. */
export function pushStep(steps: string[], step: string, rng: Rng, style: TraceStyle): void {
  steps.push(step);
  if (chance(rng, style.verboseRate)) {
    const copies = rng.int(1, 2);
    for (let i = 0; i < copies; i++) steps.push(step);
  }
}

export function checkStyle(style: TraceStyle): void {
  for (const key of ['wrongStepRate', 'verboseRate'] as const) {
    const v = style[key];
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
      throw new RangeError(`trace style ${key} must be a number in [0, 1], got ${String(v)}`);
    }
  }
}

export function checkDifficulty(family: FamilyName, difficulty: number, max: number): number {
  if (!Number.isInteger(difficulty) || difficulty < 1 || difficulty > max) {
    throw new RangeError(`${family}: difficulty must be an integer in [1, ${max}], got ${String(difficulty)}`);
  }
  return difficulty;
}

export function decimalDigits(n: number): number {
  return String(Math.abs(n)).length;
}

/** Checks the family-independent fields of a problem. */
export function validateCommon(problem: Problem, family: FamilyName, maxDifficulty: number): void {
  if (problem.family !== family) throw new TaskFieldError('family', `expected "${family}", got ${JSON.stringify(problem.family)}`);
  for (const key of ['id', 'prompt', 'answer'] as const) {
    if (typeof problem[key] !== 'string') throw new TaskFieldError(key, `must be a string, got ${typeof problem[key]}`);
  }
  const d = problem.difficulty;
  if (!Number.isInteger(d) || d < 1 || d > maxDifficulty) {
    throw new TaskFieldError('difficulty', `must be an integer in [1, ${maxDifficulty}], got ${JSON.stringify(d)}`);
  }
  if (typeof problem.data !== 'object' || problem.data === null || Array.isArray(problem.data)) {
    throw new TaskFieldError('data', 'must be an object');
  }
}

export function expectField(field: string, actual: string, expected: string): void {
  if (actual !== expected) {
    throw new TaskFieldError(field, `is ${JSON.stringify(actual)} but the data imply ${JSON.stringify(expected)}`);
  }
}

export function readInt(obj: Record<string, unknown>, field: string, path: string, min: number, max: number): number {
  const v = obj[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new TaskFieldError(`${path}.${field}`, `must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  }
  return v;
}
