/**
 * The WebGPU runtime every kernel goes through: one device, a pipeline cache keyed by
 * (shader file, entry point, override constants), named buffers reused across steps, and
 * "dispatch plans" — pipeline + bind group + workgroup counts built once and replayed every
 * step, so a steady-state training step allocates nothing.
 *
 * Host-neutral: the browser (navigator.gpu) and Node (Dawn via the `webgpu` package) each
 * build a GpuRuntime through ./browser.ts or ./node.ts (opening the device: ./adapter.ts),
 * passing their way of reading shaders/.
 */

import { DeviceLostError, GpuUncapturedError, gpuErrorKind, type DeviceLossInfo, type GpuErrorKind } from './faults';

export { DeviceLostError, GpuUncapturedError, describeLoss, gpuErrorKind, isDeviceFault, type DeviceLossInfo, type GpuErrorKind } from './faults';

/** A byte range of a GPU buffer, as bound to a kernel. */
export interface BufferSlice {
  buffer: GPUBuffer;
  /** Byte offset; must be a multiple of 256 for storage bindings. */
  offset: number;
  /** Byte size. */
  size: number;
}

export type Binding = GPUBuffer | BufferSlice;

/** What identifies a compiled kernel: file in shaders/, entry point, override constants. */
export interface KernelSpec {
  shader: string;
  entry: string;
  constants?: Record<string, number>;
}

/** A recorded kernel launch: replay it any number of times with `run`. */
export interface Dispatch {
  label: string;
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
  workgroups: [number, number, number];
  /** The uniform parameter buffer (binding 0); rewrite it with `GpuRuntime.setParams`. */
  params: GPUBuffer;
}

export interface DispatchArgs {
  kernel: KernelSpec;
  /** Storage bindings by binding number (1, 2, ...). Binding 0 is always the params uniform. */
  bindings: Record<number, Binding>;
  /** Uniform words for binding 0 (u32 each; use f32bits for floats). */
  params: ArrayLike<number>;
  workgroups: number | [number, number?, number?];
  label?: string;
}

/** At most this many uncaptured error messages are kept between two checks (the rest are counted). */
const MAX_PENDING_ERRORS = 8;

/** Raised for a shader/pipeline that does not compile or validate; names the kernel. */
export class KernelError extends Error {
  constructor(kernel: KernelSpec, detail: string) {
    super(`WebGPU kernel ${kernel.shader}:${kernel.entry} failed: ${detail}`);
    this.name = 'KernelError';
  }
}

const f32buf = new Float32Array(1);
const u32view = new Uint32Array(f32buf.buffer);
/** Bit pattern of an f32, for packing floats into u32 uniform words. */
export function f32bits(x: number): number {
  f32buf[0] = x;
  return u32view[0];
}

export const ceilDiv = (a: number, b: number) => Math.ceil(a / b);

export interface AdapterSummary {
  /** Human-readable: vendor, architecture, device, description. */
  description: string;
  vendor: string;
  architecture: string;
  isSoftware: boolean;
  limits: Record<string, number>;
  features: string[];
}

export class GpuRuntime {
  readonly limits: GPUSupportedLimits;
  readonly hasTimestamps: boolean;
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private readonly modules = new Map<string, GPUShaderModule>();
  private readonly named = new Map<string, GPUBuffer>();
  private destroyed = false;

  constructor(
    readonly device: GPUDevice,
    readonly adapter: AdapterSummary,
    private readonly shaderSource: (file: string) => string,
  ) {
    this.limits = device.limits;
    this.hasTimestamps = device.features.has('timestamp-query');
    // Validation errors inside a submitted command buffer are otherwise silent (the whole
    // submission is dropped); collect them and raise them at the next sync/read.
    device.addEventListener('uncapturederror', (ev) => {
      const error = (ev as GPUUncapturedErrorEvent).error;
      const kind = gpuErrorKind(error);
      // The most severe kind seen names the error raised (out of memory / internal before validation).
      if (this.pendingKind === null || this.pendingKind === 'validation' || this.pendingKind === 'unknown') this.pendingKind = kind;
      if (this.pendingErrors.length < MAX_PENDING_ERRORS) this.pendingErrors.push(error.message);
      else this.droppedErrors++;
    });
    // A lost device fails every later command silently and every read with a bare AbortError:
    // record why, tell the listeners once, and raise DeviceLostError from then on. A loss caused
    // by destroy() is not a fault.
    void device.lost.then((info) => {
      if (this.destroyed) return;
      const loss = { reason: String(info.reason ?? 'unknown'), message: String(info.message ?? '') };
      this.lostInfo = loss;
      for (const f of [...this.lostListeners]) f(loss);
    });
  }

