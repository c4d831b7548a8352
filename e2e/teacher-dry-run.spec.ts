/**
 * The teacher's dry run: a lesson with every Try-this card, opened as a student from the teacher's link, card by
 * card. Each card with reference runs overlays them (nothing trained); the first card (the -tiny test twins, no
 * reference) runs both arms live, in seconds. At each card, every contrast sentence under it is checked against
 * the data the charts draw: the reference files' mean curves (read here from public/reference/ with this spec's
 * own arithmetic) or the two runs' own step records (their JSONL export). The URL round trip too: the teacher's
 * lesson, rung and config value are in the students' link, and the student's page opens on them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { ALL_CARDS } from '../src/ui/lib/collapse-card';
import { setupRefPreset, setupRung, type Experiment } from '../src/ui/lib/experiments';
import { openLab } from './helpers';

type Curve = { steps: number[]; mean: (number | null)[] };
type RefFile = { rung?: string; presets: Record<string, { curves: Record<string, Curve> }> };
type IndexEntry = { name: string; file: string; rung?: string; presets: string[] };

const REF = join(fileURLToPath(new URL('.', import.meta.url)), '../public/reference');
const index = JSON.parse(readFileSync(join(REF, 'index.json'), 'utf8')) as { entries: IndexEntry[] };
const refFile = (file: string) => JSON.parse(readFileSync(join(REF, file), 'utf8')) as RefFile;

/** The file the page reads an arm from: the first index entry at the arm's rung that holds its preset. */
function armCurve(preset: string, rung: string, metric: string): { steps: number[]; values: number[] } {
  const entry = index.entries.find((x) => (x.rung ?? 'tiny') === rung && x.presets.includes(preset));
  if (!entry) throw new Error(`no reference of ${preset} at ${rung}`);
  const c = refFile(entry.file).presets[preset].curves[metric];
  if (!c) throw new Error(`${entry.file}: ${preset} has no ${metric}`);
  return { steps: c.steps, values: c.mean.map((v) => (v === null ? NaN : v)) };
}

/** A window's mean, as a reader would take it: steps ≤ N, the last 20% of points, or all. */
function windowMean(c: { steps: number[]; values: number[] }, w: string): number {
  let idx = c.steps.map((_, i) => i);
  if (w === 'end') idx = idx.slice(Math.floor(c.steps.length * 0.8));
  else if (w.startsWith('to:')) idx = idx.filter((i) => c.steps[i] <= Number(w.slice(3)));
  const v = idx.map((i) => c.values[i]).filter((x) => Number.isFinite(x));
  return v.reduce((a, b) => a + b, 0) / v.length;
}

