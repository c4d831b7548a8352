/**
 * A Worker that cannot be wedged (#14 item 6): set-up work reports its progress, and Reset frees a
 * Worker stuck in it — a model large enough to keep the Worker busy for minutes, or a start whose
 * base checkpoint never arrives — so the next run starts without a reload.
 */
import { expect, test, type Page } from '@playwright/test';
import { openLab, waitForState } from './helpers';

const status = (page: Page) => page.getByTestId('status-message');

/**
 * Picks the tiny preset (its config replaces the editor's) and trains it: its first step within
 * 30 s of the Reset (a Worker still busy with the set-up it was given would take minutes).
 */
async function tinyRunTrains(page: Page) {
  await page.getByTestId('preset').selectOption('magic-tiny');
  await page.getByTestId('play').click({ timeout: 30_000 });
  await expect.poll(async () => Number(await page.getByTestId('step-counter').textContent()), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
  await waitForState(page, 'done');
  await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-points', '4', { timeout: 10_000 });
}

// A 25M-parameter policy (the presets' is 0.1M) from random init (the shipped base is for another
// size), whose offline filter samples 2,048 responses before the first step: minutes of set-up work
// on a CPU, during which the Worker reads no message.
const OVERSIZED = '/?preset=magic-tiny&model.dModel=512&model.nLayers=8&model.nHeads=8&data.offlineFilter.enabled=true&data.offlineFilter.samples=128';

test('Reset after an oversized model lets the next run start', async ({ page }) => {
  await openLab(page, OVERSIZED);
  await page.getByTestId('play').click();
  // The set-up reports its phases while the Worker is busy with them.
  await expect(status(page)).toContainText(/building the model \(25,[\d,]+ parameters\)|offline filter: \d+ of 2048 responses sampled/, { timeout: 60_000 });
  await expect(status(page)).toContainText('offline filter: ', { timeout: 60_000 });
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', 'starting');
  await expect(page.getByTestId('reset')).toHaveAttribute('title', /Cancel the start/);
  await page.getByTestId('reset').click();
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', 'idle');
  // The oversized run stays in the list; a tiny run starts in the new Worker and trains.
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await tinyRunTrains(page);
});

test('Reset frees a Worker whose start never finishes (the base checkpoint never arrives)', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  let requests = 0;
  await page.route('**/checkpoints/base-tiny.mlck', (route) => {
    // The first request is never answered: the Worker's start waits, and every command after it.
    if (requests++ > 0) void route.continue();
  });
  await page.getByTestId('play').click();
  await expect(status(page)).toContainText('loading the base checkpoint', { timeout: 30_000 });
  await expect.poll(() => requests).toBe(1);
  await page.waitForTimeout(1000);
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', 'starting');
  await page.getByTestId('reset').click();
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', 'idle');
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-points', '4', { timeout: 10_000 });
  await expect(page.getByTestId('status-message')).toContainText('base checkpoint');
});

test('Reset during a step that does not end in time restarts the Worker; a run started meanwhile starts in the new one', async ({ page }) => {
  // The run starts at once (random init, no filter); its step-0 evaluation samples 2 × 64 × 16
  // responses with a 25M-parameter policy: minutes in one command of the Worker, which answers no `stop` meanwhile.
  await openLab(page, '/?preset=magic-tiny&model.dModel=512&model.nLayers=8&model.nHeads=8&data.testSize=64&eval.testProblems=64&eval.k=16');
  await page.getByTestId('play').click();
  await waitForState(page, 'running', 60_000);
  await page.waitForTimeout(1000);
  await expect(page.getByTestId('step-counter')).toHaveText('0');
  await page.getByTestId('reset').click();
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', 'idle');
  // Play at once: the start waits behind the unanswered stop in the old Worker's queue.
  await tinyRunTrains(page);
  // No answer to the stop within 5 s: the Worker was restarted, said so, and the waiting start went to the new one.
  await expect(page.getByTestId('notice')).toContainText('did not answer Reset within 5 s');
  await expect(page.getByTestId('run-row')).toHaveCount(2);
});
