/**
 * Resource check of a run, before anything is written or allocated: a config whose model, batch
 * or data need more than this machine and engine can give is refused with ONE ResourceError (a
 * ConfigError: exit 2 in the CLI, the run's error in the page) naming the field, the size asked
 * for and the limit, e.g.
 *
 *   rollout.batchPrompts: the largest GPU buffer would be 3.2 GiB (attention probabilities,
 *   rows·H·T·T = 2048·4·320·320 f32); this adapter's maxStorageBufferBindingSize is 1 GiB
 *
 * What is estimated (docs/resources.md):
 *   data    distinct problems each family must supply (train + test quotas) vs the problems it can
 *           generate at the difficulty (src/tasks/capacity.ts: all of a small space, half of a large one);
 *   engine  every buffer of the policy (and of π_ref, for the stages with β > 0): weights, gradients,
 *           AdamW moments, each training shape the run builds (rows = G·2^k up to the largest kept
 *           batch, T per stage: plans are cached per shape) and the decoding plan with its KV cache
 *           (src/model/resources.ts) — WebGPU: the largest buffer vs maxStorageBufferBindingSize and
 *           maxBufferSize; CPU engine: the total vs its WebAssembly memory's maximum;
 *   host    JS heap: the problems, the most rollouts held at once (a step's D_R·G, refill rounds
 *           included; the offline filter's trainSize·N; an evaluation's testProblems·k), a
 *           checkpoint's JSON header — vs a fraction of the heap limit; machine memory: heap + the
 *           CPU engine's memory (or a software adapter's buffers) vs a fraction of the machine's;
 *           a checkpoint file vs the largest file Node reads back (2 GiB).
 * Estimates are upper bounds of what the code allocates (responses at their length limit), but
 * not padded: every preset passes on WebGPU's default limits (tests/rl/resources.test.ts).
 */
import { ConfigError, layoutParams } from '../model/config';
import type { Backend, EngineLimits, PolicyEngine } from '../model/engine';
import { estimatePolicy, formatBytes, type BufferEstimate, type EngineKind, type PolicyEstimate } from '../model/resources';
import { distinctProblemCount, maxPromptTokens, sharedProblemCount, usableProblemCount, type FamilyName } from '../tasks';
import { DEFAULT_RUNG, getRung, longestResponseLength, resolveStage, rungOf, type RunConfig } from './config';
import { refForwardRows } from './micro-batch';

/** A config that needs more than this machine or engine can give. */
export class ResourceError extends ConfigError {
  constructor(field: string, message: string) {
    super(field, message);
    this.name = 'ResourceError';
  }
}

export type { EngineLimits } from '../model/engine';
/** The page shows sizes in the same words as the refusals (it may not import src/model/resources itself). */
export { formatBytes } from '../model/resources';

/** What the host process can hold. */
export interface HostLimits {
  /** JS heap a run may fill, bytes, and where that figure comes from (for the message). */
  heapBytes: number;
  heapSource: string;
  /** Machine memory a run may take, bytes (Infinity when unknown), and its source. */
  memoryBytes: number;
  memorySource: string;
  /** Largest checkpoint file that can be read back (Node: 2 GiB), if any. */
  fileBytes?: number;
  /** Longest string the JS engine builds (V8: 2^29 − 24 characters), if known. */
  stringChars?: number;
}

export interface ResourceLimits {
  engine?: EngineLimits | null;
  host?: HostLimits | null;
}

/** Share of the heap limit and of the machine's memory a run may plan to use (the rest: what the estimate leaves out, GC headroom, the OS, the page). */
export const HEAP_FRACTION = 0.5;
export const MEMORY_FRACTION = 0.5;
/** V8's longest string (64-bit): 2^29 − 24 characters. */
export const V8_MAX_STRING = 2 ** 29 - 24;
/** Node's readFileSync refuses files of 2 GiB or more. */
export const NODE_MAX_FILE = 2 ** 31 - 1;

