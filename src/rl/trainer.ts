/**
 * The MAGIC trainer: one `trainStep()` is one RL step of Skywork-OR1's recipe on a policy engine
 * (WebGPU or the CPU engine, src/model/engine.ts) —
 *
 *   stage bookkeeping (multi-stage schedule, online filter at stage starts)
 *   → D_R prompts × G responses sampled at τ (KV cache)
 *   → exact verifier rewards → group advantages (truncation masks) → rejection sampling
 *   → e_k and the adaptive entropy coefficient α_k → N_SGD mini-batch updates (GRPO loss, AdamW)
 *   → controller update, metrics, periodic held-out evaluation.
 *
 * Everything random derives from (seed, step), and every reduction is fixed-order, so a run
 * replays exactly on the same backend and adapter, and `saveCheckpoint` / resume continues it as if it
 * had never stopped. Used by the CLI (Node) and by the browser Worker alike; the page's group
 * inspector hooks in through TrainerInit.inspector, read-only, and only when the page asks.
 */
import { ConfigError } from '../model/config';
import { CheckpointError, encodeCheckpoint, type CheckpointContents } from '../model/checkpoint';
import { initParams } from '../model/init';
import { layoutParams } from '../model/config';
import type { AdamWOptions, Backend, GrpoLossOptions, PolicyEngine, StepStats } from '../model/engine';
import { maxPromptTokens, type Dataset, type Problem } from '../tasks';
import { Rng } from '../util/rng';
import { computeAdvantages } from './advantage';
import { buildRunDataset, fixedRunSteps, longestResponseLength, resolveStage, validateRunConfig, type ResolvedStage, type RunConfig, type StageConfig } from './config';
import { batchEntropy, controllerEntropy, entropyCoefForStep, loggedEntropyCoef, updateEntropyState } from './entropy';
import { offlineFilter, onlineFilterDrops, recordSolves, removeIds, type OfflineFilterReport } from './filters';
import { batchMetrics, STEP_METRIC_KEYS } from './metrics';
import { accumulatedUpdate, microForwardLogp, refForwardRows } from './micro-batch';
import { planMiniBatches } from './minibatch';
import { inspectedGroups, type StepInspection, type StepInspector } from './inspect';
import { lrFactor } from './lr-schedule';
import { groupSignals, planRejection } from './rejection';
import { DivergenceError, guardForward, nonfiniteQuantity } from './divergence';
import { batchSeed, evaluatePolicyDetailed, rollout, type Rollout } from './rollout';
import { coverageRecord } from './coverage';
import { offlineFilterKey, rolloutBatchSize, sampleOfflineCorrect, storedOfflineCorrect, weightsChecksum } from './offline-sampling';
import { engineMeta, loadCheckpoint, policyOptionsFor } from './run-checkpoint';
import { referenceShapes, reserveLargestShape } from './resources';
import { PhaseTimer, type Clock } from './phase-timer';
import { sampleRecords } from './sample-records';
import { trackStages } from './stages';
import { freshTrainerState, type TrainerState } from './trainer-state';
import type { EvalRecord, StepRecord, TrainerInit, TrainStepResult } from './trainer-types';
import { packUpdateBatch, type KeptResponse } from './update-batch';

// The records a step returns, and the rollout batch tests/rl/resources.test.ts checks, for callers of the trainer.
export type { EvalRecord, SampleRecord, StepRecord, TrainStepResult } from './trainer-types';
export { rolloutBatchSize } from './offline-sampling';

/** Groups of each step kept as sample completions (the rest are summarised in metrics). */
const SAMPLE_GROUPS_PER_STEP = 2;

/** Seeds of the derived random streams (mixed with the run seed). */
const STREAM = { rollout: 1, shuffle: 2, minibatch: 3, eval: 4, offline: 5, init: 6 } as const;

export class MagicTrainer {
  private order: number[] = [];
  private constructor(
    readonly backend: Backend,
    private cfg: RunConfig,
    readonly data: Dataset,
    readonly policy: PolicyEngine,
    /** π_ref for the KL term: taken at the start of the first stage with β > 0 (StageConfig.klBeta). */
    private ref: PolicyEngine | null,
    private state: TrainerState,
  ) {
    this.order = this.shuffledPool(state.epoch);
  }

