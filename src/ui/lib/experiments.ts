/**
 * "Try this": guided experiments. Each card compares two or three setups built from the existing
 * presets (the paper's ablations), says what to watch, and loads a setup in one click. Every setup
 * is a link — the page's own config encoding (lib/url.ts) plus try=<card>.<setup> — so a card can
 * be shared or put on a worksheet.
 *
 * Sizes: a full-size preset runs 2 × 200 steps; the cards shorten it to 2 × SHORT_STAGE_STEPS
 * (same response lengths and batch, so the offline-filter result stored in the shipped base still
 * applies and the run starts at once) — a few minutes on a laptop. The first card uses the -tiny
 * presets (4 steps, seconds) to show what the page explains before anything is learnt.
 */
import { DEFAULT_RUNG, getPreset, validateRunConfig, type RunConfig, type RunConfigInput, type RungName } from '../../rl/config';
import { presetAtRung } from './rungs';
import { withTeaching } from './teach';
import type { Claim } from './try-claims';
import { urlSearchFor } from './url';

/** Steps per stage in the cards' full-size setups (2 stages, held-out evaluation every 20 steps). */
export const SHORT_STAGE_STEPS = 40;

export interface ExperimentSetup {
  /** 'a', 'b', 'c': the setup's id within its card (try=<card>.<key>). */
  key: string;
  label: string;
  preset: string;
  /** Changes over the preset (merged by validateRunConfig); the stage schedule is shortened separately. */
  overrides?: (base: RunConfig) => RunConfigInput;
  /** Keep the preset's stage lengths (the -tiny presets are short already). */
  fullSchedule?: boolean;
  /** The preset in public/reference/ that runs this arm's setup (default: `preset` when there are no overrides). */
  ref?: string;
  /**
   * The model rung the arm trains at (default tiny): it starts from that rung's base, the link
   * carries rung=, and its reference runs are read from that rung's files only.
   */
  rung?: RungName;
}

export interface Experiment {
  id: string;
  title: string;
  /** The question the card asks, in a sentence. */
  question: string;
  /** What to look at once the runs are in (each sentence names a chart). */
  watch: string[];
  /** Chart ids the card is about (highlighted while it is loaded). */
  charts: string[];
  /** Rough wall time of one setup on a laptop. */
  time: string;
  setups: ExperimentSetup[];
  /** What `watch` says about the arms, checked against their reference runs (tests/ui/try-claims.test.ts). */
  claims?: Claim[];
  /** The comparison line names the step an arm's entropy collapses (the sweep's rule) and whether the other held. */
  compareCollapse?: boolean;
  /**
   * The arm shown as the active run once the arms are in (default the first): the charts draw its event marks and
   * its entropy target, so the arm the card's words are about must be it.
   */
  activeArm?: string;
}

