/**
 * The WebGPU backend behind the engine interface: a `GpuPolicy` (recorded dispatch plans) with
 * one `PolicyStep` per (loss, batch shape), built on first use and replayed after.
 */
import { matmulGflops, type MatmulVariant } from '../gpu/kernels/matmul';
import type { GpuRuntime } from '../gpu/runtime';
import type { ModelConfig } from './config';
import { AccumulationState, checkBatch } from './engine-checks';
import type { Backend, PolicyEngine, PolicyOptions, UpdateBatch, UpdateLoss, UpdateOptions } from './engine';
import type { GenerateRequest, GenerateResult } from './engine-types';
import { generate, type GpuGenerateOptions } from './generate';
import { chooseVariantByTiming, variantByAdapterKind, type MatmulVariantChoice, type VariantCache, type VariantTiming } from './matmul-choice';
import { GpuPolicy } from './policy';
import { buildPolicyStep, type PolicyStep, type StepStats } from './step';

export class WebGpuPolicyEngine implements PolicyEngine {
  readonly backend = 'webgpu' as const;
  readonly gpu: GpuPolicy;
  private steps = new Map<string, PolicyStep>();
  private accumulation = new AccumulationState();

  constructor(
    readonly rt: GpuRuntime,
    readonly cfg: ModelConfig,
    name: string,
    readonly matmulVariant: MatmulVariant,
  ) {
    this.gpu = new GpuPolicy(rt, cfg, name, matmulVariant);
  }

  get layout() {
    return this.gpu.layout;
  }
  setParams(flat: Float32Array): void {
    this.gpu.setParams(flat);
  }
  getParams(): Promise<Float32Array> {
    return this.gpu.getParams();
  }
  setAdamState(m: Float32Array, v: Float32Array): void {
    this.gpu.setAdamState(m, v);
  }
  getAdamState(): Promise<{ m: Float32Array; v: Float32Array }> {
    return this.gpu.getAdamState();
  }
  resetAdamState(): void {
    this.gpu.resetAdamState();
  }
  /** opts.compact false: decode finished sequences too (the twin the compaction is tested against). */
  generate(req: GenerateRequest, opts: GpuGenerateOptions = {}): Promise<GenerateResult> {
    return generate(this.gpu, req, opts);
  }

  private async step(batch: UpdateBatch, loss: UpdateLoss): Promise<PolicyStep> {
    const useRef = loss.kind === 'grpo' && batch.refLogp !== undefined;
    const key = `${loss.kind}${useRef ? '+ref' : ''}:${batch.rows}x${batch.T}`;
    let s = this.steps.get(key);
    if (!s) {
      s = await buildPolicyStep(this.gpu, batch.rows, batch.T, batch.temperature, loss.kind === 'grpo' ? { kind: 'grpo', opts: loss.opts, useRef } : { kind: 'ce' });
      this.steps.set(key, s);
    }
    s.plan.setTemperature(batch.temperature);
    if (loss.kind === 'grpo') s.setLossOptions(loss.opts);
    return s;
  }

  async update(batch: UpdateBatch, loss: UpdateLoss, o: UpdateOptions): Promise<StepStats> {
    checkBatch(batch);
    const acc = this.accumulation.begin(o);
    const s = await this.step(batch, loss);
    const { rt } = this;
    rt.write(s.plan.tokens, batch.tokens);
    rt.write(s.plan.targets, batch.targets);
    rt.write(s.mask, batch.mask);
    rt.write(s.weights, batch.weights);
    if (batch.advantages) rt.write(s.advantages, batch.advantages);
    if (batch.oldLogp) rt.write(s.oldLogp, batch.oldLogp);
    if (batch.refLogp && loss.kind === 'grpo') rt.write(s.refLogp, batch.refLogp);
    s.run({ step: o.step, adamw: o.adamw, onPolicy: !batch.oldLogp, update: acc.update, zero: acc.zero, finish: acc.finish });
    const stats = await s.readStats();
    this.accumulation.end(stats.loss, acc.finish);
    return stats;
  }