/** JS heap per generated problem (object, prompt, answer, data; measured ≈ 300 B at difficulty 5) plus the dedup sets while building. */
const PROBLEM_BYTES = 500;
/** JS heap per rollout: ≈ 600 B of objects, 8 B per prompt token, ≈ 32 B per response token (token, log-prob and entropy arrays, text; measured). */
const rolloutBytes = (promptTokens: number, responseTokens: number) => 600 + 8 * promptTokens + 32 * responseTokens;
/** A float written into a JSON header (π_ref's weights): up to ≈ 22 characters. */
const JSON_FLOAT_CHARS = 22;

/** The engine limits of an open backend (null for a backend that exposes none, e.g. a test double). */
export function engineLimitsOf(backend: Backend): EngineLimits | null {
  return backend.limits?.() ?? null;
}

/**
 * Host limits in a browser (the page's Worker): half of navigator.deviceMemory (GiB, coarse,
 * capped at 8 by browsers) when the browser tells, and half of the JS heap limit when it tells
 * (Chrome's performance.memory), else half of 4 GiB (a 64-bit browser's usual heap limit).
 */
export function browserHostLimits(env: { deviceMemory?: number; jsHeapSizeLimit?: number } = readBrowserEnv()): HostLimits {
  const heap = env.jsHeapSizeLimit && env.jsHeapSizeLimit > 0 ? env.jsHeapSizeLimit : 4 * 2 ** 30;
  const mem = env.deviceMemory && env.deviceMemory > 0 ? env.deviceMemory * 2 ** 30 : Infinity;
  return {
    heapBytes: heap * HEAP_FRACTION,
    heapSource: `half of ${env.jsHeapSizeLimit ? "this browser's" : "a browser's usual"} JS heap limit ${formatBytes(heap)}`,
    memoryBytes: mem * MEMORY_FRACTION,
    memorySource: Number.isFinite(mem) ? `half of this device's ${formatBytes(mem)} (navigator.deviceMemory)` : 'unknown',
    stringChars: V8_MAX_STRING,
  };
}

function readBrowserEnv(): { deviceMemory?: number; jsHeapSizeLimit?: number } {
  const nav = (globalThis as { navigator?: { deviceMemory?: unknown } }).navigator;
  const perf = (globalThis as { performance?: { memory?: { jsHeapSizeLimit?: unknown } } }).performance;
  const dm = nav?.deviceMemory;
  const hl = perf?.memory?.jsHeapSizeLimit;
  return { deviceMemory: typeof dm === 'number' ? dm : undefined, jsHeapSizeLimit: typeof hl === 'number' ? hl : undefined };
}

// ---------------------------------------------------------------------------------------------
// What a run uses

/** The field that sets the largest rollout batch D_R·G (a stage's own batchPrompts, or rollout.batchPrompts). */
function batchField(cfg: RunConfig): string {
  let best = 0;
  let field = 'rollout.batchPrompts';
  cfg.stages.forEach((s, i) => {
    const r = resolveStage(cfg, i);
    if (r.batchPrompts * r.groupSize > best) {
      best = r.batchPrompts * r.groupSize;
      field = s.batchPrompts !== null ? `stages[${i}].batchPrompts` : s.groupSize !== null ? `stages[${i}].groupSize` : 'rollout.batchPrompts';
    }
  });
  return field;
}

/** Sequences per generation call: the largest D_R·G of any stage (trainer.ts rolloutBatchSize). */
function rolloutBatch(cfg: RunConfig): number {
  return Math.max(1, ...cfg.stages.map((_, i) => resolveStage(cfg, i).batchPrompts * resolveStage(cfg, i).groupSize));
}

/**
 * The training shapes a run can build: per stage, rows = G·2^k for every k up to the largest
 * mini-batch of a full kept batch (trainer.ts pads a mini-batch's rows to G × a power of two, and
 * rejection keeps any number of groups; without rejection only the full batch's), T = longest
 * prompt + the stage's response limit. With update.microBatchRows, a shape of more rows is trained
 * in micro-batches of exactly that many (src/rl/micro-batch.ts), so no shape has more.
 */
