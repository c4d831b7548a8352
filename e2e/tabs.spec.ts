import { expect, test, type Page } from '@playwright/test';
import { exportedSteps, longTinyUrl, openLab, playThenPause, stepOf, waitForState, waitForStep } from './helpers';

// One origin, several tabs, a tab that closes, storage that goes away (issue #27). In each, nothing
// that was reported saved is lost, and the page says what happened in one sentence (data-testid
// "run-access"; its data-kind says which case).

/** The "resume @N" step a run row offers (its last saved checkpoint). */
async function resumeStep(page: Page): Promise<number> {
  const text = (await page.getByTestId('run-row').getByTestId('run-resume').textContent()) ?? '';
  return Number(/resume @(\d+)/.exec(text)?.[1] ?? NaN);
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

test('two tabs on one run: the second cannot resume, rename or delete the run the first is training, and is offered it read-only', async ({ context }) => {
  const a = await context.newPage();
  await openLab(a, longTinyUrl(30, '&checkpoint.everySteps=2'));
  const paused = await playThenPause(a, 4);
  await a.waitForTimeout(1500); // the run's last throttled write (with its checkpoint step) lands

  const b = await context.newPage();
  await openLab(b, longTinyUrl(30));
  const row = b.getByTestId('run-row');
  await expect(row).toHaveCount(1);
  const banner = b.getByTestId('run-access');
  await expect(banner).toHaveCount(0); // the run is live in tab A: not "left unfinished"
  const name = (await row.getByTestId('run-name').textContent()) ?? '';

  await row.getByTestId('run-resume').click();
  await expect(banner).toHaveAttribute('data-kind', 'locked');
  await expect(banner).toContainText(`${name} is open for training in another tab of this browser, so this tab cannot resume or save it; you can open it here read-only.`);
  await expect(b.getByTestId('run-state')).toHaveAttribute('data-state', 'idle');

  await row.getByTestId('run-rename').click();
  await b.getByTestId('run-name-input').fill('renamed in tab B');
  await b.getByTestId('run-name-input').press('Enter');
  await expect(banner).toContainText('so this tab cannot rename it');
  await row.getByTestId('run-delete').click();
  await expect(banner).toContainText('so this tab cannot delete it');
  await expect(row).toHaveCount(1);

  await b.getByTestId('run-access-read-only').click();
  await expect(banner).toHaveAttribute('data-kind', 'read-only');
  await expect(banner).toContainText(`${name} is shown read-only: another tab is training it`);

  // Tab A trains on; tab B follows its saves and wrote nothing over them.
  await a.getByTestId('play').click();
  await waitForStep(a, paused + 4);
  await a.getByTestId('pause').click();
  await waitForState(a, 'paused');
  const later = await stepOf(a);
  await expect(row.getByTestId('run-steps')).toHaveText(`${later} steps`, { timeout: 15_000 });
  await expect(a.getByTestId('run-row').getByTestId('run-name')).toHaveText(name);

  // Tab A closes (its lock goes with it): tab B may now train the run, from its last checkpoint.
  await a.close();
  const ck = await resumeStep(b);
  expect(ck).toBeGreaterThanOrEqual(paused - 1);
  await row.getByTestId('run-resume').click();
  await waitForState(b, 'paused');
  await expect(banner).toHaveCount(0);
  expect(await stepOf(b)).toBe(ck);
  expect(await exportedSteps(b, row)).toEqual(oneToN(ck));
});

test('a tab closed mid-save: every step reported saved is there when the run is opened again', async ({ context }) => {
  const a = await context.newPage();
  await openLab(a, longTinyUrl(30, '&checkpoint.everySteps=0'));
  const saved = await playThenPause(a, 3);
  await a.getByTestId('checkpoint-save').click();
  await expect(a.getByTestId('notice')).toContainText(`Checkpoint saved at step ${saved}.`);
  await a.getByTestId('play').click();
  await waitForStep(a, saved + 3);
  await a.getByTestId('checkpoint-save').click();
  await a.close(); // with that save in flight

  const b = await context.newPage();
  await openLab(b, longTinyUrl(30));
  const row = b.getByTestId('run-row');
  await expect(row).toHaveCount(1);
  const ck = await resumeStep(b);
  expect(ck).toBeGreaterThanOrEqual(saved);
  const banner = b.getByTestId('run-access');
  await expect(banner).toHaveAttribute('data-kind', 'visit');
  await expect(banner).toContainText(`did not finish (it stopped at step`);
  await expect(banner).toContainText(`in a tab now closed); resume @${ck} continues it from its last saved checkpoint.`);
  expect((await exportedSteps(b, row)).slice(0, saved)).toEqual(oneToN(saved));
  await row.getByTestId('run-resume').click();
  await waitForState(b, 'paused');
  expect(await stepOf(b)).toBe(ck);
  expect(await exportedSteps(b, row)).toEqual(oneToN(ck));
});

test('storage cleared between visits: the page says the saved runs are gone, and trains and saves again', async ({ context, page }) => {
  const url = longTinyUrl(3);
  await openLab(page, url);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const rows = page.getByTestId('run-row');
  await expect(rows).toHaveCount(1);
  const runId = await rows.first().getAttribute('data-run-id');
  await page.waitForTimeout(1500); // the run's last throttled write lands
  const origin = new URL(page.url()).origin;
  const cdp = await context.newCDPSession(page);

  // IndexedDB evicted (the browser does this under pressure): the page's localStorage note remains.
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'indexeddb' });
  await openLab(page, `${url}&run=${runId}`);
  const banner = page.getByTestId('run-access');
  await expect(banner).toHaveAttribute('data-kind', 'visit');
  await expect(banner.getByTestId('run-access-sentence')).toHaveText(
    `The runs saved in this browser are gone, run ${runId} from this link among them: the site's storage was cleared or evicted since the last visit; new runs train and save as before.`,
  );
  await expect(rows).toHaveCount(0);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(rows).toHaveCount(1);
  await page.waitForTimeout(1500);
  await openLab(page, url);
  await expect(rows).toHaveCount(1); // saved again
  await expect(banner).toHaveCount(0); // said once

  // Everything cleared (the user's "clear site data"): a link to a run that is gone still says so.
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  await openLab(page, `${url}&run=${runId}`);
  await expect(banner.getByTestId('run-access-sentence')).toHaveText(`Run ${runId} from this link is not in this browser's storage: it was saved in another browser, deleted, or the storage was cleared since.`);
  await expect(rows).toHaveCount(0);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  await expect(rows).toHaveCount(1);
});
