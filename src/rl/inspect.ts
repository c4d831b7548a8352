/**
 * What the page's GRPO group inspector needs beyond the rollouts themselves, computed without
 * changing training: every function here only reads the policy (forward passes, no update), draws
 * nothing from the run's random streams and writes no trainer state, so a run with the inspector
 * on replays bit for bit the run without it (tests/rl/inspect.test.ts checks it on the CPU engine).
 *
 *   which groups a step records   inspectedGroups(prompts, first, watchedPrompts(pool))
 *   ρ after the step's update     responseLogp(policy, rolls, T, τ) − the rollout's logp
 *   tokens the clip acted on      clippedPositions(policy, batch, rows, ε)  (off-policy mini-batches only:
 *                                 on-policy ρ ≡ 1 at the update, so nothing is ever clipped)
 *   alternatives at a position    nextTokenLogp(policy, prompt, response, position, T) → src/rl/token-probs.ts
 *
 * The trainer reaches the per-step part through one hook, groupInspector() (TrainerInit.inspector),
 * which the page's Worker passes; without it (the CLI) a step does none of this work.
 */
import { rowOffsets, type PolicyEngine, type UpdateBatch } from '../model/engine';
import { PAD_ID } from '../tasks';
import type { Rollout } from './rollout';

/**
 * Prompts the inspector follows through training: the WATCHED_PROMPTS lowest training-prompt
 * indices still in the pool. Each comes round once per pass over the pool, and its group is then
 * recorded whatever its place in the batch, so the page can show the same prompt's responses at
 * several steps. Derived from the pool alone (no state to checkpoint); when the online filter
 * drops a watched prompt (solved in every rollout of a stage), the next lowest takes its place.
 */
export const WATCHED_PROMPTS = 2;

/** The `n` lowest indices of `pool`, ascending. */
export function watchedPrompts(pool: readonly number[], n = WATCHED_PROMPTS): number[] {
  return [...pool].sort((a, b) => a - b).slice(0, n);
}

/** Group indices a step records: the first `first` groups, then every later group whose prompt is watched. */
export function inspectedGroups(prompts: readonly number[], first: number, watched: ReadonlySet<number>): number[] {
  const out: number[] = [];
  prompts.forEach((p, g) => {
    if (g < first || watched.has(p)) out.push(g);
  });
  return out;
}

/** Rows × T as the padded update lays them out: prompt + response, PAD after; targets[P − 1 + j] = response[j] (a row's log-probs do not depend on the layout). */
export function packRows(rolls: readonly Rollout[], T: number, rows = rolls.length): { tokens: Uint32Array; targets: Uint32Array } {
  const tokens = new Uint32Array(rows * T).fill(PAD_ID);
  const targets = new Uint32Array(rows * T).fill(PAD_ID);
  rolls.forEach((roll, r) => {
    const seq = [...roll.prompt, ...roll.response].slice(0, T);
    tokens.set(seq, r * T);
    const P = roll.prompt.length;
    for (let j = 0; j < roll.response.length && P - 1 + j < T; j++) targets[r * T + P - 1 + j] = roll.response[j];
  });
  return { tokens, targets };
}

/**
 * log π(response token | prefix) of each response under the policy as it is now, at τ: one forward
 * pass (rows padded to a multiple of `rowMultiple` so only a few shapes are ever built).
 */
export async function responseLogp(policy: PolicyEngine, rolls: readonly Rollout[], T: number, temperature: number, rowMultiple = 1): Promise<number[][]> {
  if (rolls.length === 0) return [];
  const rows = Math.ceil(rolls.length / rowMultiple) * rowMultiple;
  const { tokens, targets } = packRows(rolls, T, rows);
  const { logp } = await policy.forward(tokens, targets, rows, T, temperature);
  return rolls.map((roll, r) => Array.from({ length: roll.response.length }, (_, j) => logp[r * T + roll.prompt.length - 1 + j]));
}

