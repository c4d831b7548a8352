import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { longTinyUrl, openLab, playThenPause, waitForState } from './helpers';

// Browser storage that fails (issue #13): a private window without IndexedDB, a full quota, a
// checkpoint upload that does not load. The run is never lost from the tab, export still works,
// runs saved before stay, and the page says why in one line.

test('no storage (private window): a warning with the reason; the run trains, resumes from a checkpoint kept in the tab, and exports', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true });
  });
  await openLab(page, longTinyUrl(30, '&checkpoint.everySteps=0'));
  await expect(page.getByTestId('storage-warning')).toContainText('IndexedDB is unavailable');
  const saved = await playThenPause(page, 3);
  await page.getByTestId('checkpoint-save').click();
  await expect(page.getByTestId('notice')).toContainText(`Checkpoint kept at step ${saved} in this tab only`);
  await page.getByTestId('reset').click();
  await waitForState(page, 'idle');
  const row = page.getByTestId('run-row');
  await expect(row).toHaveCount(1);
  await row.getByTestId('run-resume').click();
  await waitForState(page, 'paused');
  await expect(page.getByTestId('step-counter')).toHaveText(String(saved));
  const dl = page.waitForEvent('download');
  await page.getByTestId('checkpoint-download').click();
  expect(readFileSync(await (await dl).path()).subarray(0, 8).toString()).toBe('MAGICLAB');
  const exported = page.waitForEvent('download');
  await row.getByTestId('run-export-jsonl').click();
  const lines = readFileSync(await (await exported).path(), 'utf8').split('\n').filter((l) => l.trim());
  expect(lines.filter((l) => JSON.parse(l).type === 'step').length).toBe(saved);
});

test('a full quota: runs saved before stay, the new run trains on with a warning naming the quota, persistent storage is requested', async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { __persistCalls: number };
    w.__persistCalls = 0;
    const storage = navigator.storage;
    if (storage) {
      const persist = storage.persist?.bind(storage);
      Object.defineProperty(storage, 'persist', {
        configurable: true,
        value: () => {
          w.__persistCalls++;
          return persist ? persist() : Promise.resolve(false);
        },
      });
    }
  });
  await openLab(page, '/?preset=magic-tiny');
  await expect.poll(() => page.evaluate(() => (window as unknown as { __persistCalls: number }).__persistCalls)).toBeGreaterThan(0);
  await page.getByTestId('play').click();
  await waitForState(page, 'done');
  const rows = page.getByTestId('run-row');
  await expect(rows).toHaveCount(1);
  const firstSteps = await rows.first().textContent();
  await page.waitForTimeout(1500); // the run's last throttled write lands

  // From now on every write fails as a full disk would make it.
  await page.evaluate(() => {
    IDBObjectStore.prototype.put = function () {
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    };
  });
  await page.getByTestId('reset').click();
  await page.getByTestId('play').click();
  await expect(page.getByTestId('storage-warning')).toContainText("this site's storage quota is full");
  await waitForState(page, 'done');
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('error')).toHaveCount(0); // one warning, not an error per write

  await page.reload();
  await expect(page.getByTestId('adapter-name')).toBeVisible({ timeout: 60_000 });
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveText(firstSteps ?? '');
});

test('a checkpoint upload that does not load leaves no run row; the error names the file', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const junk = Buffer.concat([Buffer.from('MAGICLAB'), Buffer.alloc(64, 7)]);
  await page.getByTestId('checkpoint-upload-file').setInputFiles({ name: 'broken.mlck', mimeType: 'application/octet-stream', buffer: junk });
  await expect(page.getByTestId('error')).toContainText('broken.mlck:');
  await expect(page.getByTestId('run-row')).toHaveCount(0);
  await waitForState(page, 'idle');
  await page.getByTestId('play').click(); // the page still trains
  await waitForState(page, 'done');
  await expect(page.getByTestId('run-row')).toHaveCount(1);
});
