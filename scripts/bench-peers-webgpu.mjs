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
 * Sampling: the same rows from the one-token prompt [0], T − 1 = 63 new tokens each at τ = 1, from
 * the init weights: the lab's `policy.generate` as `magic-lab bench` calls it (EOS = V − 1, so rows
 * may stop early: tokens kept, and rows × decode steps, the equal-work figure), TF.js as a per-token
 * loop of tf ops with a growing KV cache and with the prefix recomputed (the faster one is the
 * ratio's peer), jax-js with its jitted KV-cache step (scripts/peers/jaxjs-gpt.mjs, as
 * `bench:peers:cpu`), whose Gumbel-max argmax is taken with a float `<` (drawToken 'lt': the same
 * draw as random.categorical, whose own argmax kernel never compiles on SwiftShader and loses the
 * page's GPU instance; scripts/peers/jaxjs-sample-probe.mjs). First a check on sharpened weights
 * (init × 4, 8 new tokens): greedy tokens equal to the float64 reference's argmax and τ = 1 samples
 * within 5 standard deviations of the reference's log-prob (scripts/peers/sample-check.mjs); the run
 * fails otherwise. Then one warm-up run each and rounds alternating lab / TF.js KV / TF.js prefix /
 * jax-js. Medians of tokens/s.
 *
 *   npm run bench:peers [-- --json FILE] [--steps 5] [--rounds 2] [--samples 3] [--quick] [--batch 16]
 *   --quick: 1 round of 2 steps after 1 warm-up and a 3-step check, 1 sampling round (a smoke run, not a figure);
 *   --samples: sampling rounds; --batch: rows of 64 tokens (16 is the bench's; tests/scripts/bench-peers.test.ts runs 2).
 *   BENCH_PEERS_PORT: the Vite server's port (default 0: any free port).
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
    samples: { type: 'string', default: '3' },
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
const SAMPLE_ROUNDS = QUICK ? 1 : positiveInt('samples', values.samples);
const CHECK_TOKENS = 8;
const Z_MAX = 5;
const PORT = process.env.BENCH_PEERS_PORT === undefined ? 0 : Number(process.env.BENCH_PEERS_PORT);
if (!Number.isInteger(PORT) || PORT < 0 || PORT > 65535) throw new Error(`BENCH_PEERS_PORT: expected a port number, got ${process.env.BENCH_PEERS_PORT}`);
const SAMPLERS = ['lab', 'tfjsKv', 'tfjsPrefix', 'jaxjsKv'];
const SAMPLER_LABEL = {
  lab: 'lab WebGPU engine (`policy.generate`, as `magic-lab bench`)',
  tfjsKv: 'TF.js WebGPU, per-token loop, KV cache',
  tfjsPrefix: 'TF.js WebGPU, per-token loop, recomputed prefix',
  jaxjsKv: 'jax-js WebGPU, jitted KV-cache step (Gumbel-max, argmax by `<`)',
};
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
  server: { host: '127.0.0.1', port: PORT, strictPort: PORT !== 0, hmr: false },
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

  // Sampling: the check first (a wrong sampler fails the run before it is timed), then warm-ups and alternating rounds.
  const sampleProblems = [];
  const judge = (sc) => {
    for (const [k, { greedy: g, temperature1: t }] of Object.entries(sc.engines)) {
      if (g.mismatches.length) sampleProblems.push(`${k} greedy: ${g.mismatches.map((m) => `row ${m.row} position ${m.pos}: ${m.got}, reference argmax ${m.want}`).join('; ')}`);
      if (g.compared < 1) sampleProblems.push(`${k} greedy: no position compared (${g.ties} near ties)`);
      if (!(t.n >= 1 && Math.abs(t.z) <= Z_MAX)) sampleProblems.push(`${k} τ = 1: Σ log p ${t.sumLogp.toFixed(2)} vs expected ${t.expected.toFixed(2)} ± ${t.sd.toFixed(2)} (z ${t.z.toFixed(2)}, limit ${Z_MAX})`);
      log(`sampler check ${k}: greedy ${g.compared} positions = reference argmax (${g.ties} rows cut at a near tie), τ = 1 z = ${f2(t.z)} over ${t.n} tokens`);
    }
    if (sampleProblems.length) throw new Error(`sampler check failed:\n  ${sampleProblems.join('\n  ')}`);
  };
  const sc = await call('sampleCheck', CHECK_TOKENS, SAMPLERS);
  results.sampling_check = { ...sc, ok: false };
  judge(sc);
  results.sampling_check.ok = true;

  for (const k of SAMPLERS) await call('sample', k, 1, 100);
  const runs = Object.fromEntries(SAMPLERS.map((k) => [k, []]));
  for (let r = 0; r < SAMPLE_ROUNDS; r++) {
    for (const k of SAMPLERS) runs[k].push(...(await call('sample', k, 1, r)));
    log(`  sampling round ${r + 1}/${SAMPLE_ROUNDS}: ${SAMPLERS.map((k) => `${k} ${f0(runs[k].at(-1).ms)} ms`).join(', ')}`);
  }
  results.errors = errors;
  if (errors.length) log(`page errors:\n${errors.join('\n')}`);

  const tokens = env.config.batch * env.config.contextLength;
  const T_NEW = env.config.contextLength - 1;
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

  // Sampling throughput per run = tokens / time; the median over runs.
  const sampleFig = (rs, k) => ({ tokens_per_s: median(rs.map((x) => (x[k] / x.ms) * 1000)), median_ms: median(rs.map((x) => x.ms)), runs: rs });
  const sm = Object.fromEntries(SAMPLERS.map((k) => [k, { label: SAMPLER_LABEL[k], ...sampleFig(runs[k], 'generated') }]));
  sm.labEqualWork = { label: 'lab WebGPU engine, rows × decode steps (equal work)', ...sampleFig(runs.lab, 'positions') };
  results.sampling = sm;
  const tfBest = sm.tfjsKv.tokens_per_s >= sm.tfjsPrefix.tokens_per_s ? 'tfjsKv' : 'tfjsPrefix';
  Object.assign(results.ratios, {
    sampling_tfjs_peer: tfBest,
    sampling_vs_tfjs_webgpu: sm.lab.tokens_per_s / sm[tfBest].tokens_per_s,
    sampling_vs_jaxjs_webgpu: sm.lab.tokens_per_s / sm.jaxjsKv.tokens_per_s,
    sampling_equal_work_vs_tfjs_webgpu: sm.labEqualWork.tokens_per_s / sm[tfBest].tokens_per_s,
    sampling_equal_work_vs_jaxjs_webgpu: sm.labEqualWork.tokens_per_s / sm.jaxjsKv.tokens_per_s,
  });
  const rr = results.ratios;
  results.targets_25 = {
    train_step_ge_1x_jaxjs: rr.lab_vs_jaxjs_webgpu >= 1,
    train_step_ge_5x_tfjs: rr.lab_vs_tfjs_webgpu >= 5,
    sampling_ge_5x_both: rr.sampling_vs_tfjs_webgpu >= 5 && rr.sampling_vs_jaxjs_webgpu >= 5,
    sampling_equal_work_ge_5x_both: rr.sampling_equal_work_vs_tfjs_webgpu >= 5 && rr.sampling_equal_work_vs_jaxjs_webgpu >= 5,
    sampling_ge_5x_tfjs: rr.sampling_vs_tfjs_webgpu >= 5,
  };
  log(`\n| sampling (${env.config.batch} rows from [0], ${T_NEW} new tokens, τ = 1; median of ${SAMPLE_ROUNDS}) | ms | tokens/s | lab / engine |`);
  log('| --- | --- | --- | --- |');
  for (const k of [...SAMPLERS, 'labEqualWork']) {
    const ratio = k.startsWith('lab') ? '–' : `${f2(sm.lab.tokens_per_s / sm[k].tokens_per_s)}×`;
    log(`| ${sm[k].label} | ${f0(sm[k].median_ms)} | ${f0(sm[k].tokens_per_s)} | ${ratio} |`);
  }
  log(`\nsampling: lab / TF.js-WebGPU (${tfBest}) = ${f2(rr.sampling_vs_tfjs_webgpu)}×, lab / jax-js-WebGPU = ${f2(rr.sampling_vs_jaxjs_webgpu)}× on tokens kept; at equal work ${f2(rr.sampling_equal_work_vs_tfjs_webgpu)}×, ${f2(rr.sampling_equal_work_vs_jaxjs_webgpu)}×`);
  const met = (b) => (b ? 'met' : 'NOT met');
  log(`#25 targets: train step ≥ 1.0× jax-js ${met(results.targets_25.train_step_ge_1x_jaxjs)}, ≥ 5× TF.js ${met(results.targets_25.train_step_ge_5x_tfjs)}; sampling ≥ 5× both ${met(results.targets_25.sampling_ge_5x_both)} (tokens kept), ${met(results.targets_25.sampling_equal_work_ge_5x_both)} (equal work); sampling ≥ 5× TF.js ${met(results.targets_25.sampling_ge_5x_tfjs)}`);
} finally {
  await browser.close();
  await server.close();
}

if (values.json) {
  writeFileSync(values.json, JSON.stringify(results, null, 2) + '\n');
  log(`wrote ${values.json}`);
}
