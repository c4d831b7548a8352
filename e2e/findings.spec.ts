/**
 * Reference runs and the Findings view, against the built app. The reference files are real ones
 * made by the shipped commands with tiny schedules (e2e/fixtures/reference/, see its README.md),
 * served with page.route() in place of public/reference/; one test reads the shipped index.
 */
import { expect, test, type Page, type Route } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { bands, hoverChartUntil, lines, longTasks, openLab, recordLongTasks, waitForState } from './helpers';

test.use({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });

const FIXTURES = 'e2e/fixtures/reference';
const fixture = (file: string) => JSON.parse(readFileSync(`${FIXTURES}/${file}`, 'utf8'));
const index = fixture('index.json') as { entries: { name: string; file: string; kind: string; title: string; verdict?: string }[] };
const finding = index.entries.find((e) => e.kind === 'finding');

/** Serves the fixture folder for every request under /reference/ (`override`: file → body). */
async function serveFixtures(page: Page, override: Record<string, string> = {}) {
  await page.route('**/reference/**', async (route) => {
    const file = new URL(route.request().url()).pathname.replace(/^.*\/reference\//, '');
    let body = override[file];
    if (body === undefined) {
      try {
        body = readFileSync(`${FIXTURES}/${file}`, 'utf8');
      } catch {
        return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
      }
    }
    return route.fulfill({ status: 200, contentType: 'application/json', body });
  });
}

test('the Runs panel lists the reference runs; ticking one draws its bands on every chart with its metric', async ({ page }) => {
  await serveFixtures(page);
  await recordLongTasks(page);
  await openLab(page, '/?preset=magic-tiny');
  const rows = page.getByTestId('reference-row');
  await expect(rows).toHaveCount(index.entries.length);
  const tiny = page.locator('[data-testid="reference-row"][data-reference="tiny-demo"]');
  await expect(tiny).toContainText('Sweep: magic-tiny vs grpo-tiny');
  await expect(tiny).toContainText('magic-tiny, grpo-tiny · 2 seeds (101–102) · 4 steps');
  if (finding) await expect(page.locator(`[data-testid="reference-row"][data-reference="${finding.name}"] [data-testid="verdict"]`)).toHaveText(finding.verdict!);

  await tiny.getByTestId('reference-overlay').check();
  const entropy = page.getByTestId('chart-entropy');
  await expect(entropy).toHaveAttribute('data-reference-series', '2', { timeout: 10_000 });
  // One shaded band (an SVG area path) and one mean line per preset.
  await expect.poll(() => bands(entropy)).toBe(2);
  expect(await bands(entropy, true)).toBe(2);
  await expect(entropy.getByTestId('reference-legend')).toHaveText(['reference: magic-tiny (2 seeds)', 'reference: grpo-tiny (2 seeds)']);
  // Train reward and held-out avg@k at both temperatures: three bands per preset on the reward chart.
  await expect.poll(() => bands(page.getByTestId('chart-reward'))).toBe(6);
  // A chart without a reference metric gets none; the live point count is the runs' only.
  await expect(page.getByTestId('chart-grad-norm')).toHaveAttribute('data-reference-series', '0');
  await expect(entropy).toHaveAttribute('data-points', '0');

  // Per-seed curves: one more line per seed.
  const before = await lines(entropy);
  await page.getByTestId('reference-seeds').check();
  await expect.poll(() => lines(entropy), { timeout: 10_000 }).toBe(before + 4);

  // A run trains over the bands; the page stays as responsive as without them (lab.spec.ts's bound).
  await page.getByTestId('step').click();
  await expect(entropy).toHaveAttribute('data-points', '1', { timeout: 60_000 });
  await waitForState(page, 'paused');
  await longTasks(page); // from here: training only, as lab.spec.ts counts
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(entropy).toHaveAttribute('data-points', '4', { timeout: 10_000 });
  await expect.poll(() => bands(entropy)).toBe(2);
  const tasks = await longTasks(page);
  console.log(`main-thread long tasks while training with a reference overlaid (ms): ${JSON.stringify(tasks)}`);
  expect(Math.max(0, ...tasks)).toBeLessThan(500);

  await tiny.getByTestId('reference-overlay').uncheck();
  await expect(entropy).toHaveAttribute('data-reference-series', '0', { timeout: 10_000 });
  await expect.poll(() => bands(entropy)).toBe(0);
});

test('a malformed reference file: one message naming the file, and the page keeps working', async ({ page }) => {
  const broken = fixture('tiny-demo.json');
  broken.presets['magic-tiny'].curves['actor/entropy'].mean.pop();
  await serveFixtures(page, { 'tiny-demo.json': JSON.stringify(broken) });
  await openLab(page, '/?preset=magic-tiny');
  await page.locator('[data-testid="reference-row"][data-reference="tiny-demo"]').getByTestId('reference-overlay').check();
  await expect(page.getByTestId('reference-error')).toHaveText('reference/tiny-demo.json: presets.magic-tiny.curves["actor/entropy"].mean has 3 values for 4 steps');
  await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-reference-series', '0');
  await page.getByTestId('step').click();
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: 60_000 });

  // A missing index: the Runs panel and the Findings view say which file, the lab still trains.
  const other = await page.context().newPage();
  await other.route('**/reference/index.json', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
  await openLab(other, '/?preset=magic-tiny');
  await expect(other.getByTestId('reference-error')).toHaveText('reference/index.json: not found (HTTP 404)');
  await other.getByTestId('view-findings').click();
  await expect(other.getByTestId('findings').getByTestId('reference-error')).toHaveText('reference/index.json: not found (HTTP 404)');
  await other.close();
});