export const EXPERIMENTS: readonly Experiment[] = [
  {
    id: 'first-look',
    title: 'A first look (tiny, seconds)',
    question: 'What does each chart show, and when does the entropy controller act?',
    watch: [
      'Read the line under each chart: it explains the run you just made.',
      'B sets the target entropy above anything this policy reaches, so e_k is below it from step 1: B is shown as the active run, with its target (3 nats, the dashed line) and an "α on" mark at step 1 on the entropy charts; A, overlaid, has no mark.',
      'S2 marks where stage 2 begins and the response limit rises.',
    ],
    charts: ['entropy', 'entropy-coeff', 'groups'],
    time: 'seconds',
    setups: [
      { key: 'a', label: 'A: MAGIC, tiny', preset: 'magic-tiny', fullSchedule: true },
      { key: 'b', label: 'B: target entropy 3 nats', preset: 'magic-tiny', fullSchedule: true, overrides: () => ({ loss: { entropy: { target: 3 } } }) },
    ],
    activeArm: 'b',
  },
  {
    id: 'temperature',
    title: 'High-temperature rollouts: τ = 1.0 vs 0.6',
    question: 'Does sampling rollouts at a lower temperature make entropy collapse?',
    watch: [
      'Entropy: τ = 0.6 starts lower than τ = 1.0, still above the 0.1 target, and stays lower (the line under this card gives both arms\' numbers from the curves drawn); its realized α is larger over the first 80 steps (α marks).',
      'Groups: at low entropy more groups are solved by all or by none, and are dropped.',
      'Reward & held-out accuracy: compare avg@8 at τ = 1.0 at the end, against its SE (paper: τ = 1.0 wins later).',
    ],
    charts: ['entropy', 'entropy-coeff', 'groups', 'reward'],
    time: 'a few minutes each',
    setups: [
      { key: 'a', label: 'A: τ = 1.0 (MAGIC)', preset: 'magic' },
      { key: 'b', label: 'B: τ = 0.6', preset: 'temp-0.6' },
    ],
    claims: [
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: 'start' },
      { metric: 'entropy', arm: 'b', relation: 'above-target', window: 'start' },
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: { to: 80 } },
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: 'end' },
      { metric: 'entropy-coeff', arm: 'b', relation: 'above', than: 'a', window: { to: 80 } },
      { metric: 'heldout', arm: 'a', relation: 'above', than: 'b', window: 'end' },
    ],
  },
  {
    id: 'entropy-control',
    title: 'Adaptive entropy control vs a large constant',
    question: 'What does an entropy bonus that reacts to e_k do, against one applied on every step?',
    watch: [
      'Entropy against the dashed target line: A (adaptive) stays near its start, above the target, while C (constant α = 0.5) climbs far above it (a blow-up warning mark).',
      'Entropy coefficient: A\'s α is on only now and then (when a step\'s e_k dips below the target); C\'s α is 0.5 from the first step.',
      'Held-out accuracy: C falls towards 0 while A holds. What the adaptive controller does against no entropy term at all shows where entropy collapses: the small-rung collapse card and Findings 1 and 2 (at this rung, in 80 steps, the two would follow the same path).',
    ],
    charts: ['entropy', 'entropy-coeff', 'reward'],
    time: 'a few minutes each',
    // The arm keys stay a and c (links and lessons name them); the no-entropy-term arm that was b could not differ
    // from A at this rung in 80 steps (the controller rarely acts), so one line hid the other.
    setups: [
      { key: 'a', label: 'A: adaptive (MAGIC)', preset: 'magic' },
      { key: 'c', label: 'C: constant α = 0.5', preset: 'const-entropy-large' },
    ],
    claims: [
      { metric: 'entropy', arm: 'a', relation: 'never-below-target', window: 'all' },
      { metric: 'entropy-coeff', arm: 'a', relation: 'nonzero', window: { to: 80 } },
      { metric: 'entropy-coeff', arm: 'c', relation: 'above', than: 'a', window: 'start', by: 0.4 },
      { metric: 'entropy', arm: 'c', relation: 'above', than: 'a', window: { to: 80 }, by: 0.5 },
      { metric: 'heldout', arm: 'c', relation: 'below', than: 'a', window: 'end', by: 0.3 },
    ],
  },
  {
    id: 'off-policy',
    title: 'On-policy vs off-policy updates',
    question: 'What changes when each rollout batch is used for 4 optimizer steps instead of 1?',
    watch: [
      'Clip fractions: 0 on-policy (ρ = 1); off-policy the ratio drifts and tokens get clipped.',
      'Entropy: off-policy updates push it down faster (paper finding 3).',
      'Tokens/s: 4 updates per batch cost more compute per step.',
    ],
    charts: ['clipfrac', 'entropy', 'throughput'],
    time: 'a few minutes each',
    setups: [
      { key: 'a', label: 'A: on-policy (N_SGD = 1)', preset: 'magic' },
      { key: 'b', label: 'B: off-policy (N_SGD = 4)', preset: 'off-policy-nsgd4' },
    ],
    claims: [
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: { to: 80 } },
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: 'end' },
    ],
  },
  {
    id: 'filtering',
    title: 'Prompt filtering and rejection sampling',
    question: 'Which groups carry a learning signal, and what does dropping the others do?',
    watch: [
      'Groups: with rejection (A) only mixed groups are kept; without it (B) every group trains, zero-advantage ones included.',
      'Groups at S2: the online filter drops prompts solved in every rollout of stage 1 (a "−n prompts" mark).',
      'Entropy: zero-advantage groups add no policy gradient, but still carry the entropy term; in the reference runs B starts higher and ends lower than A.',
    ],
    charts: ['groups', 'entropy', 'grad-norm'],
    time: 'a few minutes each',
    setups: [
      { key: 'a', label: 'A: rejection on (MAGIC)', preset: 'magic' },
      { key: 'b', label: 'B: rejection off', preset: 'no-rejection' },
    ],
    claims: [
      { metric: 'entropy', arm: 'b', relation: 'above', than: 'a', window: 'start' },
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: 'end' },
    ],
  },
];

/** The rung an arm trains at (tiny unless it names one). */
export const setupRung = (setup: Pick<ExperimentSetup, 'rung'>): RungName => setup.rung ?? DEFAULT_RUNG;

export function findExperiment(tryId: string | null): { experiment: Experiment; setup: ExperimentSetup } | null {
  if (!tryId) return null;
  const [id, key] = tryId.split('.');
  const experiment = EXPERIMENTS.find((e) => e.id === id);
  const setup = experiment?.setups.find((s) => s.key === key);
  return experiment && setup ? { experiment, setup } : null;
}

/** The reference preset that runs this arm (null: none can, e.g. overrides without a `ref`). */
export const setupRefPreset = (setup: ExperimentSetup): string | null => setup.ref ?? (setup.overrides || setup.preset.endsWith('-tiny') ? null : setup.preset);

/** The setup's config: its preset (at its rung), the overrides, and (full-size presets) the shortened schedule. */
export function experimentConfig(setup: ExperimentSetup): RunConfig {
  const base = setup.rung ? getPreset(presetAtRung(setup.preset, setup.rung), setup.rung) : getPreset(setup.preset);
  let cfg = validateRunConfig(setup.overrides?.(base) ?? {}, base);
  if (!setup.fullSchedule) cfg = validateRunConfig({ stages: cfg.stages.map((s) => ({ ...s, steps: SHORT_STAGE_STEPS, convergence: null })) }, cfg);
  return cfg;
}

/** The setup's link (query string): preset, the config's diff from it, try=<card>.<setup>; `current`'s page parameters (backend, teacher, hide) kept. */
export function experimentSearch(experiment: Experiment, setup: ExperimentSetup, current = ''): string {
  return withTeaching(urlSearchFor(experimentConfig(setup), setup.preset, current, setup.rung), { tryId: `${experiment.id}.${setup.key}` });
}
