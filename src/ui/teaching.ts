/**
 * The page's teaching actions (beside lab.ts, which owns the Worker): load a Try-this setup, set
 * what teacher mode hides, point at a config field. They keep the URL in step (lib/teach.ts), so
 * the address bar is always the link to share.
 */
import { experimentConfig, experimentSearch, type Experiment, type ExperimentSetup } from './lib/experiments';
import { LESSON_PARAM, loadLesson } from './lib/lesson';
import { presetAtRung } from './lib/rungs';
import { withTeaching } from './lib/teach';
import { ALL_CARDS } from './lib/collapse-card';
import { activeArmIndex, cardQueueName, cardReferenceEntries, cardReferenceFile, planCardQueue } from './lib/try-play';
import { loadReference, reset, startQueue } from './lab';
import { isLive, useLab } from './store';

const replaceSearch = (search: string) => {
  if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
};

/** Loads a Try-this setup into the editor (a live run is stopped first; it stays in the run list). */
export function loadExperiment(experiment: Experiment, setup: ExperimentSetup): void {
  const s = useLab.getState();
  if (isLive(s.runState)) reset();
  const config = experimentConfig(setup);
  // The URL first: lab.ts's URL sync keeps the page parameters (try=) of the current address.
  replaceSearch(experimentSearch(experiment, setup, location.search));
  s.setTeaching({ tryId: `${experiment.id}.${setup.key}` });
  // A rung card's arm: the preset at that rung (the store's rung, rung= in the URL; its base is the rung's).
  if (setup.rung) s.loadSetup(presetAtRung(setup.preset, setup.rung), config, null, setup.rung);
  else s.loadSetup(setup.preset, config);
  s.setView('training');
}

/** Forgets the loaded Try-this setup (the config stays). */
export function clearExperiment(): void {
  useLab.getState().setTeaching({ tryId: null });
  replaceSearch(withTeaching(location.search, { tryId: null }));
}

/** Teacher mode: the controls to leave out. */
export function setHidden(ids: readonly string[]): void {
  const s = useLab.getState();
  s.setTeaching({ hidden: [...ids] });
  if (ids.includes('findings') && s.view === 'findings') s.setView('training');
  replaceSearch(withTeaching(location.search, { hidden: ids }));
}

// ---------------------------------------------------------------------------------------------
// One-click contrasts: a card's arms run back to back (the run queue), or their reference runs.

const isCardReference = (name: string | null) => !!name && name.startsWith('try:');

/** Overlays the played card's arm runs: the queue's run ids, the first arm active once all are in. */
function syncCardOverlay(): void {
  const s = useLab.getState();
  const p = s.tryPlay;
  const q = s.queue;
  if (!p || p.mode !== 'runs' || !q || q.reference !== cardQueueName({ id: p.cardId })) return;
  const ids = q.items.map((x) => x.runId).filter((x): x is string => !!x && !!s.runs[x]);
  if (!ids.length) return;
  // Once every arm is in, the card's active arm (its marks and target are what the card's words describe).
  const card = ALL_CARDS.find((e) => e.id === p.cardId);
  const wanted = card && ids.length === q.items.length ? ids[activeArmIndex(card, p.keys)] : ids[0];
  const active = q.status === 'running' && s.activeRunId && ids.includes(s.activeRunId) ? s.activeRunId : wanted;
  const overlay = ids.filter((x) => x !== active);
  if (active !== s.activeRunId || overlay.join() !== s.overlay.join()) useLab.setState({ activeRunId: active, overlay });
}
useLab.subscribe((s, prev) => {
  if (s.queue !== prev.queue || s.tryPlay !== prev.tryPlay) syncCardOverlay();
});

/**
 * "Run both": queues the card's arms (`keys`: a lesson's subset), reusing a finished run of an
 * identical setup, and overlays them; the previous card's overlays (runs or reference) go.
 */
export function playCard(e: Experiment, keys?: readonly string[]): void {
  const s = useLab.getState();
  if (s.device.status !== 'ready') return s.setError('The engine is not ready yet.');
  if (isCardReference(s.overlayReference)) s.setOverlayReference(null);
  const q = planCardQueue(e, s.runs, s.order, keys);
  useLab.setState({ overlay: [] });
  s.setTeaching({ tryPlay: { cardId: e.id, mode: 'runs', ...(keys ? { keys } : {}) } });
  s.setView('training');
  startQueue(q);
  syncCardOverlay();
}

/** "Show reference runs instead": the arms' shipped reference curves (public/reference/) overlaid at once. */
export async function showCardReference(e: Experiment, keys?: readonly string[]): Promise<void> {
  const s = useLab.getState();
  const idx = s.referenceIndex;
  const entries = idx.status === 'ready' ? cardReferenceEntries(e, idx.index.entries, keys) : null;
  if (!entries) return s.setError(`No reference runs hold every arm of "${e.title}".`);
  const files = (await Promise.all(entries.map((x) => loadReference(x.name)))).filter((f) => f !== null);
  const file = cardReferenceFile(e, files, keys);
  if (!file) return useLab.getState().setError(`The reference runs of "${e.title}" could not be loaded.`);
  const now = useLab.getState();
  now.setReferenceFile(file.name, { status: 'ready', file });
  now.setOverlayReference(file.name);
  useLab.setState({ overlay: [] });
  now.setTeaching({ tryPlay: { cardId: e.id, mode: 'reference', ...(keys ? { keys } : {}) } });
  now.setView('training');
}

// ---------------------------------------------------------------------------------------------
// Lessons (lib/lesson.ts): lesson= in the URL; "next" steps through its cards.

/** Opens the lesson of the page's lesson= (if any): its hidden controls, its first card. Bad input: one error naming the field. */
export async function openLessonFromUrl(search = location.search): Promise<void> {
  const value = new URLSearchParams(search).get(LESSON_PARAM);
  if (!value) return;
  try {
    const lesson = await loadLesson(value, fetch, import.meta.env.BASE_URL);
    if (lesson.hidden.length) setHidden(lesson.hidden);
    useLab.getState().setTeaching({ lesson: { lesson, at: 0 } });
  } catch (e) {
    useLab.getState().setError((e as Error).message);
  }
}

/** Teacher mode's "next": the lesson's next card (the overlays of the last one cleared). */
export function nextLessonCard(): void {
  const s = useLab.getState();
  if (!s.lesson) return;
  const at = Math.min(s.lesson.at + 1, s.lesson.lesson.cards.length - 1);
  if (isCardReference(s.overlayReference)) s.setOverlayReference(null);
  if (s.tryPlay) useLab.setState({ overlay: [] });
  s.setTeaching({ lesson: { ...s.lesson, at }, tryPlay: null });
}

/** The lesson card the page stands at, with its card. */
export function lessonCardAt(l: { lesson: { cards: { card: string; arms?: string[]; questions: string[] }[] }; at: number } | null) {
  const c = l?.lesson.cards[l.at];
  const e = c ? ALL_CARDS.find((x) => x.id === c.card) : undefined;
  return c && e ? { card: c, experiment: e } : null;
}
