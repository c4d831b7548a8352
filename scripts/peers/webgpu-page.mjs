/**
 * The page side of `npm run bench:peers` (scripts/bench-peers-webgpu.mjs): the lab's WebGPU
 * engine, TF.js's WebGPU backend and jax-js's WebGPU backend in one page, on the adapter
 * navigator.gpu gives each of them (the same one: all three ask for 'high-performance', and on a
 * machine without a GPU there is only SwiftShader). Each phase is called by the driver so it can
 * alternate them. Served by Vite (TypeScript and shaders of src/ transformed on the fly).
 *
 * window.peerBench.setup({ B }) → environment; check(steps) → the three losses per step on fresh
 * models; train(engine, n) → ms per step of 'lab' | 'labGrpo' | 'tfjs' | 'jaxjs'.
 */
import { layoutParams, validateModelConfig } from '../../src/model/config.ts';
import { acquireBrowserRuntime } from '../../src/gpu/browser.ts';
import { webgpuBackend } from '../../src/model/gpu-engine.ts';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../../src/model/bench-batch.ts';
import { initParams } from '../../src/model/init.ts';

const CFG = { vocabSize: 32, contextLength: 64, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4 };
const ADAMW = BENCH_ADAMW;
const SEED = 1;

const cfg = validateModelConfig(CFG);
const layout = layoutParams(cfg);
const T = cfg.contextLength;

let B = 16;
let batch = null;
let tokens = null;
let targets = null;
let backend = null;
let tf = null;
let TfGpt = null;
let JaxGpt = null;
/** engine name → { step(): Promise<loss> } for the timed models. */
const engines = {};

async function labTrainer(kind) {
  const p = await backend.createPolicy(cfg, `bench-${kind}`);
  p.setParams(initParams(cfg, SEED));
  p.resetAdamState();
  let t = 0;
  return {
    step: async () => (await p.update(batch, kind === 'ce' ? { kind: 'ce' } : BENCH_GRPO_LOSS, { step: ++t, adamw: ADAMW })).loss,
    dispose: () => p.destroy(),
  };
}

function tfTrainer() {
  const m = new TfGpt(cfg, layout, initParams(cfg, SEED), ADAMW);
  return { step: () => m.step(tokens, targets, batch.weights, B, T), dispose: () => m.dispose() };
}

function jaxTrainer() {
  const m = new JaxGpt(cfg, layout, initParams(cfg, SEED), ADAMW);
  return { step: () => m.step(tokens, targets, batch.weights, B, T), dispose: () => m.dispose() };
}

async function setup(opts = {}) {
  B = opts.B ?? 16;
  batch = benchTrainBatch(cfg, B);
  tokens = Int32Array.from(batch.tokens);
  targets = Int32Array.from(batch.targets);
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('navigator.gpu.requestAdapter() gave no adapter (headless Chromium needs --enable-unsafe-webgpu)');
  const info = adapter.info ?? {};
  backend = webgpuBackend(await acquireBrowserRuntime());

  tf = await import('@tensorflow/tfjs');
  await import('@tensorflow/tfjs-backend-webgpu');
  ({ TfGpt } = await import('./tfjs-gpt.mjs'));
  if (!(await tf.setBackend('webgpu'))) throw new Error('TF.js: the webgpu backend did not initialise');
  await tf.ready();

  const jax = await import('@jax-js/jax');
  ({ JaxGpt } = await import('./jaxjs-gpt.mjs'));
  const devices = await jax.init('webgpu');
  if (!devices.includes('webgpu')) throw new Error(`jax-js: no webgpu device (got ${devices.join(', ')})`);
  jax.defaultDevice('webgpu');

  engines.lab = await labTrainer('ce');
  engines.labGrpo = await labTrainer('grpo');
  engines.tfjs = tfTrainer();
  engines.jaxjs = jaxTrainer();
  return {
    adapter: { vendor: info.vendor ?? '', architecture: info.architecture ?? '', device: info.device ?? '', description: info.description ?? '' },
    lab: backend.description,
    tfjsBackend: tf.getBackend(),
    tfjsVersion: tf.version_core,
    jaxDevices: devices,
    userAgent: navigator.userAgent,
    params: layout.count,
    config: { ...CFG, batch: B },
  };
}

/** Fresh models from the same init, `steps` steps each on the fixed batch: the losses per step (weighted NLL = the lab's CE). */
async function check(steps = 3) {
  const out = { lnV: Math.log(cfg.vocabSize), lab: [], tfjs: [], jaxjs: [] };
  const fresh = { lab: await labTrainer('ce'), tfjs: tfTrainer(), jaxjs: jaxTrainer() };
  for (const [k, e] of Object.entries(fresh)) {
    for (let i = 0; i < steps; i++) out[k].push(await e.step());
    e.dispose();
  }
  return out;
}

/** n train steps of one engine; ms per step (each step ends with its loss read back) and the last loss. */
async function train(name, n) {
  const e = engines[name];
  if (!e) throw new Error(`train: unknown engine ${name}`);
  const times = [];
  let loss = NaN;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    loss = await e.step();
    times.push(performance.now() - t0);
  }
  return { times, loss };
}

window.peerBench = { config: CFG, setup, check, train };
window.peerBenchReady = true;
