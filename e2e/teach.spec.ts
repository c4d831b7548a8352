/**
 * Teaching features (#14): "How MAGIC works" with equations linked to config fields, the per-chart
 * explanation lines and event markers of a live run, Try-this cards as links, and teacher mode.
 */
import { expect, test } from '@playwright/test';
import { openLab, waitForState } from './helpers';

test('an equation link in "How MAGIC works" shows its config field', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const explainer = page.getByTestId('explainer');
  await explainer.locator('summary').click();
  await expect(explainer.getByText('GRPO: compare answers within a group')).toBeVisible();
  // MathML is laid out (not shown as raw text): a fraction has a height.
  const frac = explainer.locator('math mfrac').first();
  expect((await frac.boundingBox())!.height).toBeGreaterThan(20);
  // The chip names the symbol and today's value; clicking it focuses and highlights the field.
  const chip = explainer.getByTestId('eq-loss').getByTestId('eqlink-loss.epsHigh');
  await expect(chip).toHaveText('ε_high = 0.2');
  await chip.click();
  const input = page.getByTestId('field-loss.epsHigh');
  await expect(input).toBeFocused();
  await expect(page.locator('.field[data-field="loss.epsHigh"]')).toHaveClass(/highlight/);
  await expect(input).toBeInViewport();
  // A field in a collapsed group is opened first; a symbol inside the equation links too.
  await expect(page.getByTestId('group-eval')).not.toHaveAttribute('open', '');
  await explainer.getByTestId('eq-eval').locator('.eq-link[data-field="eval.k"]').click();
  await expect(page.getByTestId('field-eval.k')).toBeFocused();
  await expect(page.getByTestId('group-eval')).toHaveAttribute('open', '');
  // Editing the field updates the chip: the panel reads the live config.
  await page.getByTestId('field-loss.epsHigh').fill('0.28');
  await expect(chip).toHaveText('ε_high = 0.28');
  // The paper is linked.
  await expect(explainer.getByRole('link', { name: /arXiv 2505\.22312/ })).toHaveAttribute('href', 'https://arxiv.org/abs/2505.22312');
});

test('a tiny run explains each chart in words and marks its events', async ({ page }) => {
  // A target above any entropy this policy reaches: the controller switches on at step 1.
  await openLab(page, '/?preset=magic-tiny&loss.entropy.target=3');
  await expect(page.getByTestId('explain-entropy')).toHaveCount(0);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(page.getByTestId('explain-entropy-coeff')).toContainText(/^Entropy control switched on at step 1: e_k = [\d.]+ fell below the target 3, so α = c = 1\./);
  await expect(page.getByTestId('explain-groups')).toContainText(/^Step 4: (\d+ of 2 groups kept|all 2 groups kept|all of 2 groups dropped)/);
  await expect(page.getByTestId('explain-reward')).toContainText(/Held-out avg@2 at τ = 1\.0: [\d.]+% \(step 0\) → [\d.]+% \(step 4\)/);
  await expect(page.getByTestId('explain-reward')).toContainText(/SE is [\d.]+ points \(4 problems × 2 each\)/);
  await expect(page.getByTestId('explain-length')).toContainText('Stage 2 began at step 3: responses may now be 24 tokens long.');
  await expect(page.getByTestId('explain-clipfrac')).toContainText('On-policy (N_SGD = 1)');
  // The controller's switch-on is marked on the entropy charts, with the reason as its tooltip.
  const marker = page.getByTestId('chart-entropy-coeff').locator('.event-marker[data-kind="controller-on"]');
  await expect(marker).toHaveCount(1);
  await expect(marker).toHaveAttribute('data-step', '1');
  await expect(marker.locator('text')).toHaveText('α on');
  await expect(marker.locator('title')).toHaveText(/^Entropy control switched on at step 1/);
  await expect(page.getByTestId('chart-entropy').locator('.event-marker[data-kind="controller-on"]')).toHaveCount(1);
  // Live numbers in the explainer's controller section.
  await page.getByTestId('explainer').locator('summary').click();
  await expect(page.getByTestId('controller-now')).toContainText(/At step 4 of the run on the charts: e_k = [\d.]+ nats, c = [\d.]+, α = [\d.]+\./);
});

