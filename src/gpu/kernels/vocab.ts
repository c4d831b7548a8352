/**
 * Builders for shaders/vocab.wgsl: the vocabulary side of a real model, never holding [N, V] logits.
 *
 * A vocabulary table (embedding or head, [V, d]) can exceed maxStorageBufferBindingSize (Qwen2.5's f32
 * embedding is 519 MB; WebGPU's default binding limit is 128 MiB), so it is held as a RowSplitTable:
 * several buffers of whole rows. The head is visited `chunk` rows at a time: a matmul computes the
 * chunk's logits block [N, chunk] (hidden · head_chunkᵀ) into scratch, and vocab_stats_chunk folds it
 * into a per-row running state; the backward recomputes each block and turns it into ∂L/∂z, then two
 * matmuls add dhidden += dz·head_chunk and dhead_chunk += dzᵀ·hidden.
 *
 * Chunks and parts start at multiples of rowAlign(d) rows, so each chunk's rows are a 256-byte-aligned
 * slice of its part (WebGPU's storage-binding offset rule); the requested chunk is rounded up to that.
 */
import { matmul } from './matmul';
import { grid1d } from './elementwise';
import { ceilDiv, f32bits, type Binding, type BufferSlice, type Dispatch, type GpuRuntime } from '../runtime';

const SHADER = 'vocab.wgsl';
const WG = 64;
const FIRST = 1;
const LAST = 2;

/** One buffer of whole rows row0 … row0 + rows − 1 of a table. */
export interface RowPart {
  buffer: GPUBuffer;
  row0: number;
  rows: number;
}

/** A [rows, width] f32 table held as one or more buffers of whole rows. */
export interface RowSplitTable {
  parts: RowPart[];
  rows: number;
  width: number;
}

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/** Rows whose f32 bytes are a multiple of 256 (the storage-binding offset alignment): 64 / gcd(width, 64). */
export function rowAlign(width: number): number {
  return 64 / gcd(width, 64);
}

/**
 * The chunk actually used for a requested one: rounded up to a multiple of rowAlign(d), then, when N rows of
 * logits that wide would not fit one binding of `maxBytes` (e.g. 16,384 tokens × 4,096 rows = 256 MiB against
 * WebGPU's default 128 MiB), narrowed to the widest multiple of rowAlign(d) that does.
 */
export function vocabChunkRows(requested: number, d: number, N = 1, maxBytes = Infinity): number {
  if (!Number.isInteger(requested) || requested < 1) throw new Error(`vocab chunk must be a positive integer, got ${requested}`);
  const a = rowAlign(d);
  const fit = Math.floor(maxBytes / (4 * N) / a) * a;
  if (fit < 1) throw new Error(`vocab head: ${N} rows of ${a} logits (${4 * N * a} bytes) exceed the ${maxBytes}-byte storage binding limit; score fewer tokens at once`);
  return Math.min(ceilDiv(requested, a) * a, fit);
}

const bindingLimit = (rt: GpuRuntime) => Math.min(rt.limits.maxStorageBufferBindingSize, rt.limits.maxBufferSize);

/**
 * Uploads a [rows, width] table as buffers `${name}.0`, `${name}.1`, … of at most `maxBytes` each (default:
 * the device's maxStorageBufferBindingSize and maxBufferSize), each a whole multiple of rowAlign(width) rows.
 * `data` null allocates zero-filled parts (gradients).
 */
export function uploadRowSplit(rt: GpuRuntime, name: string, data: Float32Array | null, rows: number, width: number, maxBytes?: number): RowSplitTable {
  const limit = maxBytes ?? Math.min(rt.limits.maxStorageBufferBindingSize, rt.limits.maxBufferSize);
  const align = rowAlign(width);
  const perPart = Math.floor(limit / (width * 4) / align) * align;
  if (perPart < 1) throw new Error(`table "${name}": ${align} rows of ${width} floats exceed the ${limit}-byte buffer limit`);
  if (data && data.length !== rows * width) throw new Error(`table "${name}": ${data.length} floats for ${rows}×${width}`);
  const parts: RowPart[] = [];
  for (let row0 = 0; row0 < rows; row0 += perPart) {
    const n = Math.min(perPart, rows - row0);
    const buffer = rt.buffer(`${name}.${parts.length}`, n * width * 4);
    rt.write(buffer, data ? data.subarray(row0 * width, (row0 + n) * width) : new Float32Array(n * width));
    parts.push({ buffer, row0, rows: n });
  }
  return { parts, rows, width };
}

