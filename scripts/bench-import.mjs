// `npm run bench:import [-- --rows N] [--columns C] [--bound MiB]`: time and peak RSS of `magic-lab import-verl`
// on a generated CSV of N steps (default 1,000,000): TensorBoard-style (one tag) for C = 1, W&B-style (a Step
// column and C metric columns) for more. The CSV is written first (streamed,
// in this process); the import runs in a child process so its peak RSS is its own
// (resourceUsage().maxRSS, tsx's TypeScript loader included). With --bound MiB, a peak RSS above it
// (or a failed import) exits 1; `--bound stated` checks the bound docs/verl-import.md states for
// C columns × N rows: BASE_MIB + 8 bytes a value (rows rounded up to whole chunks) + the step
// table's bytes per step and per logged line (src/verl/step-table.ts).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : d;
};

if (process.argv.includes('--child')) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli/main.ts');
  const t0 = performance.now();
  const tag = arg('file').endsWith('-tag-actor_entropy.csv') ? ['--tag', 'actor/entropy'] : [];
  const code = await main(['import-verl', arg('file'), '--out', arg('out'), ...tag], () => {}, (s) => process.stderr.write(s.slice(0, 300) + '\n'));
  const s = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ code, seconds: s, peakRssMiB: process.resourceUsage().maxRSS / 1024 }) + '\n');
  process.exit(0);
}

const rows = Number(arg('rows', '1000000'));
const columns = Number(arg('columns', '1'));
const dir = mkdtempSync(join(tmpdir(), 'magic-bench-import-'));
const file = join(dir, columns === 1 ? `run-bench-tag-actor_entropy.csv` : 'wandb-wide.csv');
const keys = Array.from({ length: columns }, (_, j) => `actor/metric_${j}`);
const row = (i) => {
  if (columns === 1) return `${1717236000 + i * 35.2},${i},${((i % 997) / 1000).toFixed(3)}\n`;
  let l = String(i);
  for (let j = 0; j < columns; j++) l += `,${(((i + j) % 997) / 1000).toFixed(3)}`;
  return l + '\n';
};
await new Promise((resolve, reject) => {
  const w = createWriteStream(file);
  w.on('error', reject);
  let i = 1;
  const more = () => {
    let ok = true;
    if (i === 1) ok = w.write(columns === 1 ? 'Wall time,Step,Value\n' : `Step,${keys.join(',')}\n`);
    while (i <= rows && ok) {
      let chunk = '';
      for (let j = 0; j < 10000 && i <= rows; j++, i++) chunk += row(i);
      ok = w.write(chunk);
    }
    if (i > rows) w.end(resolve);
    else w.once('drain', more);
  };
  more();
});
const bytes = statSync(file).size;
const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', '--file', file, '--out', join(dir, 'out.jsonl')], { encoding: 'utf8' });
if (r.status !== 0) {
  process.stderr.write(r.stderr);
  process.exit(1);
}
const res = JSON.parse(r.stdout.trim().split('\n').pop());
const outFile = join(dir, 'out.jsonl');
const wrote = res.code === 0 ? `${(statSync(outFile).size / 2 ** 20).toFixed(1)} MiB run file` : `no run file (${r.stderr.trim().split('\n').pop()})`;
/** What import-verl needs besides its step table (Node, tsx, the readers and the writer's buffers), measured at 1 column: docs/verl-import.md. */
const BASE_MIB = 180;
let bound = arg('bound', null);
if (bound === 'stated') {
  const { register } = await import('tsx/esm/api');
  register();
  const { CHUNK, STEP_BYTES, RECORD_BYTES } = await import('../src/verl/step-table.ts');
  bound = BASE_MIB + (8 * columns * Math.ceil(rows / CHUNK) * CHUNK + (STEP_BYTES + RECORD_BYTES) * rows) / 2 ** 20;
  console.log(`stated bound for ${columns} columns × ${rows} rows: ${BASE_MIB} MiB + 8 B × ${columns} × ${Math.ceil(rows / CHUNK) * CHUNK} + ${STEP_BYTES + RECORD_BYTES} B × ${rows} = ${bound.toFixed(0)} MiB`);
}
console.log(`import-verl: ${rows} CSV rows × ${columns} column${columns > 1 ? 's' : ''} (${(bytes / 2 ** 20).toFixed(1)} MiB) → ${wrote}: exit ${res.code}, ${res.seconds.toFixed(1)} s, peak RSS ${res.peakRssMiB.toFixed(0)} MiB`);
rmSync(dir, { recursive: true, force: true });
if (bound !== null && (res.code !== 0 || res.peakRssMiB > Number(bound))) {
  console.log(`over the bound: exit ${res.code}, peak RSS ${res.peakRssMiB.toFixed(0)} MiB (bound ${Number(bound).toFixed(0)} MiB)`);
  process.exit(1);
}
