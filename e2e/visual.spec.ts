/**
 * Visual regression: deterministic screenshots (fixed seed, fixed tiny run, animations off,
 * fixed viewport) compared with the baselines in e2e/__screenshots__/. Timings (tokens/s) and
 * the machine-specific GPU panel are masked.
 *
 * Update the baselines after an intended change:  npx playwright test e2e/visual.spec.ts --update-snapshots=all
 * (run `npx vite build` first). Also write docs/screenshot-*.png:  DOCS_SCREENSHOTS=1 npx playwright test e2e/visual.spec.ts
 * Then shrink what was written to palette PNGs (checked against Playwright's comparator; tests/build/tree-size.test.ts
 * requires it):  sh scripts/shrink-png.sh e2e/__screenshots__/visual.spec.ts/NAME.png docs/screenshot-NAME.png
 */
import { expect, test, type Page } from '@playwright/test';
import { openLab, waitForState } from './helpers';

test.use({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });

const masks = (page: Page) => [page.locator('[data-volatile] .chart-box'), page.getByTestId('adapter')];
/**
 * A volatile chart's explanation reads the clock (the step-time line) and wraps to a varying number of lines, which
 * moves everything below it by a pixel or a line: the screenshots are taken without it.
 */
const withoutClockText = (page: Page) => page.addStyleTag({ content: '[data-volatile] .chart-explain { display: none !important; }' });
const docs = !!process.env.DOCS_SCREENSHOTS;

test('main view before a run', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await withoutClockText(page);
  await expect(page).toHaveScreenshot('initial.png', { fullPage: true, mask: masks(page) });
});

test('main view and rollout viewer after a fixed tiny run', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await withoutClockText(page);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(page.getByTestId('chart-grad-norm')).toHaveAttribute('data-points', '4', { timeout: 10_000 });
  await page.waitForTimeout(1500); // staggered chart redraws settle
  await page.mouse.move(0, 0);
  // Axes fit their data: η = 6e-4 gets its own scale, not the 0–1 axis of an all-zero chart.
  await expect(page.getByTestId('chart-lr').locator('text').filter({ hasText: /^6\.0e-4$/ })).toHaveCount(1);
  await expect(page.getByTestId('chart-entropy').locator('text').filter({ hasText: /^1$/ })).toHaveCount(1); // the x tick "1" only
  await expect(page).toHaveScreenshot('after-run.png', { fullPage: true, mask: masks(page) });
  if (docs) await page.screenshot({ path: 'docs/screenshot-main.png' });

  const rollouts = page.getByTestId('rollouts');
  await expect(rollouts).toHaveScreenshot('rollouts.png');
  await page.getByTestId('token-colour').selectOption('entropy');
  await expect(rollouts).toHaveScreenshot('rollouts-entropy.png');
});

test('How MAGIC works: the explainer panel with its equations', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await withoutClockText(page);
  const explainer = page.getByTestId('explainer');
  await explainer.locator('summary').click();
  await page.mouse.move(0, 0);
  await expect(explainer).toHaveScreenshot('explainer.png');
  if (docs) await explainer.screenshot({ path: 'docs/screenshot-explainer.png' });
});

test('group inspector: a group coloured by entropy, the legend, and a token view', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await withoutClockText(page);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const insp = page.getByTestId('rollouts');
  await expect(insp.getByTestId('rollouts-step')).toHaveText('step 4');
  await page.getByTestId('token-colour').selectOption('entropy');
  await insp.getByTestId('token').nth(3).click();
  await expect(insp.getByTestId('alt-col')).toHaveCount(2);
  await page.mouse.move(0, 0);
  await expect(insp).toHaveScreenshot('inspector.png');
  if (docs) await insp.screenshot({ path: 'docs/screenshot-rollouts.png' });
});