  async forward(tokens: Uint32Array, targets: Uint32Array, rows: number, T: number, temperature: number, lengths?: Uint32Array): Promise<{ logp: Float32Array; entropy: Float32Array }> {
    if (lengths !== undefined) throw new Error('forward: the WebGPU engine takes rows × T, not packed rows (lengths)');
    const plan = await this.gpu.trainPlan(rows, T, temperature);
    const { rt } = this;
    rt.write(plan.tokens, tokens);
    rt.write(plan.targets, targets);
    const enc = rt.device.createCommandEncoder();
    rt.encode(enc, plan.forward);
    rt.device.queue.submit([enc.finish()]);
    const [logp, entropy] = await Promise.all([rt.readF32(plan.logp, 0, rows * T), rt.readF32(plan.entropy, 0, rows * T)]);
    return { logp, entropy };
  }

  destroy(): void {
    this.steps.clear();
  }
}

/**
 * Policies on one WebGPU device. The matmul variants sum in different orders, so each policy is
 * built with one variant for its whole life: the one asked for (a resumed run's recorded variant),
 * else the backend's — `matmulVariant` fixed, or `auto` (default): the fastest on this adapter, timed
 * once per runtime at the first policy's train-step shapes and cached across sessions in `cache`.
 */
export interface WebGpuBackend extends Backend {
  readonly name: 'webgpu';
  readonly rt: GpuRuntime;
  /** How the backend's own variant was settled (after the first policy without a given variant). */
  readonly variantTiming: () => VariantTiming | null;
}

export interface WebGpuBackendOptions {
  /** Default 'auto'. */
  matmulVariant?: MatmulVariantChoice;
  /** Where `auto` keeps its choice per adapter; absent: timed once per runtime, remembered for that runtime only. */
  cache?: VariantCache | null;
}

/** `auto` choices per runtime, so backends opened again on one device (tests, the page's restarts) time once. */
const timedOn = new WeakMap<GpuRuntime, Promise<VariantTiming>>();

export function webgpuBackend(rt: GpuRuntime, o: WebGpuBackendOptions = {}): WebGpuBackend {
  const choice = o.matmulVariant ?? 'auto';
  let settled: VariantTiming | null = choice === 'auto' ? null : { variant: choice, from: 'given' };
  const own = async (cfg: ModelConfig): Promise<MatmulVariant> => {
    if (settled) return settled.variant;
    let p = timedOn.get(rt);
    if (!p) {
      p = chooseVariantByTiming(rt, cfg, o.cache ?? null);
      timedOn.set(rt, p);
      p.catch(() => timedOn.delete(rt));
    }
    settled = await p;
    return settled.variant;
  };
  const variantFor = async (cfg: ModelConfig, opts?: PolicyOptions): Promise<MatmulVariant> => {
    const asked = opts?.matmulVariant;
    if (asked === 'by-adapter-kind') return variantByAdapterKind(rt.adapter);
    return asked ?? own(cfg);
  };
  return {
    name: 'webgpu',
    rt,
    description: `WebGPU on ${rt.adapter.description}`,
    threads: 1,
    variantTiming: () => settled,
    createPolicy: async (cfg, name, opts) => new WebGpuPolicyEngine(rt, cfg, name, await variantFor(cfg, opts)),
    matmulGflops: async (shape, repeats) => matmulGflops(rt, settled?.variant ?? variantByAdapterKind(rt.adapter), shape, repeats),
    limits: () => ({ engine: 'webgpu', maxStorageBufferBindingSize: Number(rt.limits.maxStorageBufferBindingSize), maxBufferSize: Number(rt.limits.maxBufferSize), software: rt.adapter.isSoftware }),
    onLost: (f) => rt.onLost(f),
    destroy: () => rt.destroy(),
  };
}
