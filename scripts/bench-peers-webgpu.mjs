#!/usr/bin/env node
/**
 * `npm run bench:peers`: the lab's WebGPU engine against TF.js's WebGPU backend
 * (@tensorflow/tfjs-backend-webgpu) and jax-js's WebGPU backend (@jax-js/jax), side by side on
 * the bench's tiny GPT (V32 T64 D64 L2 H4, mlp 4×, batch 16 × 64 tokens) in ONE headless
 * Chromium page (system Chromium, --enable-unsafe-webgpu) served by Vite, on the adapter that
 * page gets — on a machine without a GPU that is SwiftShader, and the ratio is what counts.
 * The peer models are scripts/peers/tfjs-gpt.mjs and scripts/peers/jaxjs-gpt.mjs.
 *
 * The train step: forward + loss + backward + AdamW (global-norm clip) on the bench's batch, each
 * step ending with its loss read back. All three start from the lab's initParams(seed 1). Checks:
 * on fresh models, the three step-0 losses agree (|Δ| ≤ 1e-3) and every engine's loss falls.
 * Then warm-ups, then rounds alternating lab / TF.js / jax-js; medians of ms per step. The lab is
 * timed with the CE loss (the same weighted NLL the peers train: the headline) and with its GRPO
 * loss (as `magic-lab bench`).
 *
 *   npm run bench:peers [-- --json FILE] [--steps 5] [--rounds 2] [--quick] [--batch 16]
 *   --quick: 1 round of 2 steps after 1 warm-up and a 3-step check (a smoke run, not a figure);
 *   --batch: rows of 64 tokens (16 is the bench's; tests/scripts/bench-peers.test.ts runs 2)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';

const { values } = parseArgs({
  options: {
    json: { type: 'string' },
    steps: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    quick: { type: 'boolean', default: false },
    batch: { type: 'string', default: '16' },
  },
});
const positiveInt = (name, s) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a positive integer, got ${s}`);
  return n;
};
const QUICK = values.quick;
const STEPS = QUICK ? 2 : positiveInt('steps', values.steps);
const ROUNDS = QUICK ? 1 : positiveInt('rounds', values.rounds);
const BATCH = positiveInt('batch', values.batch);
const WARMUP = QUICK ? 1 : 2;
const CHECK_STEPS = QUICK ? 3 : 10;
const LOSS_TOL = 1e-3;
const ENGINES = ['lab', 'labGrpo', 'tfjs', 'jaxjs'];
const LABEL = { lab: 'lab WebGPU engine (CE loss)', labGrpo: 'lab WebGPU engine (GRPO loss, as `magic-lab bench`)', tfjs: 'TF.js WebGPU', jaxjs: 'jax-js WebGPU' };

const root = fileURLToPath(new URL('..', import.meta.url));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : String(x));
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : String(x));
const log = (s) => console.log(s);

const server = await createServer({
  configFile: false,
  root,
  logLevel: 'warn',
  server: { host: '127.0.0.1', port: 0, hmr: false },
  optimizeDeps: { include: ['@jax-js/jax', '@tensorflow/tfjs', '@tensorflow/tfjs-backend-webgpu'], entries: ['scripts/peers/webgpu-page.html'] },
});
await server.listen();
const { port } = server.httpServer.address();
const url = `http://127.0.0.1:${port}/scripts/peers/webgpu-page.html`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const results = { command: `npm run bench:peers -- ${process.argv.slice(2).join(' ')}`.trim(), date: new Date().toISOString(), browser: browser.version(), quick: QUICK, batch: BATCH, steps: STEPS, rounds: ROUNDS };

try {
  const page = await (await browser.newContext()).newPage();
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
  const env = await call('setup', { B: BATCH });
  results.env = env;
  const a = env.adapter;
  log(`adapter: ${[a.vendor, a.architecture, a.device, a.description].filter((s) => s).join(' / ')}; lab: ${env.lab}; TF.js ${env.tfjsVersion} on ${env.tfjsBackend}; jax-js on ${env.jaxDevices.join(', ')}`);

  const check = await call('check', CHECK_STEPS);
  results.check = check;
  const d = (xs) => `${xs[0].toFixed(4)} → ${xs.at(-1).toFixed(4)}`;
  log(`check (${CHECK_STEPS} steps, fresh models, fixed batch; ln V = ${check.lnV.toFixed(3)}): lab CE ${d(check.lab)}, TF.js ${d(check.tfjs)}, jax-js ${d(check.jaxjs)}`);
  const problems = [];
  for (const k of ['tfjs', 'jaxjs']) {
    if (!(Math.abs(check[k][0] - check.lab[0]) <= LOSS_TOL)) problems.push(`${k} step-0 loss ${check[k][0]} vs lab ${check.lab[0]} (tolerance ${LOSS_TOL})`);
  }
  for (const k of ['lab', 'tfjs', 'jaxjs']) {
    if (!check[k].every(Number.isFinite) || !(check[k].at(-1) < check[k][0])) problems.push(`${k} loss did not fall: ${check[k].join(', ')}`);
  }
  results.check.ok = problems.length === 0;
  if (problems.length) throw new Error(`loss check failed:\n  ${problems.join('\n  ')}`);

  for (const e of ENGINES) await call('train', e, WARMUP);
  const times = Object.fromEntries(ENGINES.map((e) => [e, []]));
  const last = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const e of ENGINES) {
      const o = await call('train', e, STEPS);
      times[e].push(...o.times);
      last[e] = o.loss;
    }
    log(`  round ${r + 1}/${ROUNDS}: ${ENGINES.map((e) => `${e} ${f2(median(times[e]))} ms`).join(', ')} per step (medians so far)`);
  }
  results.errors = errors;
  if (errors.length) log(`page errors:\n${errors.join('\n')}`);

  const tokens = env.config.batch * env.config.contextLength;
  results.train_step = Object.fromEntries(
    ENGINES.map((e) => [e, { label: LABEL[e], median_ms: median(times[e]), tokens_per_s: (tokens / median(times[e])) * 1000, steps: times[e].length, times_ms: times[e], last_loss: last[e] }]),
  );
  const ts = results.train_step;
  // lab / peer as throughput: > 1 means the lab is faster.
  results.ratios = {
    lab_vs_tfjs_webgpu: ts.lab.tokens_per_s / ts.tfjs.tokens_per_s,
    lab_vs_jaxjs_webgpu: ts.lab.tokens_per_s / ts.jaxjs.tokens_per_s,
    lab_grpo_vs_tfjs_webgpu: ts.labGrpo.tokens_per_s / ts.tfjs.tokens_per_s,
    lab_grpo_vs_jaxjs_webgpu: ts.labGrpo.tokens_per_s / ts.jaxjs.tokens_per_s,
  };
  log(`\n| train step (median of ${ROUNDS} × ${STEPS}) | ms | tokens/s |`);
  log('| --- | --- | --- |');
  for (const e of ENGINES) log(`| ${LABEL[e]} | ${f2(ts[e].median_ms)} | ${f0(ts[e].tokens_per_s)} |`);
  log(`\nlab / TF.js-WebGPU = ${f2(results.ratios.lab_vs_tfjs_webgpu)}×, lab / jax-js-WebGPU = ${f2(results.ratios.lab_vs_jaxjs_webgpu)}× (CE; GRPO: ${f2(results.ratios.lab_grpo_vs_tfjs_webgpu)}×, ${f2(results.ratios.lab_grpo_vs_jaxjs_webgpu)}×)`);
} finally {
  await browser.close();
  await server.close();
}

if (values.json) {
  writeFileSync(values.json, JSON.stringify(results, null, 2) + '\n');
  log(`wrote ${values.json}`);
}
