/**
 * The GRPO group inspector (RolloutViewer.tsx) on a tiny run: a group's G responses with reward,
 * advantage and kept/rejected, token colouring with its legend, the step slider, and a clicked
 * token's alternatives at two temperatures (a forward pass of the Worker's policy).
 */
import { expect, test } from '@playwright/test';
import { openLab, waitForState } from './helpers';

test('group inspector: G responses, colour legend, step slider, token alternatives', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const insp = page.getByTestId('rollouts');
  await expect(insp.getByTestId('rollouts-step')).toHaveText('step 4');

  // One group at a time: magic-tiny samples G = 4 responses per prompt, and records 2 groups a step.
  const group = insp.getByTestId('group');
  await expect(group).toHaveCount(1);
  await expect(insp.getByTestId('group-chip')).toHaveCount(2);
  const samples = group.getByTestId('sample');
  await expect(samples).toHaveCount(4);
  for (let i = 0; i < 4; i++) {
    await expect(samples.nth(i).getByTestId('sample-reward')).toHaveText(/^r = [01]$/);
    await expect(samples.nth(i).getByTestId('sample-advantage')).toHaveText(/^Â = [+−]\d+\.\d\d$/);
  }
  await expect(group.getByTestId('group-status')).toHaveText(/^(kept|rejected|not trained)$/);
  await expect(group.getByTestId('group-why')).toHaveText(/^(kept|rejected|not trained): /);
  // The other group: its own prompt and verdict.
  const firstPrompt = await group.getByTestId('group-prompt').textContent();
  await insp.getByTestId('group-chip').nth(1).click();
  await expect(group.getByTestId('group-prompt')).not.toHaveText(firstPrompt!);
  await insp.getByTestId('group-chip').nth(0).click();

  // Colouring: a legend with the scale's units; text colour chosen for contrast.
  const legend = insp.getByTestId('legend-scale');
  await expect(legend).toHaveCount(0);
  await page.getByTestId('token-colour').selectOption('entropy');
  await expect(legend).toContainText('nats');
  await expect(legend).toContainText('ln 24');
  const tok = group.getByTestId('token').first();
  await expect(tok).toHaveAttribute('style', /background: rgb.*color: rgb\((0, 0, 0|255, 255, 255)\)/);
  await page.getByTestId('token-colour').selectOption('logp');
  await expect(legend).toContainText('≤ 1/24');
  await page.getByTestId('token-colour').selectOption('advantage');
  await expect(legend).toContainText('Â');
  await page.getByTestId('token-colour').selectOption('entropy');

  // The step slider goes back through the page's history.
  const slider = insp.getByTestId('inspector-step');
  await slider.focus();
  await page.keyboard.press('Home');
  await expect(insp.getByTestId('rollouts-step')).toHaveText('step 1');
  await expect(insp.getByTestId('inspector-step-label')).toContainText('1 of 4');
  await page.keyboard.press('ArrowRight');
  await expect(insp.getByTestId('rollouts-step')).toHaveText('step 2');
  await page.keyboard.press('End');
  await expect(insp.getByTestId('rollouts-step')).toHaveText('step 4');

  // A token's alternatives under the policy now, at τ 0.6 and 1.0 (and a τ slider).
  await group.getByTestId('token').nth(1).click();
  const view = insp.getByTestId('token-view');
  await expect(view).toBeVisible();
  await expect(view.getByTestId('token-view-policy')).toContainText('after step 4');
  const cols = view.getByTestId('alt-col');
  await expect(cols).toHaveCount(2);
  await expect(cols.nth(0)).toHaveAttribute('data-temperature', '0.6');
  await expect(cols.nth(1)).toHaveAttribute('data-temperature', '1');
  for (let i = 0; i < 2; i++) {
    await expect(cols.nth(i).getByTestId('alt')).toHaveCount(5);
    await expect(cols.nth(i).getByTestId('alt').first()).toContainText('%');
  }
  // τ 0.6 sharpens: its top token is at least as likely as at τ 1.0.
  const topP = async (i: number) => parseFloat((await cols.nth(i).locator('.alt-p').first().textContent())!.replace('<', ''));
  expect(await topP(0)).toBeGreaterThanOrEqual(await topP(1));
  await expect(view.getByTestId('alt-col-custom')).toBeVisible();
});
