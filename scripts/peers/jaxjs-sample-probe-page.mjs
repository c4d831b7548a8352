/**
 * Page side of scripts/peers/jaxjs-sample-probe.mjs: runs one jax-js-WebGPU sampling variant on
 * the bench's tiny GPT and records what the device saw (the WGSL of every compute pipeline,
 * dispatches per pipeline, the device-lost reason), so the op whose kernel takes SwiftShader's GPU
 * process down can be named.
 */
import { layoutParams, validateModelConfig } from '../../src/model/config.ts';
import { initParams } from '../../src/model/init.ts';

const CFG = { vocabSize: 32, contextLength: 64, nLayers: 2, dModel: 64, nHeads: 4, mlpRatio: 4 };
const cfg = validateModelConfig(CFG);
const layout = layoutParams(cfg);

/** Every pipeline jax-js creates: its WGSL and how often it was dispatched. */
const trace = { shaders: [], pipelines: [], dispatches: [], lost: null, uncaptured: [], t0: performance.now() };
const origRequestDevice = GPUAdapter.prototype.requestDevice;
GPUAdapter.prototype.requestDevice = async function (desc) {
  trace.deviceLimits = desc?.requiredLimits ?? null;
  const dev = await origRequestDevice.call(this, desc);
  dev.lost.then((i) => (trace.lost = { reason: i.reason, message: i.message, afterDispatches: trace.dispatches.length }));
  dev.addEventListener('uncapturederror', (e) => trace.uncaptured.push(String(e.error?.message ?? e.error)));
  const csm = dev.createShaderModule.bind(dev);
  dev.createShaderModule = (d) => {
    const m = csm(d);
    m.__probeId = trace.shaders.length;
    trace.shaders.push(d.code);
    console.log(`probe: shader ${m.__probeId} created at ${Math.round(performance.now() - trace.t0)} ms`);
    return m;
  };
  for (const name of ['createComputePipeline', 'createComputePipelineAsync']) {
    const f = dev[name].bind(dev);
    dev[name] = (d) => {
      const tag = (p) => {
        p.__probeShader = d.compute?.module?.__probeId;
        trace.pipelines.push({ shader: p.__probeShader, entry: d.compute?.entryPoint ?? null });
        console.log(`probe: pipeline of shader ${p.__probeShader} ready at ${Math.round(performance.now() - trace.t0)} ms`);
        return p;
      };
      const r = f(d);
      return r instanceof Promise ? r.then(tag) : tag(r);
    };
  }
  const ce = dev.createCommandEncoder.bind(dev);
  dev.createCommandEncoder = (d) => {
    const enc = ce(d);
    const bcp = enc.beginComputePass.bind(enc);
    enc.beginComputePass = (pd) => {
      const pass = bcp(pd);
      let cur = null;
      const sp = pass.setPipeline.bind(pass);
      pass.setPipeline = (p) => ((cur = p.__probeShader), sp(p));
      const dw = pass.dispatchWorkgroups.bind(pass);
      pass.dispatchWorkgroups = (x, y = 1, z = 1) => (trace.dispatches.push({ shader: cur, grid: [x, y, z] }), dw(x, y, z));
      return pass;
    };
    return enc;
  };
  return dev;
};

/**
 * variant: { part, draw, B, newTokens, jit }: part 'categorical' draws once from fixed logits
 * [B, V] (jitted or op by op), part 'full' runs the bench's KV-cache sampler for newTokens tokens;
 * draw is drawToken's form (scripts/peers/jaxjs-gpt.mjs; default 'categorical').
 */
async function run(v) {
  const jax = await import('@jax-js/jax');
  const { JaxGpt, drawToken, makeKvSampleStep } = await import('./jaxjs-gpt.mjs');
  const devices = await jax.init('webgpu');
  if (!devices.includes('webgpu')) throw new Error(`no webgpu device: ${devices}`);
  jax.defaultDevice('webgpu');
  const { numpy: np, random, tree } = jax;
  const t0 = performance.now();
  let out;
  try {
    if (v.part === 'categorical') {
      const logits = np.array(Float32Array.from({ length: v.B * cfg.vocabSize }, (_, i) => Math.sin(i))).reshape([v.B, cfg.vocabSize]);
      const d = (k, l) => drawToken(k, l, 1, v.draw ?? 'categorical');
      const f = v.jit ? jax.jit(d) : d;
      out = Array.from(await f(random.key(3), logits).data());
    } else {
      const m = new JaxGpt(cfg, layout, initParams(cfg, 1), { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 1 });
      if (v.draw) m.kvStep = makeKvSampleStep(cfg, 1, { draw: v.draw });
      out = await m.sample(v.B, 5, 'kv', { newTokens: v.newTokens });
      out = out.slice(0, 2);
    }
  } catch (e) {
    return { ok: false, error: String(e?.message ?? e), ms: performance.now() - t0, trace: summary() };
  }
  // Give a late device loss time to show.
  await new Promise((r) => setTimeout(r, 500));
  return { ok: trace.lost === null, out, ms: performance.now() - t0, trace: summary() };
}

function summary() {
  const last = trace.dispatches.slice(-3);
  return {
    lost: trace.lost,
    uncaptured: trace.uncaptured,
    shaders: trace.shaders.length,
    pipelines: trace.pipelines.length,
    dispatches: trace.dispatches.length,
    lastDispatches: last,
    lastShaders: [...new Set(last.map((d) => d.shader))].map((i) => ({ id: i, code: trace.shaders[i] })),
    // Shader modules with no pipeline made from them yet: the one being compiled when the GPU process went.
    pendingShaders: trace.shaders.map((code, id) => ({ id, code })).filter((s) => !trace.pipelines.some((p) => p.shader === s.id)),
  };
}

window.probe = { run, trace };
window.probeReady = true;
