/**
 * Shared shapes of the task layer: problems, task families, trace styles.
 * Everything in src/tasks is pure (no DOM, no Node APIs) so the browser worker, the CLI and
 * the tests all see exactly the same data for a seed.
 */
import type { Rng } from '../util/rng';

export type FamilyName = 'addition' | 'countdown' | 'arith' | 'multiply' | 'sort';

/** All family names, in registry order (also the default interleaving order). */
export const FAMILY_NAMES: readonly FamilyName[] = ['addition', 'countdown', 'arith', 'multiply', 'sort'];

export interface Problem<D = unknown> {
  family: FamilyName;
  /**
   * The problem's canonical key (see TaskFamily.canonicalKey). Unique inside a dataset built by
   * buildDataset, because near-duplicates are removed; two raw generated problems may share it.
   */
  id: string;
  difficulty: number;
  /** Text after BOS, e.g. `47+85=`. */
  prompt: string;
  /** Reference answer as it appears after `</think>`. */
  answer: string;
  /** Family-specific structured form (numbers, expression); validated by TaskFamily.validate. */
  data: D;
}

export interface VerifyOptions {
  /** The response hit the length limit: it scores 0 whatever it says (MAGIC does not mask truncation). */
  truncated?: boolean;
}

/** How imperfect a synthetic warm-start trace is. Both rates are probabilities in [0, 1]. */
export interface TraceStyle {
  /** Per step: chance of an arithmetic slip that propagates to the final answer. */
  wrongStepRate: number;
  /** Per step: chance the step is written again (1–2 extra copies), lengthening the response. */
  verboseRate: number;
}

export const CONCISE_STYLE: Readonly<TraceStyle> = Object.freeze({ wrongStepRate: 0, verboseRate: 0 });

export interface TaskFamily<D = unknown> {
  readonly name: FamilyName;
  /** Largest supported difficulty; difficulties are integers in [1, maxDifficulty]. */
  readonly maxDifficulty: number;
  generate(rng: Rng, difficulty: number): Problem<D>;
  /** Exact 0/1 reward. Never throws, whatever the response or problem. */
  verify(problem: Problem, response: string, opts?: VerifyOptions): 0 | 1;
  /** Synthetic `<think>...</think>ANSWER` response (no EOS) in the given style. */
  trace(problem: Problem, rng: Rng, style: TraceStyle): string;
  /** Key invariant to trivial rewrites (operand order, whitespace, redundant parentheses). */
  canonicalKey(problem: Problem): string;
  /** Upper bound on the prompt's token count, BOS included, for any problem at this difficulty. */
  maxPromptTokens(difficulty: number): number;
  /** Throws TaskFieldError naming the field if the problem is not self-consistent. */
  validate(problem: Problem): void;
}

/** A malformed problem or option; `field` names the offending field (e.g. `data.numbers`). */
export class TaskFieldError extends Error {
  constructor(
    public readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'TaskFieldError';
  }
}
