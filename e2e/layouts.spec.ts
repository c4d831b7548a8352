/**
 * Phone, tablet, desktop and projector layouts: at 390 (touch), 820 (touch), 1280 and 1920 px
 * (projector view) no text is cut by its box and the page never scrolls sideways, in each of the
 * three views; where the pointer is coarse every control is a tap target of at least 24 × 24 px
 * (44 px tall for the primary actions). On a phone the run controls come first, then the charts,
 * then the collapsed configuration; equations fit their column; teacher mode's hidden panels leave
 * no empty column; view=projector draws the charts' text larger.
 */
import { expect, test } from '@playwright/test';
import { drawn, openLab, waitForState } from './helpers';
import { clippedText, pageOverflow, smallTargets } from './layout-checks';

const PHONE = { width: 390, height: 844 };

/**
 * The four layouts a class meets. Touch ones are emulated as a phone or tablet browser is (touch
 * events, a mobile viewport, and CSS `(pointer: coarse)`). Targets are held to WCAG 2.5.8's 24 × 24
 * px minimum itself, not its spacing exception (only inline links in a sentence are exempt).
 */
const LAYOUTS = [
  { name: 'phone', width: 390, height: 844, touch: true, query: '' },
  { name: 'tablet', width: 820, height: 1180, touch: true, query: '' },
  { name: 'desktop', width: 1280, height: 800, touch: false, query: '' },
  { name: 'projector', width: 1920, height: 1080, touch: false, query: '&view=projector' },
] as const;

for (const L of LAYOUTS)
  test.describe(`${L.name} ${L.width} px`, () => {
    test.use({ viewport: { width: L.width, height: L.height }, hasTouch: L.touch, isMobile: L.touch });
    test(`${L.name}: no clipped text, no sideways page${L.touch ? ', every control ≥ 24 px' : ''}, in the Training, Findings and Benchmark views`, async ({ page }) => {
      await openLab(page, `/?preset=magic-tiny${L.query}`);
      expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches), 'the pointer is coarse exactly where it is touch').toBe(L.touch);
      for (const view of ['training', 'findings', 'bench']) {
        await page.getByTestId(`view-${view}`).click();
        await expect(page.getByTestId(`view-${view}`)).toHaveAttribute('aria-selected', 'true');
        if (view === 'findings') await expect(page.getByTestId('finding-scalars').first()).toBeVisible({ timeout: 30_000 });
        if (view !== 'bench') await expect(page.locator('.recharts-cartesian-axis-tick-value').first()).toBeVisible({ timeout: 30_000 });
        // Text and ticks settle after the charts measure their boxes: poll until nothing is cut.
        await expect.poll(() => clippedText(page), { message: `${view}: text cut by its box`, timeout: 15_000 }).toEqual([]);
        expect(await pageOverflow(page), `${view}: px the page runs past the screen`).toBe(0);
        if (L.touch) expect(await smallTargets(page), `${view}: controls under 24 × 24 px`).toEqual([]);
      }
      if (!L.touch) return;
      // After a step (the inspector's tokens, a run row), with the configuration and Try this open.
      await page.getByTestId('view-training').click();
      await page.getByTestId('step').click();
      await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: 60_000 });
      await expect(page.getByTestId('rollouts').getByTestId('token').first()).toBeVisible();
      const config = page.getByTestId('config-panel');
      if ((await config.evaluate((e) => e.tagName)) === 'DETAILS' && (await config.getAttribute('open')) === null) await config.locator('summary').first().click();
      await page.getByTestId('try-this').locator('summary').first().click();
      await expect(page.getByTestId('try-temperature-run')).toBeVisible();
      expect(await smallTargets(page), 'after a step, config and Try this open: controls under 24 × 24 px').toEqual([]);
      await expect.poll(() => clippedText(page), { message: 'after a step: text cut by its box', timeout: 15_000 }).toEqual([]);
    });
  });

test('projector 1920 px after a run: the "α on" label is 14 px over the lines, and no tick or label is cut', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  // A target above any entropy this policy reaches: the controller switches on at step 1.
  await openLab(page, '/?preset=magic-tiny&loss.entropy.target=3&view=projector');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const label = page.getByTestId('chart-entropy-coeff').locator('.event-marker[data-kind="controller-on"] text');
  await expect(label).toHaveText('α on');
  // The transparent hover text sits exactly where the canvas drew the label (same layout, same size).
  expect(Number(await label.getAttribute('font-size'))).toBeGreaterThanOrEqual(14);
  const tick = page.getByTestId('chart-entropy-coeff').locator('text.recharts-cartesian-axis-tick-value').first();
  expect(parseFloat(await tick.evaluate((t) => getComputedStyle(t).fontSize))).toBeGreaterThanOrEqual(16);
  await expect.poll(() => clippedText(page), { message: 'text cut by its box', timeout: 15_000 }).toEqual([]);
  expect(await pageOverflow(page)).toBe(0);
});

