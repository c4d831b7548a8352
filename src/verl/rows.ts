/**
 * The lab's problems as rows of verl's RL dataset (one row per prompt; the layout of verl's
 * `examples/data_preprocess/*.py`):
 *
 *   data_source   "magic-lab/<family>": reward.py dispatches on it
 *   prompt        [{ role: "user", content }]: the lab's prompt, verbatim, inside an instruction
 *                 that states the lab's answer-format rule (an LLM has never seen `47+85=` alone)
 *   ability       "math"
 *   reward_model  { style: "rule", ground_truth }: the integer answer (addition, arith), or for
 *                 countdown `{"numbers":[…],"target":N}` as JSON (any expression reaching the
 *                 target counts, so the reference solution is not the truth)
 *   extra_info    { split, index, family, id, difficulty, prompt, answer }: index = row in its
 *                 file; prompt and answer = the lab's own fields, so a file maps back to problems
 *
 * Pure: no Node APIs.
 */
import type { CountdownData, FamilyName, Problem } from '../tasks';

export const DATA_SOURCE_PREFIX = 'magic-lab/';
export const ABILITY = 'math';

export type VerlSplit = 'train' | 'val' | 'test';

export interface VerlRow {
  data_source: string;
  prompt: { role: 'user'; content: string }[];
  ability: string;
  reward_model: { style: 'rule'; ground_truth: string };
  extra_info: { split: VerlSplit; index: number; family: FamilyName; id: string; difficulty: number; prompt: string; answer: string };
}

/** The format rule every family shares (src/tasks/tokenizer.ts splitResponse; reward 0 otherwise). */
const FORMAT_RULE =
  'Reason step by step inside <think> </think>, starting your reply with <think>. Right after </think> write only the final answer, with nothing before or after it.';

/** What each family asks, around the lab's prompt text. */
const TASK_TEXT: Record<FamilyName, (p: Problem) => string> = {
  addition: (p) => `Compute the sum: ${p.prompt}\nThe final answer is an integer.`,
  arith: (p) => `Evaluate the expression (usual precedence: * before + and -): ${p.prompt}\nThe final answer is an integer.`,
  countdown: (p) => {
    const d = p.data as CountdownData;
    return (
      `Countdown: ${p.prompt} means reach the target ${d.target} using the numbers ${d.numbers.join(', ')}, each at most once, with + - * and parentheses.\n` +
      'The final answer is that expression, e.g. 5*3+7, without "=" or the result.'
    );
  },
  multiply: (p) => `Compute the product: ${p.prompt}\nThe final answer is an integer.`,
  sort: (p) => `Sort the numbers in ascending order: ${p.prompt}\nThe final answer is the sorted list, comma-separated without spaces, e.g. 4,9,53,71.`,
};

/** The user message of a problem: task text, then the format rule. */
export function promptText(problem: Problem): string {
  return `${TASK_TEXT[problem.family](problem)}\n${FORMAT_RULE}`;
}

/** reward_model.ground_truth of a problem (what reward.py verifies against). */
export function groundTruth(problem: Problem): string {
  if (problem.family === 'countdown') {
    const d = problem.data as CountdownData;
    return JSON.stringify({ numbers: d.numbers, target: d.target });
  }
  return problem.answer;
}

export function toVerlRows(problems: readonly Problem[], split: VerlSplit): VerlRow[] {
  return problems.map((p, index) => ({
    data_source: `${DATA_SOURCE_PREFIX}${p.family}`,
    prompt: [{ role: 'user', content: promptText(p) }],
    ability: ABILITY,
    reward_model: { style: 'rule', ground_truth: groundTruth(p) },
    extra_info: { split, index, family: p.family, id: p.id, difficulty: p.difficulty, prompt: p.prompt, answer: p.answer },
  }));
}
