/**
 * The CPU engine's runtime: the compiled kernel module (src/cpu/kernels.wasm.ts), one linear
 * memory with an allocator for parameters and activations, and a pool of threads sharing that
 * memory (worker_threads in Node, Web Workers in a browser) that replay recorded programs
 * (src/cpu/program.ts). Where SharedArrayBuffer is unusable (a page without cross-origin
 * isolation) it runs the single-threaded build on a plain memory.
 *
 * Determinism: every command splits its work into fixed units (rows, heads, column groups, fixed
 * chunks) and every output element is reduced in a fixed order inside one unit, so results are
 * bit-identical for any thread count.
 */
import { INITIAL_PAGES, KERNELS_SINGLE, KERNELS_THREADS, MAXIMUM_PAGES } from './kernels.wasm';
import { COMMAND_WORDS, OP } from './ops';

const PAGE = 65536;
/** Allocations are aligned to (and sized in multiples of) a cache line. */
const ALIGN = 64;
/** Bytes below this belong to the module's static data (math tables) and the thread control block. */
const HEAP_BASE = INITIAL_PAGES * PAGE;
/** Thread control block: barrier count, barrier generation, job generation, program, count, threads, quit, failed. */
const CTL = HEAP_BASE - 64;

type KernelFn = (...args: number[]) => void;
export interface KernelExports {
  run(prog: number, count: number, tid: number, nt: number, ctl: number, canWait: number): void;
  workerLoop(ctl: number, tid: number, seen0: number): void;
  [name: string]: unknown;
}

let compiled: { threads?: Promise<WebAssembly.Module>; single?: Promise<WebAssembly.Module> } = {};

