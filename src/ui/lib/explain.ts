/**
 * Explanations tied to the live run: what happened on each chart, in plain words, and the events
 * marked on the charts. Pure functions of a run's config and records (no store, no DOM), so the
 * same run always reads the same, and tests/ui/explain.test.ts pins every sentence.
 *
 * Events (RunEvent.kind) and their rules:
 *   controller-on / controller-off   adaptive mode only: α_k = c_k·1{e_k < target} (Eq. 3.2) became
 *                                    > 0 / returned to 0. Steps that trained nothing (every group
 *                                    dropped) do not change it. On/off flicker is merged: an "off"
 *                                    spell shorter than CONTROLLER_MERGE_GAP steps is not marked.
 *   entropy-collapse                 the mean e_k of the last ENTROPY_WINDOW steps fell below
 *                                    COLLAPSE_FRACTION × the reference level; re-armed once it is
 *                                    back above REARM × that floor.
 *   entropy-blowup                   the same mean rose above BLOWUP_FACTOR × the reference level;
 *                                    re-armed once back below that ceiling / REARM.
 *                                    Reference level: the target under adaptive control (the level
 *                                    the recipe aims for; for the ceiling, the larger of the target
 *                                    and the start), else where the run started (mean e_k of its
 *                                    first ENTROPY_WINDOW steps).
 *   stage                            the stage index changed (also drawn as S2, S3… on every chart).
 *   online-filter                    at a stage start the active prompt pool shrank: prompts solved
 *                                    in every rollout of the previous stage were dropped.
 *   all-dropped                      no group kept (all solved by every or by no response): no update
 *                                    (consecutive steps are one event).
 * e_k is the estimate the controller reads (loss.entropy.estimator: actor/entropy or actor/entropy_sampled).
 */
import { fixedRunSteps } from '../../rl/config';
import { lrFactor } from '../../rl/lr-schedule';
import { evalKey, formatTemperature } from '../../rl/metrics';
import type { StepRecord } from '../../rl/trainer-types';
import { fin, mean, num, pct, plural, pts, recent, RECENT, tailMean, val, type RunLike } from './explain-format';

export { num, RECENT, type RunLike } from './explain-format';

/** Steps in the moving mean the collapse / blow-up warnings read. */
export const ENTROPY_WINDOW = 5;
/** Collapse: the moving mean below this fraction of the reference level. */
export const COLLAPSE_FRACTION = 0.5;
/** Blow-up: the moving mean above this multiple of the reference level. */
export const BLOWUP_FACTOR = 2;
/** A warning fires again only after the mean came back this far inside its threshold. */
export const REARM = 1.25;
/** Controller off-spells shorter than this (in steps) are merged into the surrounding on-spell. */
export const CONTROLLER_MERGE_GAP = 5;

export type EventKind = 'controller-on' | 'controller-off' | 'entropy-collapse' | 'entropy-blowup' | 'stage' | 'online-filter' | 'all-dropped';

export interface RunEvent {
  step: number;
  kind: EventKind;
  /** Short label drawn on the chart. */
  label: string;
  /** One sentence: why (the marker's tooltip). */
  detail: string;
}

/** Charts each kind is marked on (stage switches are drawn on every chart already, as S2, S3…). */
export const EVENT_CHARTS: Record<EventKind, readonly string[]> = {
  'controller-on': ['entropy', 'entropy-coeff'],
  'controller-off': ['entropy', 'entropy-coeff'],
  'entropy-collapse': ['entropy'],
  'entropy-blowup': ['entropy'],
  stage: [],
  'online-filter': ['groups'],
  'all-dropped': ['groups'],
};

// ---------------------------------------------------------------------------------------------
// Series the rules read

/** The e_k the controller reads: loss.entropy.estimator's series (falls back to actor/entropy when the sampled one is absent). */
export function controllerEntropySeries(run: RunLike): number[] {
  const sampled = run.config.loss.entropy.estimator === 'sampled';
  return run.steps.map((s) => {
    const e = sampled ? val(s, 'actor/entropy_sampled') : NaN;
    return fin(e) ? e : val(s, 'actor/entropy');
  });
}

/** Whether step i trained (a kept group); unknown (NaN) counts as trained. */
const trained = (s: StepRecord) => !(val(s, 'batch/kept_groups') === 0);