test('a Try-this card loads its setup in one click, as a shareable link', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const panel = page.getByTestId('try-this');
  await panel.locator('summary').click();
  const setup = panel.getByTestId('try-temperature-b');
  const href = await setup.getAttribute('href');
  expect(href).toMatch(/^\?preset=temp-0\.6&stages=.*&try=temperature\.b$/);
  await setup.click();
  await expect(page.getByTestId('preset')).toHaveValue('temp-0.6');
  await expect(page.getByTestId('field-rollout.temperature')).toHaveValue('0.6');
  await expect(page.getByTestId('timeline-stage-0')).toContainText('40 steps');
  await expect(panel.getByTestId('try-status')).toHaveText('B: τ = 0.6 is loaded: press ▶ Play.');
  await expect.poll(() => new URL(page.url()).searchParams.get('try')).toBe('temperature.b');
  expect(new URL(page.url()).searchParams.get('preset')).toBe('temp-0.6');
  // The address is the link: opening it gives the same setup, with the card open.
  const url = page.url();
  await page.goto('about:blank');
  await openLab(page, url);
  await expect(page.getByTestId('preset')).toHaveValue('temp-0.6');
  await expect(page.getByTestId('field-rollout.temperature')).toHaveValue('0.6');
  await expect(page.getByTestId('try-this')).toHaveAttribute('open', '');
  await expect(page.getByTestId('try-temperature')).toHaveClass(/active/);
  // An edit is noticed.
  await page.getByTestId('field-rollout.temperature').fill('0.7');
  await expect(page.getByTestId('try-status')).toHaveText('B: τ = 0.6 was loaded, then edited.');
});

test('hide=bench leaves the Benchmark tab out, and a link to the Benchmark view opens the training curves instead', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny&teacher=1&hide=bench&view=bench');
  await expect(page.getByTestId('view-bench')).toHaveCount(0);
  await expect(page.getByTestId('view-findings')).toBeVisible();
  await expect(page.getByTestId('chart-entropy')).toBeVisible();
  await expect(page.getByTestId('teacher-bar').getByText('Benchmark tab')).toBeVisible();
});

test('teacher mode leaves the hidden controls out, and the bar edits what is hidden', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny&teacher=1&hide=config,stages,findings,chart-clipfrac');
  await expect(page.getByTestId('teacher-bar')).toBeVisible();
  await expect(page.getByTestId('config-panel')).toHaveCount(0);
  await expect(page.getByTestId('stage-editor')).toHaveCount(0);
  await expect(page.getByTestId('view-findings')).toHaveCount(0);
  await expect(page.getByTestId('chart-clipfrac')).toHaveCount(0);
  await expect(page.getByTestId('chart-entropy')).toBeVisible();
  await expect(page.getByTestId('play')).toBeVisible();
  // The students' link is the same page without the teacher bar.
  const student = await page.getByTestId('student-link').inputValue();
  expect(new URL(student).searchParams.get('teacher')).toBeNull();
  expect(new URL(student).searchParams.get('hide')).toBe('config,stages,findings,chart-clipfrac');
  // Ticking hides at once and goes into the link; unticking brings it back.
  await page.getByTestId('hide-runs').check();
  await expect(page.getByTestId('runs-panel')).toHaveCount(0);
  await expect.poll(() => new URL(page.url()).searchParams.get('hide')).toBe('stages,config,findings,chart-clipfrac,runs');
  await page.getByTestId('hide-config').uncheck();
  await expect(page.getByTestId('config-panel')).toBeVisible();
  // A student opening the link sees no teacher bar and the same controls hidden.
  await page.goto(student);
  await expect(page.getByTestId('adapter-name')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('teacher-bar')).toHaveCount(0);
  await expect(page.getByTestId('config-panel')).toHaveCount(0);
  await expect(page.getByTestId('stage-editor')).toHaveCount(0);
  // An equation chip of a hidden field is disabled.
  await page.getByTestId('explainer').locator('summary').click();
  await expect(page.getByTestId('eq-loss').getByTestId('eqlink-loss.epsHigh')).toBeDisabled();
});
