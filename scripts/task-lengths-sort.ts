/**
 * Response lengths of the `sort` family at each difficulty, for docs/tasks-sort.md: tokens of
 * the response with EOS (mean, p50, p95, max) for concise traces and for the default SFT style
 * (wrongStepRate 0.15, verboseRate 0.15), the longest prompt (BOS included), how many
 * prompt + response sequences overrun a context of 256, and the concise length of two other
 * scratchpads that were considered (bubble passes; selection sort writing the sorted prefix too).
 *
 *   npx tsx scripts/task-lengths-sort.ts [problemsPerDifficulty=2000]
 */
import { CONCISE_STYLE, encodePrompt, encodeResponse, sort, type Problem, type SortData, type TraceStyle } from '../src/tasks';
import { Rng } from '../src/util/rng';

const N = Number(process.argv[2] ?? 2000);
const CONTEXT = 256;
const SFT_STYLE: TraceStyle = { wrongStepRate: 0.15, verboseRate: 0.15 };

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return `${mean.toFixed(1)} / ${q(0.5)} / ${q(0.95)} / ${s[s.length - 1]}`;
}

/** `<think>` passes of bubble sort (each pass the whole list, until a pass changes nothing) `</think>` answer EOS. */
function bubbleLength(numbers: number[]): number {
  const list = [...numbers];
  const passes: string[] = [];
  for (let swapped = true; swapped; ) {
    swapped = false;
    for (let i = 0; i + 1 < list.length; i++) {
      if (list[i] > list[i + 1]) {
        [list[i], list[i + 1]] = [list[i + 1], list[i]];
        swapped = true;
      }
    }
    if (swapped) passes.push(list.join(','));
  }
  return encodeResponse(`<think>${passes.join(' ')}</think>${list.join(',')}`).length;
}

/** Selection sort writing `sorted prefix:remaining` at each step. */
function prefixLength(numbers: number[]): number {
  const rest = [...numbers];
  const done: number[] = [];
  const steps: string[] = [];
  while (rest.length >= 2) {
    const m = Math.min(...rest);
    rest.splice(rest.indexOf(m), 1);
    done.push(m);
    steps.push(`${done.join(',')}:${rest.join(',')}`);
  }
  return encodeResponse(`<think>${steps.join(' ')}</think>${[...done, ...rest].join(',')}`).length;
}

console.log(`${N} problems per difficulty, response tokens with EOS: mean / p50 / p95 / max\n`);
console.log('| d | prompt max | concise | SFT 0.15/0.15 | SFT correct | SFT over 256 | bubble passes (concise) | prefix+rest (concise) |');
console.log('|---|---|---|---|---|---|---|---|');
for (let d = 1; d <= sort.maxDifficulty; d++) {
  const rng = new Rng(1000 + d);
  const concise: number[] = [];
  const sft: number[] = [];
  const bubble: number[] = [];
  const prefix: number[] = [];
  let prompt = 0;
  let correct = 0;
  let over = 0;
  for (let i = 0; i < N; i++) {
    const p = sort.generate(rng, d) as Problem<SortData>;
    const promptLen = encodePrompt(p.prompt).length;
    prompt = Math.max(prompt, promptLen);
    concise.push(encodeResponse(sort.trace(p, rng, CONCISE_STYLE)).length);
    const t = sort.trace(p, rng, SFT_STYLE);
    const len = encodeResponse(t).length;
    sft.push(len);
    correct += sort.verify(p, t);
    if (promptLen + len > CONTEXT) over++;
    bubble.push(bubbleLength(p.data.numbers));
    prefix.push(prefixLength(p.data.numbers));
  }
  const pct = (k: number) => `${((100 * k) / N).toFixed(1)}%`;
  console.log(`| ${d} | ${prompt} | ${stats(concise)} | ${stats(sft)} | ${pct(correct)} | ${pct(over)} | ${stats(bubble)} | ${stats(prefix)} |`);
}
