/**
 * Supervised warm start ("distill"): the base policy RL starts from. Skywork-OR1 starts from
 * DeepSeek-R1-Distill models — able to reason, imperfectly, and often too verbose for a short
 * context. This trains the lab's policy the same way on synthetic traces that are deliberately
 * imperfect (arithmetic slips that reach the answer, repeated steps that overrun short limits),
 * with cross-entropy on the response tokens only.
 */
import { DivergenceError, nonfiniteQuantity } from './divergence';
import { encodeCheckpoint } from '../model/checkpoint';
import { ConfigError, validateModelConfig, type ModelConfig } from '../model/config';
import { initParams } from '../model/init';
import type { Backend, MatmulVariant, UpdateBatch } from '../model/engine';
import { buildDataset, encodePrompt, encodeResponse, FAMILIES, PAD_ID, VOCAB_SIZE, type Dataset, type TraceStyle } from '../tasks';
import { Rng } from '../util/rng';
import { DEFAULT_RUNG, longestResponseLength, rungBaseConfig, TASK_FAMILIES, type RungName, type TaskFamily } from './config';
import { accumulatedUpdate } from './micro-batch';
import { batchSeed, evaluatePolicy } from './rollout';
import { engineMeta, loadCheckpoint } from './run-checkpoint';


/** Non-finite SFT steps in a row that stop the run (as update.maxNonfiniteSteps does for RL). */
export const SFT_MAX_NONFINITE = 3;
export interface SftConfig {
  seed: number;
  model: ModelConfig;
  families: TaskFamily[];
  difficulty: number;
  trainSize: number;
  testSize: number;
  /** Optimizer steps. */
  steps: number;
  /** Sequences per step. */
  batch: number;
  /**
   * Rows per engine call (gradient accumulation into one optimizer step, as RL's
   * update.microBatchRows; null: the whole batch in one call). Only memory changes, and the float
   * summation order of the gradients (tied embeddings add the head's and the embedding's parts per call).
   */
  microBatchRows: number | null;
  /** AdamW learning rate (constant until lrDecayStart). */
  lr: number;
  /**
   * Anneal: from this step on, lr falls linearly to lrFinal at step lrDecayEnd, then stays there
   * (0 = constant lr). A constant high lr leaves the loss on a noisy plateau; the anneal is what
   * turns it into accuracy.
   */
  lrDecayStart: number;
  /** Step at which the anneal reaches lrFinal (0 = the last step). */
  lrDecayEnd: number;
  /** Learning rate at the end of the anneal. */
  lrFinal: number;
  weightDecay: number;
  /** How imperfect the traces are (probabilities per reasoning step). */
  style: TraceStyle;
  /** Evaluate every this many steps (0: only at the end). */
  evalEvery: number;
  /** k samples per test problem, on this many test problems, at τ = 1, with this response limit. */
  evalK: number;
  evalProblems: number;
  evalMaxResponseLength: number;
}

export const DEFAULT_SFT_CONFIG: SftConfig = {
  seed: 1,
  model: { vocabSize: VOCAB_SIZE, contextLength: 64, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4, norm: 'rmsnorm', tiedEmbeddings: true },
  families: ['addition', 'countdown', 'arith'],
  difficulty: 2,
  trainSize: 4096,
  testSize: 256,
  steps: 600,
  batch: 32,
  microBatchRows: null,
  lr: 2e-3,
  lrDecayStart: 0,
  lrDecayEnd: 0,
  lrFinal: 2e-4,
  weightDecay: 0.01,
  style: { wrongStepRate: 0.15, verboseRate: 0.15 },
  evalEvery: 0,
  evalK: 8,
  evalProblems: 64,
  evalMaxResponseLength: 40,
};

/**
 * The warm start of a ladder rung: its model, and the task mix, difficulty and eval response limit
 * its RL runs use (the one place a rung's SFT differs from tiny's). Tiny: the defaults unchanged.
 */
