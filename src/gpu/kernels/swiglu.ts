/** Builders for shaders/swiglu.wgsl: out = silu(gate) ⊙ up and its backward (dgate, dup written, not accumulated). */
import type { Binding, Dispatch, GpuRuntime } from '../runtime';
import { grid1d } from './elementwise';

const SHADER = 'swiglu.wgsl';
const WG = 256;

export function swigluForward(rt: GpuRuntime, a: { gate: Binding; up: Binding; out: Binding; n: number }): Promise<Dispatch> {
  const g = grid1d(rt, a.n, WG);
  return rt.dispatch({ kernel: { shader: SHADER, entry: 'swiglu_forward' }, bindings: { 1: a.gate, 2: a.up, 4: a.out }, params: g.params, workgroups: g.workgroups });
}

export function swigluBackward(rt: GpuRuntime, a: { gate: Binding; up: Binding; dout: Binding; dgate: Binding; dup: Binding; n: number }): Promise<Dispatch> {
  const g = grid1d(rt, a.n, WG);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'swiglu_backward' },
    bindings: { 1: a.gate, 2: a.up, 3: a.dout, 5: a.dgate, 6: a.dup },
    params: g.params,
    workgroups: g.workgroups,
  });
}