/** ρ_t = exp(log π_new − log π_old) per token. */
export function ratios(newLogp: readonly number[], oldLogp: readonly number[]): number[] {
  return newLogp.map((l, i) => Math.exp(l - oldLogp[i]));
}

/**
 * Whether the clip took this token's gradient: the loss is max(−A·ρ, −A·clip(ρ, 1−ε_low, 1+ε_high))
 * and the clipped branch won (strictly, as src/model/reference/ops.ts counts pg_clipfrac). That
 * happens when A > 0 and ρ > 1 + ε_high, or A < 0 and ρ < 1 − ε_low.
 */
export function clippedBranch(ratio: number, advantage: number, epsLow: number, epsHigh: number): boolean {
  const clamped = Math.min(Math.max(ratio, 1 - epsLow), 1 + epsHigh);
  return -advantage * clamped > -advantage * ratio;
}

/** One inspected row of an update batch: the row and the flat index of its first response token's logp. */
export interface InspectedRow {
  row: number;
  /** The row's first token (row · T, packed: rowOffsets) + P − 1. */
  start: number;
  length: number;
}

/**
 * Response positions where the clip took the gradient, for the rows asked, as the update about to
 * run on `batch` will see them: a forward of the same batch (same shapes, same kernels) under the
 * current weights gives the update's own ρ = π_θ / π_old. Only meaningful off-policy (`batch.oldLogp`
 * set); on-policy ρ ≡ 1 and the answer is empty without a forward.
 */
export async function clippedPositions(policy: PolicyEngine, batch: UpdateBatch, want: readonly InspectedRow[], eps: { epsLow: number; epsHigh: number }): Promise<number[][]> {
  const old = batch.oldLogp;
  if (!old || want.length === 0) return want.map(() => []);
  const { logp } = await policy.forward(batch.tokens, batch.targets, batch.rows, batch.T, batch.temperature, batch.lengths);
  const adv = batch.advantages;
  return want.map(({ start, length }) => {
    const out: number[] = [];
    for (let j = 0; j < length; j++) {
      const t = start + j;
      if (batch.mask[t] && clippedBranch(Math.exp(logp[t] - old[t]), adv ? adv[t] : 0, eps.epsLow, eps.epsHigh)) out.push(j);
    }
    return out;
  });
}

/**
 * log π(v | prompt, response[0…position−1]) at τ = 1 for every token id v: one forward of
 * V copies of the prefix, row v targeting v. (The engine interface returns the target's log-prob
 * only; V rows of one short sequence cost about one small batch.)
 */
export async function nextTokenLogp(policy: PolicyEngine, prompt: readonly number[], response: readonly number[], position: number, T: number): Promise<Float64Array> {
  const V = policy.cfg.vocabSize;
  if (!Number.isInteger(position) || position < 0 || position >= response.length) throw new RangeError(`position must be a response token index in 0…${response.length - 1}, got ${position}`);
  const prefix = [...prompt, ...response.slice(0, position)];
  if (prefix.length > T) throw new RangeError(`prompt + response prefix (${prefix.length} tokens) is longer than the context (${T})`);
  const tokens = new Uint32Array(V * T).fill(PAD_ID);
  const targets = new Uint32Array(V * T).fill(PAD_ID);
  const at = prefix.length - 1;
  for (let v = 0; v < V; v++) {
    tokens.set(prefix, v * T);
    targets[v * T + at] = v;
  }
  const { logp } = await policy.forward(tokens, targets, V, T, 1);
  return Float64Array.from({ length: V }, (_, v) => logp[v * T + at]);
}

/**
 * Clip marks of the recorded groups' responses over one step's mini-batch updates. The trainer
 * calls `before(mb, batch)` just before each update (off-policy only); kept response k is
 * response keptGroups[⌊k/G⌋]·G + k mod G of the step's batch.
 */
