import { describe, expect, it } from 'vitest';
import { replaceSearch, syncUrl } from '../../../src/ui/controller/url-sync';
import { urlSearchFor } from '../../../src/ui/lib/url';
import { createLabStore } from '../../../src/ui/store';

function page(search = '') {
  const loc = { pathname: '/lab/', search, hash: '#x' };
  const urls: string[] = [];
  const hist = {
    replaceState: (_d: unknown, _u: string, url: string) => {
      urls.push(url);
      loc.search = url.slice(loc.pathname.length, url.indexOf('#'));
    },
  };
  return { loc, hist, urls };
}

describe('the URL follows the draft config', () => {
  it('replaceSearch writes only a different query, keeping path and hash', () => {
    const { loc, hist, urls } = page('?a=1');
    replaceSearch('?a=1', loc, hist);
    expect(urls).toEqual([]);
    replaceSearch('?b=2', loc, hist);
    expect(urls).toEqual(['/lab/?b=2#x']);
  });

  it('writes each new valid draft once, and nothing while the config has an error', () => {
    const store = createLabStore('magic-tiny');
    const { loc, hist, urls } = page();
    const stop = syncUrl(store, loc, hist);
    store.getState().setField('loss.epsHigh', 0.28);
    const s = store.getState();
    expect(urls).toEqual([`/lab/${urlSearchFor(s.draft, s.preset, '')}#x`]);
    store.getState().setError('unrelated'); // same draft: no write
    expect(urls).toHaveLength(1);
    store.getState().setField('loss.epsLow', NaN);
    expect(store.getState().configError).not.toBeNull();
    expect(urls).toHaveLength(1);
    stop();
    store.getState().setField('loss.epsLow', 0.2);
    expect(urls).toHaveLength(1);
  });
});
