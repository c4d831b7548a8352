/**
 * What the page says at start about the runs it finds: the browser's storage cleared
 * or evicted since the last visit, a linked run that is not here, a run whose tab closed mid-run.
 * The page remembers in localStorage that it saved runs (IndexedDB can be evicted or cleared on
 * its own); `storage` is injectable, and a browser without it only loses the first sentence.
 */
import type { RunData } from '../../io/runfile';

const SAVED_KEY = 'magic-lab:runs-saved';

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Whether this browser has saved runs before (a marker beside IndexedDB). */
export class SavedRunsMarker {
  constructor(private readonly storage: KeyValueStorage | null) {}

  private safely<T>(f: (s: KeyValueStorage) => T, otherwise: T): T {
    try {
      return this.storage ? f(this.storage) : otherwise;
    } catch {
      return otherwise; // storage refused (private window, quota): the marker is only a hint
    }
  }

  saved(): void {
    this.safely((s) => s.setItem(SAVED_KEY, '1'), undefined);
  }

  /** The user deleted every run, or the page has said they are gone. */
  forget(): void {
    this.safely((s) => s.removeItem(SAVED_KEY), undefined);
  }

  hadRuns(): boolean {
    return this.safely((s) => s.getItem(SAVED_KEY) === '1', false);
  }
}

/** The page's sentence about the runs found at start, or null when there is nothing to say. */
export function startSentence(o: { runs: RunData[]; hadRuns: boolean; wanted: string | null; interrupted: RunData[] }): string | null {
  const wantedMissing = o.wanted !== null && !o.runs.some((r) => r.id === o.wanted);
  if (o.runs.length === 0 && o.hadRuns) {
    const linked = wantedMissing ? `, run ${o.wanted} from this link among them` : '';
    return `The runs saved in this browser are gone${linked}: the site's storage was cleared or evicted since the last visit; new runs train and save as before.`;
  }
  if (wantedMissing) return `Run ${o.wanted} from this link is not in this browser's storage: it was saved in another browser, deleted, or the storage was cleared since.`;
  if (o.interrupted.length) return interruptedSentence(o.interrupted);
  return null;
}

/** Runs left unfinished by a tab that closed (no tab holds their lock): where each can go on from (at most 3 named). */
export function interruptedSentence(runs: RunData[]): string {
  const one = (r: RunData) => {
    const last = r.steps.length ? r.steps[r.steps.length - 1].step : 0;
    return r.checkpointStep !== undefined
      ? `${r.name} did not finish (it stopped at step ${last}, in a tab now closed); resume @${r.checkpointStep} continues it from its last saved checkpoint`
      : `${r.name} did not finish (it stopped at step ${last}, in a tab now closed) and has no checkpoint; its records are kept`;
  };
  const more = runs.length > 3 ? `; and ${runs.length - 3} more` : '';
  return `${runs.slice(0, 3).map(one).join('; ')}${more}.`;
}

/** A run another tab left unfinished: not done, with steps, and not live in any tab (`free`). */
export function unfinished(run: RunData): boolean {
  return !run.done && run.steps.length > 0;
}