/** Reads a row-split table back as one array. */
export async function readRowSplit(rt: GpuRuntime, t: RowSplitTable): Promise<Float32Array> {
  const out = new Float32Array(t.rows * t.width);
  for (const p of t.parts) out.set(await rt.readF32(p.buffer, 0, p.rows * t.width), p.row0 * t.width);
  return out;
}

interface Chunk {
  slice: BufferSlice;
  c0: number;
  n: number;
}

function chunks(t: RowSplitTable, chunk: number): Chunk[] {
  const out: Chunk[] = [];
  for (const p of t.parts)
    for (let r = 0; r < p.rows; r += chunk) {
      const n = Math.min(chunk, p.rows - r);
      out.push({ slice: { buffer: p.buffer, offset: r * t.width * 4, size: n * t.width * 4 }, c0: p.row0 + r, n });
    }
  return out;
}

/** Uniform words in the order of vocab.wgsl's Params. */
const params = (n: number, rowGroups: number, width = 0, c0 = 0, flags = 0, d = 0, row0 = 0, rows = 0, invTau = 1, seed = 0) => [n, rowGroups, width, c0, flags, d, row0, rows, f32bits(invTau), seed >>> 0];

/** out[t] = table[tokens[t]] for t < N (one dispatch per part; each writes the tokens whose rows it holds). */
export function embedRows(rt: GpuRuntime, a: { tokens: Binding; table: RowSplitTable; out: Binding; N: number }): Promise<Dispatch[]> {
  const d = a.table.width;
  const g = grid1d(rt, a.N * d, WG);
  return Promise.all(
    a.table.parts.map((p) =>
      rt.dispatch({
        kernel: { shader: SHADER, entry: 'embed_rows' },
        bindings: { 1: a.tokens, 2: p.buffer, 3: a.out },
        params: params(a.N * d, g.params[1], 0, 0, 0, d, p.row0, p.rows),
        workgroups: g.workgroups,
      }),
    ),
  );
}

/**
 * dtable[tokens[t]] += dout[t] for t < N (the embedding's gradient). `tokens` are host values: positions are
 * grouped by token here (CSR), uploaded to `${label}` scratch, and each part adds the rows it holds.
 */
export async function embedRowsBackward(
  rt: GpuRuntime,
  a: { tokens: ArrayLike<number>; dout: Binding; dtable: RowSplitTable; label?: string },
): Promise<Dispatch[]> {
  const d = a.dtable.width;
  const byId = new Map<number, number[]>();
  for (let t = 0; t < a.tokens.length; t++) {
    const id = a.tokens[t];
    if (!Number.isInteger(id) || id < 0 || id >= a.dtable.rows) throw new Error(`embedRowsBackward: token ${id} is outside [0, ${a.dtable.rows})`);
    const list = byId.get(id);
    if (list) list.push(t);
    else byId.set(id, [t]);
  }
  const ids = [...byId.keys()].sort((x, y) => x - y);
  const offsets = [0];
  const positions: number[] = [];
  for (const id of ids) offsets.push(positions.push(...byId.get(id)!));
  const label = a.label ?? 'default';
  const put = (name: string, data: number[]) => {
    const buf = rt.buffer(`vocab.embgrad.${name}.${label}`, Math.max(1, data.length) * 4);
    rt.write(buf, Uint32Array.from(data));
    return buf;
  };
  const idBuf = put('ids', ids), offBuf = put('offsets', offsets), posBuf = put('positions', positions);
  const g = grid1d(rt, ids.length * d, WG);
  return Promise.all(
    a.dtable.parts.map((p) =>
      rt.dispatch({
        kernel: { shader: SHADER, entry: 'embed_rows_backward' },
        bindings: { 1: idBuf, 2: offBuf, 3: posBuf, 4: a.dout, 5: p.buffer },
        params: params(ids.length * d, g.params[1], 0, 0, 0, d, p.row0, p.rows),
        workgroups: g.workgroups,
      }),
    ),
  );
}

