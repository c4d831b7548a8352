/**
 * Time before a long action: a rung's s/step is calibrated from a run's own steps (the short benchmark can be off
 * by a factor of two), and the whole run's time is shown above Play and under each card's Run both; the figure is
 * stored, so a reload shows it before anything is timed again.
 */
import { expect, test } from '@playwright/test';
import { openLab, waitForState, waitForStep } from './helpers';

test("a run at the tiny rung calibrates the rung's s/step from its own steps; Play and the cards then show whole-run times", async ({ page }) => {
  await openLab(page, '/?preset=magic');
  await expect(page.getByTestId('run-estimate')).toHaveCount(0); // no figure yet: no guess
  await page.getByTestId('play').click();
  await waitForStep(page, 6, 120_000);
  await page.getByTestId('pause').click();
  await waitForState(page, 'paused');
  await expect(page.getByTestId('rung-speed-tiny')).toHaveText(/^~[\d.]+ s\/step on .+ \(measured over \d+ training steps\)$/);
  await page.getByTestId('reset').click();
  await expect(page.getByTestId('run-estimate')).toHaveText(/^This run: 400 steps ≈ \d+ (s|min|h) at ~[\d.]+ s\/step\.$/);
  const panel = page.getByTestId('try-this');
  await panel.locator('summary').click();
  // Two 80-step arms at the tiny rung; the -tiny test twins' first-look card has no rung figure, so no time.
  await expect(panel.getByTestId('try-temperature-time')).toHaveText(/^Run both: 2 runs, 160 steps in all ≈ \d+ (s|min) on this engine\.$/);
  await expect(panel.getByTestId('try-first-look-time')).toHaveCount(0);

  // The calibrated figure is stored (keyed by engine and rung): after a reload it is there before anything is timed
  // again, and the estimates before Play and Run both use it.
  const calibrated = await page.getByTestId('rung-speed-tiny').textContent();
  await page.reload();
  await expect(page.getByTestId('adapter-name')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('rung-speed-tiny')).toHaveText(calibrated!);
  await expect(page.getByTestId('run-estimate')).toHaveText(/^This run: 400 steps ≈ \d+ (s|min|h) at ~[\d.]+ s\/step\.$/);
  await page.getByTestId('try-this').locator('summary').click();
  await expect(page.getByTestId('try-temperature-time')).toHaveText(/^Run both: 2 runs, 160 steps in all ≈ \d+ (s|min) on this engine\.$/);
});
