/**
 * Builders for shaders/norm.wgsl: RMSNorm and LayerNorm (eps 1e-5 unless given, biased variance) forward
 * and backward. Forward saves rstd (and mean for LayerNorm) per row for the backward pass.
 *
 * The weight/bias gradient is a two-stage column reduction (no float atomics): per-chunk
 * partial sums into a scratch buffer, then one pass that adds them INTO dweight/dbias.
 * Scratch comes from `rt.buffer`: named `norm.partials.<label>` when a label is given,
 * otherwise shared by every normBackward of the same scratch size (`norm.partials.<floats>`).
 * Sharing is safe because dispatches run in submission order and each normBackward's
 * partials pass is immediately followed by its own finalize pass — keep its returned
 * dispatches together and in order (or give each call site its own label).
 */
import { ceilDiv, type Binding, type Dispatch, type GpuRuntime } from '../runtime';
import { grid1d } from './elementwise';

const SHADER = 'norm.wgsl';
const WG = 64;

export type NormKind = 'rmsnorm' | 'layernorm';

/** Uniform words in the order of norm.wgsl's Params. */
function params(rows: number, C: number, rowGroups: number, nChunks = 0, chunkRows = 0): number[] {
  return [rows, C, rowGroups, nChunks, chunkRows];
}

function need<T>(value: T | undefined, what: string, kind: NormKind): T {
  if (value === undefined) throw new Error(`${kind} needs ${what}`);
  return value;
}

/**
 * Rows per chunk of the weight-gradient reduction: about √rows so that both stages loop about
 * as long (rows up to ~100k → ~316 chunks of ~316 rows), at least 16 so small batches stay one
 * or two chunks.
 */
export function normChunkRows(rows: number): number {
  return Math.max(16, Math.ceil(Math.sqrt(rows)));
}

/** The ε the forward uses when none is given (the lab's own models). */
export const NORM_EPS = 1e-5;

/**
 * out = norm(inp)·weight (+ bias for layernorm); saves rstd[rows] (and mean[rows] for layernorm).
 * `eps` (default NORM_EPS) is an override constant: each value is its own pipeline. The backward reads
 * the saved rstd, so it needs no ε.
 */
export function normForward(
  rt: GpuRuntime,
  a: { kind: NormKind; inp: Binding; weight: Binding; bias?: Binding; out: Binding; mean?: Binding; rstd: Binding; rows: number; C: number; eps?: number },
): Promise<Dispatch> {
  const eps = a.eps ?? NORM_EPS;
  if (!(eps > 0) || !Number.isFinite(eps)) throw new Error(`${a.kind}: eps must be a positive number, got ${eps}`);
  const g = grid1d(rt, a.rows, WG);
  const bindings: Record<number, Binding> = { 1: a.inp, 2: a.weight, 4: a.out, 6: a.rstd };
  if (a.kind === 'layernorm') {
    bindings[3] = need(a.bias, 'a bias', a.kind);
    bindings[5] = need(a.mean, 'a mean buffer', a.kind);
  }
  return rt.dispatch({
    kernel: { shader: SHADER, entry: `${a.kind}_forward`, constants: eps === NORM_EPS ? undefined : { EPS: eps } },
    bindings,
    params: params(a.rows, a.C, g.params[1]),
    workgroups: g.workgroups,
  });
}

/**
 * dinp (+)= ∂/∂inp; dweight += Σ_rows …; dbias += Σ_rows dout (layernorm). Returns dispatches in order
 * (a row pass, then the two stages of the weight/bias reduction).
 * `label` (optional) names this call's scratch buffer; see the module comment.
 */
export async function normBackward(
  rt: GpuRuntime,
  a: {
    kind: NormKind;
    dout: Binding;
    inp: Binding;
    weight: Binding;
    mean?: Binding;
    rstd: Binding;
    dinp: Binding;
    dweight: Binding;
    dbias?: Binding;
    rows: number;
    C: number;
    accumulate: boolean;
    label?: string;
  },
): Promise<Dispatch[]> {
  const layer = a.kind === 'layernorm';
  const mean = layer ? need(a.mean, 'a mean buffer', a.kind) : undefined;
  const dbias = layer ? need(a.dbias, 'a dbias buffer', a.kind) : undefined;

  const rowGrid = grid1d(rt, a.rows, WG);
  const rowBindings: Record<number, Binding> = { 1: a.dout, 2: a.inp, 3: a.weight, 5: a.rstd, 6: a.dinp };
  if (mean) rowBindings[4] = mean;
  const rowPass = rt.dispatch({
    kernel: { shader: SHADER, entry: `${a.kind}_backward_rows`, constants: { ACCUMULATE: a.accumulate ? 1 : 0 } },
    bindings: rowBindings,
    params: params(a.rows, a.C, rowGrid.params[1]),
    workgroups: rowGrid.workgroups,
  });

  const chunkRows = normChunkRows(a.rows);
  const nChunks = Math.max(1, ceilDiv(a.rows, chunkRows));
  const partialFloats = (layer ? 2 : 1) * nChunks * a.C;
  const scratch = rt.buffer(`norm.partials.${a.label ?? partialFloats}`, partialFloats * 4);
  const partialGrid = grid1d(rt, nChunks * a.C, WG);
  const partialBindings: Record<number, Binding> = { 1: a.dout, 2: a.inp, 4: a.rstd, 5: scratch };
  if (mean) partialBindings[3] = mean;
  const partials = rt.dispatch({
    kernel: { shader: SHADER, entry: `${a.kind}_weight_partials` },
    bindings: partialBindings,
    params: params(a.rows, a.C, partialGrid.params[1], nChunks, chunkRows),
    workgroups: partialGrid.workgroups,
  });

  const colGrid = grid1d(rt, a.C, WG);
  const finalBindings: Record<number, Binding> = { 1: scratch, 2: a.dweight };
  if (dbias) finalBindings[3] = dbias;
  const finalize = rt.dispatch({
    kernel: { shader: SHADER, entry: `${a.kind}_weight_finalize` },
    bindings: finalBindings,
    params: params(a.rows, a.C, colGrid.params[1], nChunks, chunkRows),
    workgroups: colGrid.workgroups,
  });

  return Promise.all([rowPass, partials, finalize]);
}
