/**
 * Held-out evaluation of a real model (HfPolicyEngine): k samples per test problem at each temperature, the
 * prompts and verifiers of ./hf-prompts.ts, and the lab's own metrics (val/avg@k, val/pass@k, val/maj@k, response
 * lengths, truncation and val/entropy/t…, src/rl/metrics.ts) under the same keys as the lab's evaluation.
 */
import type { HfPolicyEngine } from '../model/hf-policy';
import type { HfTokenizer } from '../model/hf/tokenizer';
import { splitResponse, type Problem } from '../tasks';
import { batchEntropy } from './entropy';
import { evalEntropyKey, evalMetrics, type EvalSample } from './metrics';
import { batchSeed } from './rollout';
import { renderHfPrompt, scoreHfResponse, THINK_PREFIX } from './hf-prompts';

export interface HfEvalOptions {
  k: number;
  temperatures: readonly number[];
  maxResponseLength: number;
  topP: number;
  seed: number;
  /** Sequences per generate call. */
  batch: number;
  onProgress?: (done: number, total: number) => void;
}

export async function evaluateHf(policy: HfPolicyEngine, tok: HfTokenizer, eosId: number, problems: readonly Problem[], o: HfEvalOptions): Promise<Record<string, number>> {
  const record: Record<string, number> = {};
  const prompts = problems.map((p) => tok.encode(renderHfPrompt(p)));
  const max = policy.config.maxPositions;
  const longest = Math.max(...prompts.map((p) => p.length));
  if (longest + o.maxResponseLength > max) throw new RangeError(`a prompt of ${longest} tokens plus ${o.maxResponseLength} response tokens exceeds the model's max_position_embeddings ${max}`);
  const indices = problems.flatMap((_, i) => new Array<number>(o.k).fill(i));
  const total = indices.length * o.temperatures.length;
  for (let ti = 0; ti < o.temperatures.length; ti++) {
    const t = o.temperatures[ti];
    const perProblem: EvalSample[][] = problems.map(() => []);
    const rolls: { logp: number[]; entropy: number[] }[] = [];
    for (let start = 0, chunk = 0; start < indices.length; start += o.batch, chunk++) {
      const idx = indices.slice(start, start + o.batch);
      const gen = await policy.generate({ prompts: idx.map((i) => prompts[i]), maxResponseLength: o.maxResponseLength, temperature: t, topP: o.topP, seed: batchSeed(o.seed, ti, chunk), eosId, padId: eosId });
      idx.forEach((pi, j) => {
        const truncated = gen.finish[j] === 'truncated';
        const body = gen.finish[j] === 'eos' ? gen.responses[j].slice(0, -1) : gen.responses[j];
        const text = tok.decode(body);
        const split = splitResponse(THINK_PREFIX + text);
        perProblem[pi].push({ answer: split.closed && !truncated ? split.answer : null, correct: scoreHfResponse(problems[pi], text, truncated) === 1, length: gen.responses[j].length, truncated });
        rolls.push({ logp: gen.logp[j], entropy: gen.entropy[j] });
      });
      o.onProgress?.(ti * indices.length + Math.min(start + o.batch, indices.length), total);
    }
    Object.assign(record, evalMetrics(perProblem, o.k, t));
    record[evalEntropyKey(t)] = batchEntropy(rolls).exact;
  }
  return record;
}
