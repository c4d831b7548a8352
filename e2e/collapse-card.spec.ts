/**
 * The collapse card (issue 22 item 6): a small-rung Try-this card that overlays MAGIC and its
 * no-control twin from reference runs, without training: the twin's entropy falls through the
 * target while MAGIC's is held, and the line under the card names the step of collapse.
 *
 * The reference runs are the synthetic fixture e2e/fixtures/collapse/ (tests/ui/collapse-fixture.ts,
 * made with the real writer) served with page.route: index.json = the shipped index + its
 * entropy-control-small entry. These routes go once the real public/reference/entropy-control-small.json
 * (`magic-lab ablate entropy-control --rung small --seeds 5 --reference`) ships; the assertions on
 * divergence then hold for the real runs (the step in the sentence becomes theirs).
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { openLab } from './helpers';

const FIXTURE = 'e2e/fixtures/collapse';

test('the collapse card overlays the twin\'s and MAGIC\'s small-rung reference entropy; they diverge and the line names the collapse step', async ({ page }) => {
  const shipped = JSON.parse(readFileSync('public/reference/index.json', 'utf8')) as { entries: { name: string }[] };
  const small = JSON.parse(readFileSync(`${FIXTURE}/index.json`, 'utf8')) as { entries: { name: string }[] };
  const index = { ...shipped, entries: [...shipped.entries.filter((e) => e.name !== 'entropy-control-small'), ...small.entries] };
  await page.route('**/reference/index.json', (route) => route.fulfill({ json: index }));
  await page.route('**/reference/entropy-control-small.json', (route) => route.fulfill({ path: `${FIXTURE}/entropy-control-small.json`, contentType: 'application/json' }));

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
  await expect(compare).toContainText("B's entropy fell through the target 0.1 at step 124 and stayed below it");
  await expect(compare).toContainText("A's 10-step mean held at or above 0.9× the target");
});
