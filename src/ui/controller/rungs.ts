/**
 * The rung selector's controller: picking a rung loads the preset at it and asks the Worker to time
 * it on the open engine (`measure-step`), once per engine and rung for the page's session (the
 * store keeps the answers, and `keep` stores the measured ones in localStorage, lib/step-estimates.ts, so
 * estimates after a reload use them); an on-demand base's download progress goes to the store too.
 */
import type { RunData } from '../../io/runfile';
import { getPreset, rungBaseConfig, rungOf, type RungName } from '../../rl/config';
import { measuredStepSeconds, sameStepShape } from '../lib/run-time';
import type { FromWorker, ToWorker } from '../../worker/protocol';
import { presetAtRung, stepEstimateKey } from '../lib/rungs';
import { mergeStoredEstimates, parseStepEstimates, STEP_ESTIMATES_KEY, stepEstimatesText } from '../lib/step-estimates';
import type { KeyValueStorage } from './visits';

export { baseCheckpointUrl } from '../lib/rungs';
import type { Lab } from './lab-store';

export function rungControl(store: Lab, send: (m: ToWorker) => void) {
  const get = () => store.getState();

  /** Asks for `rung`'s s/step on the open engine unless it is known or being measured (no engine yet: nothing). */
  function measure(rung: RungName): void {
    const s = get();
    if (s.device.status !== 'ready') return;
    const key = stepEstimateKey(s.device.engine.description, rung);
    const have = s.stepEstimates[key];
    if (have && have.status !== 'error') return;
    s.setStepEstimate(key, { status: 'measuring' });
    try {
      send({ type: 'measure-step', key, config: getPreset(presetAtRung(s.preset, rung), rung) });
    } catch (e) {
      s.setStepEstimate(key, { status: 'error', message: (e as Error).message });
    }
  }

  /** Loads the current preset at `rung` (when it fits: else the store's rungError says why) and measures it. */
  function pick(rung: RungName): void {
    get().setRung(rung);
    measure(rung);
  }

  /** The Worker's speed answers and base-download progress. */
  function onMessage(m: Extract<FromWorker, { type: 'step-estimate' | 'base-progress' }>): void {
    if (m.type === 'base-progress') return get().setBaseDownload(m.total > 0 && m.loaded >= m.total ? null : { loaded: m.loaded, total: m.total });
    // A figure calibrated from a run's own steps is not replaced by a benchmark that answers later.
    const have = get().stepEstimates[m.key];
    if (have?.status === 'ready' && have.measuredSteps) return;
    get().setStepEstimate(m.key, 'error' in m ? { status: 'error', message: m.error } : { status: 'ready', seconds: m.seconds, engine: m.engine });
  }

  /**
   * A run's own steps calibrate its rung's figure (the short benchmark can be off by a factor of two or more):
   * once it has CALIBRATION_STEPS timed steps at the rung's rollouts per step, their median replaces it.
   */
  function calibrate(run: RunData): void {
    const s = get();
    const rung = rungOf(run.config);
    if (rung === null || s.device.status !== 'ready' || !sameStepShape(run.config, rungBaseConfig(rung))) return;
    const m = measuredStepSeconds(run.steps as unknown as Record<string, number>[]);
    if (!m) return;
    const key = stepEstimateKey(s.device.engine.description, rung);
    const have = s.stepEstimates[key];
    if (have?.status === 'ready' && have.measuredSteps === m.steps && have.seconds === m.seconds) return;
    s.setStepEstimate(key, { status: 'ready', seconds: m.seconds, engine: s.device.engine.description, measuredSteps: m.steps });
  }

  /** A restarted Worker never answers the old one's requests: measure those again when asked. */
  function forgetPending(): void {
    const s = get();
    for (const [key, e] of Object.entries(s.stepEstimates)) if (e.status === 'measuring') s.setStepEstimate(key, { status: 'error', message: 'the engine was restarted' });
  }

  /**
   * Figures measured in an earlier visit (same engine and rung) come back from `storage`, and every
   * figure measured from now on is written there: a reload shows times before anything is timed again.
   * Storage refused (private window, quota) only loses the memory.
   */
  function keep(storage: KeyValueStorage | null): () => void {
    if (!storage) return () => {};
    let last = '';
    const write = (all: Parameters<typeof stepEstimatesText>[0]) => {
      const text = stepEstimatesText(all);
      if (text === last) return;
      last = text;
      try {
        storage.setItem(STEP_ESTIMATES_KEY, text);
      } catch {
        /* not kept: the figures stay for this session */
      }
    };
    let stored = {};
    try {
      stored = parseStepEstimates(storage.getItem(STEP_ESTIMATES_KEY));
    } catch {
      stored = {};
    }
    const now = get().stepEstimates;
    for (const [key, e] of Object.entries(mergeStoredEstimates(now, stored))) if (e !== now[key]) get().setStepEstimate(key, e);
    last = stepEstimatesText(get().stepEstimates);
    return store.subscribe((s, prev) => {
      if (s.stepEstimates !== prev.stepEstimates) write(s.stepEstimates);
    });
  }

  return { measure, pick, onMessage, forgetPending, calibrate, keep };
}