/** Groups sampled at a step: batch/groups, else (older records) kept + solved-by-all + solved-by-none in drop mode. */
function groupsSampled(run: RunLike, s: StepRecord): number {
  const g = val(s, 'batch/groups');
  if (fin(g)) return g;
  const kept = val(s, 'batch/kept_groups');
  if (run.config.rejection.mode === 'off') return kept;
  const sum = kept + val(s, 'batch/solve_all') + val(s, 'batch/solve_none');
  return run.config.rejection.mode === 'drop' && run.config.truncation.mode === 'none' ? sum : NaN;
}

/** Spans [start, end] (step numbers, inclusive) where the realised α was > 0, flicker merged. */
export function controllerSpans(run: RunLike): { start: number; end: number }[] {
  if (run.config.loss.entropy.mode !== 'adaptive') return [];
  const spans: { start: number; end: number }[] = [];
  for (const s of run.steps) {
    const a = val(s, 'actor/entropy_coeff_realized');
    if (!trained(s) || !fin(a) || a <= 0) continue;
    const last = spans[spans.length - 1];
    if (last && s.step - last.end <= CONTROLLER_MERGE_GAP) last.end = s.step;
    else spans.push({ start: s.step, end: s.step });
  }
  return spans;
}

/** Steps where α_k > 0 (trained steps only). */
function stepsOn(run: RunLike): StepRecord[] {
  return run.steps.filter((s) => trained(s) && val(s, 'actor/entropy_coeff_realized') > 0);
}

/** Moving mean of the last ENTROPY_WINDOW finite values ending at each index (NaN until there are enough). */
function movingMean(xs: readonly number[]): number[] {
  const out: number[] = [];
  const win: number[] = [];
  for (const x of xs) {
    if (fin(x)) {
      win.push(x);
      if (win.length > ENTROPY_WINDOW) win.shift();
    }
    out.push(win.length === ENTROPY_WINDOW ? mean(win) : NaN);
  }
  return out;
}

/** The collapse floor and blow-up ceiling (nats) and what they are relative to; null before ENTROPY_WINDOW steps with e_k. */
export function entropyThresholds(run: RunLike): { floor: number; ceiling: number; start: number; floorText: string; ceilingText: string } | null {
  const e = controllerEntropySeries(run).filter(fin);
  if (e.length < ENTROPY_WINDOW) return null;
  const start = mean(e.slice(0, ENTROPY_WINDOW));
  const ent = run.config.loss.entropy;
  if (ent.mode === 'adaptive') {
    const top = Math.max(start, ent.target);
    return {
      floor: COLLAPSE_FRACTION * ent.target,
      ceiling: BLOWUP_FACTOR * top,
      start,
      floorText: `half the target ${num(ent.target)}`,
      ceilingText: `twice ${top === ent.target ? `the target ${num(ent.target)}` : `the start ${num(start)}`}`,
    };
  }
  return { floor: COLLAPSE_FRACTION * start, ceiling: BLOWUP_FACTOR * start, start, floorText: `half the start ${num(start)}`, ceilingText: `twice the start ${num(start)}` };
}

// ---------------------------------------------------------------------------------------------
// Events

