/**
 * A lesson link opens what it names: lesson=, rung= and the config values round-trip through the address bar
 * and the students' link; a partly bad link keeps every valid value and names each bad one; a start that
 * fails says why once and leaves no empty run.
 */
import { expect, test } from '@playwright/test';
import { openLab, waitForState } from './helpers';

const lesson = { title: 'Entropy, two ways', cards: [{ card: 'temperature', questions: ['Which arm starts lower?'] }] };

test('a lesson link at the small rung with a config value opens whole, and the address and students link keep all of it', async ({ page }) => {
  const json = JSON.stringify(lesson);
  await openLab(page, `/?preset=magic&rung=small&update.lr=0.00035&teacher=1&lesson=${encodeURIComponent(json)}`);
  await expect(page.getByTestId('url-error')).toHaveCount(0);
  await expect(page.getByTestId('lesson')).toContainText('Entropy, two ways');
  await expect(page.getByTestId('rung-pick-small')).toBeChecked();
  await expect(page.getByTestId('field-update.lr')).toHaveValue('0.00035');
  // An edit: the address keeps the lesson, the rung and both values.
  await page.getByTestId('field-seed').fill('11');
  await expect.poll(() => new URL(page.url()).searchParams.get('seed')).toBe('11');
  const here = new URL(page.url()).searchParams;
  expect(here.get('lesson')).toBe(json);
  expect(here.get('rung')).toBe('small');
  expect(here.get('update.lr')).toBe('0.00035');
  const student = new URL(await page.getByTestId('student-link').inputValue()).searchParams;
  expect(student.get('lesson')).toBe(json);
  expect(student.get('rung')).toBe('small');
  expect(student.get('update.lr')).toBe('0.00035');
  expect(student.get('seed')).toBe('11');
  expect(student.get('teacher')).toBeNull();
  // The students' link opens the same setup and lesson, without the teacher bar.
  await openLab(page, `/?${student.toString()}`);
  await expect(page.getByTestId('url-error')).toHaveCount(0);
  await expect(page.getByTestId('teacher-bar')).toHaveCount(0);
  await expect(page.getByTestId('lesson')).toContainText('Entropy, two ways');
  await expect(page.getByTestId('rung-pick-small')).toBeChecked();
  await expect(page.getByTestId('field-update.lr')).toHaveValue('0.00035');
  await expect(page.getByTestId('field-seed')).toHaveValue('11');
});

test('a partly bad link keeps every valid value and names each bad one, with the field a bare name means', async ({ page }) => {
  await openLab(page, '/?update.lr=0.001&foo=1&rung=small&lr=abc');
  await expect(page.getByTestId('url-error').locator('span')).toHaveText("This link's foo (no such field) and lr (no such field; did you mean update.lr?) were left out; every other value is kept.");
  await expect(page.getByTestId('rung-pick-small')).toBeChecked();
  await expect(page.getByTestId('field-update.lr')).toHaveValue('0.001');
  // The address is the setup that was kept.
  await expect.poll(() => new URL(page.url()).searchParams.get('foo')).toBeNull();
  expect(new URL(page.url()).searchParams.get('update.lr')).toBe('0.001');
});

test("a missing small base says 404 before any sampling, once, and leaves no empty run", async ({ page }) => {
  await page.route('**/checkpoints/base-small.mlck', (route) => route.fulfill({ status: 404, body: 'not found' }));
  // Every state line the start shows, to check that none of them is a sampling phase.
  await page.addInitScript(() => {
    const seen: string[] = ((window as unknown as { __status: string[] }).__status = []);
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid="status-message"]')?.textContent;
      if (t && seen[seen.length - 1] !== t) seen.push(t);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await openLab(page, '/?preset=magic&rung=small');
  await page.getByTestId('play').click();
  await expect(page.getByTestId('error').locator('span')).toHaveText(
    "Could not start the run: the small rung's base checkpoint /checkpoints/base-small.mlck is missing (HTTP 404); build it with `magic-lab sft --rung small`",
    { timeout: 60_000 },
  );
  // Before any sampling: no later phase of the start (building, generating, filtering) was ever shown.
  const seen = await page.evaluate(() => (window as unknown as { __status: string[] }).__status);
  expect(seen.filter((t) => /filter|generating|building|sampl/i.test(t))).toEqual([]);
  await waitForState(page, 'error', 10_000);
  await expect(page.getByTestId('status-message')).toHaveCount(0);
  await expect(page.getByTestId('run-row')).toHaveCount(0);
  // After a reload too: nothing was stored.
  await openLab(page, '/?preset=magic&rung=small');
  await expect(page.getByTestId('run-row')).toHaveCount(0);
});