  get config(): RunConfig {
    return this.cfg;
  }
  get step(): number {
    return this.state.step;
  }
  get stage(): number {
    return this.status().stage;
  }
  get done(): boolean {
    return this.status().done;
  }
  get offlineReport(): OfflineFilterReport | null {
    return this.state.offline;
  }
  /** AdamW steps applied so far (N_SGD = miniBatches · reuseEpochs per RL step that keeps anything, less any rejected as non-finite). */
  get optimizerSteps(): number {
    return this.state.adamStep;
  }
  /** Whether a frozen reference policy is kept for the KL term (from the first step of a stage with β > 0 on). */
  get hasReference(): boolean {
    return this.ref !== null;
  }
  get poolSize(): number {
    return this.state.pool.length;
  }

  static async create(backend: Backend, config: RunConfig, init: TrainerInit = {}): Promise<MagicTrainer> {
    let cfg = validateRunConfig(config);
    const source = init.checkpointName ?? 'checkpoint';
    // Every field of the file and its meta (run config, run state, cached filter, SFT state) is checked before anything is built.
    const loaded = init.checkpoint ? loadCheckpoint(init.checkpoint, source) : null;
    let ckpt: CheckpointContents | null = loaded?.contents ?? null;
    if (loaded?.meta.kind === 'run' && loaded.meta.state === null) throw new CheckpointError(source, 'is a run checkpoint without a run state (evaluation only): it cannot be resumed');
    const resumeState = loaded?.meta.kind === 'run' ? loaded.meta.state : null;
    if (loaded?.meta.kind === 'run') cfg = loaded.meta.config;
    if (ckpt && JSON.stringify(ckpt.model) !== JSON.stringify(cfg.model)) {
      throw new CheckpointError(source, `its model ${JSON.stringify(ckpt.model)} does not match model ${JSON.stringify(cfg.model)} of the config`);
    }
    init.onSetup?.(`generating ${cfg.data.trainSize} training and ${cfg.data.testSize} held-out problems…`);
    const data = buildRunDataset(cfg);
    init.onSetup?.(`building the model (${layoutParams(cfg.model).count.toLocaleString('en-US')} parameters)…`);
    const policy = await backend.createPolicy(cfg.model, 'actor', policyOptionsFor(loaded?.meta ?? null)); // resumed: its recorded matmul variant
    reserveLargestShape(policy, cfg);
    const start = ckpt?.params ?? initParams(cfg.model, batchSeed(cfg.seed, STREAM.init));
    policy.setParams(start);
    if (resumeState && ckpt?.adam) policy.setAdamState(ckpt.adam.m, ckpt.adam.v);
    else policy.resetAdamState();
    // A resumed run gets back the π_ref it had; otherwise π_ref is taken when a stage with β > 0 starts (trainStep).
    const refParams = loaded?.meta.kind === 'run' && resumeState ? loaded.meta.refParams : null;
    const ref = refParams ? await backend.createPolicy(cfg.model, 'reference', { matmulVariant: policy.matmulVariant }) : null;
    if (ref && refParams) ref.setParams(refParams);
    const state = resumeState ?? freshTrainerState(cfg, data.train.length);
    const baseMeta = ckpt && ckpt.meta.kind !== 'magic-lab-run' ? ckpt.meta : undefined;
    ckpt = null;
    const trainer = new MagicTrainer(backend, cfg, data, policy, ref, state);
    trainer.startWeightsChecksum = weightsChecksum(start);
    trainer.inspector = init.inspector ?? null;
    trainer.clock = init.clock ?? trainer.clock;
    if (!resumeState && cfg.data.offlineFilter.enabled) {
      const [key, size, cache] = [trainer.offlineFilterKey(), data.train.length, init.offlineFilterCache];
      const inBase = baseMeta && storedOfflineCorrect(baseMeta, key, size);
      const inCache = inBase ? undefined : cache?.get(key, size);
      const cached = inBase ? { correct: inBase, from: 'the base checkpoint' } : inCache && cache ? { correct: inCache, from: cache.name } : undefined;
      await trainer.runOfflineFilter(init.onProgress, cached, init.onSetup);
      if (!cached) cache?.put(key, trainer.offlineCorrect!);
    }
    return trainer;
  }

  /**
   * Identifies an offline-filter result: the starting weights plus everything that decides its
   * samples. A base checkpoint may carry the result under meta.offlineFilter = { key, correct }
   * (`magic-lab data filter --write`); it is the same numbers sampling would give, cached.
   */
  offlineFilterKey(): string {
    return offlineFilterKey(this.cfg, this.startWeightsChecksum);
  }

