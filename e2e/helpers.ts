import { readFileSync } from 'node:fs';
import { expect, type Locator, type Page } from '@playwright/test';

/** A tiny preset with longer stages, so a run lasts long enough to pause, edit and save mid-way. */
export function longTinyUrl(steps = 30, extra = ''): string {
  const stages = JSON.stringify([
    { maxResponseLength: 16, steps },
    { maxResponseLength: 24, steps },
  ]);
  return `/?preset=magic-tiny&stages=${encodeURIComponent(stages)}${extra}`;
}

/** Opens the lab and waits until the Worker has the device. */
export async function openLab(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('adapter-name')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('reset')).toBeEnabled();
}

export async function stepOf(page: Page): Promise<number> {
  return Number(await page.getByTestId('step-counter').textContent());
}

export async function waitForStep(page: Page, atLeast: number, timeout = 60_000): Promise<void> {
  await expect.poll(() => stepOf(page), { timeout }).toBeGreaterThanOrEqual(atLeast);
}

export async function waitForState(page: Page, state: string, timeout = 90_000): Promise<void> {
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', state, { timeout });
}

/** Plays until at least `atLeast` steps are done, pauses, and returns the step it paused at. */
export async function playThenPause(page: Page, atLeast: number): Promise<number> {
  await page.getByTestId('play').click();
  await waitForStep(page, atLeast);
  await page.getByTestId('pause').click();
  await waitForState(page, 'paused');
  return stepOf(page);
}

/** Records main-thread long tasks (> 50 ms) from page start into window.__longTasks. */
export async function recordLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  });
}

export const longTasks = (page: Page) => page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0));

/** The step numbers of a run's JSONL export (Runs → JSONL on its row). */
export async function exportedSteps(page: Page, row: Locator): Promise<number[]> {
  const download = page.waitForEvent('download');
  await row.getByTestId('run-export-jsonl').click();
  const text = readFileSync(await (await download).path(), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type: string; step?: number })
    .filter((r) => r.type === 'step')
    .map((r) => r.step as number);
}

/**
 * A plain static file server for `dir` under the URL path `prefix` (e.g. '/lab/'), as a simple
 * host serves a published build: content types only, no COOP/COEP or any other special header,
 * bound to 127.0.0.1 on a free port. `close()` stops it and drops open connections, so a test can
 * take the "network" away.
 */
export async function serveStatic(dir: string, prefix: string): Promise<{ url: string; close: () => Promise<void>; requests: string[] }> {
  const { createServer } = await import('node:http');
  const { readFile, stat } = await import('node:fs/promises');
  const { extname, join, normalize, resolve } = await import('node:path');
  const TYPES: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.webmanifest': 'application/manifest+json',
    '.wasm': 'application/wasm',
  };
  const root = resolve(dir);
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    if (!path.startsWith(prefix)) return void res.writeHead(404).end('not found');
    let file = join(root, normalize(path.slice(prefix.length)));
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

/** What a chart's canvas drew (components/CanvasSeries.tsx data-drawn): one entry per series. */
export interface DrawnSeries {
  key: string;
  kind: 'line' | 'area' | 'band';
  colour: string;
  points: number;
  dots: number;
  width: number;
}
export async function drawn(chart: Locator): Promise<DrawnSeries[]> {
  const attr = await chart.locator('canvas.chart-canvas').getAttribute('data-drawn', { timeout: 10_000 }).catch(() => null);
  return attr ? (JSON.parse(attr) as DrawnSeries[]) : [];
}
/** The reference bands drawn on a chart (with points, or all of them). */
export const bands = async (chart: Locator, withPoints = false) => (await drawn(chart)).filter((s) => s.kind === 'band' && (!withPoints || s.points > 0)).length;
/** The lines drawn on a chart (those with at least two points: a visible line, or all of them), the faint raw ones left out. */
export const lines = async (chart: Locator, visible = false) => (await drawn(chart)).filter((s) => s.kind === 'line' && !s.key.endsWith('|raw') && (!visible || s.points >= 2)).length;
/** The faint lines of measured values under a chart's smoothed lines. */
export const rawLines = async (chart: Locator) => (await drawn(chart)).filter((s) => s.kind === 'line' && s.key.endsWith('|raw') && s.points >= 2);

/**
 * Hovers a chart at (fx, fy) of its box until `text` (a tooltip part) shows a match. Hovering mounts every chart's
 * tooltip (useChartHover), and the pointer's first move can reach recharts before that re-render has swapped in the
 * rows: the tooltip then shows an empty label until the pointer moves again (CI saw "" for 15 s). A hand on a mouse
 * always moves again; so does this, a pixel to and fro. The wait is past the 5 s default: the re-render of every
 * chart can take seconds on a loaded 2-core machine.
 */
export async function hoverChartUntil(page: Page, chart: Locator, fx: number, fy: number, text: Locator, pattern: RegExp, timeout = 15_000): Promise<void> {
  const box = (await chart.locator('.chart-box').boundingBox())!;
  let jiggle = 0;
  await expect
    .poll(
      async () => {
        await page.mouse.move(box.x + box.width * fx + (jiggle++ % 2), box.y + box.height * fy);
        return (await text.count()) ? ((await text.first().textContent()) ?? '') : null;
      },
      { timeout },
    )
    .toMatch(pattern);
}