export function runTrainShapes(cfg: RunConfig, stages: (i: number) => boolean = () => true): { rows: number; T: number }[] {
  const micro = cfg.update.microBatchRows;
  if (micro !== null) {
    const whole = runTrainShapes({ ...cfg, update: { ...cfg.update, microBatchRows: null } }, stages);
    const shapes = new Map(whole.map((s) => [`${Math.min(s.rows, micro)}x${s.T}`, { rows: Math.min(s.rows, micro), T: s.T }]));
    return [...shapes.values()];
  }
  const prompt = maxPromptTokens(cfg.data.families, cfg.data.difficulty);
  const out: { rows: number; T: number }[] = [];
  cfg.stages.forEach((_, i) => {
    if (!stages(i)) return;
    const s = resolveStage(cfg, i);
    const T = prompt + s.maxResponseLength;
    const kept = s.batchPrompts * s.groupSize;
    const m = cfg.update.miniBatches;
    const rows = (responses: number) => s.groupSize * 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(responses / s.groupSize))));
    if (cfg.rejection.mode === 'off') {
      // Every group is kept: mini-batches of ⌊K/m⌋ or ⌈K/m⌉ responses, nothing smaller.
      for (const r of new Set([rows(Math.floor(kept / m)), rows(Math.ceil(kept / m))])) out.push({ rows: r, T });
      return;
    }
    // Rejection keeps any number of groups: every power of two up to the full batch's.
    for (let r = s.groupSize; ; r *= 2) {
      out.push({ rows: r, T });
      if (r >= rows(Math.ceil(kept / m))) break;
    }
  });
  return out;
}

/** The shapes π_ref forwards: those of the stages with β > 0, in forwards of at most refForwardRows rows. */
export function referenceShapes(cfg: RunConfig): { rows: number; T: number }[] {
  const chunked = { ...cfg, update: { ...cfg.update, microBatchRows: refForwardRows(cfg.update.microBatchRows) } };
  return runTrainShapes(chunked, (i) => resolveStage(cfg, i).klBeta > 0);
}

/**
 * Sizes an engine's training memory once for the largest of `shapes` (default: the run's training
 * shapes; the CPU engine's arena, see PolicyEngine.reserveTrain).
 */
export function reserveLargestShape(policy: PolicyEngine, cfg: RunConfig, shapes = runTrainShapes(cfg)): void {
  policy.reserveTrain?.(Math.max(...shapes.map((s) => s.rows)), Math.max(...shapes.map((s) => s.T)));
}

/** Whether the run keeps a reference policy π_ref (some stage has β > 0). */
export function usesReference(cfg: RunConfig): boolean {
  return cfg.stages.some((_, i) => resolveStage(cfg, i).klBeta > 0);
}

export interface HeapItem {
  field: string;
  bytes: number;
  what: string;
}

export interface RunEstimate {
  /** Engine memory: the policy, and π_ref when KL is on (same shapes, no decoding). */
  policy: PolicyEstimate;
  reference: PolicyEstimate | null;
  /** Engine total (policy + reference). */
  engineBytes: number;
  /** JS heap items (the largest rollout set counts once: they are not alive together). */
  heap: HeapItem[];
  heapBytes: number;
  /** Typed arrays outside the JS heap (update batches, generation read-backs, checkpoint bytes). */
  external: HeapItem[];
  checkpointBytes: number;
  checkpointHeaderChars: number;
}

