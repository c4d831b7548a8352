#!/usr/bin/env node
/**
 * Why jax-js-WebGPU sampling fails on SwiftShader (docs/benchmarks-log.md, `bench:peers`, "Sampling, same
 * page"): runs sampling variants of jax-js 0.1.25 on the bench's tiny GPT, each in a fresh headless
 * Chromium (a lost GPU process takes every device of the browser with it), and prints per variant
 * whether the device survived, the device-lost reason, the page's console (each shader module and
 * pipeline as it is made) and, with --wgsl, the WGSL of the shader whose pipeline never came back.
 * (Chromium's own GPU-process log says nothing here: the process is killed, not crashed with a message.)
 *
 *   node scripts/peers/jaxjs-sample-probe.mjs [--only NAME[,NAME]] [--wgsl] [--json FILE]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';

const { values } = parseArgs({ options: { only: { type: 'string' }, wgsl: { type: 'boolean', default: false }, json: { type: 'string' } } });

/**
 * name → variant (see jaxjs-sample-probe-page.mjs). Seen on SwiftShader (Chromium 156, jax-js
 * 0.1.25): every 'categorical' and 'dot' variant stalls in createComputePipeline of the == kernel,
 * 0 dispatches, and the page loses its WebGPU instance 2.5–4.5 minutes later; the 'lt' ones run.
 */
export const VARIANTS = {
  'categorical-jit-B16': { part: 'categorical', B: 16, jit: true },
  'categorical-eager-B16': { part: 'categorical', B: 16, jit: false },
  'gumbelmax-dot-jit-B16': { part: 'categorical', draw: 'dot', B: 16, jit: true },
  'gumbelmax-lt-jit-B16': { part: 'categorical', draw: 'lt', B: 16, jit: true },
  'kv-lt-jit-B2-n2': { form: 'kv', part: 'full', draw: 'lt', B: 2, newTokens: 2, jit: true },
  'kv-lt-jit-B16-n63': { form: 'kv', part: 'full', draw: 'lt', B: 16, newTokens: 63, jit: true },
  'kv-jit-B2-n1': { form: 'kv', part: 'full', B: 2, newTokens: 1, jit: true },
};

const root = fileURLToPath(new URL('../..', import.meta.url));
const names = values.only ? values.only.split(',') : Object.keys(VARIANTS);
for (const n of names) if (!VARIANTS[n]) throw new Error(`--only: unknown variant ${n} (known: ${Object.keys(VARIANTS).join(', ')})`);

const server = await createServer({
  configFile: false,
  root,
  logLevel: 'warn',
  server: { host: '127.0.0.1', port: 0, hmr: false },
  // Its own dependency cache: a bench:peers run beside it keeps its optimized deps.
  cacheDir: '/tmp/vite-jaxjs-probe',
  optimizeDeps: { include: ['@jax-js/jax'], entries: ['scripts/peers/jaxjs-sample-probe.html'] },
});
await server.listen();
const url = `http://127.0.0.1:${server.httpServer.address().port}/scripts/peers/jaxjs-sample-probe.html`;
const results = {};
try {
  for (const name of names) {
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    const console_ = [];
    try {
      const page = await browser.newPage();
      page.on('console', (m) => console_.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => console_.push(`pageerror: ${e}`));
      await page.goto(url);
      await page.waitForFunction(() => window.probeReady === true, null, { timeout: 180_000 });
      const r = await page.evaluate((v) => window.probe.run(v), VARIANTS[name]).catch((e) => ({ ok: false, error: `page: ${e.message.split('\n')[0]}` }));
      results[name] = { variant: VARIANTS[name], ...r, console: console_.slice(-40) };
      const t = r.trace ?? {};
      console.log(`\n== ${name}: ${r.ok ? 'ok' : 'FAILED'} (${Math.round(r.ms ?? 0)} ms)${r.error ? ` error: ${r.error}` : ''}`);
      console.log(`   device lost: ${JSON.stringify(t.lost)}; shaders ${t.shaders}, pipelines ${t.pipelines}, dispatches ${t.dispatches}; last dispatches ${JSON.stringify(t.lastDispatches)}`);
      if (t.uncaptured?.length) console.log(`   uncaptured errors: ${t.uncaptured.slice(0, 5).join(' | ')}`);
      if (r.out) console.log(`   out: ${JSON.stringify(r.out).slice(0, 200)}`);
      for (const l of console_.slice(-12)) console.log(`   console ${l.slice(0, 300)}`);
      if (values.wgsl && !r.ok) for (const s of [...(t.pendingShaders ?? []), ...(t.lastShaders ?? [])]) console.log(`   --- WGSL of shader ${s.id} ---\n${s.code}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2) + '\n');
