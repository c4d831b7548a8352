/**
 * Builders for shaders/gqa.wgsl: grouped-query causal attention (q [B·T, H, hd], k and v [B·T, Hkv, hd]),
 * training forward (saves att [B, H, T, T]) and backward (dq, dk, dv written, not accumulated; dk and dv
 * summed over the query heads of each kv head's group).
 */
import { ceilDiv, f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';

const SHADER = 'gqa.wgsl';
/** Must equal WG in the shader. */
const WG = 64;

export interface GqaDims {
  B: number;
  T: number;
  H: number;
  Hkv: number;
  hd: number;
}

function check(rt: GpuRuntime, s: GqaDims, what: string): void {
  for (const [k, v] of Object.entries({ B: s.B, T: s.T, H: s.H, Hkv: s.Hkv, hd: s.hd })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${what}: ${k} must be a positive integer, got ${v}`);
  }
  if (s.H % s.Hkv !== 0) throw new Error(`${what}: H=${s.H} query heads are not a multiple of Hkv=${s.Hkv} kv heads`);
  const attBytes = 4 * s.B * s.H * s.T * s.T;
  const limit = Math.min(rt.limits.maxStorageBufferBindingSize, rt.limits.maxBufferSize);
  if (attBytes > limit) throw new Error(`${what}: att [B=${s.B}, H=${s.H}, T=${s.T}, T] is ${attBytes} bytes, over this adapter's ${limit}-byte storage binding limit; use fewer sequences per batch`);
}

function launch(rt: GpuRuntime, s: GqaDims, n: number): { params: number[]; workgroups: [number, number] } {
  const groups = Math.max(1, ceilDiv(n, WG));
  const x = Math.min(groups, rt.limits.maxComputeWorkgroupsPerDimension);
  return { params: [s.B, s.T, s.H, s.Hkv, s.hd, f32bits(1 / Math.sqrt(s.hd)), n, x], workgroups: [x, ceilDiv(groups, x)] };
}

/** out [B·T, H, hd] and att [B, H, T, T] (the masked upper triangle written as 0). */
export function gqaForward(rt: GpuRuntime, a: GqaDims & { q: Binding; k: Binding; v: Binding; out: Binding; att: Binding }): Promise<Dispatch> {
  check(rt, a, 'gqaForward');
  const g = launch(rt, a, a.B * a.H * a.T);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'gqa_forward' },
    bindings: { 1: a.q, 2: a.k, 3: a.v, 4: a.out, 5: a.att },
    params: g.params,
    workgroups: g.workgroups,
    label: `gqa_forward ${a.B}x${a.T} H${a.H}/${a.Hkv} hd${a.hd}`,
  });
}

/** dq, dk, dv from dout and the forward's q, k, v, att; dpre [B, H, T, T] is scratch. Dispatches to run in order. */
export function gqaBackward(
  rt: GpuRuntime,
  a: GqaDims & { dout: Binding; q: Binding; k: Binding; v: Binding; att: Binding; dpre: Binding; dq: Binding; dk: Binding; dv: Binding },
): Promise<Dispatch[]> {
  check(rt, a, 'gqaBackward');
  const rows = launch(rt, a, a.B * a.H * a.T);
  const qElems = launch(rt, a, a.B * a.T * a.H * a.hd);
  const kvElems = launch(rt, a, a.B * a.T * a.Hkv * a.hd);
  return Promise.all([
    rt.dispatch({ kernel: { shader: SHADER, entry: 'gqa_backward_scores' }, bindings: { 1: a.dout, 2: a.v, 3: a.att, 4: a.dpre }, params: rows.params, workgroups: rows.workgroups }),
    rt.dispatch({ kernel: { shader: SHADER, entry: 'gqa_backward_dq' }, bindings: { 1: a.dpre, 2: a.k, 3: a.dq }, params: qElems.params, workgroups: qElems.workgroups }),
    rt.dispatch({
      kernel: { shader: SHADER, entry: 'gqa_backward_dkv' },
      bindings: { 1: a.dpre, 2: a.att, 3: a.q, 4: a.dout, 5: a.dk, 6: a.dv },
      params: kvElems.params,
      workgroups: kvElems.workgroups,
    }),
  ]);
}

/**
 * Decoding one token per sequence with a KV cache ([B, Tmax, Hkv, hd] each) at position pos = state[0] (a u32
 * storage word, so the recorded dispatches replay at every position): stores the new token's k and v
 * ([B, Hkv, hd], after RoPE) at [b, pos], then out [B, H, hd] = causal attention of q [B, H, hd] over
 * positions 0 … pos. `scores` is scratch [B, H, Tmax]. Dispatches to run in order.
 */
export function gqaDecode(
  rt: GpuRuntime,
  a: { B: number; Tmax: number; H: number; Hkv: number; hd: number; q: Binding; k: Binding; v: Binding; kcache: Binding; vcache: Binding; out: Binding; scores: Binding; state: Binding },
): Promise<Dispatch[]> {
  const s = { B: a.B, T: a.Tmax, H: a.H, Hkv: a.Hkv, hd: a.hd };
  check(rt, { ...s, T: 1 }, 'gqaDecode');
  if (!Number.isInteger(a.Tmax) || a.Tmax < 1) throw new Error(`gqaDecode: Tmax must be a positive integer, got ${a.Tmax}`);
  const write = launch(rt, s, a.B * a.Hkv * a.hd);
  const rows = launch(rt, s, a.B * a.H);
  return Promise.all([
    rt.dispatch({ kernel: { shader: SHADER, entry: 'gqa_cache_write' }, bindings: { 1: a.k, 2: a.v, 3: a.kcache, 4: a.vcache, 6: a.state }, params: write.params, workgroups: write.workgroups }),
    rt.dispatch({ kernel: { shader: SHADER, entry: 'gqa_decode' }, bindings: { 1: a.q, 2: a.kcache, 3: a.vcache, 4: a.out, 5: a.scores, 6: a.state }, params: rows.params, workgroups: rows.workgroups }),
  ]);
}