test('the Findings view: claim, presets, schedule, verdict with its rule and checks, reference bands', async ({ page }) => {
  test.skip(!finding, 'the fixture has no finding');
  const ref = fixture(finding!.file);
  await serveFixtures(page);
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('view-findings').click();
  const view = page.getByTestId('findings');
  await expect(view.getByTestId('finding-tab')).toHaveCount(index.entries.length);
  await view.locator(`[data-testid="finding-tab"][data-reference="${finding!.name}"]`).click();
  const card = view.getByTestId('finding');
  await expect(card.getByTestId('finding-claim')).toHaveText(ref.claim);
  await expect(card.getByTestId('finding-verdict').getByTestId('verdict').first()).toHaveText(ref.verdict);
  await expect(card.getByTestId('finding-rule')).toContainText(ref.rule);
  await expect(card.getByTestId('finding-checks').locator('tbody tr')).toHaveCount(ref.checks.length);
  await expect(card.getByTestId('finding-checks')).toContainText(ref.checks[0].describe);
  await expect(card.getByTestId('finding-presets')).toContainText(`${Object.keys(ref.presets)[0]} (2 seeds (101–102))`);
  await expect(card.getByTestId('finding-schedule')).toContainText(`${ref.schedule.steps} steps per run`);
  await expect(card.getByTestId('run-finding')).toHaveText('▶ Run this finding here');
  // Entropy and held-out accuracy at both temperatures, each with a band per preset.
  for (const id of ['finding-entropy', 'finding-avg-t1', 'finding-avg-t0.6']) {
    await expect.poll(() => bands(card.getByTestId(`chart-${id}`)), { timeout: 10_000 }).toBe(Object.keys(ref.presets).length);
  }
  await page.waitForTimeout(1500); // staggered chart redraws settle
  await page.mouse.move(0, 0);
  // The element is a third of the page: the project-wide 0.05% would let a whole added tab through.
  await expect(view).toHaveScreenshot('findings-view.png', { maxDiffPixelRatio: 0, maxDiffPixels: 50 });
  // The axes span the data (every avg@k of the fixture is 0.1–0.3 at τ = 1), and the hover tooltip is compact: means only, no bands, much smaller than the chart.
  const avg = card.getByTestId('chart-finding-avg-t1');
  const yTicks = avg.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value');
  await expect(yTicks.first()).toBeVisible();
  await expect(yTicks.filter({ hasText: /^(0\.75|1)$/ })).toHaveCount(0);
  const abox = (await avg.locator('.chart-box').boundingBox())!;
  const tip = avg.getByTestId('compact-tooltip');
  await hoverChartUntil(page, avg, 0.5, 0.4, tip, /^step \d+/);
  await expect(tip).toBeVisible();
  await expect(tip).not.toContainText('band');
  const tbox = (await tip.boundingBox())!;
  expect(tbox.width * tbox.height).toBeLessThan((abox.width * abox.height) / 4);
  await page.mouse.move(0, 0);

  // Run this finding here: its presets × seeds queued, the first one starts; Cancel stops the queue.
  await card.getByTestId('run-finding').click();
  const first = `${finding!.name} · ${Object.keys(ref.presets)[0]} · seed ${ref.presets[Object.keys(ref.presets)[0]].seeds[0]}`;
  await expect(card.getByTestId('queue-status')).toHaveText(`run 1 of ${Object.values(ref.presets).reduce((a: number, p) => a + (p as { seeds: number[] }).seeds.length, 0)}: ${first}`);
  await expect(page.getByTestId('run-row').first().getByTestId('run-name')).toHaveText(first);
  await card.getByTestId('queue-cancel').click();
  await expect(card.getByTestId('queue-status')).toHaveAttribute('data-status', 'cancelled');
  await expect(card.getByTestId('queue-status')).toContainText('cancelled at run 1 of');
});

