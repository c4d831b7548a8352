/**
 * Builders for shaders/embedding.wgsl: token + position embeddings, forward for training and
 * for KV-cache decoding, and the gather-form backward (parameter gradients accumulate).
 *
 * Tokens are a u32 buffer of sequences stored in rows of `tokenStride` (≥ T) tokens. A token
 * id ≥ V contributes a zero token embedding and is skipped by the backward pass; it never
 * reads out of range. The forward builders are not told V: the kernels take wte's row count
 * (and wpe's, for decoding) from the binding size, so bind wte as exactly V·C floats and wpe as
 * exactly (context length)·C floats (slices of the flat parameter buffer are) — a larger binding
 * only widens what counts as in range.
 */
import type { Binding, Dispatch, GpuRuntime } from '../runtime';
import { grid1d } from './elementwise';

const SHADER = 'embedding.wgsl';
const WG = 256;

/** Uniform words in the order of embedding.wgsl's Params. */
function params(B: number, T: number, C: number, tokenStride: number, rowGroups: number, V = 0): number[] {
  return [B, T, C, tokenStride, rowGroups, V];
}

function checkStride(T: number, tokenStride: number): void {
  if (tokenStride < T) throw new Error(`tokenStride ${tokenStride} must be ≥ T ${T}`);
}

/** Training: out[b·T + t] = wte[tokens[b·tokenStride + t]] + wpe[t], t < T. tokens is a u32 buffer. */
export function encoderForward(
  rt: GpuRuntime,
  a: { tokens: Binding; wte: Binding; wpe: Binding; out: Binding; B: number; T: number; C: number; tokenStride: number },
): Promise<Dispatch> {
  checkStride(a.T, a.tokenStride);
  const g = grid1d(rt, a.B * a.T * a.C, WG);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'encoder_forward' },
    bindings: { 1: a.tokens, 2: a.wte, 3: a.wpe, 4: a.out },
    params: params(a.B, a.T, a.C, a.tokenStride, g.params[1]),
    workgroups: g.workgroups,
  });
}

/**
 * Decoding with a KV cache: pos = state[0] (u32 storage buffer, advanced on the GPU between steps,
 * so this dispatch is replayed for every position); out[b] = wte[tokens[b·tokenStride + pos]] + wpe[pos].
 * A position ≥ tokenStride reads no token; one past wpe's rows adds no position embedding.
 */
export function encoderDecode(
  rt: GpuRuntime,
  a: { tokens: Binding; wte: Binding; wpe: Binding; out: Binding; state: Binding; B: number; C: number; tokenStride: number },
): Promise<Dispatch> {
  const g = grid1d(rt, a.B * a.C, WG);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'encoder_decode' },
    bindings: { 1: a.tokens, 2: a.wte, 3: a.wpe, 4: a.out, 5: a.state },
    params: params(a.B, 1, a.C, a.tokenStride, g.params[1]),
    workgroups: g.workgroups,
  });
}

/**
 * dwte[v] += Σ over positions whose token is v of dout; dwpe[t] += Σ_b dout[b, t]. Gather form
 * (no atomics): one invocation per (v, c) looping over B·T positions, and one per (t, c) looping
 * over B. Returns the two (independent) dispatches.
 */
export function encoderBackward(
  rt: GpuRuntime,
  a: { dout: Binding; tokens: Binding; dwte: Binding; dwpe: Binding; B: number; T: number; C: number; V: number; tokenStride: number },
): Promise<Dispatch[]> {
  checkStride(a.T, a.tokenStride);
  const wteGrid = grid1d(rt, a.V * a.C, WG);
  const wpeGrid = grid1d(rt, a.T * a.C, WG);
  return Promise.all([
    rt.dispatch({
      kernel: { shader: SHADER, entry: 'encoder_backward_wte' },
      bindings: { 1: a.dout, 2: a.tokens, 3: a.dwte },
      params: params(a.B, a.T, a.C, a.tokenStride, wteGrid.params[1], a.V),
      workgroups: wteGrid.workgroups,
    }),
    rt.dispatch({
      kernel: { shader: SHADER, entry: 'encoder_backward_wpe' },
      bindings: { 1: a.dout, 4: a.dwpe },
      params: params(a.B, a.T, a.C, a.tokenStride, wpeGrid.params[1], a.V),
      workgroups: wpeGrid.workgroups,
    }),
  ]);
}
