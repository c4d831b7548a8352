import { expect, test, type Page } from '@playwright/test';
import { openLab } from './helpers';

/**
 * The page on a phone, a tablet and a laptop: nothing wider than the screen, no panel squeezed to
 * nothing or pushed off the edge, and the run controls reachable.
 */
for (const [name, width, height] of [
  ['phone', 390, 844],
  ['tablet', 820, 1180],
  ['small laptop', 1280, 720],
  ['laptop', 1440, 1000],
] as const) {
  test(`${name} ${width}×${height}: no panel clipped or squeezed, controls reachable`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await openLab(page, '/?preset=magic-tiny');
    const layout = await page.evaluate(() => {
      const box = (el: Element) => el.getBoundingClientRect();
      return {
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        columns: ['.left', '.centre', '.right'].map((s) => ({ s, w: box(document.querySelector(s)!).width, right: box(document.querySelector(s)!).right })),
        panels: [...document.querySelectorAll('.panel')].filter((p) => (p as HTMLElement).offsetParent !== null).map((p) => ({ w: box(p).width, left: box(p).left, right: box(p).right })),
      };
    });
    expect(layout.scrollWidth, 'page wider than the screen').toBeLessThanOrEqual(layout.innerWidth);
    for (const c of layout.columns) {
      expect(c.w, `${c.s} width`).toBeGreaterThan(Math.min(240, width * 0.6));
      expect(c.right, `${c.s} right edge`).toBeLessThanOrEqual(width + 0.5);
    }
    expect(layout.panels.length).toBeGreaterThan(3);
    for (const p of layout.panels) {
      expect(p.left).toBeGreaterThanOrEqual(-0.5);
      expect(p.right).toBeLessThanOrEqual(width + 0.5);
      expect(p.w).toBeGreaterThan(200);
    }
    // The centre column (charts) gets most of a phone's width.
    if (width < 760) expect(layout.columns[1].w).toBeGreaterThan(width * 0.9);
    await page.getByTestId('step').scrollIntoViewIfNeeded();
    await page.getByTestId('step').click();
    await expect(page.getByTestId('step-counter')).toHaveText('1', { timeout: 60_000 });
    await page.getByTestId('chart-entropy').scrollIntoViewIfNeeded();
    await expect(page.getByTestId('chart-entropy')).toBeInViewport();
  });
}

/**
 * Every visible select whose shown option is cut by its box ("after ste" in the tablet stage
 * editor): a hidden copy of it holding just that option, at its natural width in the same place
 * (same font and padding, the arrow included), is wider than the select.
 */
const clippedSelects = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll('select')) {
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const text = el.selectedOptions[0]?.text ?? '';
      const probe = document.createElement('select');
      probe.className = el.className;
      probe.add(new Option(text));
      probe.style.cssText = 'position: absolute; visibility: hidden; width: auto; min-width: 0; max-width: none; flex: none;';
      el.parentElement!.appendChild(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      const have = el.getBoundingClientRect().width;
      if (need > have + 0.5) out.push(`${el.dataset.testid ?? el.getAttribute('aria-label') ?? el.name} "${text}": ${have.toFixed(0)} px of ${need.toFixed(0)}`);
    }
    return out;
  });

for (const [name, width, height] of [
  ['phone', 390, 844],
  ['tablet', 820, 1180],
  ['laptop', 1440, 1000],
] as const) {
  test(`${name} ${width}×${height}: no select's text is cut by its box (the stage editor's "ends" included)`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    // Two stages, one ending on a plateau, so both "ends" choices are shown.
    const stages = encodeURIComponent(JSON.stringify([{ maxResponseLength: 16, steps: 10 }, { maxResponseLength: 24, convergence: { window: 5, minImprovement: 0.01, maxSteps: 50 } }]));
    await openLab(page, `/?preset=magic-tiny&stages=${stages}`);
    // The configuration is collapsed on a phone: open it, so its selects are measured too.
    const config = page.getByTestId('config-panel');
    if ((await config.evaluate((e) => e.tagName)) === 'DETAILS' && (await config.getAttribute('open')) === null) await config.locator('summary').first().click();
    await expect(page.getByTestId('stage-1-mode')).toHaveValue('convergence');
    expect(await clippedSelects(page), 'selects whose shown option is cut').toEqual([]);
  });
}

test('phone 390×844: visual baseline of the stacked page', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openLab(page, '/?preset=magic-tiny');
  await page.mouse.move(0, 0);
  // The machine-specific engine panel is masked, as in e2e/visual.spec.ts.
  await expect(page).toHaveScreenshot('phone.png', { fullPage: true, mask: [page.getByTestId('adapter')] });
  // README's phone screenshot (DOCS_SCREENSHOTS=1): the first screen as a phone shows it.
  if (process.env.DOCS_SCREENSHOTS) await page.screenshot({ path: 'docs/screenshot-phone.png' });
});