export function rungSftDefaults(rung: RungName): SftConfig {
  if (rung === DEFAULT_RUNG) return DEFAULT_SFT_CONFIG;
  const run = rungBaseConfig(rung);
  return {
    ...DEFAULT_SFT_CONFIG,
    model: { ...run.model },
    families: [...run.data.families],
    difficulty: run.data.difficulty,
    // The rung's longest stage limit plus room for verbose traces, within its context with the prompt
    // (small: 160 + 40 = 200; medium: 256 + 40 = 296, so its 78–125-token concise traces and their verbose
    // versions are not cut).
    evalMaxResponseLength: Math.min(run.model.contextLength - 32, longestResponseLength(run) + 40),
    ...RUNG_SFT_RECIPES[rung],
  };
}

/**
 * How each rung's shipped base was trained (public/checkpoints/base-<rung>.sft.json records the whole
 * config; docs/benchmarks-log.md "Model ladder" has the curve). The small rung: constant lr 2e-3, then an anneal
 * to 2e-4 over steps 3500–4500 (the anneal is what turns the plateau into accuracy, as for tiny).
 */
const RUNG_SFT_RECIPES: Partial<Record<RungName, Partial<SftConfig>>> = {
  small: { trainSize: 8192, steps: 5000, lr: 2e-3, lrDecayStart: 3500, lrDecayEnd: 4500, lrFinal: 2e-4, evalEvery: 250 },
  // The medium rung, at level 4: lr 1e-3 (at level 6 a pilot at 2e-3 trailed it from the start: loss 2.13 against
  // 2.02 at step 125, one run each) to step 3600, annealed to 1e-4 over 3600–4200, 4400 in all. A 2200-step version
  // (anneal over 1500–2000, 2026-12-06) solved nothing (avg@8 and pass@8 0 at every evaluation, loss 0.30): the small
  // base too solved nothing before step 2000 and needed 5000. This recipe reached held-out avg@8 13.9% / pass@8 46.9%
  // (from 1.8% before the anneal). It is 165 min of both cores here, more than a session, so the shipped base was
  // built in three legs, each continuing the last one's weights-only checkpoint with `--resume` (same data stream,
  // fresh AdamW moments): reports/ladder/sft-medium-l4, docs/ladder.md.
  // (Level 6, where the rung started, needs more again: a 1600-step warm start there solved nothing either;
  // reports/ladder/sft-medium-1600.)
  // The per-step slip rate is 0.1 rather than 0.15 so that a whole multiply trace is right about as often as at the
  // small rung's level 3 (~31%: level 4's chains are longer). 16,384 training problems. 32 rows at the model's
  // context of 512 need 2.8 GiB on the CPU engine (2 GiB at most): 8 rows per call need a quarter, and ran faster
  // than 16 (12 steps: 49.8 s against 56.6 s with the start and an evaluation).
  medium: {
    trainSize: 16384,
    steps: 4400,
    lr: 1e-3,
    lrDecayStart: 3600,
    lrDecayEnd: 4200,
    lrFinal: 1e-4,
    evalEvery: 250,
    style: { wrongStepRate: 0.1, verboseRate: 0.15 },
    microBatchRows: 8,
  },
};