  /** "crc32:<8 hex>" of the starting weights' float32 bytes (the checkpoint's params, or the seeded init). */
  private startWeightsChecksum = '';

  private clock: Clock = () => performance.now(); // TrainerInit.clock: times the step and its phases
  /** TrainerInit.inspector: called only when the page's inspector is on. */
  private inspector: StepInspector | null = null;

  /** Correct-sample counts per training prompt from the offline filter (null when it did not run). */
  offlineCorrect: number[] | null = null;

  /** Offline filter: N samples per training prompt from the starting policy at τ = 1; keep prompts solved sometimes but not always. */
  private async runOfflineFilter(onProgress?: (m: string) => void, cached?: { correct: number[]; from: string }, onSetup?: (m: string) => void): Promise<void> {
    const N = this.cfg.data.offlineFilter.samples;
    let correct: number[];
    if (cached) {
      correct = cached.correct;
      onProgress?.(`offline filter: using the result stored in ${cached.from}`);
    } else {
      onProgress?.(`offline filter: sampling ${N} responses for each of ${this.data.train.length} prompts`);
      correct = await sampleOfflineCorrect(this.policy, this.data.train, this.cfg, batchSeed(this.cfg.seed, STREAM.offline), onSetup);
    }
    this.offlineCorrect = correct;
    const report = offlineFilter(correct, N);
    if (report.keep.length === 0) {
      // The config's outcome, not a bug: one line naming the field (the CLI exits 2).
      throw new ConfigError('data.offlineFilter', `no training prompt is solved sometimes but not always by the starting policy (${report.summary}); disable the filter or start from a better checkpoint`);
    }
    this.state.pool = report.keep;
    this.state.offline = report;
    this.order = this.shuffledPool(0);
    onProgress?.(`offline filter: ${report.summary}`);
  }

  private status() {
    return trackStages(this.cfg.stages, this.state.scoreHistory);
  }

  /** Sequences per generation call: the largest rollout batch of any stage, so one decode plan serves all. */
  private rolloutBatch(): number {
    return rolloutBatchSize(this.cfg);
  }

  private maxResponseLengthOverall(): number {
    return longestResponseLength(this.cfg);
  }

  private shuffledPool(epoch: number): number[] {
    return new Rng(batchSeed(this.cfg.seed, STREAM.shuffle, epoch)).shuffle([...this.state.pool]);
  }

  /** Next D_R prompt indices from the data cursor (a new shuffled epoch when the pool runs out). */
  private nextPrompts(count: number): number[] {
    const out: number[] = [];
    while (out.length < count) {
      if (this.state.position >= this.order.length) {
        this.state.epoch++;
        this.state.position = 0;
        this.order = this.shuffledPool(this.state.epoch);
      }
      out.push(this.order[this.state.position++]);
    }
    return out;
  }

  /** Replaces the stage schedule (finished stages must stay as they were); `admit` may refuse the validated config by throwing (the Worker's resource check). */
  setStages(stages: StageConfig[], admit?: (next: RunConfig) => void): void {
    const next = validateRunConfig({ ...this.cfg, stages });
    admit?.(next);
    const current = this.status().stage;
    for (let i = 0; i < current; i++) {
      if (JSON.stringify(next.stages[i]) !== JSON.stringify(this.cfg.stages[i])) {
        throw new Error(`stages[${i}]: already finished; only the current and later stages can change`);
      }
    }
    // Longer responses or bigger batches are fine: plans are built per shape on demand.
    this.cfg = next;
  }

  private lossOptions(alpha: number, klBeta: number): GrpoLossOptions {
    const l = this.cfg.loss;
    return { epsLow: l.epsLow, epsHigh: l.epsHigh, dualClip: l.dualClip, entCoef: alpha, klCoef: klBeta, klType: l.kl.type };
  }

  /** π_ref := a frozen copy of the policy as it is now (before this step's update). */
  private async takeReference(): Promise<void> {
    const ref = await this.backend.createPolicy(this.cfg.model, 'reference', { matmulVariant: this.policy.matmulVariant });
    reserveLargestShape(ref, this.cfg, referenceShapes(this.cfg));
    ref.setParams(await this.policy.getParams());
    this.ref = ref;
  }

  /** η at RL step `step`: update.lr scaled by its schedule (a pure function of the step, so resumes stay on the curve). */
  private learningRate(step: number): number {
    const u = this.cfg.update;
    return u.lr * lrFactor(u.lrSchedule, step, fixedRunSteps(this.cfg));
  }

