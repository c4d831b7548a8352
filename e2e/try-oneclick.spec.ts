/**
 * One-click contrasts (#28): a Try-this card's arms run back to back and are overlaid with one
 * click (an identical finished run is reused), or its reference runs are overlaid at once; a
 * lesson steps through its cards with "next".
 */
import { expect, test } from '@playwright/test';
import { openLab } from './helpers';

test('Run both trains a tiny card\'s two arms and overlays them; a second click reuses them', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const panel = page.getByTestId('try-this');
  await panel.locator('summary').click();
  const card = panel.getByTestId('try-first-look');
  await card.getByTestId('try-first-look-run').click();
  await expect(card.getByTestId('try-progress')).toHaveText('All 2 arms overlaid', { timeout: 90_000 });
  const entropy = page.getByTestId('chart-entropy');
  await expect(entropy).toHaveAttribute('data-runs', '2', { timeout: 10_000 });
  // The card brings its first chart into view (charts off screen hold their redraws, lib/onscreen.ts).
  await expect(entropy).toBeInViewport();
  await expect(entropy).toContainText('A: MAGIC, tiny · A first look (tiny, seconds): entropy');
  await expect(entropy).toContainText('B: target entropy 3 nats · A first look (tiny, seconds): entropy');
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  // B, the arm the card's words are about, is the active run: its "α on" mark at step 1 and its 3-nat target are drawn.
  const mark = page.getByTestId('chart-entropy-coeff').locator('.event-marker[data-kind="controller-on"]');
  await expect(mark).toHaveCount(1, { timeout: 10_000 });
  await expect(mark).toHaveAttribute('data-step', '1');
  await expect(page.getByTestId('explain-entropy-coeff')).toContainText('fell below the target 3');
  // The line under the card compares the two runs from their data (B's target is above any entropy reached).
  await expect(card.getByTestId('try-compare')).toContainText(/Mean entropy over the last 20% of steps: A [\d.]+, B [\d.]+ nats\./);
  // Again: both arms are identical finished runs, reused at once (no new run).
  await card.getByTestId('try-first-look-run').click();
  await expect(card.getByTestId('try-progress')).toHaveText('All 2 arms overlaid (2 reused from an identical finished run)');
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await expect(entropy).toHaveAttribute('data-runs', '2');

  // Another card's reference runs instead: its two arms' bands at once; the first card's overlay goes.
  const t0 = Date.now();
  await panel.getByTestId('try-temperature-reference').click();
  await expect(entropy).toHaveAttribute('data-reference-series', '2', { timeout: 10_000 });
  expect(Date.now() - t0).toBeLessThan(5_000);
  await expect(entropy).toBeInViewport();
  await expect(entropy.getByTestId('reference-legend')).toHaveText(['reference: A: τ = 1.0 (MAGIC) (5 seeds)', 'reference: B: τ = 0.6 (5 seeds)']);
  await expect(entropy).toHaveAttribute('data-runs', '1');
  await expect(panel.getByTestId('try-first-look').getByTestId('try-play')).toHaveCount(0);
  await expect(panel.getByTestId('try-temperature').getByTestId('try-compare')).toHaveText(
    /^Neither run's entropy fell below the target 0\.1\. Mean entropy over the last 20% of steps: A 0\.\d+, B 0\.\d+ nats\.$/,
  );
});

test('a lesson from the URL shows its card and questions; teacher mode steps with next', async ({ page }) => {
  const lesson = { title: 'Entropy, two ways', hidden: ['findings'], cards: [{ card: 'temperature', questions: ['Which arm starts lower?'] }, { card: 'entropy-control', arms: ['a', 'c'] }] };
  await openLab(page, `/?preset=magic-tiny&teacher=1&lesson=${encodeURIComponent(JSON.stringify(lesson))}`);
  const panel = page.getByTestId('try-this');
  await expect(panel).toHaveAttribute('open', '');
  await expect(panel.getByTestId('lesson')).toContainText('Entropy, two ways');
  await expect(panel.getByTestId('lesson-step')).toHaveText('· card 1 of 2');
  await expect(panel.getByTestId('lesson-questions')).toHaveText('Which arm starts lower?');
  await expect(panel.locator('.try-card')).toHaveCount(1);
  await expect(page.getByTestId('view-findings')).toHaveCount(0);
  await panel.getByTestId('try-temperature-reference').click();
  await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-reference-series', '2', { timeout: 10_000 });
  await panel.getByTestId('lesson-next').click();
  await expect(panel.getByTestId('lesson-step')).toHaveText('· card 2 of 2');
  await expect(panel.getByTestId('try-entropy-control-run')).toHaveText('▶ Run both'); // the lesson's two arms
  await expect(page.getByTestId('chart-entropy')).toHaveAttribute('data-reference-series', '0');
  await expect(panel.getByTestId('lesson-next')).toBeDisabled();
  // A bad lesson: one error naming the field.
  await page.goto(`/?preset=magic-tiny&lesson=${encodeURIComponent('{"title":"x","cards":[{"card":"nope"}]}')}`);
  await expect(page.getByText(/lesson\.cards\[0\]\.card: no Try-this card "nope"/)).toBeVisible({ timeout: 60_000 });
});
