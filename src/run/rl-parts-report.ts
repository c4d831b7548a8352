/**
 * The arithmetic of `magic-lab bench --rl-parts` (src/run/rl-parts.ts): per phase, the median of its
 * in-step `timing_s/*` against the median of the same work run alone; the step against the sum of
 * its parts alone; the held-out eval against a rollout decode of the same generated-token count.
 * Pure, so tests/run/rl-parts-report.test.ts checks it with made-up rounds.
 */
import { median } from '../model/bench-run';
import { TIMING_PHASES, TIMING_STEP_KEY, timingKey, type TimingPhase } from '../rl/phase-timer';

/** Phases whose work is run alone on the engine; the others are host code, the same in a step or out. */
export const ALONE_PHASES = ['gen', 'update_actor'] as const;
export type AlonePhase = (typeof ALONE_PHASES)[number];

/** The RL step's performance targets: step ≤ 1.3 × Σ parts alone, eval ≤ 2 × a rollout decode of equal tokens. */
export const TARGETS = { stepOverParts: 1.3, evalOverRollout: 2 } as const;

/** One round: an RL step, then its heavy phases alone and one held-out eval. Seconds throughout. */
export interface RlPartsRound {
  /** The step record's `timing_s/*` keys (evaluation off, so no testing). */
  step: Partial<Record<string, number>>;
  alone: Record<AlonePhase, number>;
  /** Tokens the step's rollout decode generated (responses, EOS included). */
  genTokens: number;
  /** Decode slots of the rollout decode: Σ over decode steps of the rows decoded (decodeSlots). */
  genSlots?: number;
  /** The held-out eval: its time, generated tokens and decode slots. */
  eval: { s: number; tokens: number; slots?: number };
}

export interface PhaseRow {
  phase: TimingPhase;
  in_step_s: number;
  /** Only for ALONE_PHASES. */
  alone_s: number | null;
  /** in_step_s / alone_s (> 1: slower in the step). */
  ratio: number | null;
}

export interface RlPartsReport {
  /** Rounds the medians are over (the warm-up rounds left out). */
  rounds: number;
  phases: PhaseRow[];
  /** Median timing_s/step. */
  step_s: number;
  /** Σ over the step's phases: the alone median for ALONE_PHASES, the in-step median for the rest. */
  sum_of_parts_s: number;
  /** step_s / sum_of_parts_s; target ≤ TARGETS.stepOverParts. */
  step_over_parts: number;
  eval: {
    median_s: number;
    tokens: number;
    /** Median seconds per generated token: the eval's, and the rollout decode's run alone. */
    s_per_token: number;
    rollout_s_per_token: number;
    /** A rollout decode (alone) at the eval's token count: rollout_s_per_token × tokens. */
    rollout_of_equal_tokens_s: number;
    /** s_per_token / rollout_s_per_token; target ≤ TARGETS.evalOverRollout. */
    ratio: number;
    /**
     * When the rounds have decode slots: generated tokens per slot (the rest decode finished or
     * not-yet-started rows), eval and rollout, and seconds per slot eval / rollout (≈ 1: a slot costs the same).
     */
    slots?: { tokens_per_slot: number; rollout_tokens_per_slot: number; s_per_slot_ratio: number };
  };
}