  private adamOptions(step: number): AdamWOptions {
    const u = this.cfg.update;
    return { lr: this.learningRate(step), beta1: u.beta1, beta2: u.beta2, eps: 1e-8, weightDecay: u.weightDecay, maxGradNorm: u.gradClip ?? Infinity };
  }

  /** Set when the run stopped on divergence: its state is mid-step, so nothing more runs or saves. */
  private diverged: DivergenceError | null = null;

  /**
   * One RL step. Throws when the schedule is finished, and a DivergenceError (from then on, on
   * every call, saveCheckpoint included) when update.maxNonfiniteSteps optimizer steps in a row
   * were rejected as non-finite.
   */
  async trainStep(): Promise<TrainStepResult> {
    if (this.diverged) throw this.diverged;
    const status = this.status();
    if (status.done) throw new Error('the run is finished: every stage is done');
    const timer = new PhaseTimer(this.clock); // the step's clock starts here
    const cfg = this.cfg;
    const stageIdx = status.stage;
    if (stageIdx > this.state.stageStarted) this.startStage(stageIdx);
    const stage = resolveStage(cfg, stageIdx);
    const G = stage.groupSize;
    const step = this.state.step + 1;
    // The first step with β > 0 fixes π_ref: the policy at the start of that stage.
    if (stage.klBeta > 0 && this.ref === null) await timer.time('ref', () => this.takeReference());

    // ---- rollouts (with refill rounds in DAPO mode)
    const groups: { prompt: number; rolls: Rollout[] }[] = [];
    let plan = null as ReturnType<typeof planRejection> | null;
    let want = stage.batchPrompts;
    for (let round = 1; ; round++) {
      const prompts = this.nextPrompts(want);
      const o = { batch: this.rolloutBatch(), maxResponseLength: stage.maxResponseLength, temperature: stage.temperature, topP: cfg.rollout.topP, timer };
      const rolls = await guardForward(step, 'rollout', (d) => (this.diverged = d), () =>
        rollout(this.policy, this.data.train, prompts.flatMap((p) => new Array<number>(G).fill(p)), { ...o, seed: batchSeed(cfg.seed, STREAM.rollout, step, round) }),
      );
      prompts.forEach((p, i) => groups.push({ prompt: p, rolls: rolls.slice(i * G, (i + 1) * G) }));
      const all = groups.flatMap((g) => g.rolls);
      const signals = timer.timeSync('adv', () => groupSignals(all.map((r) => r.reward), G, all.map((r) => r.truncated), { normalizeStd: cfg.loss.advantageStd, truncation: cfg.truncation.mode }));
      plan = timer.timeSync('adv', () => planRejection({ mode: cfg.rejection.mode, signals, targetGroups: stage.batchPrompts, rounds: round, maxRefillRounds: cfg.rejection.maxRefillRounds }));
      if (plan.done) break;
      want = plan.requestPrompts;
    }
    const tAdv = this.clock();
    const all = groups.flatMap((g) => g.rolls);
    const rewards = all.map((r) => r.reward);
    const truncated = all.map((r) => r.truncated);
    // Online filter tallies; every rollout counts, rejected groups included (they are the solved-by-all ones).
    const counts = { attempts: Uint32Array.from(this.state.attempts), solves: Uint32Array.from(this.state.solves) };
    recordSolves(counts, groups.flatMap((g) => g.rolls.map(() => g.prompt)), rewards);
    this.state.attempts = Array.from(counts.attempts);
    this.state.solves = Array.from(counts.solves);
    const advantages = computeAdvantages(rewards, G, truncated, { normalizeStd: cfg.loss.advantageStd, truncation: cfg.truncation.mode });
    const keptGroups = plan!.keep;
    // Groups the samples record (the inspector adds its watched prompts' groups, and ρ / clip marks below).
    const watched = new Set(this.inspector ? this.inspector.watchedPrompts(this.state.pool) : []);
    const shown = inspectedGroups(groups.map((g) => g.prompt), SAMPLE_GROUPS_PER_STEP, watched);
    const kept: KeptResponse[] = [];
    for (const g of keptGroups) for (let j = 0; j < G; j++) kept.push({ roll: all[g * G + j], adv: advantages[g * G + j] });

    // ---- e_k (post-rejection batch; all rollouts when everything was rejected) and α_k
    const entropies = batchEntropy(kept.length ? kept.map((k) => k.roll) : all);
    const entropyEstimate = controllerEntropy(cfg.loss.entropy.estimator, entropies);
    const cBefore = loggedEntropyCoef(cfg.loss.entropy, this.state.entropy);
    timer.add('adv', this.clock() - tAdv);
    const inspection = this.inspector?.beginStep({ policy: this.policy, keptGroups, groupSize: G, shownGroups: shown, keptRolls: kept.map((k) => k.roll), eps: cfg.loss });
    let alpha = NaN;
    let stats: StepStats[] = [];
    let trainedTokens = 0;
    if (kept.length) {
      alpha = entropyCoefForStep(cfg.loss.entropy, this.state.entropy, entropyEstimate);
      const r = await this.update(kept, stage, alpha, step, timer, inspection);
      stats = r.stats;
      trainedTokens = r.tokens;
      this.state.entropy = updateEntropyState(cfg.loss.entropy, this.state.entropy, entropyEstimate);
    }

    // ---- metrics
    const bm = batchMetrics({ rewards, lengths: all.map((r) => r.response.length), truncated, groupSize: G, keptGroups: keptGroups.length });
    const mean = (f: (s: StepStats) => number) => (stats.length ? stats.reduce((a, s) => a + f(s), 0) / stats.length : NaN);
    this.state.step = step;
    this.state.scoreHistory.push(bm['critic/score/mean']);
    const dt = timer.elapsed();
    this.state.elapsedMs += dt;
    const generated = all.reduce((a, r) => a + r.prompt.length + r.response.length, 0);
    const K = STEP_METRIC_KEYS;
    const record = {
      step,
      time_ms: this.state.elapsedMs,
      [K.entropy]: entropies.exact,
      [K.entropySampled]: entropies.sampled,
      [K.entropyCoeff]: cBefore,
      [K.entropyCoeffRealized]: kept.length ? alpha : 0,
      [K.pgLoss]: mean((s) => s.pgLoss),
      [K.pgClipfrac]: mean((s) => s.clipfrac),
      [K.pgClipfracLower]: mean((s) => s.clipfracLower),
      [K.ppoKl]: mean((s) => s.ppoKl),
      [K.gradNorm]: mean((s) => s.gradNorm),
      [K.lr]: this.learningRate(step),
      [K.nonfiniteSteps]: stats.filter((s) => !s.applied).length,
      ...bm,
      [K.stage]: stageIdx,
      [K.tokensPerS]: ((generated + trainedTokens) / dt) * 1000,
      [K.stepS]: dt / 1000,
      // Counts only (read by the page's explanations): nothing below feeds back into training.
      [K.groups]: groups.length,
      [K.poolSize]: this.state.pool.length,
    } as StepRecord;
    // ρ after the update, for the recorded groups only (a read-only forward; none when nothing was updated).
    if (inspection && stats.length) {
      const T = maxPromptTokens(cfg.data.families, cfg.data.difficulty) + stage.maxResponseLength;
      await inspection.afterUpdate(shown.flatMap((gi) => groups[gi].rolls), T, stage.temperature);
    }
    const samples = sampleRecords(this.data.train, step, groups, advantages, G, new Set(keptGroups), { shown, watched, inspection });
    const result: TrainStepResult = { record, samples };
    const every = cfg.eval.everySteps;
    if ((every > 0 && step % every === 0) || this.status().done) result.eval = await timer.time('testing', () => this.evaluate());
    Object.assign(record, timer.keys());
    return result;
  }

