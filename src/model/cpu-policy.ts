/**
 * The policy on the CPU engine (WebAssembly SIMD kernels of src/cpu/, threads sharing one
 * memory): the same math and the same request/result semantics as the WebGPU policy
 * (src/model/policy.ts + step.ts + generate.ts + gpu-engine.ts), recorded as interpreter programs
 * once per shape and replayed. Split like the WebGPU side:
 *
 *   cpu/memory.ts    the memory layout: flat arrays, option blocks, scratch, Wᵀ, training buffers
 *   cpu/train.ts     the update and forward programs
 *   cpu/generate.ts  the decode step and the generation loop
 *   cpu/bench.ts     the matmul benchmark
 *   this file        CpuPolicy (the PolicyEngine) and wasmBackend (the Backend)
 *
 * Linear layers keep the llm.c convention (W [out, in], y = x·Wᵀ + b).
 */
import { writeAdamW, writeGrpoOptions } from '../cpu/blocks';
import { CpuRuntime, type CpuRuntimeOptions } from '../cpu/runtime';
import type { ModelConfig, ParamLayout } from './config';
import type { Backend, PolicyEngine, UpdateBatch, UpdateLoss, UpdateOptions } from './engine';
import { AccumulationState, checkBatch, checkLengths } from './engine-checks';
import type { GenerateRequest, GenerateResult } from './engine-types';
import { decodeStats, STATS, STATS_FLOATS, type StepStats } from './step';
import { cpuMatmulGflops } from './cpu/bench';
import { decodePlan, generateOnCpu, type CpuGenerateOptions, type DecodePlan } from './cpu/generate';
import { CpuPolicyMemory, type TrainPlan } from './cpu/memory';
import { forwardProgram, planTokens, rowTable, updateProgram } from './cpu/train';

/**
 * Training shapes kept with their recorded programs (least recently used dropped first): a shape's
 * buffers lie in the shared arena, so only its programs (tens of KiB each) take memory, and this
 * bounds them. A packed batch (PolicyEngine.packedRows) lays out over its [rows × longest] shape
 * but records its own programs and frees them after its call.
 */
export const TRAIN_PLAN_CACHE = 16;

export class CpuPolicy implements PolicyEngine {
  readonly backend = 'wasm' as const;
  readonly packedRows = true;
  readonly layout: ParamLayout;
  private readonly mem: CpuPolicyMemory;
  private trainPlans = new Map<string, TrainPlan>();
  private decodePlans = new Map<number, DecodePlan>();
  private accumulation = new AccumulationState();
  private destroyed = false;

  constructor(
    readonly rt: CpuRuntime,
    readonly cfg: ModelConfig,
    readonly name = 'policy',
  ) {
    this.mem = new CpuPolicyMemory(rt, cfg);
    this.layout = this.mem.layout;
  }

  private check(): void {
    if (this.destroyed) throw new Error(`policy ${this.name}: destroyed`);
  }

  // ---- state -------------------------------------------------------------------------------

  setParams(flat: Float32Array): void {
    this.check();
    if (flat.length !== this.layout.totalFloats) throw new Error(`parameters: expected ${this.layout.totalFloats} floats, got ${flat.length}`);
    this.rt.f32(this.mem.params, flat.length).set(flat);
  }
  async getParams(): Promise<Float32Array> {
    this.check();
    return this.rt.f32(this.mem.params, this.layout.totalFloats).slice();
  }
  setAdamState(m: Float32Array, v: Float32Array): void {
    this.check();
    const n = this.layout.totalFloats;
    if (m.length !== n || v.length !== n) throw new Error(`AdamW state: expected ${n} floats each, got ${m.length} and ${v.length}`);
    this.rt.f32(this.mem.adamM, n).set(m);
    this.rt.f32(this.mem.adamV, n).set(v);
  }
  async getAdamState(): Promise<{ m: Float32Array; v: Float32Array }> {
    this.check();
    const n = this.layout.totalFloats;
    return { m: this.rt.f32(this.mem.adamM, n).slice(), v: this.rt.f32(this.mem.adamV, n).slice() };
  }
  resetAdamState(): void {
    this.check();
    const n = this.layout.totalFloats;
    this.rt.f32(this.mem.adamM, n).fill(0);
    this.rt.f32(this.mem.adamV, n).fill(0);
  }
  /** Gradients of the last update (for tests and inspection). */
  getGrads(): Float32Array {
    return this.rt.f32(this.mem.grads, this.layout.totalFloats).slice();
  }

