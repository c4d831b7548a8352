/**
 * Enumerates the distinct problems (canonical keys) countdown and arith can generate at each
 * difficulty, for DISTINCT_PROBLEMS in src/tasks/capacity.ts (the data side of the resource
 * check). Spaces of at least DISTINCT_CAP keys print as Infinity. Takes a few minutes:
 *
 *   npx tsx scripts/count-problems.ts
 */
import { arithKeyCount, countdownKeyCount, DISTINCT_CAP } from '../src/tasks/capacity';
import { arith, countdown } from '../src/tasks';

const fmt = (n: number) => (n === Infinity ? 'Infinity' : String(n));
for (const [name, max, count] of [
  ['countdown', countdown.maxDifficulty, countdownKeyCount],
  ['arith', arith.maxDifficulty, arithKeyCount],
] as const) {
  const out: string[] = [];
  for (let d = 1; d <= max; d++) {
    const t0 = performance.now();
    const n = count(d, DISTINCT_CAP);
    out.push(fmt(n));
    console.error(`${name} difficulty ${d}: ${fmt(n)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  console.log(`  ${name}: [${out.join(', ')}],`);
}
