/**
 * "Run both": a Try-this card's arms as one run queue (lib/queue.ts), reusing a finished run of
 * the same setup (a shared baseline), and the line that compares the overlaid arms from their
 * data. Pure; teaching.ts drives the page.
 */
import type { RunData } from '../../io/runfile';
import type { RunConfig } from '../../rl/config';
import { baseCheckpointName } from './rungs';
import { experimentConfig, setupRefPreset, setupRung, type Experiment, type ExperimentSetup } from './experiments';
import type { RunQueue } from './queue';
import { referenceRung, type ReferenceFile, type ReferenceIndexEntry } from './reference';
import { COLLAPSE_STEPS, curveCollapse, ENTROPY_MEAN_STEPS, HOLD_FRACTION } from './try-claims';

/** JSON with object keys sorted at every depth: equal configs give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Same key = the same run: the canonical config, its seed, and the base checkpoint it starts from. */
export const runKey = (config: RunConfig, preset: string) => `${canonicalJson(config)}|seed ${config.seed}|${baseCheckpointName(preset)}`;

/** The Worker's note on a run started from the shipped base checkpoint (not random init, not an uploaded checkpoint). */
const FROM_BASE = 'started from the base checkpoint';

/** A finished run (every stage done, from the shipped base) with this key, newest first; null when none. */
export function findReusableRun(runs: Record<string, RunData>, order: readonly string[], key: string): string | null {
  for (let i = order.length - 1; i >= 0; i--) {
    const r = runs[order[i]];
    if (r?.done && r.note?.startsWith(FROM_BASE) && r.steps.length > 0 && runKey(r.config, r.preset) === key) return r.id;
  }
  return null;
}

export const cardQueueName = (e: Pick<Experiment, 'id'>) => `try:${e.id}`;
export const armRunName = (e: Pick<Experiment, 'title'>, s: Pick<ExperimentSetup, 'label'>) => `${s.label} · ${e.title}`;

/** The arms of `e` to play (`keys`: a lesson's subset; default all). */
export const cardArms = (e: Experiment, keys?: readonly string[]) => (keys?.length ? e.setups.filter((s) => keys.includes(s.key)) : e.setups);

/** Which of the played arms (`keys`: a lesson's subset) is shown as the active run: the card's activeArm when played, else the first. */
export function activeArmIndex(e: Pick<Experiment, 'setups' | 'activeArm'>, keys?: readonly string[]): number {
  const i = cardArms(e as Experiment, keys).findIndex((s) => s.key === e.activeArm);
  return i < 0 ? 0 : i;
}

/** The card's arms as a queue: an arm with a finished identical run is 'done' at once (that run), the others pending. */
export function planCardQueue(e: Experiment, runs: Record<string, RunData>, order: readonly string[], keys?: readonly string[]): RunQueue {
  const items = cardArms(e, keys).map((s) => {
    const config = experimentConfig(s);
    const reuse = findReusableRun(runs, order, runKey(config, s.preset));
    return { preset: s.preset, seed: config.seed, name: armRunName(e, s), config, runId: reuse, status: reuse ? ('done' as const) : ('pending' as const), ...(reuse ? { reused: true } : {}) };
  });
  return { reference: cardQueueName(e), steps: null, items, status: items.some((x) => x.status === 'pending') ? 'running' : 'done', message: null };
}

