/**
 * The page side of `npm run bench:peers` (scripts/bench-peers-webgpu.mjs): the lab's WebGPU
 * engine, TF.js's WebGPU backend and jax-js's WebGPU backend in one page, on the adapter
 * navigator.gpu gives each of them (the same one: all three ask for 'high-performance', and on a
 * machine without a GPU there is only SwiftShader). Each phase is called by the driver so it can
 * alternate them. Served by Vite (TypeScript and shaders of src/ transformed on the fly).
 *
 * window.peerBench.setup({ B }) → environment; check(steps) → the three losses per step on fresh
 * models; train(engine, n) → ms per step of 'lab' | 'labGrpo' | 'tfjs' | 'jaxjs';
 * sampleCheck(newTokens) → each sampler judged against the float64 reference (sample-check.mjs);
 * sample(engine, n, seed0) → n sampling runs of 'lab' | 'tfjsKv' | 'tfjsPrefix' | 'jaxjsKv'.
 */
import { layoutParams, validateModelConfig } from '../../src/model/config.ts';
import { acquireBrowserRuntime } from '../../src/gpu/browser.ts';
import { webgpuBackend } from '../../src/model/gpu-engine.ts';
import { BENCH_ADAMW, BENCH_GRPO_LOSS, benchTrainBatch } from '../../src/model/bench-batch.ts';
import { initParams } from '../../src/model/init.ts';
import { greedyCheck, temperatureCheck } from './sample-check.mjs';

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
/** sampler name → (seed, { newTokens, greedy }) → { seqs: [B][1 + n], steps } on the init weights. */
const samplers = {};
/** The sampler check's weights: the init × 4, so logits and attention are sharp (ties rare, a misplaced KV entry shows). */
const CHECK_SCALE = 4;
/**
 * jax-js's sampler takes its Gumbel-max argmax with a float `<` (drawToken 'lt' in jaxjs-gpt.mjs):
 * random.categorical's own argmax kernel never compiles on SwiftShader and takes the page's WebGPU
 * instance down (scripts/peers/jaxjs-sample-probe.mjs). Same noise, same draw.
 */
const JAX_DRAW = 'lt';
/** The lab has no greedy mode: a temperature this small makes its sampler an argmax for logit gaps ≥ the check's tie (2e-3). */
const LAB_GREEDY_TEMPERATURE = 1e-5;

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

/** The three engines' samplers over one set of weights: B sequences from the prompt [0]. */
async function makeSamplers(flat, name) {
  const policy = await backend.createPolicy(cfg, name);
  policy.setParams(flat);
  const tfm = new TfGpt(cfg, layout, flat, ADAMW);
  const jm = new JaxGpt(cfg, layout, flat, ADAMW, { draw: JAX_DRAW });
  const prompts = () => Array.from({ length: B }, () => [0]);
  return {
    // As `magic-lab bench` calls it: EOS = V − 1, so rows may stop early; seqs are prompt + response.
    lab: async (seed, { newTokens = T - 1, greedy = false } = {}) => {
      const res = await policy.generate({ prompts: prompts(), maxResponseLength: newTokens, temperature: greedy ? LAB_GREEDY_TEMPERATURE : 1, topP: 1, seed, eosId: cfg.vocabSize - 1, padId: 0 });
      return { seqs: res.responses.map((r) => [0, ...r]), steps: res.steps };
    },
    tfjsKv: async (seed, o = {}) => ({ seqs: await tfm.sample(B, seed, { ...o, variant: 'kv' }) }),
    tfjsPrefix: async (seed, o = {}) => ({ seqs: await tfm.sample(B, seed, { ...o, variant: 'prefix' }) }),
    jaxjsKv: async (seed, o = {}) => ({ seqs: await jm.sample(B, seed, 'kv', o) }),
    dispose: () => {
      policy.destroy();
      tfm.dispose();
      jm.dispose();
    },
  };
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
  Object.assign(samplers, await makeSamplers(initParams(cfg, SEED), 'bench-sample'));
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

/**
 * Every sampler on the check weights, `newTokens` new tokens per row: greedy (the lab at
 * τ = 1e-5) against the reference argmax, then τ = 1 against the reference distribution.
 */
async function sampleCheck(newTokens = 8, names = ['lab', 'tfjsKv', 'tfjsPrefix', 'jaxjsKv']) {
  const flat = initParams(cfg, SEED).map((x) => x * CHECK_SCALE);
  const params64 = Float64Array.from(flat);
  const s = await makeSamplers(flat, 'sample-check');
  const out = { scale: CHECK_SCALE, newTokens, labGreedyTemperature: LAB_GREEDY_TEMPERATURE, engines: {} };
  try {
    for (const k of names) {
      const run = (seed, o) => s[k](seed, o).then((r) => r.seqs, (e) => Promise.reject(new Error(`${k} sampling (${o.greedy ? 'greedy' : 'τ = 1'}): ${e?.message ?? e}`)));
      const g = await run(11, { newTokens, greedy: true });
      const t = await run(12, { newTokens });
      out.engines[k] = { greedy: greedyCheck(cfg, params64, g), temperature1: temperatureCheck(cfg, params64, t, 1), greedySeqs: g };
    }
  } finally {
    s.dispose();
  }
  return out;
}

/** n sampling runs of one engine on the init weights: B rows from [0], T − 1 new tokens at τ = 1. */
async function sample(name, n, seed0 = 0) {
  const f = samplers[name];
  if (!f || name === 'dispose') throw new Error(`sample: unknown engine ${name}`);
  const runs = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const { seqs, steps } = await f(seed0 + i);
    const ms = performance.now() - t0;
    const ok = seqs.length === B && seqs.every((q) => q.length >= 1 && q.length <= T && q.every((t) => Number.isInteger(t) && t >= 0 && t < cfg.vocabSize));
    if (!ok) throw new Error(`${name} sampling returned malformed tokens`);
    // generated: new tokens kept; positions: rows × decode steps (every step runs all B rows).
    const generated = seqs.reduce((a, q) => a + q.length - 1, 0);
    runs.push({ ms, generated, positions: B * (steps ?? T - 1), steps: steps ?? T - 1 });
  }
  return runs;
}

window.peerBench = { config: CFG, setup, check, train, sampleCheck, sample };
window.peerBenchReady = true;