/** Validates a partial SFT config over the defaults (a rung's: rungSftDefaults); one ConfigError naming the field. */
export function validateSftConfig(input: Partial<SftConfig> & Record<string, unknown>, defaults: SftConfig = DEFAULT_SFT_CONFIG): SftConfig {
  for (const k of Object.keys(input)) if (!Object.prototype.hasOwnProperty.call(DEFAULT_SFT_CONFIG, k)) throw new ConfigError(k, `unknown sft config field (known: ${Object.keys(DEFAULT_SFT_CONFIG).join(', ')})`);
  const c = { ...defaults, ...input, style: { ...defaults.style, ...(input.style ?? {}) } } as SftConfig;
  try {
    c.model = validateModelConfig(c.model);
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(`model.${e.field}`, e.message.slice(e.field.length + 2));
    throw e;
  }
  if (c.model.vocabSize !== VOCAB_SIZE) throw new ConfigError('model.vocabSize', `must be ${VOCAB_SIZE}, the tokenizer's vocabulary size`);
  const int = (f: keyof SftConfig, min: number, max = 1e9) => {
    const v = c[f] as unknown;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new ConfigError(f, `must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  };
  int('seed', 0, 0xffffffff);
  int('trainSize', 1);
  int('testSize', 1);
  int('steps', 1);
  int('batch', 1, 4096);
  if (c.microBatchRows !== null) int('microBatchRows', 1, c.batch);
  int('evalEvery', 0);
  int('lrDecayStart', 0, Math.max(0, c.steps - 1));
  if (c.lrDecayEnd !== 0) int('lrDecayEnd', c.lrDecayStart + 1, c.steps);
  int('evalK', 1, 1024);
  int('evalProblems', 1, c.testSize);
  int('evalMaxResponseLength', 1, c.model.contextLength - 1);
  if (!Array.isArray(c.families) || !c.families.length || c.families.some((f) => !TASK_FAMILIES.includes(f))) {
    throw new ConfigError('families', `must be a non-empty list of ${TASK_FAMILIES.join(', ')}, got ${JSON.stringify(c.families)}`);
  }
  // The hardest level every chosen family supports (as data.difficulty of a run).
  int('difficulty', 1, Math.min(...c.families.map((f) => FAMILIES[f].maxDifficulty)));
  for (const [f, max] of [['lr', 1], ['lrFinal', 1], ['weightDecay', 10]] as const) {
    if (typeof c[f] !== 'number' || !(c[f] > 0 || (f === 'weightDecay' && c[f] === 0)) || c[f] > max) throw new ConfigError(f, `must be a number in (0, ${max}], got ${JSON.stringify(c[f])}`);
  }
  for (const f of ['wrongStepRate', 'verboseRate'] as const) {
    const v = c.style[f];
    if (typeof v !== 'number' || v < 0 || v > 1) throw new ConfigError(`style.${f}`, `must be a probability in [0, 1], got ${JSON.stringify(v)}`);
  }
  return c;
}

export interface SftProgress {
  step: number;
  loss: number;
  /** Prompt + trace tokens trained per second (padding not counted). */
  tokensPerS: number;
}

export interface SftResult {
  params: Float32Array;
  /** Final held-out evaluation (val/avg@k/t1.0, …). */
  eval: Record<string, number>;
  data: Dataset;
  /** The .mlck file of the base policy (meta.kind "magic-lab-base"). */
  checkpoint: Uint8Array;
}

/** The learning rate of an SFT step (1-based): constant, a linear anneal to lrFinal, then lrFinal. */
export function sftLearningRate(cfg: Pick<SftConfig, 'lr' | 'lrDecayStart' | 'lrDecayEnd' | 'lrFinal' | 'steps'>, step: number): number {
  if (cfg.lrDecayStart <= 0 || step <= cfg.lrDecayStart) return cfg.lr;
  const end = cfg.lrDecayEnd > 0 ? cfg.lrDecayEnd : cfg.steps;
  const f = Math.min(1, (step - cfg.lrDecayStart) / (end - cfg.lrDecayStart));
  return cfg.lr + (cfg.lrFinal - cfg.lr) * f;
}

/** Rows padded to a multiple of 8 tokens, so only a few plan shapes are built. */
const bucket = (n: number, ctx: number) => Math.min(ctx, Math.ceil(n / 8) * 8);

/** What a base checkpoint stores to continue its warm start exactly (with its AdamW moments). */
export interface SftState {
  step: number;
  rngState: number;
  /**
   * The step after which AdamW's moments were last started afresh (0: the run's start). A weights-only
   * checkpoint continues with new moments, and their bias correction counts from there, as at a start.
   */
  adamStart?: number;
}

export async function runSft(
  backend: Backend,
  input: Partial<SftConfig>,
  hooks: {
    onStep?: (p: SftProgress) => void;
    onEval?: (step: number, rec: Record<string, number>) => void;
    /** Called after each periodic evaluation with that point's base checkpoint (so a long run is never lost). */
    onSnapshot?: (step: number, checkpoint: Uint8Array) => void;
  } = {},
  /**
   * Continue from a base checkpoint: one written by this function continues its data stream and step —
   * exactly with its AdamW moments; a weights-only one with fresh moments — and any other checkpoint of the
   * same model is a warm start.
   */
  resume?: Uint8Array,
  /** Names the `resume` file in errors. */
  resumeName = 'resume',
): Promise<SftResult> {
  const cfg = validateSftConfig(input as Partial<SftConfig> & Record<string, unknown>);
  const data = buildDataset({ seed: cfg.seed, families: cfg.families, difficulty: cfg.difficulty, trainSize: cfg.trainSize, testSize: cfg.testSize });
  // The file and its meta (SFT state, cached filter result, engine) are checked first: a bad one is a CheckpointError naming it.
  const ck = resume ? loadCheckpoint(resume, resumeName).contents : null;
  const exact = ck?.meta.sftState !== undefined && ck.adam !== undefined;
  // An exact continuation builds with the matmul variant its snapshot recorded (older snapshots: the old rule), so it replays bit for bit.
  const engine = ck?.meta.engine as { matmulVariant?: MatmulVariant } | undefined;
  const policy = await backend.createPolicy(cfg.model, 'sft', exact ? { matmulVariant: engine?.matmulVariant ?? 'by-adapter-kind' } : {});
  // Batches are bucketed to multiples of 8 up to the context: size the training memory once for the longest.
  policy.reserveTrain?.(Math.min(cfg.batch, cfg.microBatchRows ?? cfg.batch), cfg.model.contextLength);
  policy.setParams(initParams(cfg.model, batchSeed(cfg.seed, 6)));
  policy.resetAdamState();
  let rng = new Rng(batchSeed(cfg.seed, 7));
  let first = 1;
  // AdamW's t is step − adamStart: fresh moments need their bias correction from t = 1, or the first updates of a
  // continuation at step ~2000 would be ~3× the rate (m warms up in ~10 steps, v in ~1000).
  let adamStart = 0;
  if (ck) {
    if (JSON.stringify(ck.model) !== JSON.stringify(cfg.model)) throw new ConfigError('model', `the checkpoint to continue holds another model (${JSON.stringify(ck.model)})`);
    policy.setParams(ck.params);
    const st = ck.meta.sftState as SftState | undefined;
    if (st) {
      // The data stream and the step continue; a weights-only file (a shipped base, or one kept in the repository
      // because a warm start spans sessions: 8 MB in f16 against 49 MB with moments) restarts the moments.
      rng = new Rng(0, st.rngState);
      first = st.step + 1;
      if (ck.adam) {
        policy.setAdamState(ck.adam.m, ck.adam.v);
        adamStart = st.adamStart ?? 0;
      } else adamStart = st.step;
    } else if (typeof ck.meta.step === 'number') {
      // An older snapshot (weights and step only): continue the count with fresh AdamW moments.
      first = ck.meta.step + 1;
      adamStart = ck.meta.step;
    }
  }
  const snapshot = async (step: number, ev: Record<string, number>) => {
    const adam = await policy.getAdamState();
    const sftState: SftState = adamStart ? { step, rngState: rng.state, adamStart } : { step, rngState: rng.state };
    return encodeCheckpoint({ model: cfg.model, params: await policy.getParams(), adam, meta: { kind: 'magic-lab-base', sft: cfg, sftState, eval: ev, engine: engineMeta(policy) } });
  };
  const ctx = cfg.model.contextLength;
  const adamw = { lr: cfg.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: cfg.weightDecay, maxGradNorm: 1 };
  const evaluate = () =>
    evaluatePolicy(policy, data.test.slice(0, cfg.evalProblems), {
      k: cfg.evalK,
      temperatures: [1],
      maxResponseLength: cfg.evalMaxResponseLength,
      topP: 1,
      batch: Math.max(cfg.batch, 64),
      seed: batchSeed(cfg.seed, 8),
    });
  let nonfiniteStreak = 0;
  for (let step = first; step <= cfg.steps; step++) {
    const t0 = performance.now();
    const seqs: { prompt: number[]; response: number[] }[] = [];
    for (let i = 0; i < cfg.batch; i++) {
      const p = data.train[rng.int(0, data.train.length - 1)];
      seqs.push({ prompt: encodePrompt(p.prompt), response: encodeResponse(FAMILIES[p.family].trace(p, rng, cfg.style)) });
    }
    const T = bucket(Math.max(...seqs.map((s) => s.prompt.length + s.response.length)), ctx);
    // A trace longer than the context is cut: the policy learns to start it, and RL later sees it truncated.
    const rows = seqs.map((q) => [...q.prompt, ...q.response].slice(0, T));
    // Packed rows where the engine takes them (no padding trained; the same floats: src/rl/update-batch.ts), else rows × T.
    const lengths = policy.packedRows ? Uint32Array.from(rows, (seq) => seq.length) : undefined;
    const starts = rows.map((_, r) => (lengths ? lengths.subarray(0, r).reduce((a, x) => a + x, 0) : r * T));
    const N = lengths ? starts[rows.length - 1] + lengths[rows.length - 1] : cfg.batch * T;
    const tok = new Uint32Array(N).fill(PAD_ID);
    const tgt = new Uint32Array(N).fill(PAD_ID);
    const mask = new Float32Array(N);
    let count = 0;
    rows.forEach((seq, r) => {
      tok.set(seq, starts[r]);
      for (let t = seqs[r].prompt.length - 1; t < seq.length - 1; t++) {
        tgt[starts[r] + t] = seq[t + 1];
        mask[starts[r] + t] = 1;
        count++;
      }
    });
    const batch: UpdateBatch = { rows: cfg.batch, T, temperature: 1, tokens: tok, targets: tgt, mask, weights: mask.map((m) => m / count) };
    if (lengths) batch.lengths = lengths;
    const stats = await accumulatedUpdate(policy, batch, { kind: 'ce' }, { step: step - adamStart, adamw: { ...adamw, lr: sftLearningRate(cfg, step) } }, cfg.microBatchRows);
    // The engine rejected a non-finite step (weights and moments untouched); SFT_MAX_NONFINITE in a row stop the run.
    // (AdamW's t still counts the rejected step here: SFT's t is its step, which its snapshots store.)
    if (stats.applied === false) {
      if (++nonfiniteStreak >= SFT_MAX_NONFINITE) {
        const { quantity, value } = nonfiniteQuantity(stats);
        policy.destroy();
        throw new DivergenceError(step, quantity, value, nonfiniteStreak);
      }
    } else nonfiniteStreak = 0;
    hooks.onStep?.({ step, loss: stats.loss, tokensPerS: rows.reduce((a, seq) => a + seq.length, 0) / ((performance.now() - t0) / 1000) });
    if (cfg.evalEvery > 0 && step % cfg.evalEvery === 0 && step < cfg.steps) {
      const ev = await evaluate();
      hooks.onEval?.(step, ev);
      if (hooks.onSnapshot) hooks.onSnapshot(step, await snapshot(step, ev));
    }
  }
  const ev = await evaluate();
  hooks.onEval?.(cfg.steps, ev);
  const params = await policy.getParams();
  const checkpoint = await snapshot(cfg.steps, ev);
  policy.destroy();
  return { params, eval: ev, data, checkpoint };
}

/**
 * A rung's learning-rate schedule shortened (or lengthened) to `steps`: the decay's start and end
 * keep their fractions of the run (small: 3500–4500 of 5000 → 2–3 of 3). `sft --steps N` applies it
 * when the config does not set the decay itself; the result always passes validateSftConfig.
 */
export function scaleSftSchedule(c: Pick<SftConfig, 'steps' | 'lrDecayStart' | 'lrDecayEnd'>, steps: number): { lrDecayStart: number; lrDecayEnd: number } {
  if (c.lrDecayStart === 0 && c.lrDecayEnd === 0) return { lrDecayStart: 0, lrDecayEnd: 0 };
  const f = steps / c.steps;
  const lrDecayStart = Math.min(Math.max(0, steps - 1), Math.floor(c.lrDecayStart * f));
  if (c.lrDecayEnd === 0) return { lrDecayStart, lrDecayEnd: 0 };
  const lrDecayEnd = Math.min(steps, Math.max(lrDecayStart + 1, Math.round(c.lrDecayEnd * f)));
  return { lrDecayStart, lrDecayEnd };
}
