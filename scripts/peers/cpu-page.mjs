/**
 * The page side of `npm run bench:peers:cpu` (scripts/bench-peers-cpu.mjs): the lab's CPU
 * engine and jax-js's WebAssembly backend in one page, each phase called by the driver so it
 * can alternate them. Served by Vite (TypeScript of src/ transformed on the fly) with
 * cross-origin isolation, so both libraries get SharedArrayBuffer and their threads.
 *
 * window.peerBench.setup({ labs, jaxPool }) → environment; then trainLab / trainJax / sampleLab /
 * sampleJax return per-call timings; check() runs the loss sanity checks.
 */
import { layoutParams, validateModelConfig } from '../../src/model/config.ts';
import { wasmBackend } from '../../src/model/cpu-policy.ts';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../../src/model/bench-batch.ts';
import { initParams } from '../../src/model/init.ts';

const CFG = { vocabSize: 32, contextLength: 64, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4 };
const B = 16;
const ADAMW = BENCH_ADAMW;
const GRPO = BENCH_GRPO_LOSS;

const cfg = validateModelConfig(CFG);
const layout = layoutParams(cfg);
const T = cfg.contextLength;

const batch = benchTrainBatch(cfg, B);
const jaxTokens = Int32Array.from(batch.tokens);
const jaxTargets = Int32Array.from(batch.targets);

/** The lab's engines in this page, by label ('all': every core, '1': one thread): backend, GRPO policy, CE policy. */
const labs = {};
let jax = null;
let JaxGpt = null;
let workersCreated = 0;

// Count the Workers each library starts (jax-js sizes its pool from navigator.hardwareConcurrency).
if (typeof Worker !== 'undefined') {
  const W = Worker;
  globalThis.Worker = class extends W {
    constructor(...a) {
      super(...a);
      workersCreated++;
    }
  };
}

/**
 * labs: which lab engines to start ('all' = the default thread count, '1' = one thread);
 * jaxPool: false hides `Worker` from jax-js (after the lab's threads have started), so jax-js
 * runs its kernels on this page's thread; true leaves it its default worker pool.
 */
async function setup({ labs: which, jaxPool }) {
  const env = {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined',
    hardwareConcurrency: navigator.hardwareConcurrency,
    userAgent: navigator.userAgent,
    lab: {},
  };
  const init = initParams(cfg, 1);
  for (const label of which) {
    const w0 = workersCreated;
    const backend = await wasmBackend({ threads: label === '1' ? 1 : undefined });
    const policy = await backend.createPolicy(cfg, 'bench');
    policy.setParams(init);
    policy.resetAdamState();
    const cePolicy = await backend.createPolicy(cfg, 'bench-ce');
    cePolicy.setParams(init);
    cePolicy.resetAdamState();
    labs[label] = { backend, policy, cePolicy, step: 0, ceStep: 0 };
    env.lab[label] = { description: backend.description, threads: backend.threads, workers: workersCreated - w0 };
  }
  // jax-js creates its wasm backend (and decides on a worker pool, by `typeof Worker`) when it is
  // first imported, and checks again per compiled kernel: so it is imported only now, after the
  // lab's threads have started, and `Worker` stays hidden for the page's life when jaxPool is false.
  if (!jaxPool) globalThis.Worker = undefined;
  const { defaultDevice, init: jaxInit } = await import('@jax-js/jax');
  ({ JaxGpt } = await import('./jaxjs-gpt.mjs'));
  const devices = await jaxInit('wasm');
  defaultDevice('wasm');
  env.jaxDevices = devices;
  const w1 = workersCreated;
  jax = new JaxGpt(cfg, layout, init, ADAMW);
  await jax.step(jaxTokens, jaxTargets, batch.weights, B, T); // compiles, and starts jax-js's worker pool if it has one
  env.jaxWorkers = workersCreated - w1;
  env.jaxThreads = env.jaxWorkers > 0 ? `${env.jaxWorkers} workers (+ the page thread dispatching)` : 'the page thread only';
  env.params = Object.values(labs)[0].policy.layout.count;
  return env;
}

/** Loss sanity checks on fresh models, 20 steps on the fixed batch: jax-js NLL and the lab's CE (same weights, same init). */
async function check(steps = 20) {
  const init = initParams(cfg, 1);
  const j = new JaxGpt(cfg, layout, init, ADAMW);
  const jaxLoss = [];
  for (let i = 0; i < steps; i++) jaxLoss.push(await j.step(jaxTokens, jaxTargets, batch.weights, B, T));
  j.dispose();
  const p = await Object.values(labs)[0].backend.createPolicy(cfg, 'check');
  p.setParams(init);
  p.resetAdamState();
  const labLoss = [];
  for (let i = 0; i < steps; i++) labLoss.push((await p.update(batch, { kind: 'ce' }, { step: i + 1, adamw: ADAMW })).loss);
  p.destroy();
  return { lnV: Math.log(cfg.vocabSize), jaxLoss, labCeLoss: labLoss };
}

const now = () => performance.now();

/** n train steps of one lab engine (GRPO loss as `magic-lab bench`, or CE); ms per step. */
async function trainLab(n, which, kind = 'grpo') {
  const L = labs[which];
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    if (kind === 'ce') await L.cePolicy.update(batch, { kind: 'ce' }, { step: ++L.ceStep, adamw: ADAMW });
    else await L.policy.update(batch, GRPO, { step: ++L.step, adamw: ADAMW });
    times.push(now() - t0);
  }
  return times;
}

async function trainJax(n) {
  const times = [];
  let loss = NaN;
  for (let i = 0; i < n; i++) {
    const t0 = now();
    loss = await jax.step(jaxTokens, jaxTargets, batch.weights, B, T);
    times.push(now() - t0);
  }
  return { times, loss };
}

/**
 * n sampling runs of one lab engine as `magic-lab bench`: B sequences from [0], up to T − 1 new
 * tokens, EOS = V − 1. generated: tokens kept (up to and with EOS); positions: B × decode steps
 * (every step runs all B rows through the forward, finished rows included).
 */
async function sampleLab(n, which, seed0 = 0) {
  const runs = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const res = await labs[which].policy.generate({
      prompts: Array.from({ length: B }, () => [0]),
      maxResponseLength: T - 1,
      temperature: 1,
      topP: 1,
      seed: seed0 + i,
      eosId: cfg.vocabSize - 1,
      padId: 0,
    });
    const ms = now() - t0;
    runs.push({ ms, generated: res.responses.reduce((s, r) => s + r.length, 0), positions: B * res.steps, steps: res.steps });
  }
  return runs;
}

/** n sampling runs of jax-js: B sequences from [0] to the full context (T − 1 new tokens each, no EOS). */
async function sampleJax(n, variant, seed0 = 0) {
  const runs = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const seqs = await jax.sample(B, seed0 + i, variant);
    const ms = now() - t0;
    const ok = seqs.length === B && seqs.every((s) => s.length === T && s.every((t) => Number.isInteger(t) && t >= 0 && t < cfg.vocabSize));
    if (!ok) throw new Error(`jax-js ${variant} sampling returned malformed tokens`);
    const distinct = new Set(seqs.flat()).size;
    runs.push({ ms, generated: B * (T - 1), positions: B * (T - 1), distinctTokens: distinct });
  }
  return runs;
}

window.peerBench = { config: { ...CFG, batch: B }, setup, check, trainLab, trainJax, sampleLab, sampleJax };
window.peerBenchReady = true;
