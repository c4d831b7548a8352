/** The page's address follows the draft config and its rung (a shared link opens the same setup). */
import { urlSearchFor } from '../lib/url';
import type { Lab } from './lab-store';

/** What is read and written of the page's address (window.location and window.history have it). */
export interface PageAddress {
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
}
export interface PageHistory {
  replaceState(data: unknown, unused: string, url: string): void;
}

/** Replaces the address's query with `search` (no history entry) when it differs. */
export function replaceSearch(search: string, loc: PageAddress = location, hist: PageHistory = history): void {
  if (search !== loc.search) hist.replaceState(null, '', `${loc.pathname}${search}${loc.hash}`);
}

/** Keeps the URL in step with the draft config; returns the unsubscribe. */
export function syncUrl(store: Pick<Lab, 'subscribe'>, loc: PageAddress = location, hist: PageHistory = history): () => void {
  let last = '';
  return store.subscribe((s) => {
    if (s.configError) return;
    let search: string;
    try {
      search = urlSearchFor(s.draft, s.preset, loc.search, s.rung);
    } catch {
      return;
    }
    if (search === last) return;
    last = search;
    replaceSearch(search, loc, hist);
  });
}
