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
import type { Contrast } from './card-contrast';
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
  /**
   * Where to look, each naming a chart: what it measures and how the arms differ in setup — never what the runs
   * show (that is `contrasts`, worded from the drawn data).
   */
  watch: string[];
  /** What the card compares, read from the arms' curves at render time (lib/card-contrast.ts): the card's only numbers. */
  contrasts: Contrast[];
  /** Chart ids the card is about (highlighted while it is loaded). */
  charts: string[];
  setups: ExperimentSetup[];
  /**
   * That each contrast shows at the card's rung, in its window, checked against the arms' reference runs
   * (tests/ui/try-claims.test.ts): a card whose arms could not differ is not listed with words that say they do.
   */
  claims?: Claim[];
  /** The comparison line names the step an arm's entropy collapses (the sweep's rule) and whether the other held. */
  compareCollapse?: boolean;
  /**
   * The arm shown as the active run once the arms are in (default the first): the charts draw its event marks and
   * its entropy target, so the arm the card's words are about must be it.
   */
  activeArm?: string;
}

/** A card's 80 steps (2 × SHORT_STAGE_STEPS): the window its contrasts read, in its own runs and in the 400-step references alike. */
const CARD_STEPS = { to: 2 * SHORT_STAGE_STEPS } as const;

export const EXPERIMENTS: readonly Experiment[] = [
  {
    id: 'first-look',
    title: 'A first look (tiny, seconds)',
    question: 'What does each chart show, and when does the entropy controller act?',
    watch: [
      'Read the line under each chart: it explains the run you just made.',
      'Entropy and its coefficient: B sets the target entropy to 3 nats where A keeps the preset\'s; B is shown as the active run, so the dashed line is its target and the α marks are its own.',
      'S2 marks where stage 2 begins and the response limit rises.',
    ],
    contrasts: [
      { chart: 'entropy-coeff', metric: 'actor/entropy_coeff_realized', name: 'realised α', window: 'all' },
      { chart: 'entropy', metric: 'actor/entropy', name: 'entropy', window: 'all', unit: 'nats' },
    ],
    charts: ['entropy', 'entropy-coeff', 'groups'],
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
      'Entropy against the dashed target line, and the realised α the controller adds when a step\'s entropy is under it.',
      'Groups: a group solved by all or by none of its rollouts has no advantage and is dropped; the rest are kept.',
      'Reward & held-out accuracy: the arms against their 95% bands (paper: τ = 1.0 wins later).',
    ],
    contrasts: [
      { chart: 'entropy', metric: 'actor/entropy', name: 'entropy', window: CARD_STEPS, unit: 'nats' },
      { chart: 'groups', metric: 'batch/kept_groups', name: 'kept groups per step', window: CARD_STEPS, digits: 1 },
    ],
    charts: ['entropy', 'entropy-coeff', 'groups', 'reward'],
    setups: [
      { key: 'a', label: 'A: τ = 1.0 (MAGIC)', preset: 'magic' },
      { key: 'b', label: 'B: τ = 0.6', preset: 'temp-0.6' },
    ],
    claims: [
      { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: CARD_STEPS, by: 0.02, bands: true },
      { metric: 'kept-groups', arm: 'b', relation: 'below', than: 'a', window: CARD_STEPS, by: 1, bands: true },
    ],
  },
  {
    id: 'entropy-control',
    title: 'Adaptive entropy control vs a large constant',
    question: 'What does an entropy bonus that reacts to e_k do, against one applied on every step?',
    watch: [
      'Entropy against the dashed target line: A\'s bonus acts only on steps whose entropy is under the target; C\'s (α = 0.5) on every step.',
      'Entropy coefficient: the realised α of each arm, step by step.',
      'Held-out accuracy, against the 95% bands. Against no entropy term at all, the controller matters where entropy collapses: the small-rung collapse card and the Findings tab.',
    ],
    contrasts: [
      { chart: 'entropy', metric: 'actor/entropy', name: 'entropy', window: CARD_STEPS, unit: 'nats' },
      { chart: 'entropy-coeff', metric: 'actor/entropy_coeff_realized', name: 'realised α', window: CARD_STEPS },
      { chart: 'reward', metric: 'val/avg@8/t1.0', name: 'held-out avg@k at τ = 1.0', window: CARD_STEPS },
    ],
    charts: ['entropy', 'entropy-coeff', 'reward'],
    // The arm keys stay a and c (links and lessons name them): the no-entropy-term arm b could not differ from A at
    // this rung in 80 steps, so it left this card for the collapse card at the small rung.
    setups: [
      { key: 'a', label: 'A: adaptive (MAGIC)', preset: 'magic' },
      { key: 'c', label: 'C: constant α = 0.5', preset: 'const-entropy-large' },
    ],
    claims: [
      { metric: 'entropy', arm: 'c', relation: 'above', than: 'a', window: CARD_STEPS, by: 0.5, bands: true },
      { metric: 'entropy-coeff', arm: 'c', relation: 'above', than: 'a', window: CARD_STEPS, by: 0.1, bands: true },
      { metric: 'heldout', arm: 'c', relation: 'below', than: 'a', window: CARD_STEPS, by: 0.1, bands: true },
    ],
  },
  {
    id: 'off-policy',
    title: 'On-policy vs off-policy updates',
    question: 'What changes when each rollout batch is used for 4 optimizer steps instead of 1?',
    watch: [
      'Clip fractions: the share of tokens whose ratio ρ = π/π_old was clipped; with one update per batch ρ = 1.',
      'Grad norm: the size of each update before clipping.',
      'Entropy against the dashed target line (paper finding 3: off-policy updates speed its fall; the off-policy finding in the Findings tab tests it over the whole schedule).',
    ],
    contrasts: [
      { chart: 'clipfrac', metric: 'actor/pg_clipfrac', name: 'clip fraction', window: CARD_STEPS, digits: 4 },
      { chart: 'grad-norm', metric: 'actor/grad_norm', name: 'grad norm', window: CARD_STEPS },
    ],
    charts: ['clipfrac', 'grad-norm', 'entropy'],
    setups: [
      { key: 'a', label: 'A: on-policy (N_SGD = 1)', preset: 'magic' },
      { key: 'b', label: 'B: off-policy (N_SGD = 4)', preset: 'off-policy-nsgd4' },
    ],
    claims: [
      { metric: 'clipfrac', arm: 'b', relation: 'above', than: 'a', window: CARD_STEPS, by: 0.003, bands: true },
      { metric: 'grad-norm', arm: 'b', relation: 'above', than: 'a', window: CARD_STEPS, by: 0.2, bands: true },
    ],
  },
  {
    id: 'filtering',
    title: 'Prompt filtering and rejection sampling',
    question: 'Which groups carry a learning signal, and what does dropping the others do?',
    watch: [
      'Groups: with rejection (A) only groups with mixed rewards are kept; without it (B) every group trains, zero-advantage ones included.',
      'Groups at S2: the online filter drops prompts solved in every rollout of stage 1 (a "−n prompts" mark).',
      'Grad norm and entropy: zero-advantage groups add no policy gradient but still carry the entropy term.',
    ],
    contrasts: [
      { chart: 'groups', metric: 'batch/kept_groups', name: 'kept groups per step', window: CARD_STEPS, digits: 1 },
      { chart: 'grad-norm', metric: 'actor/grad_norm', name: 'grad norm', window: CARD_STEPS },
      { chart: 'entropy', metric: 'actor/entropy', name: 'entropy', window: CARD_STEPS, unit: 'nats' },
    ],
    charts: ['groups', 'grad-norm', 'entropy'],
    setups: [
      { key: 'a', label: 'A: rejection on (MAGIC)', preset: 'magic' },
      { key: 'b', label: 'B: rejection off', preset: 'no-rejection' },
    ],
    claims: [
      { metric: 'kept-groups', arm: 'b', relation: 'above', than: 'a', window: CARD_STEPS, by: 3, bands: true },
      { metric: 'grad-norm', arm: 'b', relation: 'below', than: 'a', window: CARD_STEPS, by: 0.1, bands: true },
      { metric: 'entropy', arm: 'b', relation: 'above', than: 'a', window: CARD_STEPS, by: 0.02, bands: true },
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