/** Every event of the run, in step order (see the header for the rules). */
export function runEvents(run: RunLike): RunEvent[] {
  const out: RunEvent[] = [];
  const { config: cfg, steps } = run;
  const ent = cfg.loss.entropy;
  const eSeries = controllerEntropySeries(run);
  const byStep = new Map(steps.map((s, i) => [s.step, i]));

  // Controller on / off.
  const spans = controllerSpans(run);
  const lagged = ent.gate === 'lagged';
  spans.forEach((sp) => {
    const i = byStep.get(sp.start)!;
    // The e the gate read: this step's e_k, or the previous step's under the released code's lagged gate.
    let j = i;
    if (lagged) for (j = i - 1; j >= 0 && !fin(eSeries[j]); j--);
    const e = j >= 0 ? eSeries[j] : NaN;
    out.push({
      step: sp.start,
      kind: 'controller-on',
      label: 'α on',
      detail: `Entropy control switched on at step ${sp.start}: e_${lagged ? 'k−1' : 'k'} = ${num(e)} fell below the target ${num(ent.target)}, so α = c = ${num(val(steps[i], 'actor/entropy_coeff_realized'))}.`,
    });
    const endIdx = byStep.get(sp.end)!;
    const next = steps.slice(endIdx + 1).find(trained);
    if (next) {
      const k = byStep.get(next.step)!;
      out.push({
        step: next.step,
        kind: 'controller-off',
        label: 'α off',
        detail: `Entropy control switched off at step ${next.step}: e_${lagged ? 'k−1' : 'k'} = ${num(eSeries[lagged ? endIdx : k])} is back at or above the target ${num(ent.target)}, so α = 0.`,
      });
    }
  });

  // Collapse / blow-up warnings on the moving mean.
  const th = entropyThresholds(run);
  if (th) {
    const mm = movingMean(eSeries);
    let armedLow = true;
    let armedHigh = true;
    mm.forEach((m, i) => {
      if (!fin(m)) return;
      if (armedLow && m < th.floor) {
        armedLow = false;
        out.push({ step: steps[i].step, kind: 'entropy-collapse', label: 'collapse', detail: `Entropy collapse warning at step ${steps[i].step}: the ${ENTROPY_WINDOW}-step mean of e_k (${num(m)} nats) fell below ${num(th.floor)}, ${th.floorText}.` });
      } else if (!armedLow && m >= th.floor * REARM) armedLow = true;
      if (armedHigh && m > th.ceiling) {
        armedHigh = false;
        out.push({ step: steps[i].step, kind: 'entropy-blowup', label: 'blow-up', detail: `Entropy blow-up warning at step ${steps[i].step}: the ${ENTROPY_WINDOW}-step mean of e_k (${num(m)} nats) rose above ${num(th.ceiling)}, ${th.ceilingText}.` });
      } else if (!armedHigh && m <= th.ceiling / REARM) armedHigh = true;
    });
  }

  // Stage switches and the online filter's drops there.
  for (let i = 1; i < steps.length; i++) {
    const a = val(steps[i - 1], 'stage');
    const b = val(steps[i], 'stage');
    if (!fin(a) || !fin(b) || a === b) continue;
    const len = cfg.stages[b]?.maxResponseLength;
    out.push({ step: steps[i].step, kind: 'stage', label: `S${b + 1}`, detail: `Stage ${b + 1} began at step ${steps[i].step}${len !== undefined ? `: responses may now be ${len} tokens long` : ''}.` });
    const p0 = val(steps[i - 1], 'data/pool_size');
    const p1 = val(steps[i], 'data/pool_size');
    if (fin(p0) && fin(p1) && p1 < p0) {
      out.push({
        step: steps[i].step,
        kind: 'online-filter',
        label: `−${p0 - p1} prompts`,
        detail: `Online filter at the start of stage ${b + 1} (step ${steps[i].step}): dropped ${plural(p0 - p1, 'prompt')} solved in every rollout of stage ${a + 1} (pool ${p0} → ${p1}).`,
      });
    }
  }

  // Steps where every group was dropped (consecutive ones merged).
  for (let i = 0; i < steps.length; i++) {
    if (val(steps[i], 'batch/kept_groups') !== 0) continue;
    let j = i;
    while (j + 1 < steps.length && val(steps[j + 1], 'batch/kept_groups') === 0) j++;
    const span = i === j ? `step ${steps[i].step}` : `steps ${steps[i].step}–${steps[j].step}`;
    out.push({ step: steps[i].step, kind: 'all-dropped', label: 'all dropped', detail: `No group kept at ${span}: every group was solved by all of its responses or by none (zero advantage), so there was no update.` });
    i = j;
  }

  return out.sort((x, y) => x.step - y.step);
}

/** The events marked on chart `chartId`. */
export function chartEvents(events: readonly RunEvent[], chartId: string): RunEvent[] {
  return events.filter((e) => EVENT_CHARTS[e.kind].includes(chartId));
}

// ---------------------------------------------------------------------------------------------
// Held-out accuracy

/**
 * One evaluation's standard error of avg@k: √(p(1−p)/(P·k)) over P problems × k samples, the
 * sampling-noise bound the sweeps report as "run SE" (src/sweep/stats.ts avgAtKSamplingSE).
 */
export function avgAtKSE(p: number, problems: number, k: number): number {
  if (!fin(p) || !(problems > 0) || !(k > 0)) return NaN;
  const q = Math.min(1, Math.max(0, p));
  return Math.sqrt((q * (1 - q)) / (problems * k));
}

