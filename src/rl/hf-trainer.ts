/**
 * The MAGIC trainer on a real model (HfPolicyEngine, src/model/hf-policy.ts): one `trainStep()` is one
 * RL step of the recipe with the same pure rules as the lab's own trainer (./trainer.ts) —
 *
 *   D_R prompts (the lab's task families as text, ./hf-prompts.ts, in the model's tokenizer) × G responses
 *   sampled at τ → exact verifier rewards on the decoded text → group advantages → rejection (drop groups
 *   without signal, or keep all with rejection.mode "off") → e_k and the adaptive α_k → one on-policy
 *   GRPO update (AdamW, clipped) → controller update and the step record (actor/entropy and the rest of
 *   STEP_METRIC_KEYS).
 *
 * Not done here yet (the lab's trainer has them): the offline and online filters, refill rounds, several
 * mini-batches or reuse epochs, the KL term, checkpoints and resume. `unsupportedForHf` names the ones a config
 * asks for, so the caller can say so. (Held-out evaluation is ./hf-eval.ts; `train --model` runs it.)
 */
import type { HfPolicyEngine, HfUpdateRow } from '../model/hf-policy';
import type { HfTokenizer } from '../model/hf/tokenizer';
import type { GrpoLossOptions } from '../model/engine';
import { buildRunDataset, fixedRunSteps, resolveStage, type RunConfig } from './config';
import type { Problem } from '../tasks';
import { Rng } from '../util/rng';
import { computeAdvantages, hasSignal } from './advantage';
import { perSequenceTokenWeight } from './aggregation';
import { batchEntropy, controllerEntropy, entropyCoefForStep, initialEntropyState, loggedEntropyCoef, updateEntropyState, type EntropyControllerState } from './entropy';
import { batchMetrics, STEP_METRIC_KEYS } from './metrics';
import { lrFactor } from './lr-schedule';
import { batchSeed } from './rollout';
import { trackStages } from './stages';
import { renderHfPrompt, scoreHfResponse } from './hf-prompts';
import type { StepRecord } from './trainer-types';

export interface HfSample {
  prompt: string;
  response: string;
  reward: number;
  advantage: number;
}

export interface HfStepResult {
  record: StepRecord;
  /** The first group's responses, decoded. */
  samples: HfSample[];
}

/** What the tokenizer needs to end a response: the id that stops sampling. */
export interface HfTrainerInit {
  tokenizer: HfTokenizer;
  eosId: number;
  clock?: () => number;
}

/** Config fields the real-model trainer does not apply yet, when a config turns them on. */
export function unsupportedForHf(cfg: RunConfig): string[] {
  const out: string[] = [];
  if (cfg.data.offlineFilter.enabled) out.push('data.offlineFilter');
  if (cfg.data.onlineFilter) out.push('data.onlineFilter');
  if (cfg.rejection.mode === 'refill') out.push('rejection.mode "refill" (runs as "drop")');
  if (cfg.update.miniBatches > 1 || cfg.update.reuseEpochs > 1) out.push('update.miniBatches / reuseEpochs (one on-policy update per step)');
  if (cfg.loss.kl.beta > 0 || cfg.stages.some((s) => (s.klBeta ?? 0) > 0)) out.push('loss.kl (no reference policy)');
  return out;
}

export class HfMagicTrainer {
  private step = 0;
  private entropy: EntropyControllerState;
  private scoreHistory: number[] = [];
  private order: number[];
  private position = 0;
  private epoch = 0;
  private elapsedMs = 0;
  private adamStep = 0;
  readonly train: Problem[];
  private promptIds = new Map<number, number[]>();

  constructor(
    readonly policy: HfPolicyEngine,
    readonly cfg: RunConfig,
    private init: HfTrainerInit,
  ) {
    this.train = buildRunDataset(cfg).train;
    this.entropy = initialEntropyState(cfg.loss.entropy);
    this.order = this.shuffled(0);
  }

  get done(): boolean {
    return trackStages(this.cfg.stages, this.scoreHistory).done;
  }

  private shuffled(epoch: number): number[] {
    return new Rng(batchSeed(this.cfg.seed, 2, epoch)).shuffle(this.train.map((_, i) => i));
  }

  private nextPrompts(n: number): number[] {
    const out: number[] = [];
    while (out.length < n) {
      if (this.position >= this.order.length) this.order = this.shuffled(++this.epoch), (this.position = 0);
      out.push(this.order[this.position++]);
    }
    return out;
  }

  /** The token ids of problem i's prompt (cached); refused when it leaves no room for a response. */
  promptTokens(i: number, maxResponse: number): number[] {
    let ids = this.promptIds.get(i);
    if (!ids) {
      ids = this.init.tokenizer.encode(renderHfPrompt(this.train[i]));
      this.promptIds.set(i, ids);
    }
    const max = this.policy.config.maxPositions;
    if (ids.length + maxResponse > max) throw new RangeError(`a prompt of ${ids.length} tokens plus ${maxResponse} response tokens exceeds the model's max_position_embeddings ${max}`);
    return ids;
  }

