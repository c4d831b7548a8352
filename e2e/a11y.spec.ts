/**
 * Accessibility (#14 item 5): an axe scan (WCAG 2 A/AA rules) of the main view, the Findings view
 * and the phone layout finds nothing serious or critical.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { openLab, waitForState } from './helpers';

async function scan(page: Page, what: string) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const lines = bad.map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.length} nodes, e.g. ${v.nodes.slice(0, 60).map((n) => n.target.join(' ')).join(' | ')}`);
  console.log(`${what}: ${result.violations.map((v) => `${v.impact} ${v.id} (${v.nodes.length})`).join(', ') || 'no violations'}`);
  expect(lines, `${what}: serious or critical accessibility violations`).toEqual([]);
}

test('main view, before and after a run', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await openLab(page, '/?preset=magic-tiny');
  await scan(page, 'main view');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await scan(page, 'main view after a run');
});

test('Findings view', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  // The tiny reference runs of e2e/fixtures/reference (as e2e/findings.spec.ts), findings first.
  await page.route('**/reference/**', (route) => route.fulfill({ path: `e2e/fixtures/reference/${new URL(route.request().url()).pathname.replace(/^.*\/reference\//, '')}`, contentType: 'application/json' }));
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('view-findings').click();
  await expect(page.getByTestId('finding')).toBeVisible();
  await expect(page.getByTestId('finding').locator('canvas.chart-canvas[data-drawn*=\'"kind":"band"\']').first()).toBeAttached({ timeout: 10_000 });
  await scan(page, 'Findings view');
});

test('phone layout 390×844', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openLab(page, '/?preset=magic-tiny');
  await scan(page, 'phone');
});

test('labels name their inputs; an invalid field is marked where it is, and Play says why it is off', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await openLab(page, '/?preset=magic-tiny');
  // Each config field's label names its input.
  await expect(page.getByLabel('Train prompts', { exact: false })).toHaveAttribute('data-testid', 'field-data.trainSize');
  await expect(page.getByRole('group', { name: 'Task families' })).toHaveAttribute('data-testid', 'field-data.families');

  const trainSize = page.getByTestId('field-data.trainSize');
  await trainSize.fill('0');
  // Marked invalid, the message beside it and tied to it.
  await expect(trainSize).toHaveAttribute('aria-invalid', 'true');
  await expect(trainSize).toHaveAttribute('aria-describedby', 'field-data.trainSize-error');
  const message = page.getByTestId('field-data.trainSize-error');
  await expect(message).toBeVisible();
  await expect(message).toContainText('data.trainSize');
  await expect(page.getByTestId('field-seed')).not.toHaveAttribute('aria-invalid', 'true');
  // Play is off and says why, where Play is: on the button and in a line beside it that leads to the field.
  const play = page.getByTestId('play');
  await expect(play).toBeDisabled();
  await expect(play).toHaveAttribute('title', /^Fix the configuration first — data\.trainSize/);
  await expect(play).toHaveAttribute('aria-describedby', 'play-blocked');
  await expect(page.getByTestId('play-blocked')).toContainText('data.trainSize');
  await trainSize.evaluate((el) => el.closest('aside')!.scrollTo(0, 0));
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByTestId('play-blocked-show').click();
  await expect(trainSize).toBeFocused();
  await expect(trainSize).toBeInViewport();
  await trainSize.fill('16');
  await expect(trainSize).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('play-blocked')).toHaveCount(0);
  await expect(play).toBeEnabled();

  // A stage's field: marked in its row.
  const maxlen = page.getByTestId('stage-1-maxlen');
  await maxlen.fill('1000');
  await expect(maxlen).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('stage-1-error')).toContainText('stages[1].maxResponseLength');
  await expect(maxlen).toHaveAttribute('aria-describedby', 'stage-1-error');
  await expect(play).toBeDisabled();
  await maxlen.fill('24');
  await expect(play).toBeEnabled();
});

test('keyboard: Play, and the inspector tokens, work without a mouse', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('play').focus();
  await page.keyboard.press('Enter');
  await waitForState(page, 'done');
  const token = page.getByTestId('rollouts').getByTestId('token');
  await token.first().focus();
  await page.keyboard.press('ArrowRight');
  await expect(token.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('token-view')).toBeVisible();
  await expect(page.getByTestId('token-view')).toContainText('at position 1');
});