test('phone 390×844: controls, then charts within two screens, config collapsed; every control ≥ 24 px', async ({ page }) => {
  await page.setViewportSize(PHONE);
  await openLab(page, '/?preset=magic-tiny');
  const top = async (testid: string) => (await page.getByTestId(testid).boundingBox())!.y;
  // Order: run controls, then the first chart, then the configuration.
  const controls = await top('controls');
  const chart = await top('chart-entropy');
  const config = await top('config-panel');
  expect(controls).toBeLessThan(chart);
  expect(chart, 'first chart within the first two screen heights').toBeLessThan(2 * PHONE.height);
  expect(config).toBeGreaterThan(chart);
  // The configuration is collapsed; an error's "Show the field" opens it.
  await expect(page.getByTestId('config-panel')).not.toHaveAttribute('open', '');
  await expect(page.getByTestId('field-data.trainSize')).toBeHidden();

  // Tap targets, before a run and after one step (the inspector's tokens, the run rows).
  expect(await smallTargets(page), 'controls under 24 × 24 px').toEqual([]);
  await page.getByTestId('step').click();
  await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: 60_000 });
  await expect(page.getByTestId('rollouts').getByTestId('token').first()).toBeVisible();
  await page.getByTestId('config-panel').locator('summary').first().click();
  await expect(page.getByTestId('field-data.trainSize')).toBeVisible();
  await page.getByTestId('try-this').locator('summary').first().click();
  await expect(page.getByTestId('try-temperature-run')).toBeVisible();
  expect(await smallTargets(page), 'controls under 24 × 24 px after a step, config and Try this open').toEqual([]);
  for (const id of ['play', 'try-temperature-run']) expect((await page.getByTestId(id).boundingBox())!.height, `${id} is a primary action`).toBeGreaterThanOrEqual(44);
  const token = await page.getByTestId('rollouts').getByTestId('token').first().boundingBox();
  expect(token!.height).toBeGreaterThanOrEqual(24);
});

test('phone: a config error in the collapsed configuration is shown by "Show the field"', async ({ page }) => {
  await page.setViewportSize(PHONE);
  await openLab(page, '/?preset=magic-tiny');
  const summary = page.getByTestId('config-panel').locator('summary').first();
  const trainSize = page.getByTestId('field-data.trainSize');
  await summary.click();
  await trainSize.fill('0');
  await summary.click();
  await expect(trainSize).toBeHidden();
  await expect(summary).toContainText('has an error');
  await page.getByTestId('play-blocked-show').click();
  await expect(trainSize).toBeVisible();
  await expect(trainSize).toBeFocused();
});

for (const size of [PHONE, { width: 820, height: 1180 }]) {
  test(`${size.width}×${size.height}: the equations fit their column, no sideways scrollbar`, async ({ page }) => {
    await page.setViewportSize(size);
    await openLab(page, '/?preset=magic-tiny');
    await page.getByTestId('explainer').locator('summary').click();
    const boxes = page.getByTestId('explainer').locator('.eq');
    expect(await boxes.count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => boxes.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).length)).toBe(0);
    // The loss equation is shrunk, not cut: still readable.
    const loss = page.getByTestId('eq-loss').locator('math');
    expect(parseFloat(await loss.evaluate((m) => getComputedStyle(m).fontSize))).toBeGreaterThanOrEqual(7);
  });
}

test('teacher mode 1440×1000: hiding every right panel leaves no empty column', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.goto('/?preset=magic-tiny&teacher=1&hide=runs,checkpoints,engine');
  await expect(page.getByTestId('reset')).toBeEnabled({ timeout: 60_000 });
  await expect(page.locator('.right')).toHaveCount(0);
  const centre = (await page.locator('.centre').boundingBox())!;
  const lab = (await page.locator('main.lab').boundingBox())!;
  // The charts reach the page's right edge (its padding only).
  expect(lab.x + lab.width - (centre.x + centre.width)).toBeLessThan(24);
  // Hiding one of them in the teacher bar brings the column back.
  await page.getByTestId('hide-runs').uncheck();
  await expect(page.locator('.right')).toBeVisible();
  expect((await page.locator('.centre').boundingBox())!.width).toBeLessThan(centre.width - 200);
});

test('projector view: larger chart text and thicker lines than the default, by link and by toggle', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1000 });
  const tickSize = () => page.getByTestId('chart-entropy').locator('text.recharts-cartesian-axis-tick-value').first().evaluate((t) => parseFloat(getComputedStyle(t).fontSize));
  await openLab(page, '/?preset=magic-tiny');
  const normal = await tickSize();
  await page.getByTestId('projector-toggle').click();
  await expect(page.getByTestId('projector-toggle')).toHaveAttribute('aria-pressed', 'true');
  expect(page.url()).toContain('view=projector');
  expect(await tickSize()).toBeGreaterThan(normal * 1.3);

  await openLab(page, '/?preset=magic-tiny&view=projector');
  await expect(page.getByTestId('projector-toggle')).toHaveAttribute('aria-pressed', 'true');
  expect(await tickSize()).toBeGreaterThan(normal * 1.3);
  // Two steps: a line needs two points to be drawn.
  for (const n of ['1', '2']) {
    await page.getByTestId('step').click();
    await expect(page.getByTestId('step-counter')).toHaveText(n, { timeout: 60_000 });
  }
  // The lines are drawn on the chart's canvas (CanvasSeries): its widths are what it drew.
  await expect.poll(async () => Math.min(...(await drawn(page.getByTestId('chart-entropy'))).filter((s) => s.kind === 'line' && !s.key.endsWith('|raw')).map((s) => s.width))).toBeGreaterThanOrEqual(3);
  // The config still loads from the same link (view= is the page's, not a config field).
  await expect(page.getByTestId('config-error')).toHaveCount(0);
  await page.getByTestId('projector-toggle').click();
  expect(page.url()).not.toContain('view=');
});
