/**
 * Correct views (#14 item 4): held-out points visible from the first evaluation (dots), held-out
 * series keyed per run (an overlaid run with another eval k draws and labels its own), cursors
 * synced across charts by step, and a chart's PNG with its title, axes and legend.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Locator } from '@playwright/test';
import { drawn, hoverChartUntil, openLab, waitForState } from './helpers';

test.use({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });

/** Held-out dots drawn on the chart's canvas (of one colour). */
const dots = async (chart: Locator, colour?: string) => (await drawn(chart)).filter((s) => !colour || s.colour === colour).reduce((n, s) => n + s.dots, 0);

test('a single evaluation shows: held-out series are drawn with dots', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('step').click();
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: 60_000 });
  const reward = page.getByTestId('chart-reward');
  // The step-0 evaluation is the only one: one point per held-out series (avg@2, pass@2 at τ 1 and 0.6), no line to draw.
  await expect.poll(() => dots(reward), { timeout: 10_000 }).toBe(4);
  for (const label of ['avg@2 τ=1', 'pass@2 τ=1', 'avg@2 τ=0.6', 'pass@2 τ=0.6']) {
    const item = reward.locator('.chart-legend li', { hasText: label });
    await expect(item).toHaveCount(1);
    await expect(item.locator('circle')).toHaveCount(1); // the legend shows the dot too
  }
});

test('an overlaid run with another eval k draws and labels its own held-out series; cursors follow the step across charts; the PNG has title, axes and legend', async ({ page }) => {
  // The active run evaluates avg@3; the imported verl log has avg@2 at τ 1.0 (3 evaluations).
  await openLab(page, '/?preset=magic-tiny&eval.k=3');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const reward = page.getByTestId('chart-reward');
  await expect(reward).toHaveAttribute('data-points', '5', { timeout: 10_000 });
  await page.getByTestId('run-import-file').setInputFiles('e2e/fixtures/verl/verl-console.txt');
  await expect(reward).toHaveAttribute('data-runs', '2', { timeout: 10_000 });
  const name = 'verl-console (verl console log)';
  const legend = reward.locator('.chart-legend li');
  await expect(legend.filter({ hasText: `${name}: avg@2 τ=1` })).toHaveCount(1);
  // Not the active run's k or temperatures (before: "avg@3" legends and no line).
  await expect(legend.filter({ hasText: `${name}: avg@3` })).toHaveCount(0);
  await expect(legend.filter({ hasText: `${name}: pass@3` })).toHaveCount(0);
  await expect(legend.filter({ hasText: /^magic-tiny #1: avg@3 τ=1$/ })).toHaveCount(1);
  // Its points are drawn (slot 1's colour): one dot per evaluation; the active run's 3 evaluations × 4 series in slot 0's.
  await expect.poll(() => dots(reward, '#dc2626'), { timeout: 10_000 }).toBe(3);
  await expect.poll(() => dots(reward, '#2563eb')).toBe(12);

  // Hovering one chart shows the cursor and the values at the same step in every chart.
  const entropy = page.getByTestId('chart-entropy');
  const label = entropy.locator('.recharts-tooltip-label');
  await hoverChartUntil(page, entropy, 0.3, 0.5, label, /^step \d+$/);
  // The other charts re-render too: wait as long for them.
  const synced = { timeout: 15_000 };
  const step = await label.textContent();
  for (const id of ['chart-reward', 'chart-length', 'chart-grad-norm']) {
    const other = page.getByTestId(id);
    await expect(other.locator('.recharts-tooltip-cursor')).toHaveCount(1, synced);
    await expect(other.locator('.recharts-tooltip-label')).toHaveText(step!, synced);
  }
  await page.mouse.move(0, 0);
  await expect(page.getByTestId('chart-reward').locator('.recharts-tooltip-cursor')).toHaveCount(0, synced);

  // The PNG: the chart (axes included) under its title, the x axis named, the legend below; 2× resolution.
  const download = page.waitForEvent('download');
  await page.getByTestId('png-reward').click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('reward.png');
  const png = readFileSync(await file.path());
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  const chartBox = (await reward.locator('svg.recharts-surface').boundingBox())!;
  expect(w).toBe(2 * (Math.round(chartBox.width) + 24));
  // Title, the chart, the axis name and (wrapped) legend rows for 2 × 5 series, no longer cut at the chart's edge.
  expect(h).toBeGreaterThan(2 * (chartBox.height + 60));
  expect(png).toMatchSnapshot('png-reward.png', { maxDiffPixelRatio: 0.0005 });
});

test('an all-zero series keeps a 0–1 axis: on-policy clip fractions are 0 by construction, not a scale up to 4', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const chart = page.getByTestId('chart-clipfrac');
  await expect(chart).toHaveAttribute('data-points', '4', { timeout: 10_000 });
  const yTicks = chart.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value');
  await expect(yTicks.last()).toHaveText('1');
  await expect(page.getByTestId('explain-clipfrac')).toContainText('On-policy');
});

test('three overlaid runs: one series per run on every chart, the reward chart toggles train reward / held-out avg@k τ=1', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const log = readFileSync('e2e/fixtures/verl/verl-console.txt', 'utf8');
  // The same log twice is one row: the second copy's first train reward differs.
  const logs = [log, log.replace('critic/score/mean:0.230', 'critic/score/mean:0.240')];
  const reward = page.getByTestId('chart-reward');
  for (const [i, name] of ['first.txt', 'second.txt'].entries()) {
    await page.getByTestId('run-import-file').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(logs[i]) });
    await expect(reward).toHaveAttribute('data-runs', String(i + 2), { timeout: 10_000 });
  }
  await expect(reward).toHaveAttribute('data-runs', '3', { timeout: 10_000 });
  const legend = reward.locator('.chart-legend li');
  // One legend row per run (before: 5 series × 3 runs).
  await expect(legend).toHaveCount(3);
  await expect(legend.filter({ hasText: /: train reward$/ })).toHaveCount(3);
  await expect(page.getByTestId('chart-groups').locator('.chart-legend li')).toHaveCount(3);
  await expect(page.getByTestId('chart-entropy-coeff').locator('.chart-legend li').filter({ hasText: /: α \(realised\)$/ })).toHaveCount(3);
  await reward.getByTestId('reward-family-heldout').click();
  await expect(reward.getByTestId('reward-family-heldout')).toHaveAttribute('aria-pressed', 'true');
  await expect(legend).toHaveCount(3);
  await expect(legend.filter({ hasText: /: avg@2 τ=1$/ })).toHaveCount(3);
  await expect(legend.filter({ hasText: /train reward/ })).toHaveCount(0);
});