  async trainStep(): Promise<HfStepResult> {
    const cfg = this.cfg, clock = this.init.clock ?? (() => performance.now());
    const t0 = clock();
    const status = trackStages(cfg.stages, this.scoreHistory);
    if (status.done) throw new Error('the run is finished: every stage is done');
    const stage = resolveStage(cfg, status.stage);
    const G = stage.groupSize, step = this.step + 1;
    const problems = this.nextPrompts(stage.batchPrompts);
    const prompts = problems.flatMap((p) => new Array<number[]>(G).fill(this.promptTokens(p, stage.maxResponseLength)));
    const gen = await this.policy.generate({ prompts, maxResponseLength: stage.maxResponseLength, temperature: stage.temperature, topP: cfg.rollout.topP, seed: batchSeed(cfg.seed, 1, step), eosId: this.init.eosId, padId: this.init.eosId });
    const tok = this.init.tokenizer;
    const rolls = gen.responses.map((response, j) => {
      const problem = this.train[problems[Math.floor(j / G)]];
      const truncated = gen.finish[j] === 'truncated';
      const body = gen.finish[j] === 'eos' ? response.slice(0, -1) : response;
      const text = tok.decode(body);
      return { prompt: prompts[j], response, truncated, text, reward: scoreHfResponse(problem, text, truncated), logp: gen.logp[j], entropy: gen.entropy[j] };
    });
    const rewards = rolls.map((r) => r.reward), truncated = rolls.map((r) => r.truncated);
    const advantages = computeAdvantages(rewards, G, truncated, { normalizeStd: cfg.loss.advantageStd, truncation: cfg.truncation.mode });
    const keptGroups = problems.map((_, g) => g).filter((g) => cfg.rejection.mode === 'off' || hasSignal(advantages, g * G, G));
    const kept = keptGroups.flatMap((g) => rolls.slice(g * G, (g + 1) * G).map((r, j) => ({ r, adv: advantages[g * G + j] })));
    const entropies = batchEntropy(kept.length ? kept.map((k) => k.r) : rolls);
    const estimate = controllerEntropy(cfg.loss.entropy.estimator, entropies);
    const cBefore = loggedEntropyCoef(cfg.loss.entropy, this.entropy);
    let alpha = NaN;
    let st = null as Awaited<ReturnType<HfPolicyEngine['update']>> | null;
    const lr = cfg.update.lr * lrFactor(cfg.update.lrSchedule, step, fixedRunSteps(cfg));
    if (kept.length) {
      alpha = entropyCoefForStep(cfg.loss.entropy, this.entropy, estimate);
      const weights = perSequenceTokenWeight(kept.map((k) => k.r.response.length), cfg.loss.aggregation);
      const rows: HfUpdateRow[] = kept.map(({ r, adv }, i) => {
        const T = r.prompt.length + r.response.length, P = r.prompt.length;
        const mask = new Float64Array(T - 1);
        for (let t = P - 1; t < T - 1; t++) mask[t] = 1;
        return { tokens: [...r.prompt, ...r.response], mask, weights: mask.map((m) => m * weights[i]), advantages: mask.map((m) => m * adv) };
      });
      const l = cfg.loss;
      const loss: GrpoLossOptions = { epsLow: l.epsLow, epsHigh: l.epsHigh, dualClip: l.dualClip, entCoef: alpha, klCoef: 0, klType: l.kl.type };
      const u = cfg.update;
      st = await this.policy.update(rows, loss, { step: this.adamStep + 1, temperature: stage.temperature, adamw: { lr, beta1: u.beta1, beta2: u.beta2, eps: 1e-8, weightDecay: u.weightDecay, maxGradNorm: u.gradClip ?? Infinity } });
      if (st.applied) this.adamStep++;
      this.entropy = updateEntropyState(cfg.loss.entropy, this.entropy, estimate);
    }
    const bm = batchMetrics({ rewards, lengths: rolls.map((r) => r.response.length), truncated, groupSize: G, keptGroups: keptGroups.length });
    this.step = step;
    this.scoreHistory.push(bm['critic/score/mean']);
    const dt = clock() - t0;
    this.elapsedMs += dt;
    const tokens = rolls.reduce((a, r) => a + r.prompt.length + r.response.length, 0) + kept.reduce((a, k) => a + k.r.prompt.length + k.r.response.length, 0);
    const K = STEP_METRIC_KEYS;
    const record = {
      step,
      time_ms: this.elapsedMs,
      [K.entropy]: entropies.exact,
      [K.entropySampled]: entropies.sampled,
      [K.entropyCoeff]: cBefore,
      [K.entropyCoeffRealized]: kept.length ? alpha : 0,
      [K.pgLoss]: st ? st.pgLoss : NaN,
      [K.pgClipfrac]: st ? st.clipfrac : NaN,
      [K.pgClipfracLower]: st ? st.clipfracLower : NaN,
      [K.ppoKl]: st ? st.ppoKl : NaN,
      [K.gradNorm]: st ? st.gradNorm : NaN,
      [K.lr]: lr,
      [K.nonfiniteSteps]: st && !st.applied ? 1 : 0,
      ...bm,
      [K.stage]: status.stage,
      [K.tokensPerS]: (tokens / dt) * 1000,
      [K.stepS]: dt / 1000,
      [K.groups]: problems.length,
      [K.poolSize]: this.train.length,
    } as StepRecord;
    const samples = rolls.slice(0, G).map((r, j) => ({ prompt: tok.decode(r.prompt), response: r.text, reward: r.reward, advantage: advantages[j] }));
    return { record, samples };
  }
}