/** The held-out trend at one temperature in words, or null when that series has no value. */
export function heldOutTrend(run: RunLike, temperature: number): string | null {
  const { k, testProblems } = run.config.eval;
  const key = evalKey('avg', k, temperature);
  const pts_ = run.evals.map((e) => ({ step: e.step, v: val(e, key) })).filter((x) => fin(x.v));
  if (!pts_.length) return null;
  const head = `Held-out avg@${k} at τ = ${formatTemperature(temperature)}`;
  const last = pts_[pts_.length - 1];
  const seLast = avgAtKSE(last.v, testProblems, k);
  if (pts_.length === 1) return `${head}: ${pct(last.v)} ± ${(100 * seLast).toFixed(1)} (SE, ${testProblems} problems × ${k}) at step ${last.step}.`;
  const first = pts_[0];
  const d = last.v - first.v;
  const seDiff = Math.hypot(avgAtKSE(first.v, testProblems, k), seLast);
  const verdict = Math.abs(d) > 2 * seDiff ? (d > 0 ? 'a real gain' : 'a real drop') : 'within noise';
  return `${head}: ${pct(first.v)} (step ${first.step}) → ${pct(last.v)} (step ${last.step}), ${pts(d)} points; the difference's SE is ${(100 * seDiff).toFixed(1)} points (${testProblems} problems × ${k} each), so this is ${verdict} (${Math.abs(d) > 2 * seDiff ? 'more' : 'not more'} than 2 SE).`;
}

// ---------------------------------------------------------------------------------------------
// One explanation per chart

export type ChartExplanations = Record<string, string>;

const NO_STEPS = 'No steps yet: press Play (or Step) and this line explains what the chart shows.';

function explainEntropy(run: RunLike, events: readonly RunEvent[]): string {
  const e = controllerEntropySeries(run);
  const finite = e.map((x, i) => ({ x, step: run.steps[i].step })).filter((p) => fin(p.x));
  if (!finite.length) return 'No entropy value in this run’s records.';
  const first = finite[0];
  const last = finite[finite.length - 1];
  const ent = run.config.loss.entropy;
  const parts = [`e_k is ${num(last.x)} nats at step ${last.step} (${num(first.x)} at step ${first.step}).`];
  if (ent.mode === 'adaptive') {
    const below = finite.filter((p) => p.x < ent.target).length;
    parts.push(`Target ${num(ent.target)}: e_k was below it on ${below} of ${plural(finite.length, 'step')}.`);
  } else if (ent.mode === 'constant') parts.push(`A constant bonus α = ${num(ent.constantCoef)} pushes entropy up on every step, whatever its level.`);
  else parts.push('No entropy term: nothing holds entropy up, so watch whether it collapses.');
  const warnings = events.filter((x) => x.kind === 'entropy-collapse' || x.kind === 'entropy-blowup');
  const th = entropyThresholds(run);
  if (warnings.length) parts.push(warnings[warnings.length - 1].detail);
  else if (th) parts.push(`No collapse or blow-up warning (the ${ENTROPY_WINDOW}-step mean stayed between ${num(th.floor)} and ${num(th.ceiling)} nats).`);
  return parts.join(' ');
}

function explainCoeff(run: RunLike, events: readonly RunEvent[]): string {
  const ent = run.config.loss.entropy;
  if (ent.mode === 'off') return 'No entropy term in this run (loss.entropy.mode = off): c = α = 0 throughout.';
  if (ent.mode === 'constant') return `Constant α = ${num(ent.constantCoef)} on every step that updates: no controller, nothing reacts to e_k.`;
  const n = run.steps.length;
  const lastStep = run.steps[n - 1];
  const c = val(lastStep, 'actor/entropy_coeff');
  const on = stepsOn(run);
  const firstOn = events.find((x) => x.kind === 'controller-on');
  if (!firstOn) {
    const c0 = val(run.steps[0], 'actor/entropy_coeff');
    // e_k under the target while c was 0 (c₀ = 0): the controller did react (c grows by Δ for the next step),
    // but α = c·1{e_k < target} was 0; said so, not "stayed above the target" beside the entropy line's count.
    const e = controllerEntropySeries(run);
    const belowAt = run.steps.filter((_, i) => fin(e[i]) && e[i] < ent.target);
    if (belowAt.length > 0) {
      const why = belowAt.every((x) => val(x, 'actor/entropy_coeff') === 0) ? `c was 0 on those steps (c starts at c₀ = ${num(c0)})` : 'no update applied it on those steps (c was 0 or no group was kept)';
      return `α stayed 0: e_k fell below the target ${num(ent.target)} on ${belowAt.length} of ${plural(n, 'step')}, but ${why}, and α = c·1{e_k < target}; c is ${num(c)} at step ${lastStep.step} (+Δ = ${num(ent.delta)} after each step below the target, −Δ otherwise, within [${num(ent.cMin)}, ${num(ent.cMax)}]).`;
    }
    return `The controller never switched on: e_k stayed at or above the target ${num(ent.target)} on all ${plural(n, 'step')}, so α = 0, and c drifted from ${num(c0)} to ${num(c)} (−Δ = ${num(ent.delta)} per step, floor c_min = ${num(ent.cMin)}).`;
  }
  const nowOn = trained(lastStep) && val(lastStep, 'actor/entropy_coeff_realized') > 0;
  return `${firstOn.detail} α was applied on ${on.length} of ${plural(n, 'step')}; at step ${lastStep.step} it is ${nowOn ? `on (α = ${num(val(lastStep, 'actor/entropy_coeff_realized'))})` : 'off (α = 0)'}, and c = ${num(c)} (moves ±Δ = ${num(ent.delta)} per step within [${num(ent.cMin)}, ${num(ent.cMax)}]).`;
}