test('Run this sweep here: the queue trains its presets × seeds one after another; Cancel stops it', async ({ page }) => {
  await serveFixtures(page);
  // Tiny runs take seconds: the second run's base checkpoint is held back, so the queue waits at
  // run 2 (starting) until the test has looked and cancelled.
  let baseFetches = 0;
  let held: Route | null = null;
  await page.context().route('**/checkpoints/base-tiny.mlck', (route) => {
    if (++baseFetches === 2) held = route;
    else return route.continue();
  });
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('view-findings').click();
  const view = page.getByTestId('findings');
  await view.locator('[data-testid="finding-tab"][data-reference="tiny-demo"]').click();
  const card = view.getByTestId('finding');
  await expect(card.getByTestId('finding-claim')).toHaveCount(0);
  const status = card.getByTestId('queue-status');
  await expect(status).toContainText('4 runs, one after another');
  // Every value the step counter shows (a tiny run lasts about a second: too short to poll).
  await page.evaluate(() => {
    const el = document.querySelector('[data-testid="step-counter"]')!;
    const w = window as unknown as { __steps: number[] };
    w.__steps = [];
    new MutationObserver(() => w.__steps.push(Number(el.textContent))).observe(el, { childList: true, characterData: true, subtree: true });
    // Every text the queue status shows, too: run 1 may end before a poll of the status sees it.
    const st = document.querySelector('[data-testid="finding"] [data-testid="queue-status"]')!;
    const s = window as unknown as { __status: string[] };
    s.__status = [];
    new MutationObserver(() => s.__status.push(st.textContent ?? '')).observe(st, { childList: true, characterData: true, subtree: true });
  });
  await card.getByTestId('run-finding').click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { __status: string[] }).__status)).toContain('run 1 of 4: tiny-demo · magic-tiny · seed 101');
  // The first run trains (the step counter moves) and ends with its schedule (4 steps, as the
  // reference's --steps 4); then the second starts.
  const firstRow = page.locator('[data-testid="run-row"]', { hasText: 'tiny-demo · magic-tiny · seed 101' });
  await expect(firstRow.getByTestId('run-steps')).toHaveText('4 steps ✓', { timeout: 90_000 });
  expect(Math.max(...(await page.evaluate(() => (window as unknown as { __steps: number[] }).__steps)))).toBe(4);
  await expect(status).toHaveText('run 2 of 4: tiny-demo · magic-tiny · seed 102');
  await expect.poll(() => held !== null, { timeout: 30_000 }).toBe(true);
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', 'starting');
  // The runs made here are drawn over the bands, coloured as their preset.
  await expect(card.getByTestId('finding-charts')).toHaveAttribute('data-runs', '2', { timeout: 10_000 });
  await expect(card.getByTestId('chart-finding-entropy')).toContainText('magic-tiny · seed 101: entropy');
  await expect(card.getByTestId('chart-finding-entropy')).toHaveAttribute('data-points', '4');

  await card.getByTestId('queue-cancel').click();
  await expect(status).toHaveAttribute('data-status', 'cancelled');
  await expect(status).toHaveText('cancelled at run 2 of 4 (1 finished)');
  await expect(card.getByTestId('queue-cancel')).toHaveCount(0);
  await waitForState(page, 'idle');
  await expect(page.getByTestId('step-counter')).toHaveText('0');
  // Both queued runs are normal runs in the Runs panel; no third was started.
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await page.waitForTimeout(1000);
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  expect(baseFetches).toBe(2);
  await (held as Route | null)?.continue();
});

test("a reference shorter than the schedule: its run stops at the step count of the reference", async ({ page }) => {
  await serveFixtures(page);
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('view-findings').click();
  const view = page.getByTestId('findings');
  await view.locator('[data-testid="finding-tab"][data-reference="tiny-steps2"]').click();
  const card = view.getByTestId('finding');
  // One seed: a mean without a band (its interval is undefined).
  await expect(card.getByTestId('chart-finding-entropy')).toHaveAttribute('data-reference-series', '1');
  expect(await bands(card.getByTestId('chart-finding-entropy'), true)).toBe(0);
  await card.getByTestId('run-finding').click();
  const status = card.getByTestId('queue-status');
  await expect(status).toHaveText('done: 1 run', { timeout: 90_000 });
  // magic-tiny's schedule is 4 steps; the reference ran 2 (--steps 2), and so did this run.
  const row = page.locator('[data-testid="run-row"]', { hasText: 'tiny-steps2 · magic-tiny · seed 101' });
  await expect(row.getByTestId('run-steps')).toHaveText('2 steps ✓');
  await waitForState(page, 'idle'); // the Worker let go of it: Play cannot carry it on
  await page.waitForTimeout(1500);
  await expect(row.getByTestId('run-steps')).toHaveText('2 steps ✓');
  await expect(card.getByTestId('chart-finding-entropy')).toHaveAttribute('data-points', '2');
});

test('the shipped public/reference/index.json: its entries, or "No reference runs yet"', async ({ page }) => {
  const shipped = JSON.parse(readFileSync('public/reference/index.json', 'utf8')) as { entries: unknown[] };
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('view-findings').click();
  const view = page.getByTestId('findings');
  if (shipped.entries.length === 0) {
    await expect(view.getByTestId('findings-empty')).toContainText('No reference runs yet');
    await expect(page.getByTestId('reference-empty')).toHaveText('No reference runs yet.');
  } else {
    await expect(view.getByTestId('finding-tab')).toHaveCount(shipped.entries.length);
    await expect(page.getByTestId('reference-row')).toHaveCount(shipped.entries.length);
    await expect(view.getByTestId('finding')).toBeVisible();
  }
  await expect(page.getByTestId('reference-error')).toHaveCount(0);
  await page.getByTestId('view-training').click();
  await expect(page.getByTestId('chart-entropy')).toBeVisible();
});
