#!/usr/bin/env node
/**
 * `npm run bench:ui`: the page's training speed per view beside the CLI's (issue #28 item 5).
 * For one preset, engine and thread count it times, in rounds that alternate the modes so machine
 * load hits them alike:
 *   built-training, built-findings  the built page (vite preview), Training or Findings view open
 *   dev-training,   dev-findings    the dev server (vite; StrictMode only with VITE_STRICT_MODE=1), the same two views
 *   cli                             `magic-lab train` in Node on the same preset, backend and threads
 * Each mode starts training, waits until step --warmup-steps is done (the base checkpoint, the
 * offline filter and the first step are not the steady rate), then counts the steps finished in
 * --seconds of wall time (evaluations and checkpoints included, for the page and the CLI alike).
 * Pages also record every main-thread long task (> 50 ms) inside the window. Prints JSON: each
 * run, each mode's median steps/min, and the ratios Training/Findings and Training/CLI per page.
 * A benchmark, not a test.
 *
 *   npm run build && npm run bench:ui [-- --preset magic --backend wasm --threads 2 --seconds 45 --rounds 2]
 *   flags: --modes built-training,cli (a subset)  --preview-port 4752  --dev-port 5752  --warmup-steps 3
 *          --profile DIR  (pages: a V8 CPU profile of the window, DIR/<round>-<mode>.cpuprofile, and in the
 *          JSON the main thread's time by kind, each chart's redraws, and the redraw inside each long task)
 *
 * The page's CPU engine takes every core the browser reports (it has no threads= URL key); the
 * result says how many threads its engine ran on, and warns when that is not --threads.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const num = (name, dflt) => {
  const v = Number(opt(name, String(dflt)));
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name}: expected a positive number, got ${opt(name)}`);
  return v;
};
const preset = opt('preset', 'magic');
const backend = opt('backend', 'wasm');
const threads = num('threads', 2);
const seconds = num('seconds', 45);
const rounds = num('rounds', 2);
const warmupSteps = num('warmup-steps', 3);
const PREVIEW_PORT = num('preview-port', 4752);
const DEV_PORT = num('dev-port', 5752);
const ALL_MODES = ['built-training', 'built-findings', 'dev-training', 'dev-findings', 'cli'];
const modes = opt('modes', ALL_MODES.join(',')).split(',');
const profileDir = opt('profile', null);
if (profileDir) mkdirSync(profileDir, { recursive: true });
for (const m of modes) if (!ALL_MODES.includes(m)) throw new Error(`--modes: unknown mode "${m}" (known: ${ALL_MODES.join(', ')})`);
if (modes.some((m) => m.startsWith('built')) && !existsSync('dist/index.html')) throw new Error('dist/index.html: run `npm run build` first');

const children = [];
// Servers run in their own process group: `npx` does not pass SIGTERM on to vite, and a vite left
// running kept the port, so the next run's server failed on --strictPort and the old one (an older
// build) answered in its place. The whole group is ended.
const stopAll = () =>
  children.forEach((c) => {
    if (c.exitCode !== null) return;
    try {
      if (c.spawnargs[0] === 'npx') process.kill(-c.pid, 'SIGTERM');
      else c.kill('SIGTERM');
    } catch {
      /* already gone */
    }
  });
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function serve(argv, port) {
  const taken = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
  if (taken) throw new Error(`port ${port} already answers (a server left running?): move it with --${argv[0] === 'preview' ? 'preview' : 'dev'}-port`);
  children.push(spawn('npx', ['vite', ...argv, '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { stdio: 'ignore', detached: true }));
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) return `http://127.0.0.1:${port}`;
    } catch {
      /* not up yet */
    }
    await sleep(200);
  }
  throw new Error(`vite ${argv[0] ?? 'dev'} on port ${port} did not answer`);
}
const origins = {};
if (modes.some((m) => m.startsWith('built'))) origins.built = await serve(['preview'], PREVIEW_PORT);
if (modes.some((m) => m.startsWith('dev'))) origins.dev = await serve([], DEV_PORT);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/**
 * Waits (≤ 10 min) until `step()` reaches `n`, then counts steps over `seconds`: { steps, window_s }.
 * A run that ends inside the window (`done()`: on a quiet machine a whole 400-step `magic` run takes about a
 * minute) ends the window at its last step, polled every POLL_MS: counting past it would add idle time.
 * `ended_early` says so.
 */