function explainReward(run: RunLike): string {
  const parts: string[] = [];
  if (run.steps.length) parts.push(`Train reward ${num(tailMean(run.steps, 'critic/score/mean'))} (mean of ${recent(run)}; ${num(tailMean(run.steps, 'critic/score/mean', RECENT, 'start'))} over the first).`);
  const ev = run.config.eval;
  const trends = ev.temperatures.map((t) => heldOutTrend(run, t)).filter((x): x is string => x !== null);
  if (trends.length) parts.push(...trends);
  else parts.push(ev.everySteps > 0 ? `No held-out evaluation yet (every ${ev.everySteps} steps and at the end).` : 'No held-out evaluation during this run (eval every 0 steps).');
  return parts.join(' ');
}

function explainLength(run: RunLike, events: readonly RunEvent[]): string {
  const last = run.steps[run.steps.length - 1];
  const stage = val(last, 'stage');
  const limit = fin(stage) ? run.config.stages[stage]?.maxResponseLength : undefined;
  const trunc = tailMean(run.steps, 'response_length/clip_ratio');
  const mode = run.config.truncation.mode;
  const what = mode === 'none' ? 'and earn reward 0, so the policy learns to finish in time' : `and get advantage 0 (${mode})`;
  const parts = [
    `Responses average ${num(tailMean(run.steps, 'response_length/mean'))} tokens over ${recent(run)} (${num(tailMean(run.steps, 'response_length/mean', RECENT, 'start'))} over the first)${limit !== undefined ? `; the limit is ${limit} in stage ${stage + 1}` : ''}.`,
  ];
  if (fin(trunc)) parts.push(`${pct(trunc)} were truncated at the limit ${what}.`);
  const stages = events.filter((x) => x.kind === 'stage');
  if (stages.length) parts.push(stages.map((x) => x.detail).join(' '));
  return parts.join(' ');
}

function explainClip(run: RunLike): string {
  const u = run.config.update;
  const nsgd = u.miniBatches * u.reuseEpochs;
  const hi = tailMean(run.steps, 'actor/pg_clipfrac');
  const lo = tailMean(run.steps, 'actor/pg_clipfrac_lower');
  if (nsgd === 1) return `On-policy (N_SGD = 1): each rollout batch gives one update, so ρ = π_θ/π_old = 1 and the clip never acts (clipfrac ${fin(hi) ? pct(hi) : '–'}).`;
  const l = run.config.loss;
  return `Off-policy: N_SGD = ${nsgd} updates per rollout batch (${u.miniBatches} mini-batch${u.miniBatches === 1 ? '' : 'es'} × ${plural(u.reuseEpochs, 'epoch')}); after the first, π_θ drifts from π_old and ${fin(hi) ? pct(hi) : '–'} of tokens hit the upper clip 1 + ε_high = ${num(1 + l.epsHigh)}, ${fin(lo) ? pct(lo) : '–'} the lower 1 − ε_low = ${num(1 - l.epsLow)} (${recent(run)}).`;
}