function decodeBase64(s: string): Uint8Array {
  if (typeof Buffer !== 'undefined') return new Uint8Array(Buffer.from(s, 'base64'));
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The compiled module of one build (compiled once per process). */
export function kernelModule(kind: 'threads' | 'single'): Promise<WebAssembly.Module> {
  let m = compiled[kind];
  if (!m) {
    const bytes = decodeBase64(kind === 'threads' ? KERNELS_THREADS : KERNELS_SINGLE);
    m = WebAssembly.compile(bytes as BufferSource);
    compiled = { ...compiled, [kind]: m };
  }
  return m;
}

const isNode = typeof process !== 'undefined' && typeof process.versions === 'object' && !!process.versions.node && typeof window === 'undefined';

/** Whether this context can share memory between threads (SharedArrayBuffer + isolation in a browser). */
export function sharedMemoryUsable(): boolean {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') return false;
  if (!isNode && typeof globalThis.crossOriginIsolated === 'boolean' && !globalThis.crossOriginIsolated) return false;
  try {
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    return true;
  } catch {
    return false;
  }
}

/** Cores available to this process or page. */
export async function availableCores(): Promise<number> {
  if (isNode) {
    const os = await import(/* @vite-ignore */ 'node:' + 'os');
    return Math.max(1, (os as typeof import('node:os')).availableParallelism?.() ?? (os as typeof import('node:os')).cpus().length);
  }
  return Math.max(1, typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1);
}

/** Whether this thread may block in Atomics.wait (not a browser's main thread). */
function canBlock(): boolean {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

// A pool thread: instantiate the module on the shared memory, report ready, then serve programs
// until the quit word is set (src/cpu/assembly/index.ts workerLoop).
// A trap marks the control block failed and releases every barrier (word 7, then a generation
// bump and a wake-up), so no thread waits forever for it.
const SERVE = `function serve(inst, memory, ctl, tid, gen) {
  try {
    inst.exports.workerLoop(ctl, tid, gen);
  } catch (e) {
    const w = new Int32Array(memory.buffer, ctl, 16);
    Atomics.store(w, 7, 1);
    Atomics.add(w, 1, 1);
    Atomics.notify(w, 1);
    throw e;
  }
}`;
const NODE_WORKER = `const { parentPort, workerData } = require('node:worker_threads');
${SERVE}
const { module, memory, ctl, tid, gen } = workerData;
const inst = new WebAssembly.Instance(module, { env: { memory } });
parentPort.postMessage('ready');
serve(inst, memory, ctl, tid, gen);`;
const WEB_WORKER = `${SERVE}
self.onmessage = (e) => {
  const { module, memory, ctl, tid, gen } = e.data;
  const inst = new WebAssembly.Instance(module, { env: { memory } });
  self.postMessage('ready');
  serve(inst, memory, ctl, tid, gen);
  self.close();
};`;

interface PoolThread {
  terminate(): void;
}

async function startThread(module: WebAssembly.Module, memory: WebAssembly.Memory, tid: number): Promise<PoolThread> {
  // gen: the job generation now; the thread serves every job posted after it (even one posted
  // before its loop starts).
  const gen = Atomics.load(new Int32Array(memory.buffer, CTL, 16), 2);
  const data = { module, memory, ctl: CTL, tid, gen };
  if (isNode) {
    const wt = (await import(/* @vite-ignore */ 'node:' + 'worker_threads')) as typeof import('node:worker_threads');
    const w = new wt.Worker(NODE_WORKER, { eval: true, workerData: data });
    w.unref();
    await new Promise<void>((resolve, reject) => {
      w.once('message', () => resolve());
      w.once('error', reject);
    });
    return { terminate: () => void w.terminate() };
  }
  const url = URL.createObjectURL(new Blob([WEB_WORKER], { type: 'text/javascript' }));
  const w = new Worker(url);
  URL.revokeObjectURL(url);
  await new Promise<void>((resolve, reject) => {
    w.onmessage = () => resolve();
    w.onerror = (e) => reject(new Error(`CPU engine thread failed to start: ${e.message}`));
    w.postMessage(data);
  });
  return { terminate: () => w.terminate() };
}

/** A recorded program in the runtime's memory. */
export interface Program {
  ptr: number;
  count: number;
}

export interface CpuRuntimeOptions {
  /** Threads (default: every core; 1 where shared memory is unusable). */
  threads?: number;
  /** Force the build: 'single' runs the single-threaded module on a plain memory (threads must be 1). */
  build?: 'threads' | 'single';
}

export class CpuRuntime {
  private free: { off: number; size: number }[] = [];
  private top = HEAP_BASE;
  private pool: PoolThread[] = [];
  /** The memory's maximum in pages (it can grow to this). */
  private maxPages = MAXIMUM_PAGES;
  private readonly mayBlock: number;
  private destroyed = false;

  private constructor(
    readonly memory: WebAssembly.Memory,
    readonly exports: KernelExports,
    readonly threads: number,
    readonly build: 'threads' | 'single',
  ) {
    this.mayBlock = build === 'threads' && canBlock() ? 1 : 0;
  }

  static async create(opts: CpuRuntimeOptions = {}): Promise<CpuRuntime> {
    const shared = sharedMemoryUsable();
    const build = opts.build ?? (shared ? 'threads' : 'single');
    if (build === 'threads' && !shared) throw new Error('CPU engine: the threaded build needs SharedArrayBuffer (cross-origin isolation in a browser)');
    const threads = build === 'single' ? 1 : Math.max(1, Math.floor(opts.threads ?? (await availableCores())));
    if (opts.threads !== undefined && build === 'single' && opts.threads !== 1) throw new Error(`CPU engine: ${opts.threads} threads need shared memory; the single-threaded build runs 1`);
    const module = await kernelModule(build);
    // A shared memory reserves its maximum up front: where 2 GiB cannot be reserved (a 32-bit
    // browser), a smaller maximum still satisfies the module's import (it declares an upper bound).
    let memory: WebAssembly.Memory | null = null;
    let maxPages = MAXIMUM_PAGES;
    for (const maximum of [MAXIMUM_PAGES, MAXIMUM_PAGES / 4, MAXIMUM_PAGES / 16]) {
      try {
        memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum, shared: build === 'threads' });
        maxPages = maximum;
        break;
      } catch (e) {
        if (maximum === MAXIMUM_PAGES / 16) throw e;
      }
    }
    if (!memory) throw new Error('CPU engine: could not create its memory');
    const instance = await WebAssembly.instantiate(module, { env: { memory } });
    const rt = new CpuRuntime(memory, instance.exports as unknown as KernelExports, threads, build);
    rt.maxPages = maxPages;
    try {
      for (let t = 1; t < threads; t++) rt.pool.push(await startThread(module, memory, t));
    } catch (e) {
      rt.destroy();
      throw e;
    }
    return rt;
  }

  /** Bytes the allocator can hand out at most: the memory's maximum less the module's static data (src/rl/resources.ts checks a run against it). */
  get memoryLimitBytes(): number {
    return this.maxPages * PAGE - HEAP_BASE;
  }

  /** `bytes` of zeroed memory, 64-byte aligned; returns the byte offset. */
  alloc(bytes: number): number {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    for (let i = 0; i < this.free.length; i++) {
      const f = this.free[i];
      if (f.size < size) continue;
      const off = f.off;
      if (f.size === size) this.free.splice(i, 1);
      else this.free[i] = { off: f.off + size, size: f.size - size };
      new Uint8Array(this.memory.buffer, off, size).fill(0);
      return off;
    }
    const off = this.top;
    const end = off + size;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / PAGE);
      if (have / PAGE + pages > this.maxPages) throw new Error(`CPU engine: out of memory (needs ${Math.ceil(end / 2 ** 20)} MiB, limit ${(this.maxPages * PAGE) / 2 ** 20} MiB)`);
      this.memory.grow(pages);
    }
    this.top = end;
    new Uint8Array(this.memory.buffer, off, size).fill(0);
    return off;
  }

  allocF32(n: number): number {
    return this.alloc(Math.max(1, n) * 4);
  }

  /** Returns an allocation (its byte size as passed to alloc) to the free list, merging neighbours. */
  release(off: number, bytes: number): void {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    this.free.push({ off, size });
    this.free.sort((a, b) => a.off - b.off);
    const merged: { off: number; size: number }[] = [];
    for (const f of this.free) {
      const last = merged[merged.length - 1];
      if (last && last.off + last.size === f.off) last.size += f.size;
      else merged.push({ ...f });
    }
    const tail = merged[merged.length - 1];
    if (tail && tail.off + tail.size === this.top) {
      this.top = tail.off;
      merged.pop();
    }
    this.free = merged;
  }

  f32(off: number, n: number): Float32Array {
    return new Float32Array(this.memory.buffer, off, n);
  }
  u32(off: number, n: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, off, n);
  }
  i32(off: number, n: number): Int32Array {
    return new Int32Array(this.memory.buffer, off, n);
  }
  f64(off: number, n: number): Float64Array {
    return new Float64Array(this.memory.buffer, off, n);
  }

  /** Copies recorded command words into memory. */
  upload(words: Int32Array): Program {
    if (words.length % COMMAND_WORDS !== 0) throw new Error('program: not a whole number of commands');
    const ptr = this.alloc(words.byteLength);
    this.i32(ptr, words.length).set(words);
    return { ptr, count: words.length / COMMAND_WORDS };
  }

  /**
   * Runs a program on every thread; returns when all have finished it (the program must end with
   * a barrier, which ProgramBuilder.finish adds). The calling thread is thread 0.
   */
  run(p: Program): void {
    if (this.destroyed) throw new Error('CPU engine: runtime destroyed (or failed)');
    const nt = this.threads;
    if (nt > 1) {
      const ctl = new Int32Array(this.memory.buffer, CTL, 16);
      Atomics.store(ctl, 3, p.ptr);
      Atomics.store(ctl, 4, p.count);
      Atomics.store(ctl, 5, nt);
      Atomics.add(ctl, 2, 1);
      Atomics.notify(ctl, 2);
    }
    try {
      this.exports.run(p.ptr, p.count, 0, nt, CTL, this.mayBlock);
    } catch (e) {
      this.fail();
      throw e;
    }
    if (nt > 1 && Atomics.load(new Int32Array(this.memory.buffer, CTL, 16), 7) !== 0) {
      this.destroy();
      throw new Error('CPU engine: a pool thread failed (trapped); the engine is unusable');
    }
  }

  /** Marks the pool failed and releases every barrier (this thread trapped mid-program). */
  private fail(): void {
    if (this.threads > 1) {
      const ctl = new Int32Array(this.memory.buffer, CTL, 16);
      Atomics.store(ctl, 7, 1);
      Atomics.add(ctl, 1, 1);
      Atomics.notify(ctl, 1);
    }
    this.destroy();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    if (this.pool.length > 0) {
      const ctl = new Int32Array(this.memory.buffer, CTL, 16);
      Atomics.store(ctl, 6, 1);
      Atomics.add(ctl, 2, 1);
      Atomics.notify(ctl, 2);
      for (const t of this.pool) t.terminate();
      this.pool = [];
    }
  }
}

/** The opcode table the module was built with (tests compare it with src/cpu/ops.ts). */
export function moduleOpcodes(rt: CpuRuntime): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(OP)) {
    const g = rt.exports[`OP_${name}`] as WebAssembly.Global | undefined;
    if (g) out[name] = g.value as number;
  }
  return out;
}

export type { KernelFn };
