/**
 * Rollouts and evaluation on top of batched generation (either backend): prompts → responses → verified
 * rewards, and held-out avg@k / pass@k / maj@k. Batches are a fixed size (padded with copies of
 * the first prompt, discarded) so one decode plan serves every call.
 */
import type { PolicyEngine } from '../model/engine';
import { decode, encodePrompt, EOS_ID, FAMILIES, PAD_ID, splitResponse, type Problem } from '../tasks';
import { hash32 } from '../util/rng';
import { batchEntropy } from './entropy';
import { evalEntropyKey, evalMetrics, type EvalSample } from './metrics';
import { checkFiniteSamples } from './divergence';
import type { PhaseTimer } from './phase-timer';

export interface Rollout {
  /** Index of the problem in the caller's list. */
  problem: number;
  prompt: number[];
  /** Response token ids (EOS included when the response ended with it). */
  response: number[];
  truncated: boolean;
  reward: number;
  /** Log-prob and entropy of each response token at the sampling temperature (π_old). */
  logp: number[];
  entropy: number[];
  /** Decoded response (EOS dropped; other specials shown so they cannot pass as digits). */
  text: string;
}

/** Seed of one generation batch, derived from the run seed and a label so replays match. */
export function batchSeed(runSeed: number, ...parts: number[]): number {
  let h = hash32(runSeed >>> 0);
  for (const p of parts) h = hash32((h ^ (p >>> 0)) >>> 0);
  return h;
}

/** Verifies one response: exact 0/1 reward, 0 for a truncated response. */
export function scoreResponse(problem: Problem, response: readonly number[], truncated: boolean): { reward: number; text: string } {
  const body = response.length && response[response.length - 1] === EOS_ID ? response.slice(0, -1) : response;
  const text = decode(body, { showSpecials: true });
  return { reward: FAMILIES[problem.family].verify(problem, text, { truncated }), text };
}

/**
 * Generates one response per entry of `problemIndices` (repeat an index G times for a group),
 * `batch` sequences per generation call, and scores them. A `timer` gets the decode as `gen` and the
 * verifiers as `reward`.
 */
export async function rollout(
  policy: PolicyEngine,
  problems: readonly Problem[],
  problemIndices: readonly number[],
  o: { batch: number; maxResponseLength: number; temperature: number; topP: number; seed: number; onBatch?: (done: number, total: number) => void; timer?: PhaseTimer },
): Promise<Rollout[]> {
  const out: Rollout[] = [];
  const encode = () => problemIndices.map((i) => encodePrompt(problems[i].prompt));
  const prompts = o.timer ? o.timer.timeSync('gen', encode) : encode();
  for (let start = 0, chunk = 0; start < prompts.length; start += o.batch, chunk++) {
    const idx = problemIndices.slice(start, start + o.batch);
    const batchPrompts = prompts.slice(start, start + o.batch);
    while (batchPrompts.length < o.batch) batchPrompts.push(batchPrompts[0]);
    const generate = () =>
      policy.generate({
        prompts: batchPrompts,
        maxResponseLength: o.maxResponseLength,
        temperature: o.temperature,
        topP: o.topP,
        seed: batchSeed(o.seed, chunk),
        eosId: EOS_ID,
        padId: PAD_ID,
      });
    const res = o.timer ? await o.timer.time('gen', generate) : await generate();
    const score = () =>
      idx.forEach((p, j) => {
        const truncated = res.finish[j] === 'truncated';
        const { reward, text } = scoreResponse(problems[p], res.responses[j], truncated);
        out.push({ problem: p, prompt: batchPrompts[j], response: res.responses[j], truncated, reward, logp: res.logp[j], entropy: res.entropy[j], text });
      });
    if (o.timer) o.timer.timeSync('reward', score);
    else score();
    o.onBatch?.(out.length, prompts.length);
  }
  // A forward pass that overflowed (finite weights can do it) stops here, before any reward, advantage or metric uses it.
  checkFiniteSamples(out);
  return out;
}

export interface EvalOptions {
  /** k: samples per problem. */
  k: number;
  temperatures: readonly number[];
  maxResponseLength: number;
  topP: number;
  batch: number;
  seed: number;
  /** After each generation batch: responses done and the evaluation's total (every temperature), for a progress line. */
  onProgress?: (done: number, total: number) => void;
}

/** One test problem's result at one temperature: n samples, `correct` of them verified correct. */
export interface EvalProblemResult {
  /** Index in the caller's problem list. */
  index: number;
  correct: number;
  n: number;
}

export interface DetailedEval {
  /** The record evaluatePolicy returns (val/avg@k/t…, val/pass@k/t…, val/entropy/t…, …), unchanged. */
  record: Record<string, number>;
  /** Per temperature (in the order asked), one row per problem, in the problems' order. */
  problems: EvalProblemResult[][];
}

/** Held-out evaluation with each problem's correct count per temperature (the coverage metrics' input). */
export async function evaluatePolicyDetailed(policy: PolicyEngine, problems: readonly Problem[], o: EvalOptions): Promise<DetailedEval> {
  const record: Record<string, number> = {};
  const perTemperature: EvalProblemResult[][] = [];
  const indices = problems.flatMap((_, i) => new Array<number>(o.k).fill(i));
  for (let ti = 0; ti < o.temperatures.length; ti++) {
    const t = o.temperatures[ti];
    const total = indices.length * o.temperatures.length;
    const onBatch = o.onProgress && ((done: number) => o.onProgress!(ti * indices.length + done, total));
    const rolls = await rollout(policy, problems, indices, { batch: o.batch, maxResponseLength: o.maxResponseLength, temperature: t, topP: o.topP, seed: batchSeed(o.seed, ti), onBatch });
    const perProblem: EvalSample[][] = problems.map(() => []);
    for (const r of rolls) {
      const split = splitResponse(r.text);
      perProblem[r.problem].push({ answer: split.closed && !r.truncated ? split.answer : null, correct: r.reward > 0, length: r.response.length, truncated: r.truncated });
    }
    Object.assign(record, evalMetrics(perProblem, o.k, t));
    perTemperature.push(perProblem.map((p, index) => ({ index, correct: p.filter((s) => s.correct).length, n: p.length })));
    // The token-mean entropy of the distribution sampled at t (the samples' own H_t, no extra forward).
    record[evalEntropyKey(t)] = batchEntropy(rolls).exact;
  }
  return { record, problems: perTemperature };
}

/** Held-out evaluation: per temperature val/avg@k, val/pass@k, val/maj@k, response length, truncation rate and mean entropy (val/entropy/t…). */
export async function evaluatePolicy(policy: PolicyEngine, problems: readonly Problem[], o: EvalOptions): Promise<Record<string, number>> {
  return (await evaluatePolicyDetailed(policy, problems, o)).record;
}
