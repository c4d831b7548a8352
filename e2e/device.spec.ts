import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config';

test('the page finds a WebGPU adapter through its Worker and shows it', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'MAGIC Lab' })).toBeVisible();
  await expect(page.getByTestId('adapter-name')).toContainText(/swiftshader|google|nvidia|amd|intel|apple/i, { timeout: 60_000 });
  await expect(page.getByTestId('adapter')).toContainText('maxStorageBufferBindingSize');
});

test('without WebGPU the page says what is missing and which browsers work', async () => {
  // Same browser, launched without --enable-unsafe-webgpu: no adapter is available.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto('http://127.0.0.1:4173/');
    const box = page.getByTestId('no-webgpu');
    await expect(box).toBeVisible({ timeout: 60_000 });
    await expect(box).toContainText('WebGPU is not available');
    await expect(box).toContainText(/Chrome or Edge 113\+/);
  } finally {
    await browser.close();
  }
});
