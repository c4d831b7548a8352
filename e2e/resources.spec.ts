/**
 * Configs too big for this machine or engine (issue #13, resources): the config panel names the
 * field while editing (data, JS heap), and the Worker refuses the engine's limits at start with
 * the size and the limit — before it allocates anything — and then trains the next run.
 */
import { expect, test } from '@playwright/test';
import { openLab, waitForState } from './helpers';

test('a data size beyond the problem space is a config error; Play stays off', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny&data.trainSize=1000000');
  await expect(page.getByTestId('config-error')).toContainText('data.trainSize: 1000000 training + 8 test problems over 3 families need 333337 distinct addition problems');
  await expect(page.getByTestId('play')).toBeDisabled();
});

test('a model too big for the engine is refused at start with the size and the limit; the next run trains', async ({ page }) => {
  // 12.9G parameters: no engine holds the weights (the CPU engine's memory is at most 2 GiB, a WebGPU buffer far less than 48 GiB).
  await openLab(page, '/?preset=magic-tiny&model.dModel=4096&model.nLayers=64&model.nHeads=16');
  await expect(page.getByTestId('config-error')).toHaveCount(0);
  await page.getByTestId('play').click();
  await expect(page.getByTestId('error')).toContainText(/Could not start the run: model: (the CPU engine would need \d+ GiB .*its WebAssembly memory holds at most|the largest GPU buffer would be 48 GiB .*this adapter's)/, { timeout: 30_000 });
  await waitForState(page, 'error', 10_000);
  await page.getByTestId('preset').selectOption('magic-tiny');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
});
