/**
 * The rung selector's controller: picking a rung loads the preset at it and asks the Worker to time
 * it on the open engine (`measure-step`), once per engine and rung for the page's session (the
 * store keeps the answers); an on-demand base's download progress goes to the store too.
 */
import { getPreset, type RungName } from '../../rl/config';
import type { FromWorker, ToWorker } from '../../worker/protocol';
import { presetAtRung, stepEstimateKey } from '../lib/rungs';

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
    get().setStepEstimate(m.key, 'error' in m ? { status: 'error', message: m.error } : { status: 'ready', seconds: m.seconds, engine: m.engine });
  }

  /** A restarted Worker never answers the old one's requests: measure those again when asked. */
  function forgetPending(): void {
    const s = get();
    for (const [key, e] of Object.entries(s.stepEstimates)) if (e.status === 'measuring') s.setStepEstimate(key, { status: 'error', message: 'the engine was restarted' });
  }

  return { measure, pick, onMessage, forgetPending };
}
