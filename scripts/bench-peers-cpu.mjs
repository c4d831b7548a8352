#!/usr/bin/env node
/**
 * `npm run bench:peers:cpu`: the lab's CPU engine (WebAssembly SIMD, src/model/cpu-policy.ts)
 * against jax-js's WebAssembly backend (@jax-js/jax, a dev dependency used only here), side by
 * side on the bench's tiny GPT (V32 T64 D64 L2 H4, mlp 4×, batch 16 × 64 tokens), in headless
 * Chromium (system Chromium) pages served by Vite with cross-origin isolation. A benchmark, not
 * a test: on a shared machine only ratios measured in one page, alternating, mean much.
 *
 * Why a page and not Node: jax-js 0.1.x needs iterator helpers (Node ≥ 22; this project runs
 * Node 20), and it starts its worker pool only where a global `Worker` exists (browsers).
 *
 * Two pages in one browser (--pages, default both):
 *   - "jax-js on the page thread" (the headline): jax-js with `Worker` hidden from it, so its
 *     kernels run synchronously on the page's thread — on this model its fastest setting — and
 *     the lab twice: at its default thread count (every core) and at 1 thread (core for core);
 *   - "jax-js worker pool": jax-js with its default pool (navigator.hardwareConcurrency workers
 *     over a shared memory) against the lab at every core.
 * In each page: loss checks, warm-ups, then rounds alternating lab / jax-js / lab / jax-js for
 * the train step (forward + loss + backward + AdamW on 16 × 64 tokens; median ms per step over
 * rounds × steps) and sampling (16 sequences from a one-token prompt to the full context at
 * τ = 1; median of 3). jax-js sampling is measured in two idiomatic forms (one jitted step per
 * token recomputing the prefix, and one with a KV cache); ratios use the faster one.
 * The lab's sampling counts the tokens it kept (its bench samples with EOS = V − 1, so rows stop
 * early), as `magic-lab bench` does, and also rows × decode steps: every decode step runs all 16
 * rows through the forward, the same work as one jax-js step, so that is the equal-work figure.
 *
 *   npm run bench:peers:cpu [-- --json FILE] [--steps 7] [--rounds 2] [--pages single,pool]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';

const { values } = parseArgs({
  options: {
    json: { type: 'string' },
    steps: { type: 'string', default: '7' },
    rounds: { type: 'string', default: '2' },
    pages: { type: 'string', default: 'single,pool' },
    'no-check': { type: 'boolean', default: false },
  },
});
const STEPS = Math.max(5, Number(values.steps));
const ROUNDS = Math.max(1, Number(values.rounds));
const SAMPLE_RUNS = 3;
const PAGES = {
  single: { label: 'jax-js on the page thread', labs: ['all', '1'], jaxPool: false },
  pool: { label: 'jax-js worker pool', labs: ['all'], jaxPool: true },
};
const pages = values.pages.split(',').map((s) => s.trim());
for (const s of pages) if (!PAGES[s]) throw new Error(`--pages: expected single and/or pool, got ${s}`);

const root = fileURLToPath(new URL('..', import.meta.url));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : String(x));
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : String(x));

const server = await createServer({
  configFile: false,
  root,
  logLevel: 'warn',
  server: {
    host: '127.0.0.1',
    port: 0,
    hmr: false,
    headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  },
  optimizeDeps: { include: ['@jax-js/jax'], entries: ['scripts/peers/cpu-page.html'] },
});
await server.listen();
const { port } = server.httpServer.address();
const url = `http://127.0.0.1:${port}/scripts/peers/cpu-page.html`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

const log = (s) => console.log(s);
const results = { command: `npm run bench:peers:cpu -- ${process.argv.slice(2).join(' ')}`.trim(), date: new Date().toISOString(), browser: browser.version(), pages: [] };

async function runPage(key) {
  const spec = PAGES[key];
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  await page.waitForFunction(() => window.peerBenchReady === true, null, { timeout: 180_000 }).catch((e) => {
    throw new Error(`page did not load: ${e.message}\n${errors.join('\n')}`);
  });
  const call = (fn, ...args) => page.evaluate(([fn, args]) => window.peerBench[fn](...args), [fn, args]);
  const env = await call('setup', { labs: spec.labs, jaxPool: spec.jaxPool });
  log(`\n## ${spec.label}: ${spec.labs.map((l) => env.lab[l].description).join(' and ')}; jax-js wasm on ${env.jaxThreads} (crossOriginIsolated ${env.crossOriginIsolated}, hardwareConcurrency ${env.hardwareConcurrency})`);

  let check = null;
  if (!values['no-check']) {
    check = await call('check', 20);
    const d = (a) => `${a[0].toFixed(3)} → ${a.at(-1).toFixed(3)}`;
    log(`check (20 steps, fixed batch, fresh models; ln V = ${check.lnV.toFixed(3)}): jax-js NLL ${d(check.jaxLoss)}, lab CE ${d(check.labCeLoss)}`);
    if (Math.abs(check.jaxLoss[0] - check.lnV) > 0.1 || !(check.jaxLoss.at(-1) < check.jaxLoss[0] - 0.1)) throw new Error('jax-js loss check failed: not ≈ ln V at init or not falling');
  }

  // Warm-ups (compilation, caches, the lab's plans), then alternating rounds.
  for (const l of spec.labs) await call('trainLab', 2, l, 'grpo');
  await call('trainLab', 2, 'all', 'ce');
  await call('trainJax', 2);
  const train = { jax: [], labCe: [] };
  for (const l of spec.labs) train[l] = [];
  let jaxLoss = NaN;
  const ms = (xs) => `${f2(median(xs.slice(-STEPS)))} ms`;
  for (let r = 0; r < ROUNDS; r++) {
    const line = [];
    for (const l of spec.labs) {
      train[l].push(...(await call('trainLab', STEPS, l, 'grpo')));
      const j = await call('trainJax', STEPS);
      train.jax.push(...j.times);
      jaxLoss = j.loss;
      line.push(`lab[${l}] ${ms(train[l])}, jax-js ${ms(train.jax)}`);
    }
    train.labCe.push(...(await call('trainLab', STEPS, 'all', 'ce')));
    log(`  train round ${r + 1}/${ROUNDS}: ${line.join(', ')}, lab[all] CE ${ms(train.labCe)} per step`);
  }

  for (const l of spec.labs) await call('sampleLab', 1, l, 100);
  await call('sampleJax', 1, 'kv', 100);
  await call('sampleJax', 1, 'prefix', 100);
  const sample = { jaxKv: [], jaxPrefix: [] };
  for (const l of spec.labs) sample[l] = [];
  for (let i = 0; i < SAMPLE_RUNS; i++) {
    const line = [];
    for (const l of spec.labs) {
      sample[l].push(...(await call('sampleLab', 1, l, i)));
      line.push(`lab[${l}] ${f0(sample[l].at(-1).ms)} ms (${sample[l].at(-1).generated} tokens kept, ${sample[l].at(-1).steps} steps)`);
    }
    sample.jaxKv.push(...(await call('sampleJax', 1, 'kv', i)));
    sample.jaxPrefix.push(...(await call('sampleJax', 1, 'prefix', i)));
    log(`  sampling run ${i + 1}/${SAMPLE_RUNS}: ${line.join(', ')}; jax-js KV ${f0(sample.jaxKv.at(-1).ms)} ms, prefix ${f0(sample.jaxPrefix.at(-1).ms)} ms (${sample.jaxKv.at(-1).generated} tokens each)`);
  }
  await context.close();
  if (errors.length) log(`page errors:\n${errors.join('\n')}`);

  const rowsPerStep = 16 * 64;
  const trainFig = (times) => ({ median_ms: median(times), tokens_per_s: (rowsPerStep / median(times)) * 1000, steps: times.length, times_ms: times });
  // Sampling throughput per run = tokens / time; the median over runs.
  const sampleFig = (runs, k) => ({ tokens_per_s: median(runs.map((r) => (r[k] / r.ms) * 1000)), median_ms: median(runs.map((r) => r.ms)), runs });
  const out = { page: spec.label, key, env, check, train_step: {}, sampling: {}, ratios: {}, errors };
  out.train_step.jaxjs_wasm = { ...trainFig(train.jax), last_loss: jaxLoss };
  out.sampling.jaxjs_wasm_kv = sampleFig(sample.jaxKv, 'generated');
  out.sampling.jaxjs_wasm_prefix = sampleFig(sample.jaxPrefix, 'generated');
  const jaxSample = Math.max(out.sampling.jaxjs_wasm_kv.tokens_per_s, out.sampling.jaxjs_wasm_prefix.tokens_per_s);
  for (const l of spec.labs) {
    out.train_step[`lab_${l}`] = trainFig(train[l]);
    out.sampling[`lab_${l}`] = sampleFig(sample[l], 'generated');
    out.sampling[`lab_${l}_equal_work`] = sampleFig(sample[l], 'positions');
    out.ratios[`lab_${l}`] = {
      lab_threads: env.lab[l].threads,
      train_step_vs_jaxjs_wasm: out.train_step[`lab_${l}`].tokens_per_s / out.train_step.jaxjs_wasm.tokens_per_s,
      sampling_vs_jaxjs_wasm: out.sampling[`lab_${l}`].tokens_per_s / jaxSample,
      sampling_equal_work_vs_jaxjs_wasm: out.sampling[`lab_${l}_equal_work`].tokens_per_s / jaxSample,
    };
  }
  out.train_step.lab_all_ce = trainFig(train.labCe);
  out.ratios.lab_all_ce_train_step_vs_jaxjs_wasm = out.train_step.lab_all_ce.tokens_per_s / out.train_step.jaxjs_wasm.tokens_per_s;
  return out;
}

try {
  for (const p of pages) results.pages.push(await runPage(p));
} finally {
  await browser.close();
  await server.close();
}

const cols = [];
for (const r of results.pages) for (const l of PAGES[r.key].labs) cols.push({ r, l });
log(`\n| tokens/s (median) | ${cols.map(({ r, l }) => `${r.page}: lab ${r.env.lab[l].threads} thread${r.env.lab[l].threads === 1 ? '' : 's'}`).join(' | ')} |`);
log('| --- |' + cols.map(() => ' --- |').join(''));
const row = (name, get) => log(`| ${name} | ${cols.map(get).join(' | ')} |`);
row('jax-js wasm threads', ({ r }) => r.env.jaxThreads);
row('train step, lab CPU engine (GRPO loss, as `magic-lab bench`)', ({ r, l }) => f0(r.train_step[`lab_${l}`].tokens_per_s));
row('train step, jax-js wasm (weighted NLL)', ({ r }) => f0(r.train_step.jaxjs_wasm.tokens_per_s));
row('sampling, lab (tokens kept before EOS)', ({ r, l }) => f0(r.sampling[`lab_${l}`].tokens_per_s));
row('sampling, lab (rows × decode steps: equal work)', ({ r, l }) => f0(r.sampling[`lab_${l}_equal_work`].tokens_per_s));
row('sampling, jax-js wasm, KV cache', ({ r }) => f0(r.sampling.jaxjs_wasm_kv.tokens_per_s));
row('sampling, jax-js wasm, recomputed prefix', ({ r }) => f0(r.sampling.jaxjs_wasm_prefix.tokens_per_s));
row('**train_step_vs_jaxjs_wasm**', ({ r, l }) => `${f2(r.ratios[`lab_${l}`].train_step_vs_jaxjs_wasm)}×`);
row('**sampling_vs_jaxjs_wasm** (tokens kept)', ({ r, l }) => `${f2(r.ratios[`lab_${l}`].sampling_vs_jaxjs_wasm)}×`);
row('sampling at equal work vs jax-js wasm', ({ r, l }) => `${f2(r.ratios[`lab_${l}`].sampling_equal_work_vs_jaxjs_wasm)}×`);
for (const r of results.pages) log(`(${r.page}: the lab's train step with the CE loss, as a like-for-like loss: ${f0(r.train_step.lab_all_ce.tokens_per_s)} tokens/s at every core, ${f2(r.ratios.lab_all_ce_train_step_vs_jaxjs_wasm)}× jax-js)`);

// Headline: the first page (by default jax-js on the page thread, its fastest setting here), the lab at its default thread count.
const head = results.pages[0];
const hr = head.ratios.lab_all;
results.ratios = { page: head.page, lab_threads: hr.lab_threads, train_step_vs_jaxjs_wasm: hr.train_step_vs_jaxjs_wasm, sampling_vs_jaxjs_wasm: hr.sampling_vs_jaxjs_wasm, sampling_equal_work_vs_jaxjs_wasm: hr.sampling_equal_work_vs_jaxjs_wasm };
if (head.ratios.lab_1) results.ratios.core_for_core = head.ratios.lab_1;
results.targets_12 = {
  train_step_ge_1_2x: hr.train_step_vs_jaxjs_wasm >= 1.2,
  sampling_ge_5x: hr.sampling_vs_jaxjs_wasm >= 5,
  sampling_equal_work_ge_5x: hr.sampling_equal_work_vs_jaxjs_wasm >= 5,
};
log(`\nheadline (${head.page}, lab at ${hr.lab_threads} threads): train_step_vs_jaxjs_wasm = ${f2(hr.train_step_vs_jaxjs_wasm)}×, sampling_vs_jaxjs_wasm = ${f2(hr.sampling_vs_jaxjs_wasm)}× on tokens kept, ${f2(hr.sampling_equal_work_vs_jaxjs_wasm)}× at equal work`);
log(`#12 targets: train step ≥ 1.2× ${results.targets_12.train_step_ge_1_2x ? 'met' : 'NOT met'}; sampling ≥ 5× ${results.targets_12.sampling_ge_5x ? 'met' : 'NOT met'} on tokens kept, ${results.targets_12.sampling_equal_work_ge_5x ? 'met' : 'NOT met'} at equal work`);
if (values.json) {
  writeFileSync(values.json, JSON.stringify(results, null, 2) + '\n');
  log(`wrote ${values.json}`);
}