/** Everything a run of `cfg` holds at its peak, on `engine`. Pure. */
export function estimateRun(cfg: RunConfig, engine: EngineKind, threads = 1): RunEstimate {
  const train = runTrainShapes(cfg);
  const B = rolloutBatch(cfg);
  const policy = estimatePolicy(cfg.model, { train, decode: [B] }, engine, threads);
  // π_ref runs forwards (a training plan each, of at most refForwardRows rows) in the stages with β > 0 only.
  const reference = usesReference(cfg) ? estimatePolicy(cfg.model, { train: referenceShapes(cfg), decode: [] }, engine, threads) : null;
  const floats = layoutParams(cfg.model).totalFloats;
  const d = cfg.data;
  const prompt = maxPromptTokens(d.families, d.difficulty);
  const longest = longestResponseLength(cfg);

  // Rollout sets: the largest is what counts (a step's, the offline filter's, an evaluation's).
  const sets: HeapItem[] = cfg.stages.map((_, i) => {
    const s = resolveStage(cfg, i);
    const rounds = cfg.rejection.mode === 'refill' ? 1 + cfg.rejection.maxRefillRounds : 1;
    const n = s.batchPrompts * s.groupSize * rounds;
    const what = `stage ${i}'s rollouts (D_R·G = ${s.batchPrompts}·${s.groupSize}${rounds > 1 ? ` × ${rounds} refill rounds` : ''} = ${n} responses of up to ${s.maxResponseLength} tokens)`;
    return { field: cfg.stages[i].batchPrompts !== null ? `stages[${i}].batchPrompts` : 'rollout.batchPrompts', bytes: n * rolloutBytes(prompt, s.maxResponseLength), what };
  });
  if (d.offlineFilter.enabled) {
    const n = d.trainSize * d.offlineFilter.samples;
    sets.push({ field: 'data.offlineFilter.samples', bytes: n * rolloutBytes(prompt, longest), what: `the offline filter's samples (data.trainSize·N = ${d.trainSize}·${d.offlineFilter.samples} = ${n} responses)` });
  }
  const evalN = cfg.eval.testProblems * cfg.eval.k;
  sets.push({ field: 'eval.k', bytes: evalN * rolloutBytes(prompt, longest), what: `an evaluation's samples (eval.testProblems·k = ${cfg.eval.testProblems}·${cfg.eval.k} = ${evalN} responses)` });
  const rollouts = sets.reduce((a, s) => (s.bytes > a.bytes ? s : a));
  const problems = d.trainSize + d.testSize;
  // A checkpoint's JSON header: the config, the run state (pool, attempts, solves: one number per training prompt), π_ref's weights.
  const headerChars = 8192 + 3 * 8 * d.trainSize + 16 * cfg.stages.reduce((a, s) => a + (s.steps ?? s.convergence?.maxSteps ?? 0), 0) + (reference ? JSON_FLOAT_CHARS * floats : 0);
  const heap: HeapItem[] = [
    { field: 'data.trainSize', bytes: problems * PROBLEM_BYTES, what: `${problems} problems (data.trainSize + testSize)` },
    rollouts,
    { field: 'model', bytes: headerChars + (reference ? 8 * floats : 0), what: "a checkpoint's JSON header" },
  ];
  const heapBytes = heap.reduce((a, h) => a + h.bytes, 0);
  const maxRows = Math.max(...train.map((s) => s.rows * s.T));
  const checkpointBytes = 3 * 4 * floats + headerChars;
  const bf = batchField(cfg);
  const external: HeapItem[] = [
    { field: bf, bytes: 6 * 4 * maxRows + 3 * 4 * B * cfg.model.contextLength, what: 'update batches and generation read-backs' },
    // Weights and moments read back, and the encoded file.
    { field: 'model', bytes: 3 * 4 * floats + checkpointBytes, what: 'a checkpoint being written' },
  ];
  const engineBytes = policy.total + (reference?.total ?? 0);
  return { policy, reference, engineBytes, heap, heapBytes, external, checkpointBytes, checkpointHeaderChars: headerChars };
}

// ---------------------------------------------------------------------------------------------
// Checks

/**
 * Each family's share of train and test (buildDataset's quotas) against the distinct problems it
 * can generate at the difficulty. Pure; needs no limits.
 */
