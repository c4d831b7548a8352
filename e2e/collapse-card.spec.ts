/**
 * The collapse card (issue 22 item 6): a small-rung Try-this card that overlays MAGIC and its
 * no-control twin from reference runs, without training: the twin's entropy falls through the
 * target while MAGIC's is held, and the line under the card names the step of collapse.
 *
 * The reference runs are the shipped public/reference/entropy-control-small.json (`magic-lab ablate
 * entropy-control --rung small --seeds 5 --reference`, seeds 101–105); the card is listed because
 * public/reference/index.json names that file at the small rung. The collapse step in the sentence is
 * the sweep's rule on the twin's reference curve (tests/ui/collapse-card.test.ts computes the same step
 * from the file).
 */
import { expect, test } from '@playwright/test';
import { openLab } from './helpers';

test('the collapse card overlays the twin\'s and MAGIC\'s small-rung reference entropy; they diverge and the line names the collapse step', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const panel = page.getByTestId('try-this');
  await panel.locator('summary').click();
  const card = panel.getByTestId('try-collapse'); // listed because the index names entropy-control at the small rung
  await expect(card.locator('h3')).toHaveText('Entropy collapse: MAGIC vs its no-control twin (small rung)');
  const t0 = Date.now();
  await card.getByTestId('try-collapse-reference').click();
  const entropy = page.getByTestId('chart-entropy');
  await expect(entropy).toHaveAttribute('data-reference-series', '2', { timeout: 10_000 });
  expect(Date.now() - t0).toBeLessThan(5_000); // seen at once, nothing trained
  await expect(entropy.getByTestId('reference-legend')).toHaveText(['reference: A: MAGIC (small rung) (5 seeds)', 'reference: B: entropy term off (small rung) (5 seeds)']);

  // They diverge: the overlaid curves' entropy over their last 20% (the data the chart draws), against the target.
  const play = card.getByTestId('try-play');
  await expect(play).toHaveAttribute('data-mode', 'reference');
  const target = Number(await play.getAttribute('data-target'));
  expect(target).toBe(0.1);
  const [magic, twin] = (await play.getAttribute('data-end-entropy'))!.split(',').map(Number);
  expect(twin).toBeLessThan(target);
  expect(magic).toBeGreaterThanOrEqual(0.9 * target);

  // The line names the moment of collapse (the sweep's rule on the twin's reference curve; tests/ui/collapse-card.test.ts gives the same step).
  const compare = card.getByTestId('try-compare');
  await expect(compare).toContainText("B's entropy fell through the target 0.1 at step 15 and stayed below it");
  // A's controller starts at c = 0: it dips, then acts; it never stays below the target for 50 steps.
  await expect(compare).toContainText(/A's 10-step mean (held at or above 0\.9× the target|dipped to 0\.\d+ at step \d+, below 0\.9× the target, but was below the target for at most \d+ steps in a row \(a collapse is 50\))/);
});
