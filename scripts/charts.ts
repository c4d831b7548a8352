/**
 * Writes DIR/charts/*.svg from DIR/summary.json(.gz) for each sweep or finding directory given, exactly as the sweep
 * that made the summary wrote them (src/sweep/charts.ts; byte for byte). The archives under reports/ (recipe-v1..v3,
 * tuning rounds 1–12) keep their summaries but not their charts, so a clone stays light:
 *
 *   npm run charts -- reports/recipe-v1/* reports/tuning/round-*
 *
 * A directory without a summary is skipped with a line saying so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeCharts } from '../src/sweep/charts';
import { existsStored, readStoredText } from '../src/sweep/gz-file';
import type { Summary } from '../src/sweep/summary';

/** Writes the charts of each directory's summary; returns the directories written. */
export async function regenerateCharts(dirs: string[], log: (s: string) => void = console.log): Promise<string[]> {
  const done: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir) || !existsStored(join(dir, 'summary.json'))) {
      log(`${dir}: no summary.json, skipped`);
      continue;
    }
    const summary = JSON.parse(readStoredText(join(dir, 'summary.json'))) as Summary;
    const charts = await writeCharts(dir, summary, { png: false });
    log(`${dir}: ${charts.length} charts`);
    done.push(dir);
  }
  return done;
}

if (process.argv[1] && /charts\.ts$/.test(process.argv[1])) {
  if (process.argv.length < 3) {
    console.error('usage: npm run charts -- DIR [DIR…]   (each DIR holds a summary.json or summary.json.gz)');
    process.exitCode = 2;
  } else await regenerateCharts(process.argv.slice(2));
}
