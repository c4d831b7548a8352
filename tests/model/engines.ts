/**
 * The engine suite's fixture (tests/model/policy.test.ts, tests/cpu/policy.test.ts): both engines
 * behind PolicyEngine, the models and options every case uses, and one random setup whose float64
 * reference inputs are exactly the f32 values the engines see.
 */
import { afterAll } from 'vitest';
import { layoutParams, validateModelConfig, type ModelConfig } from '../../src/model/config';
import { CpuPolicy, wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import type { Backend, BackendName, PolicyEngine, UpdateBatch } from '../../src/model/engine';
import { webgpuBackend, type WebGpuPolicyEngine } from '../../src/model/gpu-engine';
import { initParams } from '../../src/model/init';
import { nextTokenTargets, referenceForward, type PolicyLossInputs } from '../../src/model/reference/model';
import { logSoftmaxEntropyForward, type GrpoLossOptions } from '../../src/model/reference/ops';
import { Rng } from '../../src/util/rng';

export const CASES: { name: string; cfg: ModelConfig }[] = [
  { name: 'rmsnorm, tied', cfg: validateModelConfig({ vocabSize: 11, contextLength: 9, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true }) },
  { name: 'layernorm, untied', cfg: validateModelConfig({ vocabSize: 13, contextLength: 8, nLayers: 2, dModel: 8, nHeads: 2, mlpRatio: 3, norm: 'layernorm', tiedEmbeddings: false }) },
];
export const B = 3;
export const T = 7;
export const TEMP = 0.8;
export const LOSS: GrpoLossOptions = { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.05, klCoef: 0.1, klType: 'k3' };
// eps 1e-6, not 1e-8: Adam divides by |g|, so f32 round-off (~1e-9) on a gradient that is exactly
// zero in float64 (the attention key bias is softmax-invariant) would otherwise become a full step.
export const ADAMW = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-6, weightDecay: 0.1, maxGradNorm: 1 };

/** An engine under test, with what the interface does not show: the last gradients and logits. */
export interface EngineUnderTest {
  name: BackendName;
  backend(): Promise<Backend>;
  grads(p: PolicyEngine): Promise<Float32Array>;
  /** Logits [rows·T × V] of the last update or forward of that shape. */
  logits(p: PolicyEngine, rows: number, T: number, temperature: number): Promise<Float32Array>;
}

const cpuBackends = new Map<string, Promise<WasmBackend>>();
/** A CPU engine per (threads, build), shared by a test file and closed after it. */
export function cpuBackend(threads = 2, build?: 'single'): Promise<WasmBackend> {
  const key = `${threads}${build ?? ''}`;
  let b = cpuBackends.get(key);
  if (!b) {
    if (cpuBackends.size === 0) {
      afterAll(async () => {
        for (const x of cpuBackends.values()) (await x).destroy();
        cpuBackends.clear();
      });
    }
    b = wasmBackend({ threads, build });
    cpuBackends.set(key, b);
  }
  return b;
}

let webgpu: Promise<Backend> | null = null;

export const ENGINES: EngineUnderTest[] = [
  {
    name: 'wasm',
    backend: () => cpuBackend(),
    grads: async (p) => (p as CpuPolicy).getGrads(),
    logits: async (p, rows, t) => (p as CpuPolicy).lastLogits(rows, t),
  },
  {
    name: 'webgpu',
    // The GPU harness's runtime (destroyed after the file, so the backend itself never is), loaded
    // on first use: a file that tests the CPU engine alone never loads Dawn.
    backend: () => (webgpu ??= import('../gpu/harness').then((h) => h.gpu()).then(webgpuBackend)),
    grads: (p) => {
      const { gpu: g } = p as WebGpuPolicyEngine;
      return g.rt.readF32(g.grads, 0, g.layout.totalFloats);
    },
    logits: async (p, rows, t, temperature) => {
      const { gpu: g, cfg } = p as WebGpuPolicyEngine;
      return g.rt.readF32((await g.trainPlan(rows, t, temperature)).logits, 0, rows * t * cfg.vocabSize);
    },
  },
];

