import { expect, test, type Page } from '@playwright/test';
import { openLab } from './helpers';

// Untrusted content stays data (issue #13): shared URLs, imported files and their names are shown
// as text, never parsed as HTML. The payload would set window.__pwned if it ever ran.

const PAYLOAD = '<img src=x onerror="window.__pwned=1">';

async function expectInert(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
}

test('a shared link with markup in a value shows it as text in the one error line', async ({ page }) => {
  await openLab(page, `/?preset=${encodeURIComponent(PAYLOAD)}`);
  // The bad value is quoted (cut to its first characters) as text: the markup's own characters are in the line's text.
  await expect(page.getByTestId('url-error')).toContainText(`preset=${PAYLOAD.slice(0, 20)}`);
  await expect(page.getByTestId('url-error')).toContainText('(no such preset)');
  await page.waitForTimeout(500); // an injected image would have failed to load by now
  await expectInert(page);
});

test('an imported run whose file name and values carry markup is listed as text', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const text = `{"step":1,"actor/entropy":0.5,"note":${JSON.stringify(PAYLOAD)}}\n{"step":2,"actor/entropy":0.4}\n`;
  await page.getByTestId('run-import-file').setInputFiles({ name: `${PAYLOAD}.jsonl`, mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await expect(page.getByTestId('notice')).toContainText(`Imported ${PAYLOAD}.jsonl`);
  await expect(page.getByTestId('run-row').first().getByTestId('run-name')).toContainText(PAYLOAD);
  await page.waitForTimeout(500);
  await expectInert(page);
});
