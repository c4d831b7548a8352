/**
 * Try-this cards taken at a model rung other than tiny, which join the page's list only once
 * their rung's reference runs ship. The collapse card shows entropy collapse beside control at
 * the small rung, where the collapse regime is; its reference runs come from
 * `magic-lab ablate entropy-control --rung small --seeds 5 --reference`, which writes
 * public/reference/entropy-control-small.json and its index entry (rung: "small").
 *
 * Why a gate rather than a card in EXPERIMENTS: a card may claim only what its reference runs show
 * (tests/ui/try-claims.test.ts), and a card whose rung's file is missing is an error there, not a
 * skip. So the card waits here; `experimentsFor(index entries)` lists it as soon
 * as the reference index the page (or the test) reads names entropy-control at the small rung —
 * dropping the real file and its entry in needs no code change.
 */
import type { RungName, RunConfigInput } from '../../rl/config';
import { referenceNameAt, referenceRung, type ReferenceIndexEntry } from '../../sweep/reference-format';
import { EXPERIMENTS, findExperiment, type Experiment, type ExperimentSetup } from './experiments';

const entropyOff = (): RunConfigInput => ({ loss: { entropy: { mode: 'off' } } });

export const COLLAPSE_CARD: Experiment = {
  id: 'collapse',
  title: 'Entropy collapse: MAGIC vs its no-control twin (small rung)',
  question: 'Without its entropy term, does MAGIC\'s entropy collapse — and does the controller prevent it?',
  watch: [
    'Entropy against the dashed target line: B (the entropy term off) falls through the target and stays below it — the line under this card names the step, by the sweep\'s collapse rule (10-step mean below the target for at least 50 steps). A\'s controller starts at c = 0, so A dips under the target too, but it switches on within about 20 steps and brings entropy back: A never stays below for 50 steps.',
    'Entropy coefficient: A\'s α switches on as its entropy nears the target; B has none.',
    'Reward: compare the arms at the end, against their 95% bands; whether the collapse costs B held-out accuracy at this rung is what the entropy-control finding measures (Findings tab).',
  ],
  charts: ['entropy', 'entropy-coeff', 'reward'],
  time: 'reference runs: at once; training an arm at the small rung takes far longer than a tiny card',
  setups: [
    { key: 'a', label: 'A: MAGIC (small rung)', preset: 'magic', rung: 'small', fullSchedule: true },
    { key: 'b', label: 'B: entropy term off (small rung)', preset: 'magic', rung: 'small', fullSchedule: true, overrides: entropyOff, ref: 'entropy-off' },
  ],
  compareCollapse: true,
  claims: [
    { metric: 'entropy', arm: 'b', relation: 'collapses', window: 'all' },
    { metric: 'entropy', arm: 'a', relation: 'never-collapses', window: 'all' },
    { metric: 'entropy', arm: 'b', relation: 'below', than: 'a', window: 'end' },
    { metric: 'entropy-coeff', arm: 'a', relation: 'nonzero', window: 'all' },
    { metric: 'entropy-coeff', arm: 'b', relation: 'zero', window: 'all' },
  ],
};

/** A card waiting for its rung's reference runs: the finding whose file it reads, and the rung. */
export interface RungCard {
  experiment: Experiment;
  reference: string;
  rung: RungName;
}

export const RUNG_CARDS: readonly RungCard[] = [{ experiment: COLLAPSE_CARD, reference: 'entropy-control', rung: 'small' }];

/** Whether the index lists the card's reference file at its rung (<reference>-<rung>, rung marked). */
export const rungCardReady = (c: RungCard, entries: readonly ReferenceIndexEntry[]): boolean =>
  entries.some((x) => x.name === referenceNameAt(c.reference, c.rung) && referenceRung(x) === c.rung);

/** The collapse card's gate: public/reference/index.json lists entropy-control at the small rung. */
export const COLLAPSE_CARD_READY = (entries: readonly ReferenceIndexEntry[]): boolean => rungCardReady(RUNG_CARDS[0], entries);

/**
 * The cards the page lists: EXPERIMENTS, and each rung card once the reference index lists its
 * rung's reference runs.
 */
export function experimentsFor(entries: readonly ReferenceIndexEntry[]): readonly Experiment[] {
  const ready = RUNG_CARDS.filter((c) => rungCardReady(c, entries)).map((c) => c.experiment);
  return ready.length ? [...EXPERIMENTS, ...ready] : EXPERIMENTS;
}

/** findExperiment over every card, rung cards included: a rung card's link loads its setup before its reference runs ship (training needs none). */
export function findCard(tryId: string | null): { experiment: Experiment; setup: ExperimentSetup } | null {
  const found = findExperiment(tryId);
  if (found || !tryId) return found;
  const [id, key] = tryId.split('.');
  const experiment = RUNG_CARDS.find((c) => c.experiment.id === id)?.experiment;
  const setup = experiment?.setups.find((s) => s.key === key);
  return experiment && setup ? { experiment, setup } : null;
}
