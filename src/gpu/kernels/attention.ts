/** Builders for shaders/attention.wgsl: causal multi-head attention forward, backward, and KV-cache decode. */
import { ceilDiv, f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';

const SHADER = 'attention.wgsl';
/**
 * Longest cache attentionDecode supports: the workgroup variant keeps a row of scores in workgroup
 * memory (MAX_T in shaders/attention.wgsl). The model's MAX_CONTEXT_LENGTH (src/model/config.ts) is this.
 */
export const ATTENTION_MAX_CONTEXT = 1024;
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

/**
 * Training kernels: 'vec4' reads q/k/v/dout as vec4f and sums 4 channels per att/dpre load (needs head size % 4 = 0;
 * ~2–4x faster on SwiftShader at B=16, T=64, C=64, H=4, and fewer loads on any adapter); 'scalar' works for every
 * head size. The default is 'vec4' where it applies.
 */
export type AttentionTrainVariant = 'scalar' | 'vec4';
export const ATTENTION_TRAIN_VARIANTS: readonly AttentionTrainVariant[] = ['scalar', 'vec4'];

function useVec4(hs: number, variant: AttentionTrainVariant | undefined, what: string): boolean {
  if (variant === undefined) return hs % 4 === 0;
  if (variant === 'vec4' && hs % 4 !== 0) throw new Error(`${what}: variant 'vec4' needs a head size divisible by 4, got ${hs}`);
  if (variant !== 'vec4' && variant !== 'scalar') throw new Error(`${what}: unknown variant "${String(variant)}"`);
  return variant === 'vec4';
}

/** Training forward: fused per (b, h, t) query row for short contexts (T ≤ 1024): scores, softmax, weighted sum of V. */
export function attentionForward(
  rt: GpuRuntime,
  a: { qkv: Binding; out: Binding; att: Binding; B: number; T: number; C: number; H: number; variant?: AttentionTrainVariant },
): Promise<Dispatch> {
  const vec4 = useVec4(headSize(a, 'attentionForward'), a.variant, 'attentionForward');
  const g = launch(rt, a, a.B * a.H * a.T);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: vec4 ? 'attention_forward_vec4' : 'attention_forward' },
    bindings: { 1: a.qkv, 2: a.out, 3: a.att },
    params: g.params,
    workgroups: g.workgroups,
    label: 'attention_forward',
  });
}

/** Training backward: dqkv (written, not accumulated) from dout, qkv and saved att. May use a scratch buffer [B·H·T·T] for d(pre-softmax scores). Returns dispatches to run in order. */
export async function attentionBackward(
  rt: GpuRuntime,
  a: {
    dout: Binding;
    qkv: Binding;
    att: Binding;
    dpreatt: Binding;
    dqkv: Binding;
    B: number;
    T: number;
    C: number;
    H: number;
    variant?: AttentionTrainVariant;
  },
): Promise<Dispatch[]> {
  const vec4 = useVec4(headSize(a, 'attentionBackward'), a.variant, 'attentionBackward');
  const rows = launch(rt, a, a.B * a.H * a.T);
  const elems = launch(rt, a, (a.B * a.T * a.C) / (vec4 ? 4 : 1));
  return Promise.all([
    rt.dispatch({
      kernel: { shader: SHADER, entry: vec4 ? 'attention_backward_scores_vec4' : 'attention_backward_scores' },
      bindings: { 1: a.dout, 2: a.qkv, 3: a.att, 4: a.dpreatt },
      params: rows.params,
      workgroups: rows.workgroups,
      label: 'attention_backward_scores',
    }),
    rt.dispatch({
      kernel: { shader: SHADER, entry: vec4 ? 'attention_backward_qkv_vec4' : 'attention_backward_qkv' },
      bindings: { 1: a.dout, 2: a.qkv, 3: a.att, 4: a.dpreatt, 5: a.dqkv },
      params: elems.params,
      workgroups: elems.workgroups,
      label: 'attention_backward_qkv',
    }),
  ]);
}

