import { readFileSync } from 'node:fs';
import { expect, type Locator, type Page } from '@playwright/test';

/** A tiny preset with longer stages, so a run lasts long enough to pause, edit and save mid-way. */
export function longTinyUrl(steps = 30, extra = ''): string {
  const stages = JSON.stringify([
    { maxResponseLength: 16, steps },
    { maxResponseLength: 24, steps },
  ]);
  return `/?preset=magic-tiny&stages=${encodeURIComponent(stages)}${extra}`;
}

/** Opens the lab and waits until the Worker has the device. */
export async function openLab(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('adapter-name')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('reset')).toBeEnabled();
}

export async function stepOf(page: Page): Promise<number> {
  return Number(await page.getByTestId('step-counter').textContent());
}

export async function waitForStep(page: Page, atLeast: number, timeout = 60_000): Promise<void> {
  await expect.poll(() => stepOf(page), { timeout }).toBeGreaterThanOrEqual(atLeast);
}

export async function waitForState(page: Page, state: string, timeout = 90_000): Promise<void> {
  await expect(page.getByTestId('run-state')).toHaveAttribute('data-state', state, { timeout });
}

/** Plays until at least `atLeast` steps are done, pauses, and returns the step it paused at. */
export async function playThenPause(page: Page, atLeast: number): Promise<number> {
  await page.getByTestId('play').click();
  await waitForStep(page, atLeast);
  await page.getByTestId('pause').click();
  await waitForState(page, 'paused');
  return stepOf(page);
}

/** Records main-thread long tasks (> 50 ms) from page start into window.__longTasks. */
export async function recordLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  });
}

export const longTasks = (page: Page) => page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.splice(0));

/** The step numbers of a run's JSONL export (Runs → JSONL on its row). */
export async function exportedSteps(page: Page, row: Locator): Promise<number[]> {
  const download = page.waitForEvent('download');
  await row.getByTestId('run-export-jsonl').click();
  const text = readFileSync(await (await download).path(), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type: string; step?: number })
    .filter((r) => r.type === 'step')
    .map((r) => r.step as number);
}