export interface VocabForwardArgs {
  /** [N, d] final hidden states. */
  hidden: Binding;
  /** [V, d]. */
  head: RowSplitTable;
  /** u32 [N]; 0xffffffff (or any id ≥ V) for none: logp NaN there. */
  targets: Binding;
  N: number;
  /** Requested head rows per chunk (rounded up by vocabChunkRows). */
  chunk: number;
  logp: Binding;
  entropy: Binding;
  lse: Binding;
  /** Names this call's scratch (logits block, state); calls with the same label share it. */
  label?: string;
  /** τ: the statistics are of softmax(z/τ) (default 1; the backward needs 1). */
  temperature?: number;
}

function invTemperature(t: number | undefined): number {
  const tau = t ?? 1;
  if (!(tau > 0) || !Number.isFinite(tau)) throw new Error(`vocab head: temperature must be a positive number, got ${tau}`);
  return 1 / tau;
}

/**
 * One pass over the head's chunks: each chunk's logits block [N, chunk] by matmul, then `entry` over it with the
 * first/last-chunk flags. The forward statistics and the sampler's second pass share it (same block and state).
 */
function chunkPass(
  rt: GpuRuntime,
  a: { hidden: Binding; head: RowSplitTable; N: number; chunk: number; temperature?: number; label: string },
  entry: string,
  bindings: Record<number, Binding>,
  seed = 0,
): Promise<Dispatch>[] {
  const d = a.head.width;
  const chunk = vocabChunkRows(a.chunk, d, a.N, bindingLimit(rt));
  const block = rt.buffer(`vocab.logits.${a.label}`, a.N * chunk * 4);
  const state = rt.buffer(`vocab.state.${a.label}`, a.N * 16);
  const g = grid1d(rt, a.N, WG);
  const list = chunks(a.head, chunk);
  const out: Promise<Dispatch>[] = [];
  list.forEach((c, i) => {
    const flags = (i === 0 ? FIRST : 0) | (i === list.length - 1 ? LAST : 0);
    out.push(matmul(rt, { a: a.hidden, b: c.slice, out: block, M: a.N, N: c.n, K: d, transA: false, transB: true, accumulate: false }));
    out.push(
      rt.dispatch({
        kernel: { shader: SHADER, entry },
        bindings: { 1: block, 3: state, ...bindings },
        params: params(a.N, g.params[1], c.n, c.c0, flags, 0, 0, 0, invTemperature(a.temperature), seed),
        workgroups: g.workgroups,
      }),
    );
  });
  return out;
}

/** logp, entropy and lse [N] of softmax(hidden · headᵀ), chunk by chunk. Dispatches to run in order. */
export async function vocabHeadForward(rt: GpuRuntime, a: VocabForwardArgs): Promise<Dispatch[]> {
  const label = a.label ?? 'default';
  return Promise.all(chunkPass(rt, { ...a, label }, 'vocab_stats_chunk', { 2: a.targets, 4: a.logp, 5: a.entropy, 6: a.lse }));
}

/**
 * Samples one token per row from softmax(hidden·headᵀ/τ) without [N, V] logits: the statistics pass (entropy,
 * lse), then a second pass over the same chunks, inverse-CDF with u = uniformAt(seed, row, state[0]) (the draw
 * of shaders/sampling.wgsl and src/model/reference/sampling.ts; no top-p). Writes sampled [N] (u32), the
 * sampled token's log-prob, the entropy and lse. Dispatches to run in order.
 */