function explainGroups(run: RunLike, events: readonly RunEvent[]): string {
  const s = run.steps[run.steps.length - 1];
  const total = groupsSampled(run, s);
  const kept = val(s, 'batch/kept_groups');
  const all = val(s, 'batch/solve_all');
  const none = val(s, 'batch/solve_none');
  const of = fin(total) ? ` of ${total}` : '';
  const mode = run.config.rejection.mode;
  const parts: string[] = [];
  if (kept === 0) parts.push(`Step ${s.step}: all${of} groups dropped — ${all} solved by every response, ${none} by none — so no update this step.`);
  else if (all + none === 0 && kept === total) parts.push(`Step ${s.step}: all ${total} groups kept: each had some right and some wrong answers, so every one carries a learning signal.`);
  else if (mode === 'off') parts.push(`Step ${s.step}: rejection sampling is off, so all${of} groups train, ${all + none} of them with zero advantage (${all} solved by every response, ${none} by none).`);
  else
    parts.push(
      `Step ${s.step}: ${kept}${of} groups kept: ${all} ${all === 1 ? 'was' : 'were'} solved by every response, ${none} by none${mode === 'refill' ? ' (refill rounds sampled more to replace them)' : ''}; those have zero advantage and were dropped.`,
    );
  const dropped = run.steps.filter((x) => val(x, 'batch/kept_groups') === 0).length;
  if (dropped && kept !== 0) parts.push(`${plural(dropped, 'step')} of ${run.steps.length} had every group dropped.`);
  const first = run.steps[0];
  const pool0 = val(first, 'data/pool_size');
  if (run.config.data.offlineFilter.enabled && fin(pool0) && val(first, 'stage') === 0) parts.push(`The offline filter kept ${pool0} of ${run.config.data.trainSize} training prompts (those the base solved sometimes, not always or never).`);
  const filt = events.filter((x) => x.kind === 'online-filter');
  if (filt.length) parts.push(filt.map((x) => x.detail).join(' '));
  else if (run.config.data.onlineFilter && events.some((x) => x.kind === 'stage') && fin(pool0)) parts.push('The online filter dropped no prompt at the stage starts so far (none was solved in every rollout of a stage).');
  return parts.join(' ');
}

function explainGradNorm(run: RunLike): string {
  const g = tailMean(run.steps, 'actor/grad_norm');
  if (!fin(g)) return 'No update yet, so no gradient norm.';
  const clip = run.config.update.gradClip;
  const head = `Gradient norm ${num(g)} (before clipping; mean of ${recent(run)}).`;
  if (clip === null) return `${head} No clipping in this run.`;
  const above = run.steps.filter((s) => val(s, 'actor/grad_norm') > clip).length;
  return `${head} ${above} of ${plural(run.steps.length, 'step')} went above ${num(clip)} and were scaled down to it.`;
}

function explainLr(run: RunLike): string {
  const steps = run.steps.filter((s) => fin(val(s, 'actor/lr')));
  if (!steps.length) return 'No learning rate recorded (a run made before actor/lr was logged, or no update yet).';
  const last = steps[steps.length - 1];
  const u = run.config.update;
  const ls = u.lrSchedule;
  const warm = ls.warmupSteps > 0 ? `after a linear warmup over the first ${plural(ls.warmupSteps, 'step')}, ` : '';
  const shape = ls.mode === 'cosine' ? `${warm}a cosine from ${num(u.lr)} down to ${num(u.lr * ls.minRatio)} at the last step` : `${warm}constant at ${num(u.lr)}`;
  const now = val(last, 'actor/lr');
  // An imported run (verl's own actor/lr) or a config changed mid-run: say only what was logged.
  let planned = NaN;
  try {
    planned = u.lr * lrFactor(ls, last.step, fixedRunSteps(run.config));
  } catch {
    planned = NaN;
  }
  if (!(Math.abs(planned - now) <= 1e-9 * Math.abs(now))) return `η = ${num(now)} at step ${last.step}.`;
  return `η = ${num(now)} at step ${last.step}: ${shape}.`;
}

/** One explanation per chart id (chartSpecs' ids; none for the throughput chart, whose values vary run to run). */
export function explainCharts(run: RunLike, events: readonly RunEvent[] = runEvents(run)): ChartExplanations {
  if (!run.steps.length) {
    const pending = Object.fromEntries(['entropy', 'entropy-coeff', 'length', 'clipfrac', 'groups', 'grad-norm', 'lr'].map((id) => [id, NO_STEPS]));
    // A fresh run evaluates its start weights before step 1: that point already reads.
    return { ...pending, reward: run.evals.length ? explainReward(run) : NO_STEPS };
  }
  return {
    entropy: explainEntropy(run, events),
    'entropy-coeff': explainCoeff(run, events),
    reward: explainReward(run),
    length: explainLength(run, events),
    clipfrac: explainClip(run),
    groups: explainGroups(run, events),
    'grad-norm': explainGradNorm(run),
    lr: explainLr(run),
  };
}