  private pendingErrors: string[] = [];
  private pendingKind: GpuErrorKind | null = null;
  private droppedErrors = 0;
  private lostInfo: DeviceLossInfo | null = null;
  private lostListeners = new Set<(info: DeviceLossInfo) => void>();

  /** Why the device was lost, or null while it works (and after destroy()). */
  get lost(): DeviceLossInfo | null {
    return this.lostInfo;
  }

  /** Calls `f` once when the device is lost (not when destroy() ends it); returns the unsubscribe. */
  onLost(f: (info: DeviceLossInfo) => void): () => void {
    this.lostListeners.add(f);
    return () => this.lostListeners.delete(f);
  }

  /** Throws DeviceLostError once the device is lost, else the errors reported since the last check (GpuUncapturedError), if any. */
  checkErrors(): void {
    if (this.lostInfo) throw new DeviceLostError(this.lostInfo);
    if (this.pendingErrors.length) {
      const messages = this.pendingErrors;
      if (this.droppedErrors) messages.push(`… and ${this.droppedErrors} more`);
      const kind = this.pendingKind ?? 'unknown';
      this.pendingErrors = [];
      this.pendingKind = null;
      this.droppedErrors = 0;
      throw new GpuUncapturedError(kind, messages);
    }
  }

  /**
   * A GPU operation failed: when that is because the device was lost (its `lost` promise settles
   * within `waitMs`), a DeviceLostError; otherwise the original error.
   */
  private async lossOr(e: unknown, waitMs = 1000): Promise<unknown> {
    if (this.lostInfo) return new DeviceLostError(this.lostInfo);
    if (this.destroyed) return e;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.device.lost, new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
    // device.lost's own handler (registered first) has run by now when it settled.
    await Promise.resolve();
    return this.lostInfo ? new DeviceLostError(this.lostInfo) : e;
  }

  private module(file: string): GPUShaderModule {
    let m = this.modules.get(file);
    if (!m) {
      m = this.device.createShaderModule({ label: file, code: this.shaderSource(file) });
      this.modules.set(file, m);
    }
    return m;
  }