  // ---- training ----------------------------------------------------------------------------

  /** The plan of shape [B × T]: cached with its recorded programs, its buffers in the shared training arena. */
  private trainPlan(B: number, T: number): TrainPlan {
    const key = `${B}x${T}`;
    let plan = this.trainPlans.get(key);
    if (plan) {
      // Most recently used last (a Map iterates in insertion order).
      this.trainPlans.delete(key);
    } else {
      this.reserveTrain(B, T);
      plan = this.mem.trainPlan(B, T, this.mem.arenaOffset);
      if (this.trainPlans.size >= TRAIN_PLAN_CACHE) {
        const [oldest, dropped] = this.trainPlans.entries().next().value!;
        this.dropPlan(dropped);
        this.trainPlans.delete(oldest);
      }
    }
    this.trainPlans.set(key, plan);
    return plan;
  }

  /** Frees a plan's recorded programs (its buffers are the arena's). */
  private dropPlan(plan: TrainPlan): void {
    for (const p of plan.programs.values()) this.mem.disown(p.ptr, p.count * 64);
  }

  /** Training plans recorded now (tests: the cache stays bounded). */
  get trainPlanCount(): number {
    return this.trainPlans.size;
  }

  /**
   * Sizes the training arena for shape [rows × T] up front (the trainer passes its run's largest),
   * so that smaller shapes never grow it: memory is the largest shape's, allocated once.
   */
  reserveTrain(rows: number, T: number): void {
    this.check();
    const need = this.mem.trainPlan(rows, T).bytes;
    if (!this.mem.ensureArena(need)) return;
    // The arena moved: the cached plans point into the old one.
    for (const plan of this.trainPlans.values()) this.dropPlan(plan);
    this.trainPlans.clear();
  }

  private writeTokens(ptr: number, tokens: Uint32Array, what: string): void {
    const V = this.cfg.vocabSize;
    for (let i = 0; i < tokens.length; i++) if (tokens[i] >= V) throw new Error(`${what}[${i}] = ${tokens[i]} is not a token id in [0, ${V})`);
    this.rt.u32(ptr, tokens.length).set(tokens);
  }

  private setTemperature(t: number): void {
    if (!(t > 0) || !Number.isFinite(t)) throw new Error(`temperature must be a positive finite number, got ${t}`);
    this.rt.f32(this.mem.temperature, 1)[0] = t;
  }

  /**
   * The plan of a batch: its shape's, or for packed rows a one-off copy laid over the same buffers
   * (programs recorded for these lengths only; `done` frees them).
   */
  private batchPlan(rows: number, T: number, lengths: Uint32Array | undefined): { s: TrainPlan; N: number; done: () => void } {
    const shape = this.trainPlan(rows, T);
    if (!lengths) return { s: shape, N: rows * T, done: () => {} };
    const segments = Array.from(lengths);
    const table = rowTable(segments, this.cfg.nHeads);
    const tableBytes = table.byteLength;
    const s: TrainPlan = { ...shape, segments, rowTable: this.mem.bytes(tableBytes), programs: new Map() };
    new Int32Array(this.rt.memory.buffer, s.rowTable, table.length).set(table);
    return {
      s,
      N: planTokens(s),
      done: () => {
        this.dropPlan(s);
        this.mem.disown(s.rowTable!, tableBytes);
      },
    };
  }

