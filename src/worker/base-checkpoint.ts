/**
 * The shipped base checkpoint a fresh run starts from (public/checkpoints/), when it fits the run's
 * model. Each rung has its own (src/rl/config/rungs.ts); an on-demand rung's file is downloaded with
 * progress the first time and kept in Cache Storage (ON_DEMAND_CACHE) for the next runs.
 */
import { decodeCheckpoint } from '../model/checkpoint';
import { DEFAULT_RUNG, getRung, type RunConfig, type RungName } from '../rl/config';

/** Cache Storage name of on-demand base checkpoints; not under the service worker's "magic-lab-" prefix, which it clears on each new build. */
export const ON_DEMAND_CACHE = 'mlck-on-demand-v1';

/** What fetchBase needs of Cache Storage. */
export interface BaseCache {
  match(url: string): Promise<Response | undefined>;
  put(url: string, res: Response): Promise<void>;
}

/** How the base of a run's rung is fetched: which rung (null: a hand-made model shape), progress, and the cache of on-demand files. */
export interface BaseOptions {
  rung?: RungName | null;
  onProgress?: (loaded: number, total: number) => void;
  /** Opened only for an on-demand rung. */
  openCache?: () => Promise<BaseCache | null>;
}

/** The browser's cache of on-demand base checkpoints, or null where there is no Cache Storage (plain http, some private modes). */
export async function openBaseCache(): Promise<BaseCache | null> {
  try {
    return (await globalThis.caches?.open(ON_DEMAND_CACHE)) ?? null;
  } catch {
    return null;
  }
}

/**
 * The body of `res`, reporting bytes read so far and the total after each chunk: Content-Length, or `expected`
 * where that is not the size of what is read (a compressed response: it counts the compressed bytes, or is absent),
 * 0 where neither is known. The total is never below the bytes read (an `expected` size is approximate).
 */
export async function readWithProgress(res: Response, onProgress: (loaded: number, total: number) => void, expected = 0): Promise<Uint8Array> {
  const encoding = (res.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  const length = encoding === 'identity' ? Number(res.headers.get('content-length') ?? 0) || 0 : 0;
  const total = length || expected;
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array(await res.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress(loaded, total && Math.max(total, loaded));
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Why a rung other than tiny has no base file: the server's answer first (HTTP 404), then the command that
 * builds it. One clause; the start stops on it, before any sampling (a random-init policy at such a rung
 * solves nothing, so its offline filter would sample for minutes and find no prompt to keep).
 */
export function rungBaseMissing(rung: RungName, url: string, answer: string): string {
  return `the ${rung} rung's base checkpoint ${url} is missing (${answer}); build it with \`magic-lab sft --rung ${rung}\``;
}

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

/**
 * Bytes of the base checkpoint at `fetchUrl` when it exists and matches the config's model; else null and why.
 * `required`: a rung above tiny whose file is missing: the start fails on `why` at once (no random-init fallback).
 */
export async function fetchBase(
  fetchUrl: string,
  config: RunConfig,
  fetchFile: (url: string) => Promise<Response> = (u) => fetch(u),
  opts: BaseOptions = {},
): Promise<{ bytes: Uint8Array | null; why?: string; required?: true }> {
  const url = shownUrl(fetchUrl);
  const rung = opts.rung ?? DEFAULT_RUNG;
  const onDemand = getRung(rung).delivery === 'on-demand';
  try {
    const cache = onDemand ? ((await opts.openCache?.()) ?? null) : null;
    const cached = (await cache?.match(fetchUrl)) ?? undefined;
    const res = cached ?? (await fetchFile(fetchUrl));
    // A static server may answer a missing file with the app's index.html (SPA fallback).
    const missing = !res.ok ? `HTTP ${res.status}` : (res.headers.get('content-type') ?? '').includes('text/html') ? 'the server answered with a web page' : null;
    if (missing && rung !== DEFAULT_RUNG) return { bytes: null, why: rungBaseMissing(rung, url, missing), required: true };
    if (!res.ok) return { bytes: null, why: `no base checkpoint at ${url} (HTTP ${res.status})` };
    if (missing) return { bytes: null, why: `no base checkpoint at ${url} (the server answered with a web page)` };
    const bytes = onDemand && !cached && opts.onProgress ? await readWithProgress(res, opts.onProgress, getRung(rung).baseBytes) : new Uint8Array(await res.arrayBuffer());
    const model = decodeCheckpoint(bytes, url).model;
    if (JSON.stringify(model) !== JSON.stringify(config.model)) return { bytes: null, why: `base checkpoint ${url} is for another model size` };
    // Kept only once it decoded: a cut-off download is fetched again next time.
    if (!cached) await cache?.put(fetchUrl, new Response(bytes.slice(), { headers: { 'content-type': 'application/octet-stream' } })).catch(() => undefined);
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
  return baseMissing ? `${baseMissing}, so the run started from random init and failed: ${message}` : message;
}