  /** Stage start: the online filter drops prompts solved in every rollout of the previous stage. */
  private startStage(stage: number): void {
    if (this.cfg.data.onlineFilter) {
      const drops = onlineFilterDrops({ attempts: Uint32Array.from(this.state.attempts), solves: Uint32Array.from(this.state.solves) });
      const pool = removeIds(this.state.pool, drops);
      // Never filter the pool down to nothing: an empty pool would end training.
      if (pool.length > 0) this.state.pool = pool;
    }
    this.state.attempts.fill(0);
    this.state.solves.fill(0);
    this.state.stageStarted = stage;
    this.state.epoch++;
    this.state.position = 0;
    this.order = this.shuffledPool(this.state.epoch);
  }

  /** N_SGD mini-batch GRPO updates on the kept responses (D_T: planMiniBatches); returns per-optimizer-step stats. */
  private async update(kept: KeptResponse[], stage: ResolvedStage, alpha: number, step: number, timer: PhaseTimer, inspection?: StepInspection) {
    const cfg = this.cfg;
    const { maxResponseLength, temperature, groupSize: G, klBeta } = stage;
    const T = maxPromptTokens(cfg.data.families, cfg.data.difficulty) + maxResponseLength;
    const miniBatches = planMiniBatches({
      count: kept.length,
      miniBatches: cfg.update.miniBatches,
      reuseEpochs: cfg.update.reuseEpochs,
      seed: batchSeed(cfg.seed, STREAM.minibatch, step),
    });
    const onPolicy = miniBatches.length === 1;
    const stats: StepStats[] = [];
    let tokens = 0;
    for (const mb of miniBatches) {
      const { batch, old, tokens: packedTokens } = timer.timeSync('old_log_prob', () => packUpdateBatch(kept, mb, { T, groupSize: G, aggregation: cfg.loss.aggregation, temperature, packed: this.policy.packedRows === true }));
      tokens += packedTokens;
      // On-policy (one mini-batch): π_old is this forward's own logp, so ρ ≡ 1 at the step.
      if (!onPolicy) batch.oldLogp = old;
      if (klBeta > 0) batch.refLogp = await timer.time('ref', () => microForwardLogp(this.ref!, batch, refForwardRows(cfg.update.microBatchRows)));
      await inspection?.beforeUpdate(mb, batch);
      this.state.adamStep++;
      const st = await timer.time('update_actor', () => accumulatedUpdate(this.policy, batch, { kind: 'grpo', opts: this.lossOptions(alpha, klBeta) }, { step: this.state.adamStep, adamw: this.adamOptions(step) }, cfg.update.microBatchRows));
      stats.push(st);
      if (st.applied) delete this.state.nonfiniteStreak;
      else {
        // Rejected (non-finite loss or grad norm): weights and moments are untouched, so t stays too.
        this.state.adamStep--;
        const streak = (this.state.nonfiniteStreak ?? 0) + 1;
        this.state.nonfiniteStreak = streak;
        if (streak >= cfg.update.maxNonfiniteSteps) {
          const { quantity, value } = nonfiniteQuantity(st);
          this.diverged = new DivergenceError(step, quantity, value, streak);
          throw this.diverged;
        }
      }
    }
    return { stats, tokens };
  }

