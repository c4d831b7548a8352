import { expect, test, type Page } from '@playwright/test';
import { exportedSteps, longTinyUrl, openLab, playThenPause, stepOf, waitForState, waitForStep } from './helpers';

// One origin, several tabs, a tab that crashes, storage that goes away. In each, nothing that was
// reported saved is lost, and the page says what happened in one sentence (data-testid
// "run-access"; its data-kind says which case). What is saved is read from IndexedDB directly
// (`stored`), never from a tab's screen, and a tab goes away by a real renderer crash (CDP
// Page.crash), not page.close(), which lets the page run its unload work.

interface Stored {
  runs: { id: string; name: string; steps: number[]; checkpointStep?: number }[];
  checkpoints: { runId: string; step: number; bytes: number }[];
}

/** What this origin's IndexedDB holds now, read in `page` with its own connection (not through the page's store). */
async function stored(page: Page): Promise<Stored> {
  return page.evaluate(
    () =>
      new Promise<Stored>((resolve, reject) => {
        const req = indexedDB.open('magic-lab');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const tx = db.transaction(['runs', 'checkpoints'], 'readonly');
          const runs = tx.objectStore('runs').getAll();
          const cks = tx.objectStore('checkpoints').getAll();
          tx.onerror = () => reject(tx.error);
          tx.oncomplete = () => {
            db.close();
            resolve({
              runs: runs.result.map((r: { id: string; name: string; steps: { step: number }[]; checkpointStep?: number }) => ({ id: r.id, name: r.name, steps: r.steps.map((x) => x.step), checkpointStep: r.checkpointStep })),
              checkpoints: cks.result.map((c: { runId: string; step: number; bytes: ArrayBuffer }) => ({ runId: c.runId, step: c.step, bytes: c.bytes.byteLength })),
            });
          };
        };
      }),
  );
}

/** Crashes the tab's renderer process (what a browser crash does to a tab): nothing more of its JavaScript runs. */
async function crash(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const crashed = page.waitForEvent('crash');
  void cdp.send('Page.crash').catch(() => undefined); // never answered: the renderer is gone
  await crashed;
}

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

  // Refused means nothing written: the stored record keeps its name, the run and its checkpoint are there.
  const refusedRead = await stored(b);
  expect(refusedRead.runs.map((r) => r.name)).toEqual([name]);
  expect(refusedRead.checkpoints.map((c) => c.runId)).toEqual(refusedRead.runs.map((r) => r.id));

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
  // In storage (read directly): every step of tab A under its name, and its checkpoints (every 2 steps) up to the last.
  await expect.poll(async () => (await stored(b)).runs.map((r) => [r.name, r.steps.join(',')]), { timeout: 15_000 }).toEqual([[name, oneToN(later).join(',')]]);
  const lastCk = later - (later % 2);
  await expect.poll(async () => (await stored(b)).checkpoints.map((c) => c.step), { timeout: 15_000 }).toEqual([lastCk]);

  // Tab A's renderer crashes (its lock goes with it): tab B may now train the run, from A's last checkpoint.
  await crash(a);
  const afterCrash = await stored(b);
  expect(afterCrash.checkpoints.map((c) => c.step)).toEqual([lastCk]); // losing the last two checkpoints would leave lastCk − 4
  expect(afterCrash.runs[0].steps).toEqual(oneToN(later));
  await expect.poll(() => resumeStep(b), { timeout: 15_000 }).toBe(lastCk);
  await row.getByTestId('run-resume').click();
  await waitForState(b, 'paused');
  await expect(banner).toHaveCount(0);
  expect(await stepOf(b)).toBe(lastCk);
  expect(await exportedSteps(b, row)).toEqual(oneToN(lastCk));
  expect((await stored(b)).runs[0].steps).toEqual(oneToN(lastCk));

  // Deleted here (tab B holds it now): the run and its checkpoint leave storage together.
  await row.getByTestId('run-delete').click();
  await expect(row).toHaveCount(0);
  await expect.poll(async () => { const st = await stored(b); return [st.runs.length, st.checkpoints.length]; }, { timeout: 15_000 }).toEqual([0, 0]);
});

test('a tab crashed mid-save: every step and checkpoint reported saved is there when the run is opened again', async ({ context }) => {
  const a = await context.newPage();
  await openLab(a, longTinyUrl(30, '&checkpoint.everySteps=2'));
  const first = await playThenPause(a, 3);
  await a.getByTestId('checkpoint-save').click();
  await expect(a.getByTestId('notice')).toContainText(`Checkpoint saved at step ${first}.`);
  await a.getByTestId('play').click();
  await waitForStep(a, first + 5);
  await a.getByTestId('pause').click();
  await waitForState(a, 'paused');
  // Saved, read directly: the periodic checkpoints since (every 2 steps), and the record's steps up to the pause.
  const paused = await stepOf(a);
  const saved = Math.max(first, paused - (paused % 2));
  await expect.poll(async () => (await stored(a)).checkpoints.map((c) => c.step), { timeout: 15_000 }).toEqual([saved]);
  await expect.poll(async () => (await stored(a)).runs[0]?.steps.length, { timeout: 15_000 }).toBe(paused);
  await a.getByTestId('play').click();
  await waitForStep(a, paused + 1);
  await a.getByTestId('checkpoint-save').click();
  await crash(a); // with that save in flight

  const b = await context.newPage();
  await openLab(b, longTinyUrl(30));
  const row = b.getByTestId('run-row');
  await expect(row).toHaveCount(1);
  const after = await stored(b);
  // The saved checkpoint, or the one in flight if it landed whole (with its records): never an older one.
  const ck = after.checkpoints[0].step;
  expect(ck).toBeGreaterThanOrEqual(saved); // the last two checkpoints lost would leave saved − 4
  expect(after.runs[0].checkpointStep).toBe(ck);
  expect(after.runs[0].steps.slice(0, ck)).toEqual(oneToN(ck));
  expect(await resumeStep(b)).toBe(ck);
  const banner = b.getByTestId('run-access');
  await expect(banner).toHaveAttribute('data-kind', 'visit');
  await expect(banner).toContainText(`did not finish (it stopped at step`);
  await expect(banner).toContainText(`in a tab now closed); resume @${ck} continues it from its last saved checkpoint.`);
  expect((await exportedSteps(b, row)).slice(0, ck)).toEqual(oneToN(ck));
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