export class ClipMarks {
  private marks = new Map<number, Set<number>>();
  constructor(
    private readonly policy: PolicyEngine,
    private readonly keptGroups: readonly number[],
    private readonly G: number,
    private readonly shownGroups: ReadonlySet<number>,
    private readonly keptRolls: readonly Rollout[],
    private readonly eps: { epsLow: number; epsHigh: number },
  ) {}

  async before(mb: readonly number[], batch: UpdateBatch): Promise<void> {
    if (!batch.oldLogp) return;
    const want = mb.map((k, row) => ({ k, row })).filter(({ k }) => this.shownGroups.has(this.keptGroups[Math.floor(k / this.G)]));
    const offsets = rowOffsets(batch);
    const rows = want.map(({ k, row }) => ({ row, start: offsets[row] + this.keptRolls[k].prompt.length - 1, length: this.keptRolls[k].response.length }));
    const found = await clippedPositions(this.policy, batch, rows, this.eps);
    want.forEach(({ k }, n) => {
      const index = this.keptGroups[Math.floor(k / this.G)] * this.G + (k % this.G);
      const set = this.marks.get(index) ?? new Set<number>();
      for (const j of found[n]) set.add(j);
      this.marks.set(index, set);
    });
  }

  /** Positions of batch response `index` the clip acted on, ascending (a response updated in several mini-batches: any of them). */
  of(index: number): number[] {
    return [...(this.marks.get(index) ?? [])].sort((a, b) => a - b);
  }
}

/** One step of the trainer as the inspector sees it, once rejection sampling has chosen the kept groups. */
export interface InspectedStep {
  policy: PolicyEngine;
  /** Batch group indices kept by rejection sampling, in update order. */
  keptGroups: readonly number[];
  groupSize: number;
  /** Batch group indices the step records (inspectedGroups). */
  shownGroups: readonly number[];
  /** Kept responses: kept response k is response keptGroups[⌊k/G⌋]·G + k mod G of the batch. */
  keptRolls: readonly Rollout[];
  eps: { epsLow: number; epsHigh: number };
}

/** One step's inspection; the trainer calls it at the points below, and it only reads the policy. */
export interface StepInspection {
  /** Just before each mini-batch update `batch` of kept responses `mb` (clip marks, off-policy only). */
  beforeUpdate(mb: readonly number[], batch: UpdateBatch): Promise<void>;
  /** After the step's updates, only when something was updated: log π of the shown groups' responses, in order. */
  afterUpdate(shownRolls: readonly Rollout[], T: number, temperature: number): Promise<void>;
  /** ρ and clip marks of the `shownIndex`-th shown response (batch response `batchIndex`); null without an update. */
  marks(shownIndex: number, batchIndex: number, oldLogp: readonly number[]): { ratio: number[]; clipped: number[] } | null;
}

/** The hook the trainer calls when the page's inspector is on (TrainerInit.inspector). */
export interface StepInspector {
  /** Prompts whose groups every step records besides the first ones. */
  watchedPrompts(pool: readonly number[]): number[];
  beginStep(step: InspectedStep): StepInspection;
}

/** The group inspector: watched prompts, clip marks at each update, and ρ after the step from one extra forward. */
export function groupInspector(): StepInspector {
  return {
    watchedPrompts: (pool) => watchedPrompts(pool),
    beginStep({ policy, keptGroups, groupSize: G, shownGroups, keptRolls, eps }) {
      const clipMarks = new ClipMarks(policy, keptGroups, G, new Set(shownGroups), keptRolls, eps);
      let after: number[][] | null = null;
      return {
        beforeUpdate: (mb, batch) => clipMarks.before(mb, batch),
        async afterUpdate(shownRolls, T, temperature) {
          after = await responseLogp(policy, shownRolls, T, temperature, G);
        },
        marks: (shownIndex, batchIndex, oldLogp) => (after ? { ratio: ratios(after[shownIndex], oldLogp), clipped: clipMarks.of(batchIndex) } : null),
      };
    },
  };
}
