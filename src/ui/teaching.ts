/**
 * The page's teaching actions (beside lab.ts, which owns the Worker): load a Try-this setup, set
 * what teacher mode hides, point at a config field. They keep the URL in step (lib/teach.ts), so
 * the address bar is always the link to share.
 */
import { experimentConfig, experimentSearch, type Experiment, type ExperimentSetup } from './lib/experiments';
import { withTeaching } from './lib/teach';
import { reset } from './lab';
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
  s.loadSetup(setup.preset, config);
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