/** A run's curve of `metric` from its JSONL export (its step records). */
async function exportedCurve(page: Page, runName: string, metric: string): Promise<{ steps: number[]; values: number[] }> {
  const row = page.getByTestId('run-row').filter({ has: page.getByTestId('run-name').getByText(runName, { exact: true }) });
  const download = page.waitForEvent('download');
  await row.getByTestId('run-export-jsonl').click();
  const lines = readFileSync(await (await download).path(), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
  const steps: number[] = [];
  const values: number[] = [];
  for (const r of lines)
    if (r.type === 'step' && typeof r[metric] === 'number') {
      steps.push(r.step as number);
      values.push(r[metric] as number);
    }
  return { steps, values };
}

const lesson = {
  title: 'Dry run: every card',
  cards: ALL_CARDS.map((e) => ({ card: e.id, questions: [`What does ${e.id} show?`] })),
};
const hasReference = (e: Experiment) => e.setups.every((s) => setupRefPreset(s) !== null);

test("the teacher's dry run: as a student, every card of a lesson overlays its arms and each contrast sentence states the drawn data", async ({ page }) => {
  test.setTimeout(300_000);
  // The teacher's page: the lesson at the small rung with one config value; the students' link keeps all of it.
  const json = JSON.stringify(lesson);
  await openLab(page, `/?preset=magic&rung=small&update.lr=0.00035&teacher=1&lesson=${encodeURIComponent(json)}`);
  await expect(page.getByTestId('url-error')).toHaveCount(0);
  const student = new URL(await page.getByTestId('student-link').inputValue());
  expect(student.searchParams.get('lesson')).toBe(json);
  expect(student.searchParams.get('rung')).toBe('small');
  expect(student.searchParams.get('update.lr')).toBe('0.00035');
  expect(student.searchParams.get('teacher')).toBeNull();

  // The student's page: no teacher bar, the lesson's first card, the rung and the value.
  await openLab(page, `/${student.search}`);
  await expect(page.getByTestId('url-error')).toHaveCount(0);
  await expect(page.getByTestId('teacher-bar')).toHaveCount(0);
  await expect(page.getByTestId('rung-pick-small')).toBeChecked();
  await expect(page.getByTestId('field-update.lr')).toHaveValue('0.00035');
  const panel = page.getByTestId('try-this');
  await expect(panel.getByTestId('lesson')).toContainText(lesson.title);

  for (const [i, e] of ALL_CARDS.entries()) {
    await expect(panel.getByTestId('lesson-step')).toHaveText(`· card ${i + 1} of ${ALL_CARDS.length}`);
    await expect(panel.getByTestId('lesson-questions')).toHaveText(lesson.cards[i].questions[0]);
    const card = panel.getByTestId(`try-${e.id}`);
    await expect(card).toBeVisible();
    const live = !hasReference(e);
    if (live) {
      // The -tiny twins have no reference: both arms train (seconds).
      await card.getByTestId(`try-${e.id}-run`).click();
      await expect(card.getByTestId('try-progress')).toHaveText(/^All 2 arms overlaid/, { timeout: 120_000 });
      // Each arm against its own target: B's is 3 nats (not A's).
      await expect(card.getByTestId('try-compare')).toContainText("B's entropy fell below its target 3 at step 1");
    } else {
      await card.getByTestId(`try-${e.id}-reference`).click();
      await expect(card.getByTestId('try-play')).toHaveAttribute('data-mode', 'reference', { timeout: 10_000 });
      await expect(card.getByTestId('try-play')).toContainText('Reference runs overlaid: mean over seeds with 95% bands (their 400-step schedule).');
      // Every chart the card points to draws each arm's reference curves: none says "no data yet".
      for (const id of e.charts) {
        const chart = page.getByTestId(`chart-${id}`);
        await chart.scrollIntoViewIfNeeded();
        await expect.poll(async () => Number(await chart.getAttribute('data-reference-series')), { message: `${e.id}: chart ${id}` }).toBeGreaterThanOrEqual(e.setups.length);
        await expect(chart.getByText('no data yet')).toHaveCount(0);
      }
    }
    const contrasts = card.getByTestId('try-contrast');
    await expect(contrasts).toHaveCount(e.contrasts.length, { timeout: 20_000 });
    for (const [j, c] of e.contrasts.entries()) {
      const li = contrasts.nth(j);
      await expect(li).toHaveAttribute('data-metric', c.metric);
      // The chart the contrast names draws the arms: their reference bands (legend by arm label) or their two runs.
      const chart = page.getByTestId(`chart-${c.chart}`);
      await chart.scrollIntoViewIfNeeded();
      if (live) await expect(chart).toHaveAttribute('data-runs', '2');
      else {
        await expect.poll(async () => Number(await chart.getAttribute('data-reference-series'))).toBeGreaterThanOrEqual(e.setups.length);
        for (const s of e.setups) await expect(chart.getByTestId('reference-legend').filter({ hasText: `reference: ${s.label} ` }).first()).toBeVisible();
      }
      // The sentence's numbers, recomputed here from the same data.
      const w = (await li.getAttribute('data-window'))!;
      const d = c.digits ?? 3;
      const text = (await li.textContent())!;
      const shown: string[] = [];
      for (const s of e.setups) {
        const arm = s.label.split(':')[0].trim();
        const curve = live ? await exportedCurve(page, `${s.label} · ${e.title}`, c.metric) : armCurve(setupRefPreset(s)!, setupRung(s), c.metric);
        const m = windowMean(curve, w).toFixed(d);
        shown.push(`${arm}=${m}`);
        expect(text, `${e.id} ${c.metric}`).toContain(`${arm} ${m}`);
      }
      expect(await li.getAttribute('data-means')).toBe(shown.join(','));
      // And the direction it states is the one of those numbers.
      const vals = shown.map((x) => Number(x.split('=')[1]));
      if (vals[0] !== vals[1]) {
        const hi = vals[0] > vals[1] ? 0 : 1;
        const by = Math.abs(vals[0] - vals[1]).toFixed(d);
        expect(text).toContain(`${shown[hi].split('=')[0]} is higher by ${by}`);
      } else expect(text).toContain('the same for both');
    }
    if (i + 1 < ALL_CARDS.length) await panel.getByTestId('lesson-next').click();
  }
  await expect(panel.getByTestId('lesson-next')).toBeDisabled();
  // The address still holds the lesson, rung and value after the whole dry run.
  const here = new URL(page.url()).searchParams;
  expect(here.get('lesson')).toBe(json);
  expect(here.get('rung')).toBe('small');
  expect(here.get('update.lr')).toBe('0.00035');
});
