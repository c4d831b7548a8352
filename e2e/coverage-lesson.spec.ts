/**
 * The coverage lesson: pass@k on a log-k axis of the base, the twin (entropy-off) and MAGIC from the
 * shipped public/reference/coverage/small.json (scripts/coverage-reference.ts), per group; the
 * sentence under the chart is computed from the file, and its numbers are the drawn curves' values;
 * the live run's own curve is drawn at each in-run evaluation (its val/pass@k keys).
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { openLab, waitForState } from './helpers';

interface Point {
  mean: number;
}
interface Group {
  id: string;
  kind: string;
  problems: number;
  curves: Record<string, Record<string, Point>>;
}
const REF = JSON.parse(readFileSync('public/reference/coverage/small.json', 'utf8')) as { seeds: number[]; kind: string; samples: number; groups: Group[] };

const drawn = async (page: Page, testId: string): Promise<[number, number][]> => JSON.parse((await page.getByTestId(testId).first().getAttribute('data-points'))!);
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

test('the coverage lesson draws the reference curves per group, its sentence states the drawn numbers, and the live run adds its own curve', async ({ page }) => {
  await openLab(page, '/?preset=magic-tiny');
  const lesson = page.getByTestId('coverage-lesson');
  await lesson.locator('summary').click();
  const chart = page.getByTestId('coverage-chart');
  await expect(chart).toBeVisible({ timeout: 10_000 });
  // The provenance line takes the seeds from the file: one tuning seed, said plainly.
  await expect(page.getByTestId('coverage-provenance')).toContainText(`Reference runs from ${REF.seeds.length} ${REF.kind === 'tuning' ? 'tuning ' : ''}seed${REF.seeds.length === 1 ? '' : 's'} (${REF.seeds.join(', ')})`);
  await expect(page.getByTestId('coverage-live-note')).toContainText('Start a run');

  for (const g of REF.groups) {
    await page.getByTestId(`coverage-group-${g.id}`).click();
    await expect(chart).toHaveAttribute('data-group', g.id);
    const lines: Record<string, [number, number][]> = {};
    for (const arm of ['base', 'entropy-off', 'magic']) {
      lines[arm] = await drawn(page, `coverage-line-${arm}`);
      // The drawn curve is the file's, k = 1, 2, 4, … samples; its path has a vertex per k.
      expect(lines[arm]).toEqual(Object.entries(g.curves[arm]).map(([k, p]) => [Number(k), p.mean]));
      expect(lines[arm].at(-1)![0]).toBe(REF.samples);
      const d = (await page.getByTestId(`coverage-line-${arm}`).getAttribute('d'))!;
      expect(d.split(/[ML]/).filter(Boolean)).toHaveLength(lines[arm].length);
    }
    // The sentence's numbers are the drawn ones at k = 1 and at the largest k.
    const sentence = (await page.getByTestId('coverage-sentence').textContent())!;
    for (const [k, i] of [[1, 0], [REF.samples, -1]] as const) {
      const m = new RegExp(`at k = ${k}, MAGIC ([0-9.]+%), the twin ([0-9.]+%)`).exec(sentence);
      expect(m, sentence).not.toBeNull();
      expect(m![1]).toBe(pct(lines.magic.at(i)![1]));
      expect(m![2]).toBe(pct(lines['entropy-off'].at(i)![1]));
    }
    expect(sentence).toContain(`${g.problems} problems × ${REF.samples} samples from ${REF.seeds.length} seed`);
  }

  // A live run: its evaluation at step 0 (and every eval.everySteps) draws its own pass@k curve on the "all" group.
  await page.getByTestId('coverage-group-all').click();
  await page.getByTestId('play').click();
  await waitForState(page, 'done'); // magic-tiny: 4 steps, evaluated at steps 0, 2 and 4
  const live = page.getByTestId('coverage-live');
  await expect(live.first()).toBeVisible({ timeout: 30_000 });
  const count = await live.count();
  expect(count).toBe(3);
  expect(await live.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-step'))))).toEqual([0, 2, 4]);
  const last = JSON.parse((await live.nth(count - 1).getAttribute('data-points'))!) as [number, number][];
  // magic-tiny evaluates k = 2 samples per problem: its curve is pass@1 and pass@2, each a share, pass@2 ≥ pass@1.
  expect(last.map((p) => p[0])).toEqual([1, 2]);
  for (const [, v] of last) expect(v).toBeGreaterThanOrEqual(0), expect(v).toBeLessThanOrEqual(1);
  expect(last[1][1]).toBeGreaterThanOrEqual(last[0][1]);
  await expect(page.getByTestId('coverage-live-note')).toContainText(`evaluation${count === 1 ? '' : 's'} drawn`);
  await expect(page.getByTestId('coverage-live-note')).toContainText(`its pass@2 is ${pct(last[1][1])}`);
  // A base class: a run has no classes, and says so.
  await page.getByTestId('coverage-group-unsolved').click();
  await expect(live).toHaveCount(0);
  await expect(page.getByTestId('coverage-live-note')).toContainText("A run does not know its base's classes");
});
