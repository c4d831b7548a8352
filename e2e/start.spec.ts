import { expect, test } from '@playwright/test';
import { openLab, waitForState } from './helpers';
import { DEV_URL } from '../playwright.config';

// What a new user gets from the README's start command: the dev server, where React runs in
// StrictMode (effects mount, unmount and mount again). The other specs use the built app.
test.use({ baseURL: DEV_URL });

test('npm start: the page gets the device, Play trains, the charts draw', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(page.getByTestId('step-counter')).toHaveText('4');
  await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-points', '4', { timeout: 10_000 });
  // Rows of the reward chart: steps 1–4 and the held-out evaluation of the start weights at step 0.
  await expect(page.getByTestId('chart-reward')).toHaveAttribute('data-points', '5');
  expect(errors).toEqual([]);
});