export async function vocabHeadSample(
  rt: GpuRuntime,
  a: { hidden: Binding; head: RowSplitTable; N: number; chunk: number; temperature: number; seed: number; state: Binding; sampled: Binding; logp: Binding; entropy: Binding; lse: Binding; label?: string },
): Promise<Dispatch[]> {
  if (a.head.rows >= 2 ** 24) throw new Error(`vocabHeadSample: ${a.head.rows} vocabulary rows; the sampler keeps ids in f32, exact below 2^24`);
  const label = a.label ?? 'default';
  const none = rt.buffer(`vocab.notarget.${label}`, a.N * 4);
  rt.write(none, new Uint32Array(a.N).fill(0xffffffff));
  const stats = await vocabHeadForward(rt, { hidden: a.hidden, head: a.head, targets: none, N: a.N, chunk: a.chunk, logp: a.logp, entropy: a.entropy, lse: a.lse, label, temperature: a.temperature });
  const sample = chunkPass(rt, { ...a, label }, 'vocab_sample_chunk', { 4: a.logp, 6: a.lse, 7: a.state, 8: a.sampled }, a.seed);
  return [...stats, ...(await Promise.all(sample))];
}

export interface VocabBackwardArgs {
  hidden: Binding;
  head: RowSplitTable;
  targets: Binding;
  /** The forward's lse and entropy [N]. */
  lse: Binding;
  entropy: Binding;
  /** c_t and e_t [N]: L = Σ c_t·logp_t + Σ e_t·H_t. */
  coef: Binding;
  entCoef: Binding;
  /** [N, d]: written (accumulate false) or added to. */
  dhidden: Binding;
  /** Same split as head; always added to (parameter gradients accumulate). Omit for a frozen head. */
  dhead?: RowSplitTable;
  N: number;
  chunk: number;
  accumulate: boolean;
  label?: string;
}

/** dhidden (+)= ∂L/∂hidden and dhead += ∂L/∂head, recomputing each chunk's logits. Dispatches to run in order. */
export async function vocabHeadBackward(rt: GpuRuntime, a: VocabBackwardArgs): Promise<Dispatch[]> {
  const d = a.head.width;
  const chunk = vocabChunkRows(a.chunk, d, a.N, bindingLimit(rt));
  if (a.dhead && (a.dhead.parts.length !== a.head.parts.length || a.dhead.parts.some((p, i) => p.rows !== a.head.parts[i].rows))) {
    throw new Error('vocabHeadBackward: dhead is not split like head');
  }
  const label = a.label ?? 'default';
  const block = rt.buffer(`vocab.logits.${label}`, a.N * chunk * 4);
  const dblock = rt.buffer(`vocab.dlogits.${label}`, a.N * chunk * 4);
  const heads = chunks(a.head, chunk);
  const dheads = a.dhead ? chunks(a.dhead, chunk) : null;
  const out: Promise<Dispatch>[] = [];
  heads.forEach((c, i) => {
    const g = grid1d(rt, a.N * c.n, WG);
    out.push(matmul(rt, { a: a.hidden, b: c.slice, out: block, M: a.N, N: c.n, K: d, transA: false, transB: true, accumulate: false }));
    out.push(
      rt.dispatch({
        kernel: { shader: SHADER, entry: 'vocab_grad_chunk' },
        bindings: { 1: block, 2: a.targets, 3: a.lse, 4: a.entropy, 5: a.coef, 6: a.entCoef, 7: dblock },
        params: params(a.N * c.n, g.params[1], c.n, c.c0),
        workgroups: g.workgroups,
      }),
    );
    out.push(matmul(rt, { a: dblock, b: c.slice, out: a.dhidden, M: a.N, N: d, K: c.n, transA: false, transB: false, accumulate: a.accumulate || i > 0 }));
    if (dheads) out.push(matmul(rt, { a: dblock, b: a.hidden, out: dheads[i].slice, M: c.n, N: d, K: a.N, transA: true, transB: false, accumulate: true }));
  });
  return Promise.all(out);
}