/** The index entries whose files hold each arm's reference preset at the arm's rung; null when some arm has none (no reference overlay then). */
export function cardReferenceEntries(e: Experiment, entries: readonly ReferenceIndexEntry[], keys?: readonly string[]): ReferenceIndexEntry[] | null {
  const out: ReferenceIndexEntry[] = [];
  for (const s of cardArms(e, keys)) {
    const p = setupRefPreset(s);
    const entry = p ? entries.find((x) => referenceRung(x) === setupRung(s) && x.presets.includes(p)) : undefined;
    if (!entry) return null;
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}

/** One reference file holding just the card's arms (keyed by arm label), built from the files that hold them at each arm's rung. */
export function cardReferenceFile(e: Experiment, files: readonly ReferenceFile[], keys?: readonly string[]): ReferenceFile | null {
  const presets: ReferenceFile['presets'] = {};
  for (const s of cardArms(e, keys)) {
    const p = setupRefPreset(s);
    const f = p ? files.find((x) => referenceRung(x) === setupRung(s) && x.presets[p]) : undefined;
    if (!p || !f) return null;
    presets[s.label] = f.presets[p];
  }
  const first = files[0];
  return { ...first, name: cardQueueName(e), kind: 'finding', title: `${e.title} (reference runs)`, presets, claim: '', checks: [] } as ReferenceFile;
}

/** One overlaid arm's entropy curve. */
export interface ArmSeries {
  label: string;
  steps: number[];
  values: number[];
  /** The arm's own entropy target (null: no entropy term), where the arms' targets differ; else compareArms' `target`. */
  target?: number | null;
}

/** The arm's short name: "A" of "A: τ = 1.0 (MAGIC)". */
const short = (label: string) => label.split(':')[0].trim();
const num = (x: number) => x.toFixed(3);

/** The mean of a series over its last 20% of points (NaN points skipped). */
export function endMean(values: readonly number[]): number {
  const v = values.slice(Math.floor(values.length * 0.8)).filter(Number.isFinite);
  return v.reduce((x, y) => x + y, 0) / v.length;
}

/**
 * Each arm against the sweep's collapse rule (its 10-step mean below the target for at least
 * COLLAPSE_STEPS steps, src/sweep/run-metrics.ts): the step it fell through the target, or that it held.
 */
export function collapseClauses(usable: readonly ArmSeries[], target: number): string {
  const held = `at or above ${HOLD_FRACTION}× the target`;
  const clauses = usable.map((a) => {
    const c = curveCollapse(a.steps, a.values, target);
    const x = short(a.label);
    if (c.collapsed === 1) return `${x}'s entropy fell through the target ${target} at step ${c.collapseStep} and stayed below it${c.belowAtEnd ? '' : ` for at least ${COLLAPSE_STEPS} steps`}`;
    if (!Number.isFinite(c.min10)) return `${x} has fewer than ${ENTROPY_MEAN_STEPS} steps`;
    if (c.min10 >= HOLD_FRACTION * target) return `${x}'s ${ENTROPY_MEAN_STEPS}-step mean held ${held}`;
    return `${x}'s ${ENTROPY_MEAN_STEPS}-step mean dipped to ${num(c.min10)} at step ${c.lowStep}, below ${HOLD_FRACTION}× the target, but was below the target for at most ${c.longestBelow} steps in a row (a collapse is ${COLLAPSE_STEPS})`;
  });
  return `${clauses.join('; ')}.`;
}

/**
 * The overlaid arms compared in one line, from their data: which arm's entropy fell below the
 * target and at what step (`collapse`: which collapsed by the sweep's rule and at what step, and
 * which held), and each arm's mean over its last 20% of steps.
 */
export function compareArms(arms: readonly ArmSeries[], target: number | null, o: { collapse?: boolean } = {}): string {
  const usable = arms.filter((a) => a.values.some(Number.isFinite));
  if (usable.length < 2) return '';
  const parts: string[] = [];
  if (target !== null && o.collapse) parts.push(collapseClauses(usable, target));
  else if (usable.some((a) => a.target !== undefined && a.target !== target)) {
    // Arms with their own targets (the first-look card's B at 3 nats beside A's 0.1): each against its own.
    const clauses = usable.map((a) => {
      const t = a.target === undefined ? target : a.target;
      if (t === null) return `${short(a.label)} has no entropy target`;
      const i = a.values.findIndex((v) => Number.isFinite(v) && v < t);
      return i >= 0 ? `${short(a.label)}'s entropy fell below its target ${t} at step ${a.steps[i]}` : `${short(a.label)}'s never fell below its target ${t}`;
    });
    parts.push(`${clauses.join('; ')}.`);
  } else if (target !== null) {
    const fell = usable.map((a) => ({ a, i: a.values.findIndex((v) => Number.isFinite(v) && v < target) }));
    const did = fell.filter((x) => x.i >= 0);
    const never = fell.filter((x) => x.i < 0).map((x) => `${short(x.a.label)}'s`);
    if (!did.length) parts.push(`${usable.length === 2 ? 'Neither' : 'No'} run's entropy fell below the target ${target}.`);
    else
      parts.push(
        `${did.map((x) => `${short(x.a.label)}'s entropy fell below the target ${target} at step ${x.a.steps[x.i]}`).join('; ')}${never.length ? `; ${never.join(' and ')} never did` : ''}.`,
      );
  }
  const ends = usable.map((a) => `${short(a.label)} ${num(endMean(a.values))}`);
  parts.push(`Mean entropy over the last 20% of steps: ${ends.join(', ')} nats.`);
  return parts.join(' ');
}

/** A reference preset's mean entropy curve as an arm's series (a step with no mean: NaN); empty when it has none. */
export function referenceEntropySeries(label: string, preset: ReferenceFile['presets'][string] | undefined): ArmSeries {
  const c = preset?.curves['actor/entropy'];
  return { label, steps: c?.steps ?? [], values: (c?.mean ?? []).map((v) => (v === null ? NaN : v)) };
}

/** A run's entropy series (the controller's e_k where recorded, as the charts read it). */
export function runEntropySeries(label: string, run: Pick<RunData, 'steps'>): ArmSeries {
  const steps: number[] = [];
  const values: number[] = [];
  for (const r of run.steps) {
    const v = (r as unknown as Record<string, number>)['actor/entropy'];
    if (typeof v === 'number') {
      steps.push(r.step);
      values.push(v);
    }
  }
  return { label, steps, values };
}

/**
 * The names the played card's runs are drawn under: each arm's label on this card (a shared baseline
 * reused from another card keeps that card's run name in the run list, but is drawn as this card's arm).
 */
export function cardRunNames(play: { cardId: string; mode: string; keys?: readonly string[] } | null, queue: Pick<RunQueue, 'reference' | 'items'> | null, cards: readonly Experiment[]): Record<string, string> {
  const card = play?.mode === 'runs' ? cards.find((e) => e.id === play.cardId) : undefined;
  if (!card || !queue || queue.reference !== cardQueueName(card)) return {};
  const arms = cardArms(card, play!.keys);
  const out: Record<string, string> = {};
  queue.items.forEach((x, i) => {
    if (x.runId && arms[i]) out[x.runId] = armRunName(card, arms[i]);
  });
  return out;
}

const renamedViews = new WeakMap<RunData, Map<string, RunData>>();
/** `run` drawn under `name` (the same object for the same run view and name, so the charts' memo holds). */
export function drawnAs(run: RunData, name: string | undefined): RunData {
  if (!name || name === run.name) return run;
  let m = renamedViews.get(run);
  if (!m) renamedViews.set(run, (m = new Map()));
  let v = m.get(name);
  if (!v) m.set(name, (v = { ...run, name }));
  return v;
}
