/**
 * Registers the built page's service worker (public/coi-sw.js): it makes the page cross-origin
 * isolated on a static host that sends no COOP/COEP headers, and keeps the page usable offline.
 * A page that is not isolated yet reloads once when the worker takes control (the headers only
 * apply to documents it serves); a session flag stops a second reload, so a browser where the
 * worker cannot help shows the isolation banner instead of reloading forever.
 */

const RELOADED = 'magic-lab:coi-reload';
const isIsolated = () => typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
// sessionStorage can be off (privacy settings): then no reload at all, never a loop.
const reloadedOnce = () => {
  try {
    return sessionStorage.getItem(RELOADED) !== null;
  } catch {
    return true;
  }
};
const setReloaded = (on: boolean) => {
  try {
    if (on) sessionStorage.setItem(RELOADED, '1');
    else sessionStorage.removeItem(RELOADED);
  } catch {
    /* see reloadedOnce */
  }
};

export interface IsolationState {
  isolated: boolean;
  /** Logical cores the CPU engine would use when isolated. */
  cores: number;
  /** Why the service worker cannot isolate the page here, or null when it can (or did). */
  swProblem: string | null;
}

export function isolationState(): IsolationState {
  const isolated = isIsolated();
  const cores = Math.max(1, navigator.hardwareConcurrency || 1);
  let swProblem: string | null = null;
  if (!isolated) {
    if (!('serviceWorker' in navigator)) swProblem = window.isSecureContext ? 'this browser has no service workers' : 'service workers need https:// or localhost';
    else if (!import.meta.env.PROD) swProblem = 'the dev server sends the headers itself; this one did not';
  }
  return { isolated, cores, swProblem };
}

/** Whether this load will reload itself once the service worker controls it (a built page, not isolated, not reloaded yet). */
export function reloadExpected(): boolean {
  return import.meta.env.PROD && 'serviceWorker' in navigator && !isIsolated() && !reloadedOnce();
}

/** Registers the service worker of a built page; resolves once it controls the page (or at once when it cannot). */
export async function registerServiceWorker(): Promise<void> {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const isolated = isIsolated();
  try {
    // Resolved against the page's base, so a build under /any/sub/path/ registers its own copy and scope.
    await navigator.serviceWorker.register(new URL(`${import.meta.env.BASE_URL}coi-sw.js`, document.baseURI), { scope: './' });
  } catch (e) {
    console.warn(`MAGIC Lab: the service worker did not register (${(e as Error).message}); no offline use, and isolation only where the server sends COOP/COEP.`);
    return;
  }
  if (isolated) {
    setReloaded(false);
    return;
  }
  if (reloadedOnce()) return; // reloaded once already: the banner explains
  const reload = () => {
    setReloaded(true);
    location.reload();
  };
  if (navigator.serviceWorker.controller) reload();
  else navigator.serviceWorker.addEventListener('controllerchange', reload, { once: true });
}
