/**
 * The lab's task families as text prompts for a real model's own tokenizer, and its responses verified
 * on decoded text with the families' exact verifiers (the same ones the lab's own policies face).
 *
 * The assistant turn is opened with `<think>` (as R1-style templates do), so the response continues the
 * reasoning and closes it with `</think>` before the answer; the verifier sees `<think>` + the decoded
 * response. Chat templates (tokenizer_config.json's Jinja `chat_template`) are not applied yet: the
 * prompt is plain text (docs/real-models.md).
 */
import { FAMILIES, type FamilyName, type Problem } from '../tasks';

const INSTRUCTION: Record<FamilyName, (p: Problem) => string> = {
  addition: (p) => `Compute ${p.prompt.replace(/=$/, '')}.`,
  arith: (p) => `Compute ${p.prompt.replace(/=$/, '')}.`,
  multiply: (p) => `Compute ${p.prompt.replace(/=$/, '')}.`,
  countdown: (p) => {
    const [numbers, target] = p.prompt.split(':');
    return `Using the numbers ${numbers.split(',').join(', ')}, each at most once, with + - * and parentheses, write an expression equal to ${target}.`;
  },
  sort: (p) => `Sort the numbers ${p.prompt.replace(/^\(|\)=$/g, '').split(',').join(', ')} in ascending order, written as a comma-separated list without spaces.`,
};

export const THINK_PREFIX = '<think>';

/** The prompt text of one problem: the task, the answer format, and the opened think block. */
export function renderHfPrompt(problem: Problem): string {
  return `${INSTRUCTION[problem.family](problem)}\nReason inside <think> </think>, then give only the final answer after </think>.\n${THINK_PREFIX}`;
}

/** The exact 0/1 reward of a decoded response (special tokens already removed), 0 when truncated. */
export function scoreHfResponse(problem: Problem, text: string, truncated: boolean): 0 | 1 {
  return FAMILIES[problem.family].verify(problem, THINK_PREFIX + text, { truncated });
}