export function checkDataCapacity(d: { families: readonly FamilyName[]; difficulty: number; trainSize: number; testSize: number }): void {
  const n = d.families.length;
  const quota = (size: number, i: number) => Math.floor(size / n) + (i < size % n ? 1 : 0);
  const need = d.families.map((_, i) => quota(d.trainSize, i) + quota(d.testSize, i));
  d.families.forEach((f, i) => {
    // Problems another family shares with this one (addition and arith at difficulty 1) are lost to
    // it when that family draws them first: count the share it draws on average.
    let lost = 0;
    const sharers: string[] = [];
    d.families.forEach((g, j) => {
      const shared = j === i ? 0 : sharedProblemCount(f, g, d.difficulty);
      if (shared === 0) return;
      lost += Math.min(shared, Math.ceil((need[j] * shared) / distinctProblemCount(g, d.difficulty)));
      sharers.push(`${shared} with ${g}`);
    });
    const usable = usableProblemCount(f, d.difficulty) - lost;
    if (need[i] <= usable) return;
    const total = distinctProblemCount(f, d.difficulty);
    const field = quota(d.testSize, i) > usable ? 'data.testSize' : 'data.trainSize';
    let limit =
      usableProblemCount(f, d.difficulty) === total
        ? `${f} has only ${total} at difficulty ${d.difficulty}`
        : `${f} has ${total} at difficulty ${d.difficulty} and a run may draw at most half of them (${usableProblemCount(f, d.difficulty)}): past half, random draws take minutes to find the rest`;
    if (lost > 0) limit += `, of which it shares ${sharers.join(', ')} (≈ ${lost} drawn there first): ${usable} left`;
    throw new ResourceError(
      field,
      `${d.trainSize} training + ${d.testSize} test problems over ${n} famil${n === 1 ? 'y' : 'ies'} need ${need[i]} distinct ${f} problems; ${limit} (lower data.trainSize / data.testSize, raise data.difficulty or add families)`,
    );
  });
}

/** 'model' when the model alone (one sequence) is already too big or takes most of it, else the batch field. */
function engineField(cfg: RunConfig, tooBig: (e: PolicyEstimate) => boolean, engine: EngineKind, threads: number): string {
  const minimal = estimatePolicy(cfg.model, { train: [{ rows: 1, T: Math.min(cfg.model.contextLength, maxPromptTokens(cfg.data.families, cfg.data.difficulty) + 1) }], decode: [1] }, engine, threads);
  const full = estimatePolicy(cfg.model, { train: runTrainShapes(cfg), decode: [rolloutBatch(cfg)] }, engine, threads);
  return tooBig(minimal) || 2 * minimal.total >= full.total ? 'model' : batchField(cfg);
}

const describeBuffer = (b: BufferEstimate) => `${b.name}, ${b.shape}`;

/** "weights and AdamW state 1.6 MiB, training batches 250 MiB, decoding 40 MiB (KV cache B·T·C = …)". */
function breakdown(p: PolicyEstimate): string {
  const sum = (part: BufferEstimate['part']) => p.buffers.filter((b) => b.part === part).reduce((a, b) => a + b.bytes, 0);
  const kv = p.buffers.find((b) => b.name === 'KV cache');
  const train = p.buffers.filter((b) => b.part === 'train').reduce((a, b) => (b.bytes > a.bytes ? b : a), { bytes: 0 } as BufferEstimate);
  const parts = [`weights and AdamW state ${formatBytes(sum('state'))}`];
  if (train.bytes > 0) parts.push(`training batches ${formatBytes(sum('train'))}, largest ${describeBuffer(train)}`);
  if (kv) parts.push(`decoding ${formatBytes(sum('decode'))}, KV cache ${kv.shape}`);
  return parts.join('; ');
}

/**
 * Throws a ResourceError naming the first limit `cfg` exceeds: data, the engine, the JS heap, the
 * checkpoint's size, machine memory. `engineKnown: false` (before an engine is open) checks the
 * data and the JS heap only: the cheap refusals, before a GPU device or thread pool is opened.
 */