const POLL_MS = 250;
async function countSteps(step, hooks = {}, done = async () => false) {
  const deadline = Date.now() + 600_000;
  while ((await step()) < warmupSteps) {
    if (Date.now() > deadline) throw new Error(`step ${warmupSteps} not reached in 10 minutes`);
    await sleep(100);
  }
  await hooks.start?.();
  const s0 = await step();
  const t0 = Date.now();
  let s1 = s0;
  let t1 = t0;
  let endedEarly = false;
  while (Date.now() - t0 < seconds * 1000) {
    await sleep(POLL_MS);
    const s = await step();
    if (s !== s1) [s1, t1] = [s, Date.now()];
    if (await done()) {
      endedEarly = true;
      break;
    }
  }
  if (!endedEarly) [s1, t1] = [await step(), Date.now()];
  const window_s = (t1 - t0) / 1000;
  await hooks.end?.();
  if (window_s <= 0 || s1 === s0) throw new Error(`no step finished in the window (the run ended ${endedEarly ? 'inside it' : 'before it'}): use fewer --seconds`);
  return { steps: s1 - s0, window_s, steps_per_min: ((s1 - s0) * 60) / window_s, ...(endedEarly ? { ended_early: true } : {}) };
}

async function pageRun(server, view) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  try {
    await page.addInitScript(() => {
      window.__longTasks = [];
      window.__longTaskStarts = [];
      window.__chartRedraws = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          window.__longTasks.push(Math.round(e.duration));
          window.__longTaskStarts.push({ start: e.startTime, ms: Math.round(e.duration) });
        }
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${origins[server]}/?preset=${encodeURIComponent(preset)}&backend=${encodeURIComponent(backend)}`);
    await page.getByTestId('adapter-name').waitFor({ timeout: 180_000 });
    const engineThreads = await page.evaluate(() => navigator.hardwareConcurrency);
    await page.getByTestId('play').click();
    if (view === 'findings') await page.getByTestId('view-findings').click();
    const step = async () => Number(await page.getByTestId('step-counter').textContent());
    // Long tasks from Play to the window's start are setup (the first step, the first draw); not counted.
    let counted = null;
    const prof = profileDir ? await profiler(page) : null;
    const result = await countSteps(
      async () => {
        const s = await step();
        if (counted === null && s >= warmupSteps) counted = await page.evaluate(() => [window.__longTasks.splice(0).length, window.__longTaskStarts.splice(0), window.__chartRedraws.splice(0)]);
        return s;
      },
      prof ?? {},
      async () => (await page.getByTestId('run-state').getAttribute('data-state')) === 'done',
    );
    const longTasks = await page.evaluate(() => window.__longTasks);
    const profile = prof ? await prof.report(`${server}-${view}`) : undefined;
    // Per chart since page load: recharts frame re-renders and canvas draws (MetricChart / CanvasSeries data-*).
    const chartFrames = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('figure.chart[data-frame-renders]')].map((f) => [f.dataset.testid, { frame_renders: Number(f.dataset.frameRenders), canvas_draws: Number(f.querySelector('canvas.chart-canvas')?.dataset.draws ?? 0), frame: f.dataset.frame, causes: f.dataset.frameCauses }])));
    return { ...result, long_tasks_ms: longTasks, chart_frames: chartFrames, page_threads: engineThreads, status: await page.getByTestId('status-message').textContent().catch(() => null), ...(profile ? { profile } : {}) };
  } finally {
    await page.close();
  }
}

/**
 * --profile: over the window, a V8 CPU profile (1 ms samples) and CDP's main-thread metrics; at the end,
 * the time by kind (script, style, layout, the rest of the tasks), self time of "(program)" (the browser's
 * own work: style, layout, paint), "(garbage collector)" and the top functions, the redraws of each chart
 * (lib/stagger.ts recordRedraw: ms from its render to the end of its task) and, for each long task, the
 * redraws that ran inside it.
 */
let profileCount = 0;
async function profiler(page) {
  const cdp = await page.context().newCDPSession(page);
  let m0 = null;
  let t0 = 0;
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  return {
    async start() {
      await cdp.send('Performance.enable');
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
      await page.evaluate(() => {
        window.__longTaskStarts.length = 0;
        window.__chartRedraws.length = 0;
      });
      await cdp.send('Profiler.start');
      m0 = await metrics();
      t0 = Date.now();
    },
    async end() {
      const m1 = await metrics();
      const wall = (Date.now() - t0) / 1000;
      const { profile } = await cdp.send('Profiler.stop');
      this.data = { m0, m1, wall, profile, redraws: await page.evaluate(() => window.__chartRedraws.slice()), longTasks: await page.evaluate(() => window.__longTaskStarts.slice()) };
    },
    async report(name) {
      const { m0, m1, wall, profile, redraws, longTasks } = this.data;
      writeFileSync(join(profileDir, `${++profileCount}-${name}.cpuprofile`), JSON.stringify(profile));
      const d = (k) => +((m1[k] - m0[k]) * 1000).toFixed(0);
      const self = new Map();
      const dt = new Map();
      profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
      for (const n of profile.nodes) {
        const f = n.callFrame;
        const key = f.url ? `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}` : f.functionName;
        self.set(key, (self.get(key) ?? 0) + (dt.get(n.id) ?? 0));
      }
      const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, ms]) => [k, +ms.toFixed(0)]);
      const byChart = {};
      for (const r of redraws) {
        const c = (byChart[r.label || '(unlabelled)'] ??= { redraws: 0, ms: 0, max_ms: 0 });
        c.redraws++;
        c.ms += r.ms;
        c.max_ms = Math.max(c.max_ms, r.ms);
      }
      for (const c of Object.values(byChart)) (c.ms = +c.ms.toFixed(0)), (c.max_ms = +c.max_ms.toFixed(0));
      const inside = longTasks.map((t) => ({ ms: t.ms, redraws: redraws.filter((r) => r.start < t.start + t.ms && r.start + r.ms > t.start).map((r) => `${r.label} ${r.ms.toFixed(0)}`) }));
      return {
        window_s: +wall.toFixed(1),
        main_thread_ms: { task: d('TaskDuration'), script: d('ScriptDuration'), style: d('RecalcStyleDuration'), layout: d('LayoutDuration') },
        self_ms_top: top,
        redraws_by_chart: byChart,
        long_tasks: inside,
      };
    },
  };
}

async function cliRun() {
  const out = mkdtempSync(join(tmpdir(), 'bench-ui-cli-'));
  const child = spawn(process.execPath, ['bin/magic-lab.mjs', 'train', '--preset', preset, '--backend', backend, '--threads', String(threads), '--out', join(out, 'run'), '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const file = join(out, 'run', 'metrics.jsonl');
  try {
    const steps = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{"type":"step"')).length : 0);
    return await countSteps(
      async () => {
        if (child.exitCode !== null && child.exitCode !== 0) throw new Error(`magic-lab train exited ${child.exitCode}: ${stderr.slice(-500)}`);
        return steps();
      },
      {},
      async () => child.exitCode === 0,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    rmSync(out, { recursive: true, force: true });
  }
}

const runs = [];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
try {
  for (let r = 0; r < rounds; r++) {
    // Rotate the order each round so no mode always runs first (or after the same neighbour).
    const order = modes.map((_, i) => modes[(i + r) % modes.length]);
    for (const mode of order) {
      const [server, view] = mode.split('-');
      const res = mode === 'cli' ? await cliRun() : await pageRun(server, view);
      runs.push({ round: r + 1, mode, ...res });
      console.error(`round ${r + 1} ${mode}: ${res.steps_per_min.toFixed(1)} steps/min${res.ended_early ? ` (the run ended after ${res.window_s.toFixed(0)} s of the window)` : ''}${res.long_tasks_ms ? `, long tasks ${JSON.stringify(res.long_tasks_ms)}` : ''}`);
    }
  }
} finally {
  await browser.close();
  stopAll();
}

const perMode = {};
for (const m of modes) {
  const rs = runs.filter((x) => x.mode === m);
  const lt = rs.flatMap((x) => x.long_tasks_ms ?? []);
  perMode[m] = { steps_per_min: rs.map((x) => +x.steps_per_min.toFixed(1)), median: +median(rs.map((x) => x.steps_per_min)).toFixed(1), ...(m === 'cli' ? {} : { long_tasks: lt.length, longest_task_ms: lt.length ? Math.max(...lt) : 0 }) };
}
const ratio = (a, b) => (perMode[a] && perMode[b] ? +(perMode[a].median / perMode[b].median).toFixed(3) : null);
const pageThreads = [...new Set(runs.filter((x) => x.page_threads).map((x) => x.page_threads))];
console.log(
  JSON.stringify(
    {
      preset,
      backend,
      threads,
      page_threads: pageThreads,
      ...(pageThreads.some((t) => t !== threads) && backend !== 'webgpu' ? { warning: `the page's engine uses every core (${pageThreads.join(', ')}), not --threads ${threads}` } : {}),
      seconds,
      rounds,
      warmup_steps: warmupSteps,
      modes: perMode,
      ratios: {
        built_training_over_findings: ratio('built-training', 'built-findings'),
        built_training_over_cli: ratio('built-training', 'cli'),
        dev_training_over_findings: ratio('dev-training', 'dev-findings'),
        dev_training_over_cli: ratio('dev-training', 'cli'),
      },
      runs,
    },
    null,
    2,
  ),
);