  async update(batch: UpdateBatch, loss: UpdateLoss, o: UpdateOptions): Promise<StepStats> {
    this.check();
    checkBatch(batch, true);
    const acc = this.accumulation.begin(o);
    const { update } = acc;
    const { s, N, done } = this.batchPlan(batch.rows, batch.T, batch.lengths);
    const useRef = loss.kind === 'grpo' && batch.refLogp !== undefined;
    if (loss.kind === 'grpo' && !batch.advantages) throw new Error('update batch: the GRPO loss needs advantages');
    const { rt } = this;
    this.setTemperature(batch.temperature);
    this.writeTokens(s.tokens, batch.tokens, 'tokens');
    rt.u32(s.targets, N).set(batch.targets);
    rt.f32(s.mask, N).set(batch.mask);
    rt.f32(s.weights, N).set(batch.weights);
    if (loss.kind === 'grpo') {
      rt.f32(s.advantages, N).set(batch.advantages!);
      if (batch.oldLogp) rt.f32(s.oldLogp, N).set(batch.oldLogp);
      if (useRef) rt.f32(s.refLogp, N).set(batch.refLogp!);
      writeGrpoOptions(rt, this.mem.grpoOpts, loss.opts);
    }
    if (update) writeAdamW(rt, this.mem.hyper, o.step, o.adamw);
    try {
      rt.run(updateProgram(this.mem, s, loss, useRef, !batch.oldLogp, update, acc));
    } finally {
      done();
    }
    const stats = new Float32Array(STATS_FLOATS);
    stats.set(rt.f32(this.mem.stats, 8));
    stats[STATS.gradNorm] = rt.f32(this.mem.norm, 1)[0];
    const out = decodeStats(stats, update, acc.finish);
    this.accumulation.end(out.loss, acc.finish);
    return out;
  }

  async forward(tokens: Uint32Array, targets: Uint32Array, rows: number, T: number, temperature: number, lengths?: Uint32Array): Promise<{ logp: Float32Array; entropy: Float32Array }> {
    this.check();
    if (lengths) checkLengths(lengths, rows, T);
    const { s, N, done } = this.batchPlan(rows, T, lengths);
    if (tokens.length !== N || targets.length !== N) {
      done();
      throw new Error(`forward: tokens and targets need ${lengths ? 'Σ lengths' : 'rows × T'} = ${N} entries, got ${tokens.length} and ${targets.length}`);
    }
    try {
      this.setTemperature(temperature);
      this.writeTokens(s.tokens, tokens, 'tokens');
      this.rt.u32(s.targets, N).set(targets);
      this.rt.run(forwardProgram(this.mem, s));
    } finally {
      done();
    }
    return { logp: this.rt.f32(s.logp, N).slice(), entropy: this.rt.f32(s.entropy, N).slice() };
  }

  /** Logits [rows·T × V] of the last forward or update, when it had this shape and was not packed (tests and inspection; shapes share the arena). */
  lastLogits(rows: number, T: number): Float32Array {
    const s = this.trainPlan(rows, T);
    return this.rt.f32(s.logits, rows * T * this.cfg.vocabSize).slice();
  }

  // ---- decoding ----------------------------------------------------------------------------

  /** opts.compact false: decode finished sequences too (the twin the compaction is tested against). */
  async generate(req: GenerateRequest, opts: CpuGenerateOptions = {}): Promise<GenerateResult> {
    this.check();
    return generateOnCpu(this.mem, req, (B) => {
      let plan = this.decodePlans.get(B);
      if (!plan) {
        plan = decodePlan(this.mem, B);
        this.decodePlans.set(B, plan);
      }
      return plan;
    }, opts);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.mem.release();
    this.trainPlans.clear();
    this.decodePlans.clear();
  }
}

export interface WasmBackend extends Backend {
  readonly name: 'wasm';
  readonly rt: CpuRuntime;
}

/**
 * The CPU engine. threads: default every core (os.availableParallelism() in Node,
 * navigator.hardwareConcurrency in a browser), 1 where SharedArrayBuffer is unusable.
 * build: force the single-threaded module (tests).
 */
export async function wasmBackend(opts: { threads?: number; build?: CpuRuntimeOptions['build'] } = {}): Promise<WasmBackend> {
  const rt = await CpuRuntime.create(opts);
  return {
    name: 'wasm',
    rt,
    description: `CPU engine (WebAssembly SIMD, ${rt.threads} thread${rt.threads === 1 ? '' : 's'})`,
    threads: rt.threads,
    createPolicy: async (cfg, name) => new CpuPolicy(rt, cfg, name),
    matmulGflops: async (shape, repeats) => cpuMatmulGflops(rt, shape, repeats),
    limits: () => ({ engine: 'wasm', memoryBytes: rt.memoryLimitBytes, threads: rt.threads }),
    destroy: () => rt.destroy(),
  };
}
