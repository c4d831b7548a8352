/**
 * Where an RL step's time goes, under verl's names (`timing_s/gen`, `timing_s/update_actor`, …), so a
 * lab run and a verl run read the same. The trainer times each phase with a monotonic clock it is
 * given (TrainerInit.clock; performance.now by default, a fake one in tests). Timing only reads the
 * clock: no value of the run depends on it.
 */

/** A monotonic clock in milliseconds. */
export type Clock = () => number;

/**
 * The phases, as verl names them. gen: decoding the rollouts; reward: the verifiers; old_log_prob:
 * packing π_old (the sampler's own log-probs, so no recompute); ref: π_ref's copy and forwards (β > 0);
 * adv: group advantages, rejection and the entropy controller; update_actor: the N_SGD optimizer steps;
 * testing: the held-out evaluation, on steps that evaluate.
 */
export const TIMING_PHASES = ['gen', 'reward', 'old_log_prob', 'ref', 'adv', 'update_actor', 'testing'] as const;
export type TimingPhase = (typeof TIMING_PHASES)[number];

/** `timing_s/<phase>`, and the whole step (evaluation included, as verl counts it). */
export type TimingKey = `timing_s/${TimingPhase}` | 'timing_s/step';
export const TIMING_STEP_KEY: TimingKey = 'timing_s/step';
export const timingKey = (phase: TimingPhase): TimingKey => `timing_s/${phase}`;

/** Sums the time spent in each phase over one step (a phase may run several times: refill rounds, mini-batches). */
export class PhaseTimer {
  private readonly totals = new Map<TimingPhase, number>();
  private readonly start: number;
  /** The step starts when its timer is made. */
  constructor(readonly clock: Clock) {
    this.start = clock();
  }

  /** Milliseconds since the step started. */
  elapsed(): number {
    return this.clock() - this.start;
  }

  add(phase: TimingPhase, ms: number): void {
    this.totals.set(phase, (this.totals.get(phase) ?? 0) + ms);
  }

  async time<T>(phase: TimingPhase, run: () => Promise<T>): Promise<T> {
    const t = this.clock();
    try {
      return await run();
    } finally {
      this.add(phase, this.clock() - t);
    }
  }

  timeSync<T>(phase: TimingPhase, run: () => T): T {
    const t = this.clock();
    try {
      return run();
    } finally {
      this.add(phase, this.clock() - t);
    }
  }

  /**
   * The step's `timing_s/*` keys in seconds: every phase (0 when it did not run) but testing, which
   * only a step that evaluated has, then the whole step.
   */
  keys(stepMs = this.elapsed()): Partial<Record<TimingKey, number>> {
    const out: Partial<Record<TimingKey, number>> = {};
    for (const p of TIMING_PHASES) {
      const ms = this.totals.get(p);
      if (p === 'testing' && ms === undefined) continue;
      out[timingKey(p)] = (ms ?? 0) / 1000;
    }
    out[TIMING_STEP_KEY] = stepMs / 1000;
    return out;
  }
}

/** Short names for a progress line. */
export const PHASE_SHORT: Record<TimingPhase, string> = { gen: 'gen', reward: 'rew', old_log_prob: 'old', ref: 'ref', adv: 'adv', update_actor: 'upd', testing: 'eval' };

/**
 * Each phase's share of the step (its `timing_s/<phase>` over `timing_s/step`), in TIMING_PHASES
 * order, for the phases a record has; [] for a record without timings (older runs) or a zero step.
 */
export function phaseShares(record: Partial<Record<string, number>>): { phase: TimingPhase; share: number }[] {
  const step = record[TIMING_STEP_KEY];
  if (step === undefined || !(step > 0)) return [];
  const out: { phase: TimingPhase; share: number }[] = [];
  for (const phase of TIMING_PHASES) {
    const s = record[timingKey(phase)];
    if (s !== undefined && Number.isFinite(s)) out.push({ phase, share: s / step });
  }
  return out;
}

/** "gen 62% upd 30%": the phases that took at least `min` of the step. */
export function phaseSummary(record: Partial<Record<string, number>>, min = 0.05): string {
  return phaseShares(record)
    .filter((p) => p.share >= min)
    .map((p) => `${PHASE_SHORT[p.phase]} ${Math.round(p.share * 100)}%`)
    .join(' ');
}