  /** Compiled pipeline for a kernel, cached by shader + entry + constants. */
  pipeline(kernel: KernelSpec): Promise<GPUComputePipeline> {
    const constants = kernel.constants ?? {};
    const key = `${kernel.shader}:${kernel.entry}:${Object.keys(constants)
      .sort()
      .map((k) => `${k}=${constants[k]}`)
      .join(',')}`;
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.compile(kernel, key);
      this.pipelines.set(key, p);
    }
    return p;
  }

  /** One compilation-info query per shader file: Chromium (seen with 156 on SwiftShader) never resolves a second one on the same module. */
  private compileInfo = new Map<string, Promise<GPUCompilationInfo>>();

  private async compile(kernel: KernelSpec, key: string): Promise<GPUComputePipeline> {
    const module = this.module(kernel.shader);
    let infoP = this.compileInfo.get(kernel.shader);
    if (!infoP) {
      infoP = module.getCompilationInfo();
      this.compileInfo.set(kernel.shader, infoP);
    }
    const info = await infoP;
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length) {
      throw new KernelError(kernel, errors.map((m) => `line ${m.lineNum}:${m.linePos} ${m.message}`).join('; '));
    }
    this.device.pushErrorScope('validation');
    try {
      const pipeline = await this.device.createComputePipelineAsync({
        label: key,
        layout: 'auto',
        compute: { module, entryPoint: kernel.entry, constants: kernel.constants },
      });
      const err = await this.device.popErrorScope();
      // A lost device hands out invalid pipelines without an error: one built then is of no use.
      if (this.lostInfo) throw new DeviceLostError(this.lostInfo);
      if (err) throw new KernelError(kernel, err.message);
      return pipeline;
    } catch (e) {
      this.pipelines.delete(key);
      if (this.lostInfo) throw new DeviceLostError(this.lostInfo);
      if (e instanceof KernelError) throw e;
      const lost = await this.lossOr(e, 50);
      if (lost instanceof DeviceLostError) throw lost;
      throw new KernelError(kernel, e instanceof Error ? e.message : String(e));
    }
  }

  /**
   * A named storage buffer, created once and reused: asking again with the same name and a
   * size that fits returns the same buffer, so plans rebuilt for a new shape don't leak.
   */
  buffer(name: string, bytes: number, extraUsage = 0): GPUBuffer {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST | extraUsage;
    const old = this.named.get(name);
    if (old && old.size >= size && (old.usage & usage) === usage) return old;
    old?.destroy();
    if (size > this.limits.maxBufferSize) {
      throw new Error(`buffer "${name}" needs ${size} bytes, more than this adapter's maxBufferSize ${this.limits.maxBufferSize}`);
    }
    const buf = this.device.createBuffer({ label: name, size, usage });
    this.named.set(name, buf);
    return buf;
  }

  /** Total bytes held in named buffers (for memory reporting). */
  get bufferBytes(): number {
    let n = 0;
    for (const b of this.named.values()) n += b.size;
    return n;
  }

  /** Records a kernel launch (pipeline, uniforms, bind group) for replay. */
  async dispatch(args: DispatchArgs): Promise<Dispatch> {
    if (this.lostInfo) throw new DeviceLostError(this.lostInfo);
    const pipeline = await this.pipeline(args.kernel);
    const words = new Uint32Array(Math.max(4, Math.ceil(args.params.length / 4) * 4));
    words.set(Array.from(args.params));
    const params = this.device.createBuffer({
      label: `${args.kernel.entry}.params`,
      size: words.byteLength,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.device.queue.writeBuffer(params, 0, words);
    const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: params } }];
    for (const [k, b] of Object.entries(args.bindings)) {
      const resource = 'buffer' in b ? { buffer: b.buffer, offset: b.offset, size: b.size } : { buffer: b };
      entries.push({ binding: Number(k), resource });
    }
    const label = args.label ?? `${args.kernel.shader}:${args.kernel.entry}`;
    this.device.pushErrorScope('validation');
    const bindGroup = this.device.createBindGroup({ label, layout: pipeline.getBindGroupLayout(0), entries });
    const err = await this.device.popErrorScope();
    if (err) throw new KernelError(args.kernel, `bind group: ${err.message}`);
    const wg = typeof args.workgroups === 'number' ? [args.workgroups] : args.workgroups;
    const workgroups: [number, number, number] = [wg[0] ?? 1, wg[1] ?? 1, wg[2] ?? 1];
    const max = this.limits.maxComputeWorkgroupsPerDimension;
    if (workgroups.some((w) => w > max)) {
      throw new KernelError(args.kernel, `workgroup count ${workgroups.join('x')} exceeds this adapter's limit ${max} per dimension`);
    }
    return { label, pipeline, bindGroup, workgroups, params };
  }

  /** Rewrites a dispatch's uniform words (e.g. AdamW's step count), without reallocating. */
  setParams(d: Dispatch, words: ArrayLike<number>): void {
    const w = new Uint32Array(Math.ceil(words.length / 4) * 4);
    w.set(Array.from(words));
    this.device.queue.writeBuffer(d.params, 0, w);
  }

  /** Encodes dispatches into one compute pass (dispatches run in order; each sees the previous one's writes). */
  encode(encoder: GPUCommandEncoder, dispatches: readonly Dispatch[], timestampWrites?: GPUComputePassTimestampWrites): void {
    const pass = encoder.beginComputePass(timestampWrites ? { timestampWrites } : undefined);
    for (const d of dispatches) {
      if (d.workgroups[0] === 0 || d.workgroups[1] === 0 || d.workgroups[2] === 0) continue;
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      pass.dispatchWorkgroups(d.workgroups[0], d.workgroups[1], d.workgroups[2]);
    }
    pass.end();
  }

  /** Submits dispatches as one command buffer. */
  run(dispatches: readonly Dispatch[]): void {
    const enc = this.device.createCommandEncoder();
    this.encode(enc, dispatches);
    this.device.queue.submit([enc.finish()]);
  }

  /** Waits until the queue is idle (for timing and tests). */
  async sync(): Promise<void> {
    try {
      await this.device.queue.onSubmittedWorkDone();
    } catch (e) {
      throw await this.lossOr(e);
    }
    this.checkErrors();
  }

  write(target: Binding, data: ArrayBufferView, byteOffset = 0): void {
    const buf = 'buffer' in target ? target.buffer : target;
    const off = ('buffer' in target ? target.offset : 0) + byteOffset;
    this.device.queue.writeBuffer(buf, off, data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
  }

  /** Idle MAP_READ staging buffers by size, reused so steady-state readbacks allocate nothing. */
  private staging = new Map<number, GPUBuffer[]>();

  /** Copies a buffer range back to the CPU (one mapAsync: keep these out of inner loops). */
  async readBytes(source: Binding, byteOffset = 0, byteLength?: number): Promise<ArrayBuffer> {
    const buf = 'buffer' in source ? source.buffer : source;
    const base = ('buffer' in source ? source.offset : 0) + byteOffset;
    const len = byteLength ?? ('buffer' in source ? source.size : source.size) - byteOffset;
    // Power-of-two sizes so a handful of staging buffers serve every readback.
    const size = Math.max(16, 2 ** Math.ceil(Math.log2(Math.ceil(len / 4) * 4)));
    if (this.lostInfo) throw new DeviceLostError(this.lostInfo);
    const staging = this.staging.get(size)?.pop() ?? this.device.createBuffer({ label: `staging${size}`, size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(buf, base, staging, 0, Math.ceil(len / 4) * 4);
    this.device.queue.submit([enc.finish()]);
    try {
      await staging.mapAsync(GPUMapMode.READ, 0, Math.ceil(len / 4) * 4);
    } catch (e) {
      // A lost device rejects mapAsync with a bare AbortError ("Failed to execute 'mapAsync'…"): say what happened.
      throw await this.lossOr(e);
    }
    const out = staging.getMappedRange(0, Math.ceil(len / 4) * 4).slice(0, len);
    staging.unmap();
    const idle = this.staging.get(size) ?? [];
    idle.push(staging);
    this.staging.set(size, idle);
    this.checkErrors();
    return out;
  }

  async readF32(source: Binding, offsetFloats = 0, count?: number): Promise<Float32Array> {
    return new Float32Array(await this.readBytes(source, offsetFloats * 4, count === undefined ? undefined : count * 4));
  }

  async readU32(source: Binding, offsetWords = 0, count?: number): Promise<Uint32Array> {
    return new Uint32Array(await this.readBytes(source, offsetWords * 4, count === undefined ? undefined : count * 4));
  }

  /**
   * Times dispatches: GPU timestamps when the adapter has them (one pass per repetition),
   * else wall clock around submit + onSubmittedWorkDone. Returns milliseconds per repetition.
   */
  async time(dispatches: readonly Dispatch[], repeats: number): Promise<number[]> {
    const out: number[] = [];
    if (this.hasTimestamps) {
      const qs = this.device.createQuerySet({ type: 'timestamp', count: 2 * repeats });
      const resolve = this.device.createBuffer({ size: 16 * repeats, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const enc = this.device.createCommandEncoder();
      for (let r = 0; r < repeats; r++) {
        this.encode(enc, dispatches, { querySet: qs, beginningOfPassWriteIndex: 2 * r, endOfPassWriteIndex: 2 * r + 1 });
      }
      enc.resolveQuerySet(qs, 0, 2 * repeats, resolve, 0);
      this.device.queue.submit([enc.finish()]);
      const ticks = new BigUint64Array(await this.readBytes(resolve, 0, 16 * repeats));
      for (let r = 0; r < repeats; r++) out.push(Number(ticks[2 * r + 1] - ticks[2 * r]) / 1e6);
      qs.destroy();
      resolve.destroy();
      // Some adapters quantise or zero timestamps; fall back to wall clock if they are useless.
      if (out.every((t) => t > 0)) return out;
      out.length = 0;
    }
    for (let r = 0; r < repeats; r++) {
      const t0 = performance.now();
      this.run(dispatches);
      await this.sync();
      out.push(performance.now() - t0);
    }
    return out;
  }

  /** The WGSL text of a file in shaders/ (for a kernel version key: src/model/matmul-choice.ts). */
  shaderText(file: string): string {
    return this.shaderSource(file);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const b of this.named.values()) b.destroy();
    this.named.clear();
    for (const list of this.staging.values()) for (const b of list) b.destroy();
    this.staging.clear();
    this.device.destroy();
  }
}
