/**
 * The Benchmark view (issue #25 item 4): opened by its tab or view=bench, it runs `magic-lab bench`'s
 * measurement on the page's engine (here SwiftShader WebGPU in headless Chromium, and the CPU engine)
 * of the rung the page is on (named in the table and the JSON),
 * shows progress, then a table of positive finite figures, and its JSON download holds the same numbers.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { checkBenchExport, valueAt } from '../src/ui/lib/bench';
import { openLab } from './helpers';

/** Runs the quick benchmark, checks the table and the download against each other; returns the download. */
async function runAndCheck(page: Page) {
  await page.getByTestId('bench-run').click();
  await expect(page.getByTestId('bench-progress')).toBeVisible();
  await expect(page.getByTestId('bench-table')).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId('bench-error')).toHaveCount(0);
  const rows = page.getByTestId('bench-row');
  const shown = await rows.evaluateAll((trs) => trs.map((tr) => ({ path: tr.getAttribute('data-path')!, value: Number(tr.getAttribute('data-value')), text: tr.textContent ?? '' })));
  expect(shown.length).toBeGreaterThan(3);
  for (const r of shown) {
    expect(Number.isFinite(r.value) && r.value > 0, `${r.path}: ${r.value}`).toBe(true);
    expect(r.text, r.path).not.toMatch(/NaN|Infinity/);
  }
  const download = page.waitForEvent('download');
  await page.getByTestId('bench-download').click();
  const d = await download;
  expect(d.suggestedFilename()).toMatch(/^magic-lab-bench-(webgpu|wasm)-.*\.json$/);
  const json = checkBenchExport(JSON.parse(readFileSync(await d.path(), 'utf8')));
  for (const r of shown) expect(valueAt(json, r.path), r.path).toBe(r.value);
  // It timed the rung the page is on (the tiny rung: the small one is slow on SwiftShader), and says so in the table and the JSON.
  expect(json.model).toEqual({ name: 'tiny rung', rung: 'tiny', preset: 'magic' });
  expect(json.config).toMatchObject({ vocab: 24, ctx: 64, dModel: 64, layers: 2, heads: 4 });
  await expect(page.getByTestId('bench-model')).toHaveText(/^tiny rung \(magic\), 105K parameters$/);
  await expect(page.getByTestId('bench-model-next')).toHaveText('tiny rung (magic), 105K parameters');
  // One line of what was measured, for the log (BENCHMARKS.md, "In the page").
  console.log(JSON.stringify({ adapter: json.adapter, matmul: json.matmul.gflops, chosen: json.matmul.chosen, train_tokens_per_s: json.train_step.tokens_per_s, sampling_tokens_per_s: json.sampling.tokens_per_s, peak: json.peak?.gflops, efficiency: json.efficiency }));
  return { json, paths: shown.map((r) => r.path) };
}

test('WebGPU (SwiftShader): the tab opens the view and keeps view=bench in the URL; the quick benchmark fills the table and the download matches it', async ({ page }) => {
  await openLab(page, '/?backend=webgpu');
  await page.getByTestId('view-bench').click();
  await expect(page).toHaveURL(/[?&]view=bench(&|$)/);
  const t0 = Date.now();
  const { json, paths } = await runAndCheck(page);
  console.log(`quick benchmark on ${json.adapter}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  expect(json.backend).toBe('webgpu');
  expect(json.mode).toBe('quick');
  expect(json.matmul.chosen).toMatch(/^(blocked4x4|tiled64)$/);
  expect(paths).toEqual(expect.arrayContaining(['matmul.gflops', `matmul.variants.${json.matmul.chosen}`, 'train_step.tokens_per_s', 'sampling.tokens_per_s']));
  await expect(page.getByTestId('bench-table')).toContainText('chosen (fastest)');
  // Back to Training clears view=bench.
  await page.getByTestId('view-training').click();
  await expect(page).not.toHaveURL(/view=bench/);
});

test('CPU engine, opened by view=bench: the table has the peak and the efficiency against it', async ({ page }) => {
  await openLab(page, '/?backend=wasm&view=bench');
  await expect(page.getByTestId('bench-view')).toBeVisible();
  const { json, paths } = await runAndCheck(page);
  expect(json.backend).toBe('wasm');
  expect(paths).toEqual(expect.arrayContaining(['peak.gflops', 'efficiency.matmul', 'efficiency.train_step', 'efficiency.sampling']));
  expect(json.efficiency!.train_step).toBeCloseTo(json.train_step.gflops! / json.peak!.gflops, 9);
});