export function checkRunResources(cfg: RunConfig, limits: ResourceLimits = {}, opts: { engineKnown?: boolean } = {}): void {
  checkDataCapacity(cfg.data);
  const eng = limits.engine ?? null;
  const kind: EngineKind = eng?.engine ?? 'wasm';
  const threads = eng?.engine === 'wasm' ? eng.threads : 1;
  const est = estimateRun(cfg, kind, threads);
  if (eng?.engine === 'webgpu') {
    const bind = eng.maxStorageBufferBindingSize;
    const limit = Math.min(bind, eng.maxBufferSize);
    const largest = [est.policy.largest, est.reference?.largest].reduce((a, b) => (b && b.bytes > a!.bytes ? b : a))!;
    if (largest.bytes > limit) {
      const name = limit === bind ? 'maxStorageBufferBindingSize' : 'maxBufferSize';
      const field = engineField(cfg, (e) => e.largest.bytes > limit, 'webgpu', 1);
      const hint = microBatchHint(cfg, (c) => {
        const e = estimateRun(c, 'webgpu');
        return Math.max(e.policy.largest.bytes, e.reference?.largest.bytes ?? 0) <= limit;
      });
      throw new ResourceError(field, `the largest GPU buffer would be ${formatBytes(largest.bytes)} (${describeBuffer(largest)}); this adapter's ${name} is ${formatBytes(limit)}${hint}${rungNote(cfg)}`);
    }
  } else if (eng?.engine === 'wasm') {
    if (est.engineBytes > eng.memoryBytes) {
      const field = engineField(cfg, (e) => e.total > eng.memoryBytes, 'wasm', threads);
      const ref = est.reference ? `, π_ref ${formatBytes(est.reference.total)}` : '';
      const hint = microBatchHint(cfg, (c) => estimateRun(c, 'wasm', threads).engineBytes <= eng.memoryBytes);
      throw new ResourceError(field, `the CPU engine would need ${formatBytes(est.engineBytes)} (${breakdown(est.policy)}${ref}); its WebAssembly memory holds at most ${formatBytes(eng.memoryBytes)}${hint}${rungNote(cfg)}`);
    }
  }
  const host = limits.host ?? null;
  if (!host) return;
  if (est.heapBytes > host.heapBytes) {
    const top = largestItem(est.heap);
    throw new ResourceError(top.field, `the run would hold ${formatBytes(est.heapBytes)} of JS objects, ${formatBytes(top.bytes)} of it ${top.what}; this process may use ${formatBytes(host.heapBytes)} (${host.heapSource})`);
  }
  if (opts.engineKnown === false) return;
  if (host.fileBytes !== undefined && est.checkpointBytes > host.fileBytes) {
    throw new ResourceError('model', `a checkpoint would be ${formatBytes(est.checkpointBytes)} (weights and both AdamW moments, ${layoutParams(cfg.model).totalFloats} floats each); a file of ${formatBytes(host.fileBytes + 1)} or more cannot be read back to resume`);
  }
  if (host.stringChars !== undefined && est.checkpointHeaderChars > host.stringChars) {
    const field = est.reference && JSON_FLOAT_CHARS * layoutParams(cfg.model).totalFloats > host.stringChars / 2 ? 'model' : 'data.trainSize';
    throw new ResourceError(field, `a checkpoint's JSON header would be ${est.checkpointHeaderChars} characters${est.reference ? " (it stores π_ref's weights)" : ''}; the longest string this JS engine builds is ${host.stringChars}`);
  }
  // Machine memory: JS objects, typed arrays, and the engine's memory when it lives on the host.
  const onHost = eng?.engine === 'wasm' || (eng?.engine === 'webgpu' && eng.software) ? est.engineBytes : 0;
  const parts: HeapItem[] = [...est.heap, ...est.external];
  if (onHost > 0) parts.push({ field: engineField(cfg, (e) => e.total > host.memoryBytes, kind, threads), bytes: onHost, what: eng?.engine === 'wasm' ? "the CPU engine's memory" : "the software adapter's buffers" });
  const total = parts.reduce((a, p) => a + p.bytes, 0);
  if (total > host.memoryBytes) {
    const top = largestItem(parts);
    throw new ResourceError(top.field, `the run would take ${formatBytes(total)} of this machine's memory, ${formatBytes(top.bytes)} of it ${top.what}; it may use ${formatBytes(host.memoryBytes)} (${host.memorySource})${rungNote(cfg)}`);
  }
}

