/** Builders for shaders/attention.wgsl: causal multi-head attention forward, backward, and KV-cache decode. */
import { MAX_CONTEXT_LENGTH } from '../../model/config';
import { ceilDiv, f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';

const SHADER = 'attention.wgsl';
/** Must equal WG in the shader. */
const WG = 64;

interface Shape {
  B: number;
  T: number;
  C: number;
  H: number;
}

function headSize(s: Shape, what: string): number {
  const { B, T, C, H } = s;
  for (const [k, v] of Object.entries({ B, T, C, H })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${what}: ${k} must be a positive integer, got ${v}`);
  }
  if (C % H !== 0) throw new Error(`${what}: C=${C} is not divisible by H=${H}`);
  const hs = C / H;
  if (hs > 256) throw new Error(`${what}: head size ${hs} exceeds 256`);
  return hs;
}

/** Uniform words matching the shader's Params, with n invocations folded into a 2-D grid. */
function launch(rt: GpuRuntime, s: Shape, n: number): { params: number[]; workgroups: [number, number] } {
  const hs = s.C / s.H;
  const groups = Math.max(1, ceilDiv(n, WG));
  const x = Math.min(groups, rt.limits.maxComputeWorkgroupsPerDimension);
  const y = ceilDiv(groups, x);
  return { params: [s.B, s.T, s.C, s.H, hs, f32bits(1 / Math.sqrt(hs)), n, x], workgroups: [x, y] };
}

/** Training forward: fused per (b, h, t) query row for short contexts (T ≤ 1024): scores, softmax, weighted sum of V. */
export function attentionForward(
  rt: GpuRuntime,
  a: { qkv: Binding; out: Binding; att: Binding; B: number; T: number; C: number; H: number },
): Promise<Dispatch> {
  headSize(a, 'attentionForward');
  const g = launch(rt, a, a.B * a.H * a.T);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'attention_forward' },
    bindings: { 1: a.qkv, 2: a.out, 3: a.att },
    params: g.params,
    workgroups: g.workgroups,
    label: 'attention_forward',
  });
}

/** Training backward: dqkv (written, not accumulated) from dout, qkv and saved att. May use a scratch buffer [B·H·T·T] for d(pre-softmax scores). Returns dispatches to run in order. */
export async function attentionBackward(
  rt: GpuRuntime,
  a: { dout: Binding; qkv: Binding; att: Binding; dpreatt: Binding; dqkv: Binding; B: number; T: number; C: number; H: number },
): Promise<Dispatch[]> {
  headSize(a, 'attentionBackward');
  const rows = launch(rt, a, a.B * a.H * a.T);
  const elems = launch(rt, a, a.B * a.T * a.C);
  return Promise.all([
    rt.dispatch({
      kernel: { shader: SHADER, entry: 'attention_backward_scores' },
      bindings: { 1: a.dout, 2: a.qkv, 3: a.att, 4: a.dpreatt },
      params: rows.params,
      workgroups: rows.workgroups,
      label: 'attention_backward_scores',
    }),
    rt.dispatch({
      kernel: { shader: SHADER, entry: 'attention_backward_qkv' },
      bindings: { 1: a.dout, 2: a.qkv, 3: a.att, 4: a.dpreatt, 5: a.dqkv },
      params: elems.params,
      workgroups: elems.workgroups,
      label: 'attention_backward_qkv',
    }),
  ]);
}

/**
 * Incremental decoding with a KV cache, one new token per sequence. `state` is a u32 storage buffer whose word 0 is
 * the current position `pos` (the same for all B sequences; it is advanced on the GPU by another kernel between steps,
 * so this dispatch is recorded once and replayed for every position). qkv is [B × 3C] for the current token.
 * Writes k and v of the current token into kcache/vcache at [b, pos, :] (caches are [B × Tmax × C]),
 * then out[b, :] = causal attention of q over cache positions 0..pos.
 *
 * A step with pos ≥ Tmax writes nothing. Tmax is limited to MAX_CONTEXT_LENGTH (scores live in workgroup memory).
 */
export function attentionDecode(
  rt: GpuRuntime,
  a: { qkv: Binding; kcache: Binding; vcache: Binding; out: Binding; state: Binding; B: number; Tmax: number; C: number; H: number },
): Promise<Dispatch> {
  const shape = { B: a.B, T: a.Tmax, C: a.C, H: a.H };
  const hs = headSize(shape, 'attentionDecode');
  if (a.Tmax > MAX_CONTEXT_LENGTH) throw new Error(`attentionDecode: Tmax=${a.Tmax} exceeds MAX_CONTEXT_LENGTH=${MAX_CONTEXT_LENGTH}`);
  const max = rt.limits.maxComputeWorkgroupsPerDimension;
  if (a.B > max || a.H > max) throw new Error(`attentionDecode: B=${a.B} or H=${a.H} exceeds ${max} workgroups per dimension`);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'attention_decode' },
    bindings: { 1: a.qkv, 2: a.kcache, 3: a.vcache, 4: a.out, 5: a.state },
    // n and row_groups are unused: the grid is exactly (H, B) workgroups.
    params: [a.B, a.Tmax, a.C, a.H, hs, f32bits(1 / Math.sqrt(hs)), a.B * a.H, a.H],
    workgroups: [a.H, a.B],
    label: 'attention_decode',
  });
}
