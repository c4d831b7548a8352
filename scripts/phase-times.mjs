#!/usr/bin/env node
/**
 * Where a run's steps spent their time: the mean seconds of each timing_s/* phase over its step records
 * (RUN/metrics.jsonl, written by `magic-lab train`), and its share of the mean step, as a Markdown table.
 *
 *   node scripts/phase-times.mjs RUN_DIR [--skip N]     (--skip: leave out the first N steps, warm-up)
 *
 * "all steps" counts evaluation in the steps that ran one (as verl's timing_s/step does); the last column is the
 * steps that did not evaluate.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--'));
const skipAt = args.indexOf('--skip');
const skip = skipAt >= 0 ? Number(args[skipAt + 1]) : 0;
if (!dir || !Number.isInteger(skip) || skip < 0) {
  console.error('usage: node scripts/phase-times.mjs RUN_DIR [--skip N]');
  process.exit(2);
}
const PHASES = ['gen', 'reward', 'old_log_prob', 'ref', 'adv', 'update_actor', 'testing'];
const steps = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l))
  .filter((r) => r.type === 'step' && r.step > skip && typeof r['timing_s/step'] === 'number');
if (!steps.length) {
  console.error(`${dir}/metrics.jsonl: no step records with timing_s/* after step ${skip}`);
  process.exit(1);
}
const plain = steps.filter((r) => r['timing_s/testing'] === undefined);
const mean = (rs, k) => rs.reduce((a, r) => a + (r[k] ?? 0), 0) / rs.length;
const other = (r) => r['timing_s/step'] - PHASES.reduce((a, p) => a + (r[`timing_s/${p}`] ?? 0), 0);
const cell = (rs, v) => `${v.toFixed(4)} s (${((100 * v) / mean(rs, 'timing_s/step')).toFixed(1)}%)`;
const rows = [
  ...PHASES.map((p) => [`timing_s/${p}`, cell(steps, mean(steps, `timing_s/${p}`)), plain.length ? cell(plain, mean(plain, `timing_s/${p}`)) : '–']),
  ['other (step − Σ phases)', cell(steps, steps.reduce((a, r) => a + other(r), 0) / steps.length), plain.length ? cell(plain, plain.reduce((a, r) => a + other(r), 0) / plain.length) : '–'],
  ['**timing_s/step**', `**${mean(steps, 'timing_s/step').toFixed(4)} s**`, plain.length ? `**${mean(plain, 'timing_s/step').toFixed(4)} s**` : '–'],
];
console.log(`| phase | all ${steps.length} steps: mean (share) | ${plain.length} steps without evaluation |`);
console.log('| --- | ---: | ---: |');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