/**
 * "; train in micro-batches instead: update.microBatchRows = 16 fits (the same update, its
 * gradient accumulated)" when a smaller micro-batch (a power of two below today's largest
 * training rows) makes `fits` hold: the refusal then names the field that fixes it. '' otherwise
 * (the weights or decoding alone do not fit, or micro-batches are already 1 row).
 */
function microBatchHint(cfg: RunConfig, fits: (c: RunConfig) => boolean): string {
  const rows = Math.max(...runTrainShapes(cfg).map((s) => s.rows));
  for (let r = 2 ** Math.floor(Math.log2(Math.max(1, rows - 1))); r >= 1 && rows > 1; r /= 2) {
    if (fits({ ...cfg, update: { ...cfg.update, microBatchRows: r } })) {
      return `; train in micro-batches instead: update.microBatchRows = ${r} fits (the same update, its gradient accumulated over micro-batches)`;
    }
  }
  return '';
}

/**
 * " — the small rung's model (~0.8M parameters, context 256)" for a config at a ladder rung above
 * tiny, so a refused rung is named; nothing for tiny or a hand-made shape (the field already says it).
 */
function rungNote(cfg: RunConfig): string {
  const rung = rungOf(cfg);
  if (rung === null || rung === DEFAULT_RUNG) return '';
  return ` — the ${rung} rung's model (${getRung(rung).summary.split(':')[0]}); pick a smaller rung`;
}

const largestItem = (items: HeapItem[]) => items.reduce((a, h) => (h.bytes > a.bytes ? h : a));

/**
 * The same checks for evaluating a checkpoint (`magic-lab eval`): the test set, one policy with a
 * decoding plan of `batch` sequences, `problems`·k samples per temperature held at once.
 */
export function checkEvalResources(cfg: RunConfig, o: { problems: number; k: number; batch: number }, limits: ResourceLimits = {}): void {
  checkDataCapacity(cfg.data);
  const eng = limits.engine ?? null;
  const kind: EngineKind = eng?.engine ?? 'wasm';
  const threads = eng?.engine === 'wasm' ? eng.threads : 1;
  const policy = estimatePolicy(cfg.model, { train: [], decode: [o.batch] }, kind, threads);
  if (eng?.engine === 'webgpu' && policy.largest.bytes > Math.min(eng.maxStorageBufferBindingSize, eng.maxBufferSize)) {
    const limit = Math.min(eng.maxStorageBufferBindingSize, eng.maxBufferSize);
    throw new ResourceError('model', `the largest GPU buffer would be ${formatBytes(policy.largest.bytes)} (${describeBuffer(policy.largest)}); this adapter's ${limit === eng.maxStorageBufferBindingSize ? 'maxStorageBufferBindingSize' : 'maxBufferSize'} is ${formatBytes(limit)}${rungNote(cfg)}`);
  }
  if (eng?.engine === 'wasm' && policy.total > eng.memoryBytes) {
    throw new ResourceError('model', `the CPU engine would need ${formatBytes(policy.total)} (${breakdown(policy)}); its WebAssembly memory holds at most ${formatBytes(eng.memoryBytes)}${rungNote(cfg)}`);
  }
  const host = limits.host ?? null;
  if (!host) return;
  const prompt = maxPromptTokens(cfg.data.families, cfg.data.difficulty);
  const n = o.problems * o.k;
  const heap = (cfg.data.trainSize + cfg.data.testSize) * PROBLEM_BYTES + n * rolloutBytes(prompt, longestResponseLength(cfg));
  if (heap > host.heapBytes) {
    throw new ResourceError('--k', `evaluating ${o.problems} problems × ${o.k} samples would hold ${formatBytes(heap)} of JS objects; this process may use ${formatBytes(host.heapBytes)} (${host.heapSource})`);
  }
}
