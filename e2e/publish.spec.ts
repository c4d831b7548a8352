/**
 * The published build on a plain static host (issue #28, "publishable anywhere"): dist/ served
 * under a sub-path with no COOP/COEP headers. The page's own service worker makes it cross-origin
 * isolated (after one reload), the Worker finds the base checkpoint next to the page, the CPU
 * engine trains on its threads, and after one visit the lab loads and trains with the server gone.
 */
import { expect, test, type Page } from '@playwright/test';
import { serveStatic, waitForState } from './helpers';

// The other specs block service workers (playwright.config.ts): this one is about it.
test.use({ serviceWorkers: 'allow' });

const isolated = (page: Page) => page.evaluate(() => crossOriginIsolated).catch(() => false); // false while it reloads

async function trainTinyRun(page: Page): Promise<void> {
  await expect(page.getByTestId('reset')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(page.getByTestId('step-counter')).toHaveText('4');
  // The Worker resolved the checkpoint against the page (…/lab/checkpoints/), not its own script (…/lab/assets/).
  await expect(page.getByText('started from the base checkpoint /lab/checkpoints/base-tiny.mlck').first()).toBeVisible();
}

test('dist/ under /lab/ on a plain static server: isolated by the service worker, trains on threads, and offline after one visit', async ({ page, context }) => {
  const server = await serveStatic('dist', '/lab/');
  try {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}?preset=magic-tiny`);
    // First load: not isolated (no headers); the service worker takes control and the page reloads once.
    await expect.poll(() => isolated(page), { timeout: 60_000 }).toBe(true);
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${server.url}coi-sw.js`);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    expect(cores).toBeGreaterThanOrEqual(2);
    await expect(page.getByTestId('adapter-name')).toContainText(`CPU engine (WebAssembly SIMD, ${cores} threads)`, { timeout: 60_000 });
    await expect(page.getByTestId('isolation-banner')).toHaveCount(0);
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', './icon.svg');
    await trainTinyRun(page);
    // Precached: the built page, the base checkpoints and the reference runs, in a cache named by the build.
    const cached = await page.evaluate(async () => {
      const names = await caches.keys();
      const c = await caches.open(names.find((n) => n.startsWith('magic-lab-'))!);
      return { names, urls: (await c.keys()).map((r) => new URL(r.url).pathname) };
    });
    expect(cached.names).toHaveLength(1);
    expect(cached.names[0]).toMatch(/^magic-lab-[0-9a-f]{12}$/);
    expect(cached.urls).toEqual(expect.arrayContaining(['/lab/', '/lab/checkpoints/base.mlck', '/lab/reference/index.json', '/lab/manifest.webmanifest']));
    expect(server.requests.some((p) => p.startsWith('/assets/') || p.startsWith('/checkpoints/'))).toBe(false);

    // Offline: the server is gone and the browser is offline; the reload comes from the cache.
    await server.close();
    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => isolated(page), { timeout: 30_000 }).toBe(true);
    await expect(page.getByTestId('adapter-name')).toContainText(`${cores} threads`, { timeout: 60_000 });
    await page.getByTestId('reset').click();
    await trainTinyRun(page);
    await expect(page.getByTestId('error')).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    await context.setOffline(false);
    await server.close();
  }
});

test('without isolation the page says what it costs and how to fix it', async ({ browser }) => {
  // A context that blocks service workers stands for a host the service worker cannot help (http:// on another machine).
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const server = await serveStatic('dist', '/lab/');
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}?preset=magic-tiny`);
    await expect(page.getByTestId('adapter-name')).toContainText('1 thread)', { timeout: 60_000 });
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const banner = page.getByTestId('isolation-banner');
    await expect(banner).toContainText(`trains on 1 thread instead of ${cores}`);
    await expect(banner).toContainText('Cross-Origin-Embedder-Policy: require-corp');
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  } finally {
    await context.close();
    await server.close();
  }
});
