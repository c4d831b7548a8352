/** The shipped base checkpoint a fresh run starts from (public/checkpoints/), when it fits the run's model. */
import { decodeCheckpoint } from '../model/checkpoint';
import type { RunConfig } from '../rl/config';

const errMsg = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * How messages name a checkpoint URL: the page sends it absolute (resolved against the page's base),
 * and a same-origin one reads as its path ("/lab/checkpoints/base.mlck"), not with host and port.
 */
export function shownUrl(url: string, origin: string | undefined = globalThis.location?.origin): string {
  try {
    const u = new URL(url);
    return origin !== undefined && u.origin === origin ? u.pathname : url;
  } catch {
    return url; // relative already
  }
}

/** Bytes of the base checkpoint at `fetchUrl` when it exists and matches the config's model; else null and why. */
export async function fetchBase(fetchUrl: string, config: RunConfig, fetchFile: (url: string) => Promise<Response> = (u) => fetch(u)): Promise<{ bytes: Uint8Array | null; why?: string }> {
  const url = shownUrl(fetchUrl);
  try {
    const res = await fetchFile(fetchUrl);
    // A static server may answer a missing file with the app's index.html (SPA fallback).
    if (!res.ok) return { bytes: null, why: `no base checkpoint at ${url} (HTTP ${res.status})` };
    if ((res.headers.get('content-type') ?? '').includes('text/html')) return { bytes: null, why: `no base checkpoint at ${url} (the server answered with a web page)` };
    const bytes = new Uint8Array(await res.arrayBuffer());
    const model = decodeCheckpoint(bytes, url).model;
    if (JSON.stringify(model) !== JSON.stringify(config.model)) return { bytes: null, why: `base checkpoint ${url} is for another model size` };
    return { bytes };
  } catch (e) {
    return { bytes: null, why: `base checkpoint ${url} unavailable (${errMsg(e)})` };
  }
}

/**
 * The message of a start that failed after the base checkpoint did not load. A random-init policy
 * is then the likely cause (the offline filter finds no prompt it solves sometimes), so the message
 * says first that the checkpoint is missing and where it was looked for.
 */
export function startFailure(message: string, baseMissing: string | undefined): string {
  return baseMissing ? `the base checkpoint did not load (${baseMissing}), so the run started from random init, and then: ${message}` : message;
}
