/*
 * MAGIC Lab's service worker: cross-origin isolation and offline use on any static host.
 *
 * - Every response it serves gets COOP/COEP headers, so a page on a plain static server (GitHub
 *   Pages, a school's file share) is crossOriginIsolated and the CPU engine gets its threads
 *   (SharedArrayBuffer). The page registers it and reloads once (src/ui/lib/service-worker.ts).
 * - It precaches the built page, the base checkpoints and the reference runs in a cache named by
 *   the build's version, so the lab works offline after one visit; a new build gets a new cache and
 *   the old one is deleted when it activates.
 *
 * `npm run build` rewrites the BUILD line below with the build's version and file list (the
 * `publish` plugin in vite.config.ts); this copy in public/ is what the dev server would serve
 * (the page does not register it there: the dev server sends the headers itself).
 */
const BUILD = { version: 'dev', files: [] };
const CACHE = `magic-lab-${BUILD.version}`;
const PREFIX = 'magic-lab-';
const scope = () => self.registration.scope;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // One by one, so one missing file does not lose the rest of the precache.
      for (const f of ['./', ...BUILD.files]) {
        try {
          const res = await fetch(new URL(f, scope()), { cache: 'no-cache' });
          if (res.ok) await cache.put(new URL(f, scope()), res);
        } catch {
          /* offline while installing: the next visit fills it */
        }
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** The response with the isolation headers added (opaque and error responses pass as they are). */
function isolated(res) {
  if (!res || res.status === 0 || res.type === 'opaqueredirect') return res;
  const headers = new Headers(res.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  if (!headers.has('Cross-Origin-Embedder-Policy')) headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  if (!headers.has('Cross-Origin-Resource-Policy')) headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** Page loads: the network first (a new build shows at once), the cached page when offline. */
async function navigate(req) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(req);
    if (res.ok) await cache.put(new URL('./', scope()), res.clone());
    return res;
  } catch (e) {
    const hit = (await cache.match(new URL('./', scope()))) ?? (await cache.match(new URL('index.html', scope())));
    if (hit) return hit;
    throw e;
  }
}

/** Files: the cache first (they are versioned by the build), else the network, kept for next time. */
async function file(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req, { ignoreSearch: true });
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok && res.type === 'basic') await cache.put(req, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  // A request that must not come from a cache (e.g. the service worker's own update check) goes straight through.
  if (req.cache === 'only-if-cached' && req.mode !== 'same-origin') return;
  event.respondWith((req.mode === 'navigate' ? navigate(req) : file(req)).then(isolated));
});