let policies = 0;
/** A fresh policy holding `p32` and zero AdamW moments (a name of its own: WebGPU buffers are named per policy). */
export async function policyOn(backend: Backend, cfg: ModelConfig, p32: Float32Array): Promise<PolicyEngine> {
  const pol = await backend.createPolicy(cfg, `test${++policies}`);
  pol.setParams(p32);
  pol.resetAdamState();
  return pol;
}

export function randomSetup(cfg: ModelConfig, seed: number) {
  const rng = new Rng(seed);
  const layout = layoutParams(cfg);
  const p32 = initParams(cfg, seed);
  // Larger-than-init weights so every path (attention shape, norms, clipping) matters.
  for (const t of layout.tensors) for (let i = 0; i < t.size; i++) p32[t.offset + i] += 0.2 * rng.normal();
  const tokens = Int32Array.from({ length: B * T }, () => rng.int(0, cfg.vocabSize - 1));
  const targets = nextTokenTargets(tokens, B, T);
  const params = Float64Array.from(p32);
  const { logits } = referenceForward(cfg, params, tokens, B, T);
  const { logp } = logSoftmaxEntropyForward(logits, targets, B * T, cfg.vocabSize, TEMP);
  const mask = new Float64Array(B * T);
  const advantages = new Float64Array(B * T);
  for (let b = 0; b < B; b++) {
    const a = rng.normal();
    for (let t = 2; t < T - 1; t++) {
      mask[b * T + t] = 1;
      advantages[b * T + t] = a;
    }
  }
  const count = mask.reduce((s, x) => s + x, 0);
  // The reference reads the f32 values the engines are given.
  const inputs: PolicyLossInputs = {
    oldLogp: Float64Array.from(Float32Array.from(logp.map((x) => x + 0.3 * rng.normal()))),
    refLogp: Float64Array.from(Float32Array.from(logp.map((x) => x + 0.3 * rng.normal()))),
    advantages: Float64Array.from(Float32Array.from(advantages)),
    weights: Float64Array.from(Float32Array.from(mask.map((m) => m / count))),
    mask,
  };
  const batch: UpdateBatch = {
    rows: B,
    T,
    temperature: TEMP,
    tokens: Uint32Array.from(tokens),
    targets: Uint32Array.from(targets),
    mask: Float32Array.from(mask),
    weights: Float32Array.from(inputs.weights),
    advantages: Float32Array.from(inputs.advantages),
    oldLogp: Float32Array.from(inputs.oldLogp),
    refLogp: Float32Array.from(inputs.refLogp!),
  };
  return { p32, params, tokens, targets, inputs, batch };
}

/** Three updates (off-policy with KL, on-policy, CE) then a generation; returns everything produced. */
export async function updateAndGenerate(backend: Backend, cfg: ModelConfig, seed: number) {
  const s = randomSetup(cfg, seed);
  const pol = await policyOn(backend, cfg, s.p32);
  const stats = [
    await pol.update(s.batch, { kind: 'grpo', opts: LOSS }, { step: 1, adamw: ADAMW }),
    await pol.update({ ...s.batch, oldLogp: undefined }, { kind: 'grpo', opts: { ...LOSS, klType: 'low_var_kl' } }, { step: 2, adamw: ADAMW }),
    await pol.update({ ...s.batch, advantages: undefined }, { kind: 'ce' }, { step: 3, adamw: ADAMW }),
  ];
  const gen = await pol.generate({ prompts: [[1, 4, 5], [1], [1, 7, 3], [1, 6], [1, 2]], maxResponseLength: 6, temperature: 1, topP: 0.9, seed, eosId: 2, padId: 0 });
  const params = await pol.getParams();
  const adam = await pol.getAdamState();
  pol.destroy();
  return { stats, gen, params: Array.from(params), m: Array.from(adam.m), v: Array.from(adam.v) };
}