/** The report over `rounds` after the first `warmup` (default 1: plans and caches are built there). */
export function rlPartsReport(rounds: readonly RlPartsRound[], warmup = 1): RlPartsReport {
  if (!Number.isInteger(warmup) || warmup < 0) throw new RangeError(`warmup must be an integer ≥ 0, got ${warmup}`);
  const rs = rounds.slice(warmup);
  if (rs.length === 0) throw new RangeError(`rl-parts: no rounds after ${warmup} warm-up round(s) (${rounds.length} in all)`);
  const stepPhases = TIMING_PHASES.filter((p) => p !== 'testing');
  rs.forEach((r, i) => {
    for (const k of [...stepPhases.map(timingKey), TIMING_STEP_KEY]) {
      const v = r.step[k];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`rl-parts: round ${i + warmup + 1}: the step record has no ${k}`);
    }
    for (const p of ALONE_PHASES) if (!Number.isFinite(r.alone[p])) throw new Error(`rl-parts: round ${i + warmup + 1}: no alone time for ${timingKey(p)}`);
    if (!(r.genTokens > 0) || !(r.eval.tokens > 0)) throw new Error(`rl-parts: round ${i + warmup + 1}: no generated tokens (rollout ${r.genTokens}, eval ${r.eval.tokens})`);
  });
  const med = (f: (r: RlPartsRound) => number) => median(rs.map(f));
  const phases: PhaseRow[] = stepPhases.map((phase) => {
    const in_step_s = med((r) => r.step[timingKey(phase)]!);
    const alone = (ALONE_PHASES as readonly TimingPhase[]).includes(phase) ? med((r) => r.alone[phase as AlonePhase]) : null;
    return { phase, in_step_s, alone_s: alone, ratio: alone === null ? null : in_step_s / alone };
  });
  const step_s = med((r) => r.step[TIMING_STEP_KEY]!);
  const sum_of_parts_s = phases.reduce((a, p) => a + (p.alone_s ?? p.in_step_s), 0);
  const s_per_token = med((r) => r.eval.s / r.eval.tokens);
  const rollout_s_per_token = med((r) => r.alone.gen / r.genTokens);
  const tokens = med((r) => r.eval.tokens);
  const withSlots = rs.every((r) => r.genSlots! > 0 && r.eval.slots! > 0);
  const slots = withSlots
    ? {
        tokens_per_slot: med((r) => r.eval.tokens / r.eval.slots!),
        rollout_tokens_per_slot: med((r) => r.genTokens / r.genSlots!),
        s_per_slot_ratio: med((r) => r.eval.s / r.eval.slots!) / med((r) => r.alone.gen / r.genSlots!),
      }
    : undefined;
  return {
    rounds: rs.length,
    phases,
    step_s,
    sum_of_parts_s,
    step_over_parts: step_s / sum_of_parts_s,
    eval: { median_s: med((r) => r.eval.s), tokens, s_per_token, rollout_s_per_token, rollout_of_equal_tokens_s: rollout_s_per_token * tokens, ratio: s_per_token / rollout_s_per_token, ...(slots && { slots }) },
  };
}

/** The report as a Markdown table (what the CLI prints and BENCHMARKS.md records). */
export function rlPartsTable(r: RlPartsReport): string[] {
  const s = (x: number) => `${x.toFixed(4)} s`;
  const x = (v: number, target?: number) => `${v.toFixed(2)}×${target === undefined ? '' : v <= target ? ` (≤ ${target} ✓)` : ` (> ${target} ✗)`}`;
  return [
    `| phase (median of ${r.rounds} rounds) | in step | alone | in step / alone |`,
    '| --- | ---: | ---: | ---: |',
    ...r.phases.map((p) => `| ${timingKey(p.phase)} | ${s(p.in_step_s)} | ${p.alone_s === null ? '(host code: as in step)' : s(p.alone_s)} | ${p.ratio === null ? '–' : x(p.ratio)} |`),
    `| **timing_s/step** vs Σ parts alone | **${s(r.step_s)}** | **${s(r.sum_of_parts_s)}** | **${x(r.step_over_parts, TARGETS.stepOverParts)}** |`,
    `| held-out eval (${r.eval.tokens} tokens) vs a rollout decode of equal tokens | ${s(r.eval.median_s)} | ${s(r.eval.rollout_of_equal_tokens_s)} | ${x(r.eval.ratio, TARGETS.evalOverRollout)} |`,
    ...(r.eval.slots
      ? [`| decode slots (rows decoded, summed over steps): tokens per slot, eval / rollout; seconds per slot, eval / rollout | ${r.eval.slots.tokens_per_slot.toFixed(3)} | ${r.eval.slots.rollout_tokens_per_slot.toFixed(3)} | ${x(r.eval.slots.s_per_slot_ratio)} |`]
      : []),
  ];
}