  /** Held-out evaluation at every eval temperature, at the longest stage's response length; `onProgress`: responses done of the total. */
  async evaluate(onProgress?: (done: number, total: number) => void): Promise<EvalRecord> {
    const ev = this.cfg.eval;
    const problems: Problem[] = this.data.test.slice(0, ev.testProblems);
    const res = await guardForward(this.state.step, 'evaluation', (d) => (this.diverged = d), () => evaluatePolicyDetailed(this.policy, problems, {
      k: ev.k,
      temperatures: ev.temperatures,
      maxResponseLength: this.maxResponseLengthOverall(),
      topP: this.cfg.rollout.topP,
      batch: this.rolloutBatch(),
      seed: batchSeed(this.cfg.seed, STREAM.eval, this.state.step),
      onProgress,
    }));
    // Coverage: the pass@k curve (k = 1, 2, 4, … up to eval.k) overall and per family, beside the record's keys.
    const rec: Record<string, number> = { ...res.record };
    ev.temperatures.forEach((t, ti) => {
      const rows = res.problems[ti].map((r) => ({ family: problems[r.index].family, difficulty: problems[r.index].difficulty, n: r.n, correct: r.correct }));
      for (const [key, v] of Object.entries(coverageRecord(rows, t))) if (!(key in rec)) rec[key] = v;
    });
    return { step: this.state.step, ...rec } as EvalRecord;
  }

  /** Full run state: weights, AdamW moments, controller, data cursor, filters, stage, config. */
  async saveCheckpoint(): Promise<Uint8Array> {
    if (this.diverged) throw this.diverged;
    const [params, adam] = [await this.policy.getParams(), await this.policy.getAdamState()];
    const meta: Record<string, unknown> = { kind: 'magic-lab-run', config: this.cfg, state: this.state, engine: engineMeta(this.policy) };
    if (this.ref) meta.refParams = Array.from(await this.ref.getParams());
    return encodeCheckpoint({ model: this.cfg.model, params, adam, meta });
  }

  /** Frees the policies' memory (the backend stays with its owner). */
  destroy(): void {
    this.policy.destroy();
    this.ref?.destroy();
  }
}
