#!/usr/bin/env node
/**
 * `npm run bench:ui`: what a new user sees, timed. Serves the built app (vite preview on
 * 127.0.0.1:4174), opens it in the system Chromium with WebGPU, presses Play on the default
 * `magic` preset and reports: seconds until the Worker has the device, until step 1 and the
 * entropy / reward charts have a point, steps done in the measuring window, and every
 * main-thread long task (> 50 ms) while training. A benchmark, not a test: prints JSON.
 *
 *   npm run build && npm run bench:ui [-- --seconds 90 --url "/?preset=magic"]
 */
import { spawn } from 'node:child_process';
import { chromium } from '@playwright/test';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const seconds = Number(opt('seconds', '90'));
const path = opt('url', '/');
const PORT = 4174;

const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], { stdio: 'ignore' });
const stop = () => server.kill('SIGTERM');
process.on('exit', stop);
for (let i = 0; i < 100; i++) {
  try {
    if ((await fetch(`http://127.0.0.1:${PORT}/`)).ok) break;
  } catch {
    /* not up yet */
  }
  await new Promise((r) => setTimeout(r, 200));
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  });
  const t0 = Date.now();
  await page.goto(`http://127.0.0.1:${PORT}${path}`);
  await page.getByTestId('adapter-name').waitFor({ timeout: 120_000 });
  const device = (Date.now() - t0) / 1000;
  await page.getByTestId('play').click();
  const tPlay = Date.now();
  await page.evaluate(() => window.__longTasks.splice(0));
  const points = async (id) => Number(await page.getByTestId(id).getAttribute('data-points'));
  let firstStep = null;
  let chartsDrawn = null;
  while ((Date.now() - tPlay) / 1000 < seconds) {
    const step = Number(await page.getByTestId('step-counter').textContent());
    if (firstStep === null && step >= 1) firstStep = (Date.now() - tPlay) / 1000;
    if (chartsDrawn === null && (await points('chart-entropy')) >= 1 && (await points('chart-reward')) >= 1) chartsDrawn = (Date.now() - tPlay) / 1000;
    await new Promise((r) => setTimeout(r, 250));
  }
  const result = {
    url: path,
    adapter: await page.getByTestId('adapter-name').textContent(),
    status: await page.getByTestId('status-message').textContent().catch(() => null),
    seconds_to_device: device,
    seconds_play_to_first_step: firstStep,
    seconds_play_to_charts: chartsDrawn,
    steps_in_window: Number(await page.getByTestId('step-counter').textContent()),
    window_s: seconds,
    long_tasks_ms: await page.evaluate(() => window.__longTasks),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  await browser.close();
  stop();
}
