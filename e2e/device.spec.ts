import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config';
import { waitForStep } from './helpers';

test('auto: with only a software WebGPU adapter the Worker opens the CPU engine and says why', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'MAGIC Lab' })).toBeVisible();
  await expect(page.getByTestId('adapter-name')).toContainText(/CPU engine \(WebAssembly SIMD, \d+ threads?\)/, { timeout: 60_000 });
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'wasm');
  await expect(page.getByTestId('engine-note')).toContainText(/software one/);
  // The page is cross-origin isolated (COOP/COEP), so the CPU engine gets its worker threads.
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
});

test('the Engine panel switches to WebGPU and back, and keeps the choice in the URL', async ({ page }) => {
  await page.goto('/?preset=magic-tiny');
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'wasm', { timeout: 60_000 });
  await page.getByTestId('backend-select').selectOption('webgpu');
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'webgpu', { timeout: 60_000 });
  await expect(page.getByTestId('adapter-name')).toContainText(/swiftshader|google|nvidia|amd|intel|apple/i);
  await expect(page.getByTestId('adapter')).toContainText('maxStorageBufferBindingSize');
  expect(new URL(page.url()).searchParams.get('backend')).toBe('webgpu');
  await page.getByTestId('backend-select').selectOption('auto');
  await expect(page.getByTestId('adapter')).toHaveAttribute('data-backend', 'wasm', { timeout: 60_000 });
  expect(new URL(page.url()).searchParams.get('backend')).toBeNull();
});

test('without WebGPU the page trains on the CPU engine and says so', async () => {
  // Same browser, launched without --enable-unsafe-webgpu: no adapter is available.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto('/?preset=magic-tiny');
    await expect(page.getByTestId('adapter-name')).toContainText('CPU engine', { timeout: 60_000 });
    await expect(page.getByTestId('engine-note')).toContainText(/No WebGPU here/);
    await page.getByTestId('step').click();
    await waitForStep(page, 1);
  } finally {
    await browser.close();
  }
});

test('a link that asks for WebGPU where there is none says what is missing and which browsers work', async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto('/?backend=webgpu');
    const box = page.getByTestId('no-webgpu');
    await expect(box).toBeVisible({ timeout: 60_000 });
    await expect(box).toContainText('WebGPU is not available');
    await expect(box).toContainText(/Chrome or Edge 113\+/);
    await expect(box).toContainText('CPU engine');
  } finally {
    await browser.close();
  }
});