/** Decode kernels: 'workgroup' (one 64-thread workgroup per (b, h), scores in workgroup memory, 3 barriers) or 'threads' (one invocation per (b, h, 4 channels), no barriers). */
export type AttentionDecodeVariant = 'workgroup' | 'threads';
export const ATTENTION_DECODE_VARIANTS: readonly AttentionDecodeVariant[] = ['workgroup', 'threads'];
/** Output channels per invocation of the 'threads' variant (must equal DEC_CHUNK in the shader). */
const DEC_CHUNK = 4;

/**
 * The decode variant the builder picks by default. CPU adapters get the barrier-free one: on SwiftShader
 * (2 cores; Tmax 64, C 64, 4 heads, pos 63) it took ~1.2 ms vs ~19 ms at B=16 and ~18 ms vs ~180 ms at
 * B=128, because each barrier is a coroutine switch of all 64 invocations there. GPUs keep the workgroup variant, whose scores are shared.
 */
export function attentionDecodeVariant(isSoftwareAdapter: boolean): AttentionDecodeVariant {
  return isSoftwareAdapter ? 'threads' : 'workgroup';
}

/**
 * Incremental decoding with a KV cache, one new token per sequence. `state` is a u32 storage buffer whose word 0 is
 * the current position `pos` (the same for all B sequences; it is advanced on the GPU by another kernel between steps,
 * so this dispatch is recorded once and replayed for every position). qkv is [B × 3C] for the current token.
 * Writes k and v of the current token into kcache/vcache at [b, pos, :] (caches are [B × Tmax × C]),
 * then out[b, :] = causal attention of q over cache positions 0..pos.
 *
 * A step with pos ≥ Tmax writes nothing. Tmax is limited to ATTENTION_MAX_CONTEXT (the workgroup variant keeps scores
 * in workgroup memory). `variant` defaults to attentionDecodeVariant(rt.adapter.isSoftware).
 */
export function attentionDecode(
  rt: GpuRuntime,
  a: {
    qkv: Binding;
    kcache: Binding;
    vcache: Binding;
    out: Binding;
    state: Binding;
    B: number;
    Tmax: number;
    C: number;
    H: number;
    variant?: AttentionDecodeVariant;
  },
): Promise<Dispatch> {
  const shape = { B: a.B, T: a.Tmax, C: a.C, H: a.H };
  const hs = headSize(shape, 'attentionDecode');
  if (a.Tmax > ATTENTION_MAX_CONTEXT) throw new Error(`attentionDecode: Tmax=${a.Tmax} exceeds ATTENTION_MAX_CONTEXT=${ATTENTION_MAX_CONTEXT}`);
  const variant = a.variant ?? attentionDecodeVariant(rt.adapter.isSoftware);
  const bindings = { 1: a.qkv, 2: a.kcache, 3: a.vcache, 4: a.out, 5: a.state };
  if (variant === 'threads') {
    const g = launch(rt, shape, a.B * a.H * Math.ceil(hs / DEC_CHUNK));
    const entry = hs % DEC_CHUNK === 0 ? 'attention_decode_threads_vec4' : 'attention_decode_threads';
    return rt.dispatch({
      kernel: { shader: SHADER, entry },
      bindings,
      params: g.params,
      workgroups: g.workgroups,
      label: 'attention_decode_threads',
    });
  }
  if (variant !== 'workgroup') throw new Error(`attentionDecode: unknown variant "${String(variant)}"`);
  const max = rt.limits.maxComputeWorkgroupsPerDimension;
  if (a.B > max || a.H > max) throw new Error(`attentionDecode: B=${a.B} or H=${a.H} exceeds ${max} workgroups per dimension`);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'attention_decode' },
    bindings,
    // n and row_groups are unused: the grid is exactly (H, B) workgroups.
    params: [a.B, a.Tmax, a.C, a.H, hs, f32bits(1 / Math.sqrt(hs)), a.B * a.H, a.H],
    workgroups: [a.H, a.B],
    label: 'attention_decode',
  });
}
