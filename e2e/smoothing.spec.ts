/**
 * Sentence and line agree at any smoothing: the measured values are drawn faintly beneath each smoothed line,
 * so a step the sentence counts below the target is on the chart, and the α marks stand on measured steps.
 */
import { expect, test } from '@playwright/test';
import { openLab, rawLines, waitForState } from './helpers';

test('at the default smoothing each smoothed chart draws its measured values beneath; at 0 there is only the line', async ({ page }) => {
  // A target above any entropy this policy reaches: the controller switches on at step 1.
  await openLab(page, '/?preset=magic-tiny&loss.entropy.target=3');
  await expect(page.getByTestId('smoothing')).toHaveValue('0.6');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const entropy = page.getByTestId('chart-entropy');
  await expect.poll(async () => (await rawLines(entropy)).length, { timeout: 10_000 }).toBe(1);
  const [raw] = await rawLines(entropy);
  // Every measured step is drawn, in the line's colour.
  await expect(entropy).toHaveAttribute('data-points', String(raw.points));
  // Step-exact series (α and c) are drawn as they are: nothing beneath.
  expect(await rawLines(page.getByTestId('chart-entropy-coeff'))).toEqual([]);
  await page.getByTestId('smoothing').fill('0');
  await expect.poll(async () => (await rawLines(entropy)).length, { timeout: 10_000 }).toBe(0);
});
