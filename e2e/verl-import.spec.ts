/**
 * A cluster run beside a browser run: a verl console log (a fixture written from verl's documented
 * `step:N - key:value - …` format, with noise and a malformed line) imported through "Import run…"
 * is overlaid on a lab run in the charts, its unknown keys are offered in "More metrics", and
 * markup in a key stays text.
 */
import { expect, test } from '@playwright/test';
import { lines, openLab, waitForState } from './helpers';

const LOG = 'e2e/fixtures/verl/verl-console.txt';
const NAME = 'verl-console (verl console log)';

test('a verl console log imported through the page is overlaid on a lab run', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const entropy = page.getByTestId('chart-entropy');
  await expect(entropy).toHaveAttribute('data-runs', '1');
  await expect(entropy).toHaveAttribute('data-points', '4', { timeout: 10_000 });
  // Lab runs alone: no "More metrics" chart (the page looks as it did before imports existed).
  await expect(page.getByTestId('chart-extra')).toHaveCount(0);

  await page.getByTestId('run-import-file').setInputFiles(LOG);
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText('Imported verl-console.txt (verl console log): 8 steps, 3 evaluations.');
  await expect(notice).toContainText('1 warning: verl-console.txt:11: expected key:value, got "critic/sc"');
  await expect(page.getByTestId('error')).toHaveCount(0);

  // The imported run is in the list, ticked for overlay, with its 8 steps and its note.
  const row = page.getByTestId('run-row').filter({ hasText: NAME });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('run-overlay')).toBeChecked();
  await expect(row.getByTestId('run-steps')).toHaveText('8 steps');
  await expect(row).toContainText('config is not in the file');

  // Overlaid on the lab run: two runs drawn, rows for steps 1–8 (the lab's 1–4 aligned with verl's 1–4), a legend
  // entry and a drawn line per run.
  await expect(entropy).toHaveAttribute('data-runs', '2', { timeout: 10_000 });
  await expect(entropy).toHaveAttribute('data-points', '8', { timeout: 10_000 });
  const legend = entropy.locator('.chart-legend li');
  await expect(legend).toHaveCount(2);
  await expect(legend.nth(1)).toHaveText(`${NAME}: entropy`);
  await expect(legend.nth(0)).not.toContainText(NAME);
  await expect.poll(() => lines(entropy, true), { timeout: 10_000 }).toBe(2);

  // verl's val-core/…/acc/mean@2 at τ 1.0 (from the launch command in the log) lands on the lab's held-out series.
  const reward = page.getByTestId('chart-reward');
  await expect(reward.locator('.chart-legend li', { hasText: `${NAME}: avg@2 τ=1` })).toHaveCount(1);
  await expect(reward.locator('.chart-legend li', { hasText: `${NAME}: train reward` })).toHaveCount(1);

  // Keys no chart draws are kept and selectable.
  const extra = page.getByTestId('chart-extra');
  await expect(extra).toBeVisible();
  const picker = page.getByTestId('extra-metric');
  await expect(picker.locator('option', { hasText: 'perf/throughput' })).toHaveCount(1);
  await expect(picker.locator('option', { hasText: 'val-core/magic_lab/acc/best@2/mean (eval)' })).toHaveCount(1);
  await picker.selectOption({ label: 'perf/throughput' });
  await expect(extra.locator('.chart-legend li')).toHaveCount(2);
  await expect(extra.locator('.chart-legend li').nth(1)).toHaveText(`${NAME}: perf/throughput`);
  await expect(extra).toHaveAttribute('data-points', '8', { timeout: 10_000 });
  await extra.scrollIntoViewIfNeeded(); // charts off screen hold their redraws (lib/onscreen.ts)
  await expect.poll(() => lines(extra, true), { timeout: 10_000 }).toBe(1);

  // Untrusted content stays data: the markup in a key is an option's text, never an element.
  const hostile = picker.locator('option', { hasText: '<img src=x onerror=window.__pwned=1>' });
  await expect(hostile).toHaveCount(1);
  await picker.selectOption({ label: 'custom/<img src=x onerror=window.__pwned=1>' });
  await expect(extra.locator('.chart-legend li').nth(1)).toHaveText(`${NAME}: custom/<img src=x onerror=window.__pwned=1>`);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // A file with nothing usable is one clear error naming it; the runs stay as they were.
  await page.getByTestId('run-import-file').setInputFiles({ name: 'empty.log', mimeType: 'text/plain', buffer: Buffer.from('INFO nothing to see\n') });
  await expect(page.getByTestId('error')).toContainText('empty.log: not a run file');
  await expect(page.getByTestId('run-row')).toHaveCount(2);
});
